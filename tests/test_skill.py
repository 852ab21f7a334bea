"""The dynamic-mode skill: every code block runs against the installed DALI, and a planted wrong
claim makes the run fail.

Sections of SKILL.md run one test each (``test_skill_section[...]``); a section whose GPU blocks
ran with ``"gpu"`` mapped to ``"cpu"`` says so in its test id (``-gpu-as-cpu``) and with a warning.
"""

from __future__ import annotations

import importlib.util
import os
import re
import warnings
from pathlib import Path

import pytest

from dali_migrate import skill_doc

ROOT = Path(__file__).resolve().parent.parent
SKILL = ROOT / "skills" / "dali-dynamic-mode" / "SKILL.md"
PACKAGED = skill_doc.PACKAGED_SKILL_DIR / "SKILL.md"
TEXT = SKILL.read_text(encoding="utf-8")
SECTIONS = [s for s in skill_doc.parse(TEXT) if s.runnable]
GPU_MAPPED = not skill_doc.gpu_available()


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48]


def _section_id(section) -> str:
    gpu = GPU_MAPPED and any(b.gpu for b in section.blocks)
    return _slug(section.title) + ("-gpu-as-cpu" if gpu else "")


@pytest.fixture(scope="session")
def fixtures(tmp_path_factory):
    return skill_doc.make_fixtures(tmp_path_factory.mktemp("skill-data"))


def run_titled(text: str, title: str, fixtures: dict, folder: Path) -> skill_doc.SectionResult:
    (section,) = [s for s in skill_doc.parse(text) if s.title == title]
    folder.mkdir(parents=True, exist_ok=True)
    here = os.getcwd()
    os.chdir(folder)
    try:
        return skill_doc.run_section(section, fixtures)
    finally:
        os.chdir(here)


@pytest.mark.parametrize("section", SECTIONS, ids=_section_id)
def test_skill_section(section, fixtures, tmp_path):
    result = run_titled(TEXT, section.title, fixtures, tmp_path)
    assert result.claims > 0, f"section {section.title!r} runs code but checks nothing"
    if result.gpu_mapped:
        warnings.warn(f"SKILL.md [{section.title}]: GPU blocks at lines {result.gpu_mapped} ran with "
                      f'device "gpu" mapped to "cpu" (no GPU here)', UserWarning)
    for line, module in result.skipped:
        warnings.warn(f"SKILL.md [{section.title}]: the block at line {line} did not run: {module} is not "
                      f"installed", UserWarning)


TORCHDATA_SECTION = "PyTorch data loading with torchdata (`ndd.pytorch.nodes`)"


@pytest.mark.skipif(importlib.util.find_spec("torchdata") is None,
                    reason="torchdata is not installed (pip install torchdata==0.11.0); the skill's "
                           "ndd.pytorch.nodes block is then skipped, and only the claim that "
                           "ndd.pytorch has no nodes without it runs")
def test_torchdata_blocks_run_where_torchdata_is_installed(fixtures, tmp_path):
    result = run_titled(TEXT, TORCHDATA_SECTION, fixtures, tmp_path)
    assert result.skipped == [] and result.claims >= 8


def test_torchdata_blocks_are_marked():
    (section,) = [s for s in SECTIONS if s.title == TORCHDATA_SECTION]
    assert [b.requires for b in section.blocks if b.runs] == [[], ["torchdata"]]


def test_every_block_runs_or_is_a_file():
    blocks = [b for s in skill_doc.parse(TEXT) for b in s.blocks]
    assert {b.lang for b in blocks} <= {"python", "bash"}, "only python and bash blocks are checkable"
    illustrative = [b.line for b in blocks if b.illustrative]
    assert len(illustrative) <= 2, f"too many illustrative blocks: {illustrative}"
    for b in blocks:
        assert b.runs or b.file_name or b.illustrative, f"SKILL.md:{b.line} is neither run nor written"


def test_total_claims_are_many():
    # A lower bound, so that deleting the checks by accident does not go unnoticed.
    count = 0
    for b in (b for s in SECTIONS for b in s.blocks if b.lang == "python" and b.runs):
        count += len(re.findall(r"#\s*(?:raises:|->)|^\s*assert\b", b.code, re.M))
    assert count >= 240, count


def test_front_matter():
    m = re.match(r"---\n(.*?)\n---\n", TEXT, re.S)
    assert m, "SKILL.md must start with a front matter block"
    fields = dict(line.split(": ", 1) for line in m.group(1).splitlines())
    assert set(fields) == {"name", "description"}
    assert fields["name"] == "dali-dynamic-mode" == skill_doc.SKILL_NAME
    assert 100 < len(fields["description"]) < 1024


def test_packaged_copy_is_identical():
    """The wheel ships dali_migrate/data/skills/...; it must equal skills/ (DALI_MIGRATE_REGEN=1 copies)."""
    if os.environ.get("DALI_MIGRATE_REGEN") == "1":
        PACKAGED.parent.mkdir(parents=True, exist_ok=True)
        PACKAGED.write_bytes(SKILL.read_bytes())
    repo_files = sorted(p.relative_to(SKILL.parent) for p in SKILL.parent.rglob("*") if p.is_file())
    packaged_files = sorted(p.relative_to(PACKAGED.parent) for p in PACKAGED.parent.rglob("*") if p.is_file())
    assert repo_files == packaged_files
    for rel in repo_files:
        assert (SKILL.parent / rel).read_bytes() == (PACKAGED.parent / rel).read_bytes(), (
            f"{rel} differs from the packaged copy: run DALI_MIGRATE_REGEN=1 python -m pytest tests/test_skill.py")


def test_package_data_ships_the_skill():
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["dali_migrate"]
    rel = str(PACKAGED.relative_to(ROOT / "dali_migrate"))
    assert any(fnmatch.fnmatch(rel, p) for p in patterns), (rel, patterns)


# ---------------------------------------------------------------------------------------------
# Planted wrong claims: each mutation of the real SKILL.md must make its section fail.

PLANTED = [
    # (section title, original text, wrong text, what the wrong claim says)
    ('Capture mode (called "compile" in older DALI)',
     "for jpegs, labels in reader.next_epoch(batch_size=4, capture=True):",
     "for jpegs, labels in reader.next_epoch(batch_size=4, compile=True):",
     "the keyword is compile= (older DALI; 2.4.0 says capture=)"),
    ("Data types: Tensor and Batch",
     "xy.select(slice(0, 2)).batch_size              # -> 3",
     "xy.select(slice(0, 2)).batch_size              # -> 2",
     "select(slice) picks the samples (it returns the whole batch in 2.4.0)"),
    ("Data types: Tensor and Batch",
     "xy[0]                    # raises: TypeError",
     "xy[0]                    # raises: IndexError",
     "batch[i] raises IndexError"),
    ("Readers and epochs",
     "list(fixed.next_epoch(batch_size=2))   # raises: ValueError: is different than the `max_batch_size` 4",
     "list(fixed.next_epoch(batch_size=2))   # the batch size may shrink between epochs",
     "the batch size can change between epochs"),
    ("Readers and epochs",
     "a == b                                  # -> True",
     "a == b                                  # -> False",
     "set_seed changes a reader's shuffle"),
    ("Random numbers",
     "len(set(np.asarray(ndd.as_tensor(shifted)).tolist()))  # -> 1",
     "len(set(np.asarray(ndd.as_tensor(shifted)).tolist()))  # -> 4",
     "a random op without batch_size draws one value per sample"),
    ("Task 6: COCO detection with coordinated flips of images and boxes",
     "assert (box_left > 0.5) == stripe_on_right",
     "assert (box_left > 0.5) != stripe_on_right",
     "the boxes do not move with the image"),
    ("If you have read NVIDIA's own dynamic-mode skill",
     "ndd.as_batch(part).batch_size                     # -> 5",
     "ndd.as_batch(part).batch_size                     # -> 2",
     "batch.tensors[a:b] becomes a Batch of the selection (upstream's claim)"),
    ("If you have read NVIDIA's own dynamic-mode skill",
     "np.asarray(part[0]).tolist()                      # -> [0, 0]",
     "np.asarray(part[0]).tolist()                      # -> [10, 10]",
     "indexing batch.tensors[a:b] indexes the selection"),
    ("If you have read NVIDIA's own dynamic-mode skill",
     '"decoders__Audio" in backend.RegisteredGPUOps() + backend.RegisteredMixedOps()   # -> False',
     '"decoders__Audio" in backend.RegisteredGPUOps() + backend.RegisteredMixedOps()   # -> True',
     "there is a GPU audio decoder (upstream's eval)"),
    ("Data types: Tensor and Batch",
     "images.slice[:, 20 : widths // 2].shape                      # -> [(32, 0, 3), (32, 0, 3), (32, 0, 3)]",
     "images.slice[:, 20 : widths // 2]                            # raises: ValueError",
     "a per-sample stop below the start is an error"),
    ("Data types: Tensor and Batch",
     "clone.tolist()                            # -> [0, 1, 2]",
     "clone.tolist()                            # -> [7, 1, 2]",
     "tensor.torch(copy=True) shares memory"),
    ("Data types: Tensor and Batch",
     "torch.from_dlpack(b)                          # raises: RuntimeError: invalid capsule",
     "torch.from_dlpack(b).shape                    # -> (2, 3)",
     "a Batch speaks DLPack"),
    ("Readers and epochs",
     "labels.torch(pad=True).tolist()                    # -> [[1, 0, 0], [1, 2, 0], [1, 2, 1]]",
     "labels.torch(pad=True).tolist()                    # -> [[3, 0, 0], [3, 7, 0], [3, 7, 3]]",
     "COCO labels are the category ids"),
    ("Checkpointing",
     "one_epoch(first2) == expected_second                  # -> True",
     "one_epoch(first2) == expected_second                  # -> False",
     "unnamed registration in another order is detected"),
    ("Checkpointing",
     "ndd.checkpoint.Checkpoint().deserialize(json.dumps(payload))   # raises: ValueError: Unsupported checkpoint format version 1",
     "ndd.checkpoint.Checkpoint().deserialize(json.dumps(payload))   # an older format is converted",
     "checkpoints of another format version load"),
    ("Using dali-migrate",
     "dali-migrate migrate no_such_file.py                # exit: 2",
     "dali-migrate migrate no_such_file.py                # exit: 0",
     "a missing file is not an error"),
]


@pytest.mark.parametrize("title,original,wrong,claim", PLANTED, ids=[p[3][:40] for p in PLANTED])
def test_planted_wrong_claim_fails(title, original, wrong, claim, fixtures, tmp_path):
    assert TEXT.count(original) == 1, f"the planted claim's anchor is gone or ambiguous: {original!r}"
    planted = TEXT.replace(original, wrong)
    line = TEXT[: TEXT.index(original)].count("\n") + 1
    with pytest.raises(skill_doc.ClaimFailed) as failure:
        run_titled(planted, title, fixtures, tmp_path)
    assert f"SKILL.md:{line}:" in str(failure.value), (line, str(failure.value))


def test_seed_compile_spelling_is_rejected_everywhere(fixtures, tmp_path):
    """Writing the seed guide's `compile=` anywhere the skill says `capture=` fails a claim."""
    planted = TEXT.replace("capture=True", "compile=True")
    title = 'Capture mode (called "compile" in older DALI)'
    with pytest.raises(skill_doc.ClaimFailed):
        run_titled(planted, title, fixtures, tmp_path)


# ---------------------------------------------------------------------------------------------
# Common mistakes <-> lint rules.

# The lint rule IDs and names fixed in the project brief (the linter lands on its own branch).
LINT_RULES_FROM_BRIEF = {
    "DM301": "mixed-device", "DM302": "batch-subscript", "DM303": "batch-len", "DM304": "select-for-slice",
    "DM305": "select-with-slice", "DM306": "asarray-batch", "DM307": "if-on-batch", "DM308": "reader-in-loop",
    "DM309": "reader-batch-size", "DM310": "lowercase-reader", "DM311": "break-next-epoch",
    "DM312": "random-without-batch-size", "DM313": "seed-and-rng", "DM314": "evaluate-every-op",
    "DM315": "cpu-before-torch", "DM316": "checkpoint-register-late", "DM317": "restore-without-checkpointing",
    "DM318": "compile-vs-capture", "DM319": "metadata-before-epoch",
}


def mistakes_table(text: str) -> dict[str, str]:
    rows = re.findall(r"^\| (DM\d{3}) \| `([a-z0-9-]+)` \|", text, re.M)
    ids = [r[0] for r in rows]
    assert len(ids) == len(set(ids)), f"duplicate rows: {ids}"
    return dict(rows)


def test_mistakes_table_matches_brief_rule_list():
    assert mistakes_table(TEXT) == LINT_RULES_FROM_BRIEF


@pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("dali_migrate.lint") is None,
    reason="the lint rules (dali_migrate.lint) are not on this branch yet; this test runs once they are merged",
)
def test_mistakes_table_matches_lint_registry():
    from dali_migrate import findings

    registry = {rid: r.name for rid, r in findings.all_rules().items() if rid.startswith("DM3")}
    assert mistakes_table(TEXT) == registry


def test_every_mistake_is_demonstrated():
    (section,) = [s for s in SECTIONS if s.title == "Common mistakes, demonstrated"]
    demonstrated = set()
    for b in section.blocks:
        header = next((ln for ln in b.code.splitlines() if ln.startswith("# DM")), "")
        demonstrated |= set(re.findall(r"DM3\d\d", header))
    assert demonstrated == set(LINT_RULES_FROM_BRIEF)
