"""docs/rules.md is generated from the rule declarations; it must not be stale, and every rule
must carry the documentation the generator renders."""

from dali_migrate import rules_doc
from dali_migrate.findings import all_rules


def test_rules_doc_is_current():
    on_disk = rules_doc.DOC_PATH.read_text(encoding="utf-8") if rules_doc.DOC_PATH.exists() else ""
    assert on_disk == rules_doc.render(), "docs/rules.md is stale: run python -m dali_migrate.rules_doc"


def test_every_rule_is_documented():
    rules = all_rules()
    assert rules
    for r in rules.values():
        assert r.summary.strip() and r.why.strip(), f"{r.id}: summary and why are required"
        if not r.id.startswith("DM0"):  # engine errors have no code to show
            assert r.before.strip() and r.after.strip(), f"{r.id}: a before/after example is required"
        if r.fix == "manual":
            assert r.suggestion.strip(), f"{r.id}: a manual rule must say what a person should do"


def test_doc_names_every_rule_once_with_its_example():
    text = rules_doc.render()
    for r in all_rules().values():
        assert text.count(f"### {r.id} {r.name}\n") == 1
        assert f"(#{rules_doc.anchor(r)})" in text
        if r.before:
            assert r.before.rstrip("\n") in text


def test_check_mode_reports_stale(tmp_path):
    out = tmp_path / "rules.md"
    assert rules_doc.main(["--check", "--output", str(out)]) == 1
    assert rules_doc.main(["--output", str(out)]) == 0
    assert rules_doc.main(["--check", "--output", str(out)]) == 0
    out.write_text(out.read_text() + "edited\n")
    assert rules_doc.main(["--check", "--output", str(out)]) == 1
