#!/usr/bin/env bash
# Best effort: install zsh and fish so tests/test_docs.py can check the generated completion
# scripts with them. Never fails CI: without a shell, those tests skip and say why.
set -u

missing=()
for shell in zsh fish jq; do
    command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

say() { echo "install-shells: $*" >&2; }

if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get; not installing ${missing[*]} (their tests will skip)"
    exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo=(sudo -n)
    else
        say "not root and no passwordless sudo; not installing ${missing[*]}"
        exit 0
    fi
fi
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
if command -v timeout >/dev/null 2>&1; then
    apt=(timeout 600 "${apt[@]}")
fi
if "${apt[@]}" update -qq && "${apt[@]}" install -y -qq "${missing[@]}"; then
    say "installed ${missing[*]}"
else
    say "could not install ${missing[*]} (their tests will skip)"
fi
exit 0
