"""pytest plugin (``-p dali_suite_pytest``): one outcome per test id, streamed (dali_suite_outcome)."""

from dali_suite_outcome import record

_state = {}


def _test_id(nodeid: str) -> str:
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


def pytest_runtest_logreport(report):
    state = _state.setdefault(report.nodeid, {"outcome": "passed", "detail": ""})
    if report.failed and state["outcome"] not in ("failed", "error"):
        # a failure in setup or teardown is an error, in the call a failure (pytest's own words)
        state["outcome"] = "failed" if report.when == "call" else "error"
        state["detail"] = report.longreprtext
    elif report.skipped and state["outcome"] == "passed":
        state["outcome"] = "skipped"
    if report.when == "teardown":
        del _state[report.nodeid]
        record(_test_id(report.nodeid), state["outcome"], state["detail"])


def pytest_collectreport(report):
    if report.failed:
        record(f"<collection {report.nodeid}>", "error", report.longreprtext)
