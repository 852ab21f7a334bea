"""Every DM3xx rule's documented examples are its tests: ``before`` triggers exactly that rule at
the documented line, ``after`` is clean, and a rule with a fix turns ``before`` into ``after``."""

import pytest

from dali_migrate.findings import RULES
from dali_migrate.lint import lint_source
from dali_migrate.lint.core import example_line

# Fixed in BRIEF.md so that the skill and the linter agree.
EXPECTED = {
    "DM301": "mixed-device", "DM302": "batch-subscript", "DM303": "batch-len", "DM304": "select-for-slice",
    "DM305": "select-with-slice", "DM306": "asarray-batch", "DM307": "if-on-batch", "DM308": "reader-in-loop",
    "DM309": "reader-batch-size", "DM310": "lowercase-reader", "DM311": "break-next-epoch",
    "DM312": "random-without-batch-size", "DM313": "seed-and-rng", "DM314": "evaluate-every-op",
    "DM315": "cpu-before-torch", "DM316": "checkpoint-register-late", "DM317": "restore-without-checkpointing",
    "DM318": "compile-vs-capture", "DM319": "metadata-before-epoch", "DM320": "pipeline-api-on-dynamic-value",
}
LINT_RULES = sorted(r for r in RULES if r.startswith("DM3"))


def test_rule_ids_and_names_are_the_agreed_ones():
    assert {r: RULES[r].name for r in LINT_RULES} == EXPECTED


@pytest.mark.parametrize("rule_id", LINT_RULES)
def test_rule_is_documented(rule_id):
    r = RULES[rule_id]
    assert r.summary and r.why and r.before and r.after
    if r.fix == "manual":
        assert r.suggestion, "a manual rule says what a person should do"


@pytest.mark.parametrize("rule_id", LINT_RULES)
def test_before_triggers_exactly_this_rule(rule_id):
    r = RULES[rule_id]
    result = lint_source(r.before, "before.py")
    assert result.error is None
    assert {f.rule for f in result.findings} == {rule_id}, [f.format() for f in result.findings]
    assert example_line(rule_id) in {f.line for f in result.findings}
    assert all(f.path == "before.py" and f.message for f in result.findings)


@pytest.mark.parametrize("rule_id", LINT_RULES)
def test_after_is_clean(rule_id):
    result = lint_source(RULES[rule_id].after, "after.py")
    assert result.error is None
    assert result.findings == [], [f.format() for f in result.findings]


@pytest.mark.parametrize("rule_id", LINT_RULES)
def test_fix_turns_before_into_after(rule_id):
    r = RULES[rule_id]
    safe = lint_source(r.before, "before.py", fix=True)
    unsafe = lint_source(r.before, "before.py", fix=True, unsafe_fixes=True)
    if r.fix == "safe":
        assert safe.text == r.after
        assert safe.findings == [] and {f.rule for f in safe.fixed} == {rule_id}
    elif r.fix == "unsafe":
        assert safe.text == r.before, "an unsafe fix is never applied by plain --fix"
        assert unsafe.text == r.after
    else:
        assert safe.text == unsafe.text == r.before


def test_docs_list_every_rule():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "lint.md").read_text()
    for rule_id in LINT_RULES:
        assert f"| {rule_id} | {RULES[rule_id].name} | {RULES[rule_id].severity} | {RULES[rule_id].fix} |" in doc
