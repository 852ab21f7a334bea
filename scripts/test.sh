#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite; arguments go to pytest:
#   bash scripts/test.sh -m "not slow"      the inner loop: leaves out the tests marked slow (tests/conftest.py)
#   bash scripts/test.sh tests/test_golden.py
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh
bash scripts/setup-browser.sh  # headless Chromium for the review page's browser test (apt-get, as root)
. .venv/bin/activate
export DALI_NUM_THREADS=${DALI_NUM_THREADS:-2}
# Two workers (pytest-xdist): the golden programs and runtime tests run DALI in subprocesses, and one worker per
# core halves the run (14 minutes instead of 26 on the 2-core CI machine). -n 0 runs in one process.
python -m pytest -q -n "${DALI_MIGRATE_TEST_WORKERS:-2}" "$@"
