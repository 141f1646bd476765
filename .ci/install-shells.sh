#!/usr/bin/env bash
# Best effort: the shells and fzf that the completion-syntax and README-recipe tests use.
# The tests skip, with their reason, whatever is still missing.
set -u
need=()
for cmd in zsh fish fzf; do command -v "$cmd" >/dev/null 2>&1 || need+=("$cmd"); done
[ ${#need[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null 2>&1 || exit 0
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
export DEBIAN_FRONTEND=noninteractive
timeout 300 $SUDO apt-get install -y -q "${need[@]}" >/dev/null 2>&1 \
  || { timeout 300 $SUDO apt-get update -q >/dev/null 2>&1 \
       && timeout 300 $SUDO apt-get install -y -q "${need[@]}" >/dev/null 2>&1; } || true
