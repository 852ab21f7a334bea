"""nose2 plugin (``--plugin dali_suite_nose2``): one outcome per test id, streamed (dali_suite_outcome)."""

import traceback

from nose2 import events, result

from dali_suite_outcome import record


class DaliSuiteReport(events.Plugin):
    alwaysOn = True
    configSection = "dali-suite-report"
    commandLineSwitch = None

    def testOutcome(self, event):
        test_id, _, args = event.test.id().partition("\n")  # a generator case: "module.test:k\nargs, ..."
        if "." in test_id:  # module.test_name:k or module.Class.test -> test_name:k / Class.test
            test_id = test_id.split(".", 1)[1]
        if event.outcome == result.PASS and not event.expected:
            outcome = "failed"  # an unexpected success
        elif event.outcome == result.FAIL and event.expected:
            outcome = "passed"  # an expected failure
        else:
            outcome = {result.PASS: "passed", result.SKIP: "skipped", result.FAIL: "failed",
                       result.ERROR: "error"}.get(event.outcome, event.outcome)
        detail = "".join(traceback.format_exception(*event.exc_info)) if event.exc_info else (event.reason or "")
        record(test_id, outcome, detail, args)
