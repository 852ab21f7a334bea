#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh
. .venv/bin/activate
export DALI_NUM_THREADS=${DALI_NUM_THREADS:-2}
python -m pytest -q "$@"
