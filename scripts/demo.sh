#!/usr/bin/env bash
# Set up a virtualenv, import the bundled sample state dir into ./demo-state, index it and search.
#   bash scripts/demo.sh [QUERY]        (default query: deploy)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${VENV:-.venv}
if [ -z "${OPENCLAW_SESSIONS_DEMO_SKIP_INSTALL:-}" ]; then
    [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q .
fi
export OPENCLAW_STATE_DIR="${OPENCLAW_STATE_DIR:-$PWD/demo-state}"
"$VENV/bin/openclaw-sessions" import sample/state --reindex
"$VENV/bin/openclaw-sessions" search "${1:-deploy}"
