"""The project's one helper module (issues 16 and 34): the helpers written once for the run, only those the migrated
code imports, imported by every migrated module that needs them, a single module's too; the user's files never
hold one. Real DALI, real JPEGs, whole programs run before and after (no mocks)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dali_migrate import migrate_paths
from dali_migrate.api import EXIT_CLEAN, EXIT_ERROR, EXIT_PENDING
from dali_migrate.transforms.unroll import helpers
from runtime import make_images

ROOT = Path(__file__).resolve().parent.parent

LOADERS = '''\
"""Training data: a shuffled reader with its own seed, iterated the PyTorch way."""
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=5)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=11, name="Reader")
    images = fn.decoders.image(jpegs)
    return fn.resize(images, resize_x=8, resize_y=8), labels


def train_loader(root):
    pipe = train_pipe(root)
    pipe.build()
    return DALIGenericIterator([pipe], ["data", "label"], reader_name="Reader",
                               last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)


def epoch_sums(root, epochs):
    loader = train_loader(root)
    found = []
    for _ in range(epochs):
        for batch in loader:
            found.append((int(batch[0]["data"].sum()), batch[0]["label"].flatten().tolist()))
    return found
'''

EVALUATE = '''\
"""Validation data: decoded and resized, stepped in a loop."""
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None)
def val_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.resize(fn.decoders.image(jpegs), resize_x=6, resize_y=6), labels


def val_sums(root, steps):
    pipe = val_pipe(root)
    pipe.build()
    found = []
    for _ in range(steps):
        images, labels = pipe.run()
        found.append((sum(int(images.at(i).sum()) for i in range(len(images))),
                       [int(labels.at(i)[0]) for i in range(len(labels))]))
    return found
'''

TRAIN = '''\
import sys

from data.evaluate import val_sums
from data.loaders import epoch_sums

root = sys.argv[1]
for item in epoch_sums(root, 2):
    print("train", item)
for item in val_sums(root, 4):
    print("val", item)
'''


USED = {"EpochIterator", "Prefetch", "ReaderStream"}  # what loaders.py and evaluate.py import


@pytest.fixture
def images(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("images"), count=10, classes=2)


def _project(root: Path) -> Path:
    (root / "data").mkdir(parents=True)
    (root / "data" / "__init__.py").write_text("")
    (root / "data" / "loaders.py").write_text(LOADERS)
    (root / "data" / "evaluate.py").write_text(EVALUATE)
    (root / "train.py").write_text(TRAIN)
    return root


def _run(folder: Path, images: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "train.py", str(images)], cwd=folder, capture_output=True, text=True,
                          timeout=300)


def _texts(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.py"))
            if "__pycache__" not in p.parts}


def test_one_helper_module_runs_the_same_and_a_second_run_changes_nothing(tmp_path, images):
    original = _project(tmp_path / "original")
    migrated = tmp_path / "migrated"
    shutil.copytree(original, migrated)

    run = migrate_paths([str(migrated)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN, [f.to_dict() for f in run.files]
    helper = migrated / "dali_dynamic_compat.py"
    assert helper.read_text() == helpers.module_text(USED)
    created = [f for f in run.files if f.created]
    assert [Path(f.path).resolve() for f in created] == [helper.resolve()]
    assert created[0].status == "created"
    for name in ("data/loaders.py", "data/evaluate.py"):
        text = (migrated / name).read_text()
        assert "class EpochIterator" not in text and "class Prefetch" not in text and "class ReaderStream" not in text, name
        assert "pipeline_def" not in text
    # loaders.py asks its pipeline for the reader's epoch (DALIGenericIterator(reader_name=)): a ReaderStream
    assert "from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate" in \
        (migrated / "data/loaders.py").read_text()
    # evaluate.py is imported by train.py: its pipeline with a reader is a ReaderStream whoever asks
    # (ProjectPipeline.streamed), so that another module's epoch_size(name) is answered at run time
    assert "from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate" in \
        (migrated / "data/evaluate.py").read_text()

    before, after = _run(original, images), _run(migrated, images)
    assert before.returncode == 0, before.stderr
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    assert before.stdout.count("train") >= 6 and before.stdout.count("val") == 4

    # A second run changes nothing: the helper module is neither migrated, rewritten nor created again.
    texts = _texts(migrated)
    again = migrate_paths([str(migrated)], write=True, jobs=1)
    assert again.written == [] and not any(f.created or f.changed for f in again.files)
    assert again.exit_code(wrote=True) == EXIT_CLEAN
    assert _texts(migrated) == texts
    assert migrate_paths([str(migrated)], jobs=1).exit_code() == EXIT_CLEAN  # --check


def test_a_single_module_imports_its_helpers_and_a_module_migrated_later_adds_the_one_it_needs(tmp_path, images):
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "evaluate.py").write_text(EVALUATE + "\nimport sys\nprint(val_sums(sys.argv[1], 3))\n")
    expected = subprocess.run([sys.executable, "evaluate.py", str(images)], cwd=alone, capture_output=True,
                              text=True, timeout=300)
    assert expected.returncode == 0, expected.stderr
    run = migrate_paths([str(alone / "evaluate.py")], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN
    helper = alone / "dali_dynamic_compat.py"
    assert helper.read_text() == helpers.module_text({"Prefetch"})  # only what the file imports
    text = (alone / "evaluate.py").read_text()
    assert "from dali_dynamic_compat import Prefetch  # written by dali-migrate" in text and "class " not in text
    assert any(f.created and "creates the helper module dali_dynamic_compat (Prefetch)" in f.findings[0].message
               for f in run.files)
    got = subprocess.run([sys.executable, "evaluate.py", str(images)], cwd=alone, capture_output=True, text=True,
                         timeout=300)
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout

    # A module migrated later that needs another helper adds it to the same module; a second run changes nothing.
    (alone / "loaders.py").write_text(LOADERS + "\nimport sys\nprint(epoch_sums(sys.argv[1], 2))\n")
    expected = subprocess.run([sys.executable, "loaders.py", str(images)], cwd=alone, capture_output=True, text=True,
                              timeout=300)
    run = migrate_paths([str(alone / "loaders.py")], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN
    assert helper.read_text() == helpers.module_text(USED)
    assert any(f.changed and not f.created and "adds EpochIterator, ReaderStream to the helper module" in
               f.findings[0].message for f in run.files), [f.to_dict() for f in run.files]
    got = subprocess.run([sys.executable, "loaders.py", str(images)], cwd=alone, capture_output=True, text=True,
                         timeout=300)
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout
    texts = _texts(alone)
    again = migrate_paths([str(alone)], write=True, jobs=1)
    assert again.written == [] and again.exit_code(wrote=False) == EXIT_CLEAN
    assert _texts(alone) == texts


def test_a_deleted_helper_module_is_reported_and_written_again(tmp_path, images):
    project = _project(tmp_path / "project")
    assert migrate_paths([str(project)], write=True, jobs=1).exit_code(wrote=True) == EXIT_CLEAN
    (project / "dali_dynamic_compat.py").unlink()

    # Running the program: the ImportError names the module, and the line it shows says how to get it back.
    failed = _run(project, images)
    assert failed.returncode != 0
    assert "No module named 'dali_dynamic_compat'" in failed.stderr
    assert "migrate --write recreates it" in failed.stderr

    # migrate --check: the file that would be created, with every file and line that imports it.
    cli = subprocess.run([sys.executable, "-m", "dali_migrate", "migrate", "--check", "."], cwd=project,
                         capture_output=True, text=True, timeout=300, env=_env())
    assert cli.returncode == EXIT_PENDING, cli.stdout + cli.stderr
    assert "DM224 [fixed] creates the helper module dali_dynamic_compat" in cli.stdout
    # (the helper import follows `import contextlib`: the pipelines other modules import keep device_id and
    # select it with ndd.Device, or nothing through contextlib.nullcontext() when it is None)
    assert "./data/loaders.py:5" in cli.stdout and "./data/evaluate.py:6" in cli.stdout

    run = migrate_paths([str(project)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN
    assert (project / "dali_dynamic_compat.py").read_text() == helpers.module_text(USED)
    assert _run(project, images).returncode == 0


def test_a_users_file_of_that_name_is_never_overwritten(tmp_path, images):
    project = _project(tmp_path / "project")
    mine = "# my own compatibility shims\nVERSION = 3\n"
    (project / "dali_dynamic_compat.py").write_text(mine)
    before = _run(project, images)

    run = migrate_paths([str(project)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_ERROR
    error = next(f for f in run.files if f.error)
    assert error.path.endswith("dali_dynamic_compat.py") and "not overwritten" in error.error
    assert any(f.path.endswith("dali_dynamic_compat.py") and not f.error for f in run.files)  # listed as scanned too
    assert (project / "dali_dynamic_compat.py").read_text() == mine
    # The modules were still migrated, their helpers inline, and the program runs the same.
    assert "class EpochIterator" in (project / "data/loaders.py").read_text()
    assert "class Prefetch" in (project / "data/evaluate.py").read_text()
    after = _run(project, images)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout


def test_helper_module_setting_places_it_inside_a_package(tmp_path, images):
    project = _project(tmp_path / "project")
    (project / "pyproject.toml").write_text('[tool.dali-migrate]\nhelper_module = "data.ndd_helpers"\n')
    before = _run(project, images)
    run = migrate_paths([str(project)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN
    assert (project / "data" / "ndd_helpers.py").read_text() == helpers.module_text(USED)
    assert not (project / "dali_dynamic_compat.py").exists()
    assert "from data.ndd_helpers import Prefetch" in (project / "data/evaluate.py").read_text()
    after = _run(project, images)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout


def _env() -> dict:
    import os

    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


NOTEBOOK_CELLS = [
    "import sys\nimport nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\nroot = sys.argv[1]",
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef nb_pipe():\n"
    "    jpegs, labels = fn.readers.file(file_root=root)\n    return fn.decoders.image(jpegs), labels",
    "pipe = nb_pipe()\npipe.build()\nfor _ in range(3):\n    images, labels = pipe.run()\n"
    "    print([int(images.at(i).sum()) for i in range(len(images))], [int(labels.at(i)[0]) for i in range(2)])",
]


def test_a_notebook_and_a_module_share_the_helper_module(tmp_path, images):
    import nbformat

    original = tmp_path / "original"
    original.mkdir()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
    nbformat.write(notebook, original / "explore.ipynb")
    (original / "evaluate.py").write_text(EVALUATE)
    migrated = tmp_path / "migrated"
    shutil.copytree(original, migrated)
    assert migrate_paths([str(migrated)], write=True, jobs=1).exit_code(wrote=True) == EXIT_CLEAN
    assert (migrated / "dali_dynamic_compat.py").read_text() == helpers.module_text({"Prefetch"})
    text = (migrated / "explore.ipynb").read_text()
    assert "from dali_dynamic_compat import Prefetch" in text and "class Prefetch" not in text

    def run(folder):
        done = subprocess.run([sys.executable, "-m", "dali_migrate.harness.run_notebook", "explore.ipynb",
                               str(images)], cwd=folder, capture_output=True, text=True, timeout=300, env=_env())
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run(migrated) == run(original)
    assert migrate_paths([str(migrated)], jobs=1).exit_code() == EXIT_CLEAN


def test_the_mcp_server_lists_writes_and_then_leaves_the_helper_module(tmp_path, monkeypatch):
    from dali_migrate.mcp_tools.operations import migrate_workspace_paths
    from dali_migrate.mcp_tools.workspace import Workspace

    project = _project(tmp_path / "project")
    monkeypatch.chdir(tmp_path)  # the workspace is not the current folder
    workspace = Workspace(project)
    dry, _ = migrate_workspace_paths(workspace, ["."], write=False)
    assert {(f.path, f.status) for f in dry.files} >= {("dali_dynamic_compat.py", "created")}
    assert not (project / "dali_dynamic_compat.py").exists()
    done, _ = migrate_workspace_paths(workspace, ["."], write=True)
    assert (project / "dali_dynamic_compat.py").read_text() == helpers.module_text(USED)
    assert not (project / ".dali-migrate" / "originals" / "dali_dynamic_compat.py").exists()
    again, text = migrate_workspace_paths(workspace, ["."], write=True)
    assert again.counts.changed == 0 and "dali_dynamic_compat" not in text

    # An earlier release's helper module: listed once, updated, its old text kept like any original.
    old = (Path(__file__).parent / "data" / "helper_module_02be916.py.txt").read_text()
    (project / "dali_dynamic_compat.py").write_text(old)
    updated, _ = migrate_workspace_paths(workspace, ["."], write=True)
    listed = [f for f in updated.files if f.path == "dali_dynamic_compat.py"]
    assert len(listed) == 1 and listed[0].status == "migrated", [(f.path, f.status) for f in listed]
    assert (project / "dali_dynamic_compat.py").read_text() == helpers.module_text(USED)
    assert (project / ".dali-migrate" / "originals" / "dali_dynamic_compat.py").read_text() == old


EARLIER = Path(__file__).parent / "data" / "helper_module_02be916.py.txt"  # as the release at 02be916 wrote it


def test_a_helper_module_an_earlier_release_wrote_is_brought_up_to_date(tmp_path, images):
    """A project migrated by an earlier release keeps that release's helper module; today's run replaces it (its
    classes changed since), the program runs the same, and a second run changes nothing. The same text edited
    by hand is a user's file: never overwritten."""
    project = _project(tmp_path / "project")
    before = _run(project, images)
    assert migrate_paths([str(project)], write=True, jobs=1).exit_code(wrote=True) == EXIT_CLEAN
    old = EARLIER.read_text()
    assert old != helpers.module_text(USED)
    (project / "dali_dynamic_compat.py").write_text(old)

    run = migrate_paths([str(project)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN
    listed = [f for f in run.files if f.path.endswith("dali_dynamic_compat.py")]
    assert len(listed) == 1 and "updates the helper module" in listed[0].findings[0].message
    assert (project / "dali_dynamic_compat.py").read_text() == helpers.module_text(USED)  # the classes it held
    after = _run(project, images)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    again = migrate_paths([str(project)], write=True, jobs=1)
    assert again.exit_code(wrote=False) == EXIT_CLEAN and not again.written

    edited = old.replace("Written by dali-migrate", "Written by dali-migrate, then by me", 1)
    (project / "dali_dynamic_compat.py").write_text(edited)
    run = migrate_paths([str(project)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_ERROR
    assert any("not overwritten" in (f.error or "") for f in run.files)
    assert "then by me" in (project / "dali_dynamic_compat.py").read_text()  # the user's edit is kept


def test_a_changed_helper_text_keeps_the_earlier_one_recognised():
    """Changing a helper changes the module's texts: the texts it replaces (``text_hashes()``) must go into
    EARLIER_TEXTS, or every project migrated with them would exit 2 on its next run (its file would count as the
    user's)."""
    import hashlib

    now = hashlib.sha256(helpers.module_text().encode()).hexdigest()
    assert now == helpers.TEXT_SHA256, (
        f"the helper module's text changed: append the old helpers.text_hashes() to data/helper_text_hashes.txt, set "
        f"helpers.TEXT_SHA256 = {now!r}")
    assert not helpers.text_hashes() & helpers.EARLIER_TEXTS
    assert hashlib.sha256(EARLIER.read_bytes()).hexdigest() in helpers.EARLIER_TEXTS


def test_a_subset_module_is_recognised_and_an_edited_one_is_not():
    for names in ({"Prefetch"}, {"JaxEpochIterator", "EpochIterator"}, {"TFDataset", "ReaderStream"}):
        text = helpers.module_text(names)
        assert helpers.held_names(text.encode()) == names
        assert helpers.is_helper_module(text.encode())
        assert not helpers.is_helper_module(text.replace("Written by", "Written, then edited, by", 1).encode())
    assert "class EpochIterator" in helpers.module_text({"JaxEpochIterator"})  # its base comes along
    assert helpers.module_text({"Prefetch"}).count("def _settle_at_exit") == 0  # only what it needs
    assert helpers.module_text().count("def _settle_at_exit") == 1  # shared by EpochIterator and ReaderStream, once


def test_the_header_names_the_dali_it_was_checked_against():
    from nvidia.dali import __version__

    assert __version__.startswith(helpers.CHECKED_WITH_DALI), (
        f"DALI {__version__} is installed: check the helpers against it, then set CHECKED_WITH_DALI")
    assert f"checked against DALI {helpers.CHECKED_WITH_DALI}" in helpers.module_text({"Prefetch"})


def test_one_helper_module_at_the_top_of_the_runs_import_roots(tmp_path):
    """A subfolder script that imports a module living at the top (the top is on its sys.path) shares the top's
    helper module; one that shows no such sign gets its own, which it can import."""
    (tmp_path / "common.py").write_text("SCALE = 2\n")
    (tmp_path / "evaluate.py").write_text(EVALUATE)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "check.py").write_text("import common\n" + EVALUATE.replace("val_", "check_"))
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "probe.py").write_text(EVALUATE.replace("val_", "probe_"))
    run = migrate_paths([str(tmp_path)], write=True, jobs=1)
    assert run.exit_code(wrote=True) == EXIT_CLEAN
    created = sorted(Path(f.path).resolve().relative_to(tmp_path.resolve()).as_posix() for f in run.files if f.created)
    assert created == ["alone/dali_dynamic_compat.py", "dali_dynamic_compat.py"]
    assert "tools/check.py" in next(f for f in run.files if f.path.endswith("/dali_dynamic_compat.py")
                                    and "alone" not in f.path).findings[0].message
