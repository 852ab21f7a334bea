"""One line of JSON per finished test, appended to the file named by DALI_SUITE_RESULTS.

Shared by the pytest and nose2 reporters of benchmarks/dali_suite: written as each test ends, so the
results of a file that runs past its time limit (and is killed) are kept up to the test that hung.
"""

import json
import os
import re

_NOT_EXCEPTION = ("Traceback", "During handling", "The above exception")
_PYTEST_ERROR = re.compile(r"^E\s+(\S.*)$")


def first_error_line(text: str) -> str:
    """The first exception line ("Type: message") of a traceback; with chained exceptions the first one
    printed, the one the later ones arose from. pytest's report marks them ``E   ``."""
    lines = (text or "").splitlines()
    for line in lines:
        match = _PYTEST_ERROR.match(line)
        if match:
            return match.group(1).strip()[:300]
    for line in lines:
        if line and not line[0].isspace() and not line.startswith(_NOT_EXCEPTION):
            return line.strip()[:300]
    return (lines[-1].strip() if lines else "")[:300]


def record(test_id: str, outcome: str, detail: str = "", args: str = "") -> None:
    """``args``: a nose2 generator case's arguments as nose2 names them (the first 79 characters of their
    reprs), to tell which case ``test:k`` is."""
    path = os.environ.get("DALI_SUITE_RESULTS")
    if not path:
        return
    entry = {"id": test_id, "outcome": outcome}
    if args:
        entry["args"] = args
    if outcome in ("failed", "error"):
        entry["error"] = first_error_line(detail)
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
