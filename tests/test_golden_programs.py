"""The golden programs (golden/runnable/<case>/, issue 14): each small project is copied, migrated with the
project-wide API, and run in both modes on the CPU on generated data (harness.programs.verify_program,
driven by benchmarks/programs.py, which also prints the table). A case passes only when:

* its outcome is ``equal`` (no marker, same output), ``marked-equal`` (markers, same output) or
  ``marked-different`` (the only lines that differ are the ones its case.json says the random ops may
  change, and the migration reported the rules it names), and it is the outcome case.json expects;
* no migrated file without a marker still uses pipeline-mode API (no silent, incomplete migration);
* a second migration of the written copy changes nothing.

A crash, a hang, a silent difference, an unmarked leftover or an outcome short of the expected one fails. The
cases today's tool breaks, or leaves short of their ideal, carry ``xfail`` in their case.json (strict: when the tool is fixed, the XPASS fails until the reason is removed).
"""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from programs import LEFT, RUNNABLE, case_folders, code_only, load_case, run_case  # noqa: E402
from runtime import make_program_data  # noqa: E402

FOLDERS = case_folders()
PLACEHOLDERS = {"images", "numpy", "filelist"}


def _param(folder: Path):
    case = load_case(folder)
    marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if case.get("xfail") else []
    return pytest.param(folder, id=folder.name, marks=marks)


@pytest.fixture(scope="module")
def program_data(tmp_path_factory):
    return make_program_data(tmp_path_factory.mktemp("program_data"))


@pytest.mark.parametrize("folder", [_param(f) for f in FOLDERS])
def test_golden_program(folder, program_data, tmp_path):
    result = run_case(folder, program_data, scratch=tmp_path)
    assert result.report.verdict != "original-failed", f"the case itself is broken:\n{result.report.format()}"
    assert result.passes, f"{folder.name}: {result.status}: {result.why}\n\n{result.report.format()}"
    # and at its ideal: a case that falls from equal to marked-equal runs, but the coverage it proved is lost
    assert result.ideal, f"{folder.name}: {result.report.outcome}: {result.why}"


def test_the_cases_are_well_formed():
    assert len(FOLDERS) >= 25
    for folder in FOLDERS:
        case = load_case(folder)
        assert set(re.findall(r"\{(\w+)\}", case["command"])) <= PLACEHOLDERS, folder.name
        words = case["command"].split()
        script = words[words.index("-m") + 2] if "-m" in words else words[1]  # python -m runner NB / python x.py
        assert (folder / script).is_file(), f"{folder.name}: {script} is not in the case"
        sources = [p for p in folder.rglob("*") if p.suffix in (".py", ".ipynb")]
        assert any("nvidia.dali" in p.read_text() for p in sources), folder.name
        if case.get("xfail"):
            assert len(case["xfail"]) > 20, f"{folder.name}: say precisely what breaks"


def test_the_cases_are_pipeline_mode_and_not_yet_migrated():
    """Every case is written in pipeline mode: its own files trip the leftover check (so that the check
    is known to look at each of them), and none is dynamic mode already."""
    for folder in FOLDERS:
        code = "\n".join(code_only(p.read_text()) for p in folder.rglob("*.py"))
        code += "\n".join(p.read_text() for p in folder.rglob("*.ipynb"))
        assert "experimental.dynamic" not in code, folder.name
        assert any(re.search(pattern, code) for pattern in LEFT), folder.name


def test_the_readme_lists_every_case():
    readme = (RUNNABLE / "README.md").read_text()
    listed = set(re.findall(r"^\| `(\w+)` \|", readme, flags=re.M))
    assert listed == {f.name for f in FOLDERS}
