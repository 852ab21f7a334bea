"""The block runner behind the skill: each claim form holds when true and fails when false."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dali_migrate import skill_doc

ROOT = Path(__file__).resolve().parent.parent
FENCE = "```"


def doc(*blocks: str, lang: str = "python") -> str:
    body = "\n\n".join(f"{FENCE}{lang}\n{b.strip()}\n{FENCE}" for b in blocks)
    return f"# Title\n\n## Section\n\n{body}\n"


def run(text: str, tmp_path: Path, **kw) -> skill_doc.SectionResult:
    (section,) = [s for s in skill_doc.parse(text) if s.runnable]
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        return skill_doc.run_section(section, {"answer": 42}, **kw)
    finally:
        os.chdir(here)


def test_true_claims_hold_and_are_counted(tmp_path):
    text = doc(
        "x = answer + 1\nassert x == 43\nx  # -> 43\n{}['k']  # raises: KeyError: k",
        "x  # -> 43   (the namespace is shared within a section)\nnp.arange(3)  # -> [0, 1, 2]",
    )
    result = run(text, tmp_path)
    assert (result.claims, result.blocks_run) == (5, 2)


@pytest.mark.parametrize("block,message", [
    ("1 / 1  # raises: ZeroDivisionError", "raised nothing"),
    ("1 / 0  # raises: KeyError", "raised ZeroDivisionError"),
    ("1 / 0  # raises: ZeroDivisionError: modulo", "says 'modulo'"),
    ("answer  # -> 41", "the value is 42"),
    ("assert answer == 41", "an assertion does not hold: assert answer == 41"),
    ("for i in range(3):\n    assert i < 2", "SKILL.md:7:"),
    ("undefined_name", "NameError"),
    ("x = 1  # -> 1", "needs an expression"),
])
def test_false_claims_fail_with_their_document_line(block, message, tmp_path):
    with pytest.raises(skill_doc.ClaimFailed) as failure:
        run(doc(block), tmp_path)
    assert message in str(failure.value)
    assert "SKILL.md:" in str(failure.value) and "[Section]" in str(failure.value)


def test_subclass_of_the_claimed_exception_counts(tmp_path):
    assert run(doc("[][1]  # raises: LookupError"), tmp_path).claims == 1


def test_gpu_blocks_are_mapped_to_cpu_and_reported(tmp_path):
    text = doc('# device: gpu\nd = "gpu"\nd  # -> "cpu"\nstr(ndd.as_tensor(1).gpu().device)  # -> "cpu"')
    result = run(text, tmp_path, map_gpu=True)
    assert result.gpu_mapped == [6]  # the block's first line in the document
    assert result.claims == 2
    with pytest.raises(skill_doc.ClaimFailed):  # unmapped, the claim is false
        run(text, tmp_path, map_gpu=False)


def test_illustrative_blocks_do_not_run_and_file_blocks_are_written(tmp_path):
    text = doc("# illustrative: not runnable here\nraise SystemExit") + (
        f"\n{FENCE}python file=mod.py\nVALUE = 7\n{FENCE}\n\n{FENCE}python\nimport runpy\n"
        f"runpy.run_path('mod.py')['VALUE']  # -> 7\n{FENCE}\n")
    result = run(text, tmp_path)
    assert (result.claims, result.blocks_run) == (1, 1)
    assert (tmp_path / "mod.py").read_text() == "VALUE = 7\n"


def test_bash_blocks_check_exit_status(tmp_path):
    good = doc("true\nfalse  # exit: 1\nfalse  # exit: 0|1\ndali-migrate --version", lang="bash")
    assert run(good, tmp_path).claims == 4
    with pytest.raises(skill_doc.ClaimFailed, match="exited 1, claimed 0"):
        run(doc("false", lang="bash"), tmp_path)


def test_sections_start_with_a_fresh_namespace(tmp_path):
    text = "## One\n\n```python\nx = 1\n```\n\n### Sub\n\n```python\nx  # -> 1\n```\n\n## Two\n\n```python\nx\n```\n"
    one, two = [s for s in skill_doc.parse(text) if s.runnable]
    assert [len(one.blocks), len(two.blocks)] == [2, 1]
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert skill_doc.run_section(one, {}).claims == 1
        with pytest.raises(skill_doc.ClaimFailed, match="NameError"):
            skill_doc.run_section(two, {})
    finally:
        os.chdir(here)


def _cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "dali_migrate", "skill", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_prints_and_installs_the_skill(tmp_path):
    printed = _cli()
    assert printed.returncode == 0
    assert printed.stdout == (ROOT / "skills" / "dali-dynamic-mode" / "SKILL.md").read_text(encoding="utf-8")
    installed = _cli("--install", str(tmp_path / "agent-skills"))
    assert installed.returncode == 0, installed.stderr
    assert (tmp_path / "agent-skills" / "dali-dynamic-mode" / "SKILL.md").read_text(encoding="utf-8") == printed.stdout
    again = _cli("--install", str(tmp_path / "agent-skills"))  # installing twice replaces our files
    assert again.returncode == 0


def test_cli_install_into_a_file_is_an_error(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    done = _cli("--install", str(blocker))
    assert done.returncode == 2
    assert "cannot install" in done.stderr and "Traceback" not in done.stderr


def test_remarks_after_claims_are_not_part_of_them(tmp_path):
    text = doc("1 / 0  # raises: ZeroDivisionError   (a remark)\nanswer  # -> 42   (another)")
    assert run(text, tmp_path).claims == 2
    with pytest.raises(skill_doc.ClaimFailed, match="raised nothing"):  # a remark does not hide a claim
        run(doc("1 / 1  # raises: ZeroDivisionError   (a remark)"), tmp_path)


def test_blocks_that_need_a_missing_module_are_skipped_and_reported(tmp_path):
    text = doc("# requires: no_such_module_here\nraise SystemExit", "# requires: json\nimport json\njson.dumps(1)  # -> '1'")
    result = run(text, tmp_path)
    assert result.skipped == [(6, "no_such_module_here")]
    assert (result.claims, result.blocks_run) == (1, 1)


def test_device_and_requires_may_share_the_header(tmp_path):
    text = doc('# requires: json\n# device: gpu\nd = "gpu"\nd  # -> "cpu"')
    (section,) = [s for s in skill_doc.parse(text) if s.runnable]
    assert section.blocks[0].gpu and section.blocks[0].requires == ["json"]
    assert run(text, tmp_path, map_gpu=True).gpu_mapped == [6]
