#!/usr/bin/env bash
# Set up a virtualenv from the repo's own files and run the whole test suite.
# pytest's exit 5 ("no tests collected") counts as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip "setuptools>=77" >/dev/null
.venv/bin/python -m pip install -q -e ".[test]"
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi
exit "$rc"
