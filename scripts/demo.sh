#!/usr/bin/env bash
# Set up a virtualenv, import the bundled sample state dir into ./demo-state, index it and search.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q .
export OPENCLAW_STATE_DIR="$PWD/demo-state"
.venv/bin/openclaw-sessions import sample/state --reindex
.venv/bin/openclaw-sessions search "${1:-deploy}"
