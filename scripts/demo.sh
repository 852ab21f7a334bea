#!/usr/bin/env bash
# Set up (if needed) and migrate the bundled example: prints the diff and the findings.
# The demo only migrates, so its setup installs only the package with libcst and nbformat
# (scripts/setup-venv.sh demo); scripts/test.sh installs DALI and the frameworks the tests run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh demo
. .venv/bin/activate
set +e
dali-migrate migrate examples/
code=$?
set -e
echo "dali-migrate exited with $code (0 nothing to do, 1 changes pending or manual follow-ups, 2 errors)"
[ "$code" -le 1 ]
