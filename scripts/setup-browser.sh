#!/usr/bin/env bash
# Headless Chromium for the review page's browser test (tests/test_review.py renders the HTML review of a
# real migration and takes a screenshot). Installed from the Debian packages where the tests run as root
# with apt-get (CI); elsewhere, or when the install fails, the test skips and says why. Never fails the run.
set -uo pipefail
for name in chromium-headless-shell chromium chromium-browser google-chrome; do
  command -v "$name" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: no chromium and no root apt-get here; the browser test will skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine: update once, then try again.
{ apt-get install -y -q chromium || { apt-get update -q && apt-get install -y -q chromium; }; } >/tmp/setup-browser.log 2>&1 \
  || echo "setup-browser: apt-get install chromium failed (log: /tmp/setup-browser.log); the browser test will skip" >&2
exit 0
