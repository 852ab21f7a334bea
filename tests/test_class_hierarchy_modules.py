"""A Pipeline class hierarchy across modules (capability 2): the base class in one module, its subclasses in others
(golden/runnable/hierarchy_across_modules). A project run migrates both sides alike (each migrated file equals
golden/project_classes/expected/; the program itself runs in both modes in test_golden_programs), or keeps both
sides in pipeline mode, marked, where either side cannot migrate: never a ReaderStream base under a subclass left
in pipeline mode, nor the reverse."""

import os
import shutil
from pathlib import Path

from dali_migrate.api import migrate_paths
from dali_migrate.project import scan_classes, scan_project
from runtime import GOLDEN

APP = GOLDEN / "runnable" / "hierarchy_across_modules"
EXPECTED = GOLDEN / "project_classes" / "expected"
FILES = ["main.py", "data/pipeline.py", "data/training.py", "data/evaluation.py"]


def _copy(tmp_path) -> Path:
    work = tmp_path / "app"
    shutil.copytree(APP, work, ignore=shutil.ignore_patterns("case.json", "__pycache__"))
    return work


def test_the_pre_scan_knows_the_hierarchy():
    classes = scan_classes([(str(APP / name), (APP / name).read_text()) for name in FILES])
    assert classes["data.training.TrainPipeline"].bases == ("data.pipeline.GenericPipeline",)  # relative import
    assert classes["data.evaluation.EvalPipeline"].bases == ("data.pipeline.GenericPipeline",)  # absolute import
    assert classes["data.pipeline.GenericPipeline"].bases == ("nvidia.dali.pipeline.Pipeline",)
    project = scan_project([APP])
    assert {"data.pipeline.GenericPipeline", "data.training.TrainPipeline",
            "data.evaluation.EvalPipeline"} <= set(project.pipelines)
    assert not project.kept


def test_both_sides_migrate_as_expected(tmp_path):
    work = _copy(tmp_path)
    run = migrate_paths([work], write=True)
    assert not run.errors
    assert not [(f.path, m.rule, m.message) for f in run.files for m in f.manual]
    for name in FILES:
        migrated = (work / name).read_text()
        if os.environ.get("DALI_MIGRATE_REGEN"):
            (EXPECTED / name).parent.mkdir(parents=True, exist_ok=True)
            (EXPECTED / name).write_text(migrated)
        assert migrated == (EXPECTED / name).read_text(), name
    assert "class GenericPipeline(ReaderStream):" in (work / "data/pipeline.py").read_text()
    assert "def steps(self):" in (work / "data/training.py").read_text()
    assert not any(f.changed for f in migrate_paths([work]).files)


def _kept_everywhere(work):
    run = migrate_paths([work], write=True)
    assert not run.errors
    manual = {Path(f.path).relative_to(work).as_posix(): [m.rule for m in f.manual] for f in run.files}
    for name in ("data/pipeline.py", "data/training.py", "data/evaluation.py", "main.py"):
        assert manual.get(name), (name, manual)
    assert "class GenericPipeline(Pipeline):" in (work / "data/pipeline.py").read_text()
    assert "ReaderStream" not in "".join((work / name).read_text() for name in FILES)
    assert "train.run()" in (work / "main.py").read_text()
    assert not any(f.changed for f in migrate_paths([work]).files)
    return run


def test_a_subclass_that_stays_keeps_its_base_and_its_siblings(tmp_path):
    work = _copy(tmp_path)
    training = work / "data" / "training.py"
    training.write_text(training.read_text().replace('self.input_x(name="ReaderX")',
                                                      'self.input_x(name="ReaderX", seed=3)'))
    run = _kept_everywhere(work)
    messages = " ".join(m.message for f in run.files for m in f.manual)
    assert "other than name=" in messages


def test_a_use_another_module_keeps_keeps_the_hierarchy(tmp_path):
    """main.py keeps TrainPipeline (a use with no dynamic-mode counterpart): its module, its base's and its sibling's
    keep theirs too, over the rounds of the run."""
    work = _copy(tmp_path)
    main = work / "main.py"
    main.write_text(main.read_text().replace('"samples", samples)', '"samples", samples, train.__class__.__name__)'))
    _kept_everywhere(work)


def test_a_subclass_in_a_module_that_never_says_dali_migrates_with_its_base(tmp_path):
    """A module that imports nothing of DALI (only the base) is read, scanned and migrated with the hierarchy."""
    work = _copy(tmp_path)
    (work / "data" / "quiet.py").write_text(
        "from data.pipeline import GenericPipeline\n\n\nclass Quiet(GenericPipeline):\n    def define_graph(self):\n"
        "        x = self.input_x(name=\"ReaderX\")\n        return self.scaled(x, 3.0)\n")
    run = migrate_paths([work], write=True)
    assert not [(f.path, m.rule, m.message) for f in run.files for m in f.manual]
    quiet = (work / "data" / "quiet.py").read_text()
    assert "def steps(self):" in quiet and "self.input_x.next_epoch(batch_size=self.batch_size)" in quiet
    assert '"ReaderX": self.input_x' in quiet
    assert not any(f.changed for f in migrate_paths([work]).files)


def test_a_subclass_inside_a_function_keeps_the_hierarchy(tmp_path):
    """A subclass of the base defined inside a function of another module is not migrated with it: the base, and so
    every class built on it, stays in pipeline mode."""
    work = _copy(tmp_path)
    (work / "data" / "nested.py").write_text(
        "from data.pipeline import GenericPipeline\n\n\ndef make(**options):\n"
        "    class Local(GenericPipeline):\n        def define_graph(self):\n"
        "            return self.input_x(name=\"ReaderX\")\n\n    return Local(2, 1, None, **options)\n")
    run = _kept_everywhere(work)
    messages = " ".join(m.message for f in run.files for m in f.manual)
    assert "inside a function or class of module data.nested" in messages


_CORE = """import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Core(Pipeline):
    def __init__(self, batch_size, files):
        super().__init__(batch_size, 1, None)
        self.input = ops.readers.Numpy(files=files)

    def define_graph(self):
        x = self.input(name="Reader")
        return self.post(fn.cast(x, dtype=types.FLOAT))

    def post(self, x):
        return x
"""
_SUB = """{IMPORTS}
from pkg.core import Core


class Twice(Core):
    def post(self, x):
        return fn.reductions.sum(x) * 2
"""
_MAIN = """import glob
import sys

from pkg.core import Core
from pkg.sub import Twice

files = sorted(glob.glob(sys.argv[1] + "/*.npy"))
core = Core(2, files)
core.build()
print("Core", core.epoch_size("Reader"))
for _ in range(4):
    (out,) = core.run()
    print(out.as_array().tolist())
twice = Twice(2, files)
twice.build()
print("Twice", twice.epoch_size("Reader"))
for _ in range(4):
    (out,) = twice.run()
    print(out.as_array().tolist())
"""


def _core_project(tmp_path, imports):
    import numpy as np

    for k in range(3):
        np.save(tmp_path / f"a{k}.npy", np.full((2, 2), k, dtype=np.float32))
    work = tmp_path / "app"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "__init__.py").write_text("")
    (work / "pkg" / "core.py").write_text(_CORE)
    (work / "pkg" / "sub.py").write_text(_SUB.replace("{IMPORTS}", imports))
    (work / "main.py").write_text(_MAIN)
    return work


def _run(folder, data):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "main.py", str(data)], cwd=folder, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_subclass_inheriting_the_define_graph_of_another_module_yields_its_steps(tmp_path):
    """Twice (pkg/sub.py) overrides only the helper that Core's define_graph (pkg/core.py) calls: Core becomes a
    ReaderStream class whose steps() its subclass inherits... and Twice yields the steps of Core's define_graph
    with its own helper, as pipe.run() did; both run the same as the original."""
    work = _core_project(tmp_path, "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types")
    original = tmp_path / "original"
    shutil.copytree(work, original)
    run = migrate_paths([work], write=True)
    assert not [(f.path, m.rule, m.message) for f in run.files for m in f.manual]
    assert "class Core(ReaderStream):" in (work / "pkg/core.py").read_text()
    assert "def steps(self):" in (work / "pkg/sub.py").read_text()
    want = _run(original, tmp_path)
    assert "Twice 3" in want
    assert _run(work, tmp_path) == want
    assert not any(f.changed for f in migrate_paths([work]).files)


def test_a_define_graph_read_with_other_imports_keeps_the_hierarchy(tmp_path):
    """Twice yields the steps of Core's define_graph, migrated in pkg/sub.py: Core's define_graph reads `types`,
    which pkg/sub.py binds to another module; both modules stay in pipeline mode, marked, and run as before."""
    work = _core_project(tmp_path, "import nvidia.dali.fn as fn\nimport types")
    original = tmp_path / "original"
    shutil.copytree(work, original)
    run = migrate_paths([work], write=True)
    manual = {Path(f.path).name: [m.message for m in f.manual] for f in run.files}
    assert any("does not import alike" in m for m in manual["sub.py"]), manual
    assert manual["core.py"] and manual["main.py"]
    assert "class Core(Pipeline):" in (work / "pkg/core.py").read_text()
    assert _run(work, tmp_path) == _run(original, tmp_path)
    assert not any(f.changed for f in migrate_paths([work]).files)
