"""Cross-module migration: golden/project/app (pipelines in loaders/pipes.py, used from train.py, which
imports no DALI). migrate_paths pre-scans the project, so train.py is migrated too; each migrated file
must equal golden/project/expected/, a second run must change nothing, and the migrated project must
compute what the original does (run side by side on generated JPEGs)."""

import importlib
import os
import shutil
import sys
from pathlib import Path

import pytest

from dali_migrate.api import migrate_paths
from dali_migrate.files import module_name_of
from dali_migrate.project import scan_project
from runtime import GOLDEN, assert_bitwise_equal, make_images, output, steps_as_arrays

APP = GOLDEN / "project" / "app"
EXPECTED = GOLDEN / "project" / "expected"
FILES = ["train.py", "loaders/pipes.py", "loaders/__init__.py", "dali_dynamic_compat.py"]  # (the helper module too)


def test_pre_scan_names_every_style():
    project = scan_project([APP])
    styles = {q: p.style for q, p in project.pipelines.items()}
    assert styles == {"loaders.pipes.train_pipe": "def", "loaders.pipes.ValPipe": "class",
                      "loaders.pipes.make_padded_pipe": "factory", "loaders.pipes.resumable_pipe": "def"}
    assert project.pipelines["loaders.pipes.resumable_pipe"].checkpoint
    assert module_name_of(APP / "loaders" / "pipes.py") == "loaders.pipes"



def test_module_names_follow_packages(tmp_path):
    """One spelling of a module's name (files.module_name_of) for the pre-scan, the api and the passes."""
    for folder in ("pkg", "pkg/sub"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    for name in ("pkg/mod.py", "pkg/sub/deep.py", "alone.py"):
        (tmp_path / name).write_text("")
    assert module_name_of(tmp_path / "pkg" / "__init__.py") == "pkg"
    assert module_name_of(tmp_path / "pkg" / "sub" / "__init__.py") == "pkg.sub"
    assert module_name_of(tmp_path / "pkg" / "mod.py") == "pkg.mod"
    assert module_name_of(str(tmp_path / "pkg" / "sub" / "deep.py")) == "pkg.sub.deep"
    assert module_name_of(tmp_path / "alone.py") == "alone"
    # paths not on disk (migrate_source's name): no packages to find, a package's __init__ is still its folder
    assert module_name_of(tmp_path / "gone" / "__init__.py") == "gone"
    assert module_name_of(tmp_path / "gone" / "mod.py") == "mod"
    assert module_name_of("notebook.ipynb") == "notebook"


@pytest.mark.parametrize("streamed", [True, False])
def test_a_module_writes_a_stream_as_the_pre_scan_decided(streamed):
    """Whether an imported pipeline is a ReaderStream is decided once, by the pre-scan (ProjectPipeline.streamed),
    which the importing modules rely on: the defining module reads it, it does not decide again."""
    from dali_migrate.engine import migrate_source
    from dali_migrate.project import Project, ProjectPipeline

    source = ("from nvidia.dali import pipeline_def, fn\n\n\n@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
              "def train_pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
              "    return fn.decoders.image(jpegs), labels\n")
    project = Project(imported_modules={"pipes"})
    project.pipelines["pipes.train_pipe"] = ProjectPipeline(module="pipes", name="train_pipe", style="def",
                                                            path="pipes.py", streamed=streamed)
    migrated = migrate_source(source, "pipes.py", project=project).migrated
    assert ('return ReaderStream(steps(), {"Reader": reader}, batch_size)\n' in migrated) == streamed

def test_both_sides_migrated_as_expected(tmp_path):
    work = tmp_path / "app"
    shutil.copytree(APP, work)
    run = migrate_paths([work], write=True)
    assert not run.errors
    by_name = {Path(f.path).relative_to(work).as_posix(): f for f in run.files}
    # epoch_size of an imported pipeline: its module writes it as a ReaderStream (ProjectPipeline.streamed), which
    # answers at run time, so train_pipe's unit, which spans both modules, migrates in both.
    assert by_name["train.py"].changed and by_name["train.py"].status == "migrated"
    assert not by_name["train.py"].manual and not by_name["loaders/pipes.py"].manual
    assert "epoch_size(\"Reader\")" in (work / "train.py").read_text()
    for name in FILES:
        migrated = (work / name).read_text()
        if os.environ.get("DALI_MIGRATE_REGEN"):
            (EXPECTED / name).parent.mkdir(parents=True, exist_ok=True)
            (EXPECTED / name).write_text(migrated)
        assert migrated == (EXPECTED / name).read_text(), name
    again = migrate_paths([work])
    assert not any(f.changed for f in again.files)


def test_without_the_pre_scan_the_consumer_is_left_alone():
    from dali_migrate import migrate_source

    text = (APP / "train.py").read_text()
    assert migrate_source(text, "train.py").migrated == text


def _forget_project_modules():
    for name in [m for m in sys.modules if m == "train" or m == "loaders" or m.startswith("loaders.")]:
        del sys.modules[name]


@pytest.fixture(autouse=True)
def _clean_modules():
    yield
    _forget_project_modules()  # other tests import another `loaders` package (examples/repo)


def _import_project(root: Path):
    _forget_project_modules()
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module("train")
    finally:
        sys.path.remove(str(root))


def test_migrated_project_computes_the_same(tmp_path):
    images = str(make_images(tmp_path / "images", count=10, classes=2))
    original_root = tmp_path / "original"
    shutil.copytree(APP, original_root)
    migrated_root = tmp_path / "migrated"
    shutil.copytree(EXPECTED, migrated_root)
    original = _import_project(original_root)
    migrated = _import_project(migrated_root)
    for function, outputs in (("train_steps", 2), ("val_steps", 2), ("padded_steps", 2)):
        want = steps_as_arrays(getattr(original, function)(images, 5))
        got = steps_as_arrays(getattr(migrated, function)(images, 5))
        for k in range(outputs):
            assert_bitwise_equal(output(want, k), output(got, k), f"{function} output {k}")
    (want_first, want_again), (got_first, got_again) = (original.save_and_resume(images, 4),
                                                        migrated.save_and_resume(images, 4))
    assert_bitwise_equal(output(steps_as_arrays(want_first + want_again), 0),
                         output(steps_as_arrays(got_first + got_again), 0), "resumed labels")


PIPES = '''\
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def my_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels
'''


def test_only_imported_modules_are_pre_scanned(tmp_path):
    """A module's pipelines can only be imported through its name: a file that defines a pipeline no
    other file names is not pre-scanned, and every file migrates exactly as with a full pre-scan."""
    from dali_migrate import api, migrate_source

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "pipes.py").write_text(PIPES)
    (tmp_path / "pkg" / "alone.py").write_text(PIPES.replace("my_pipe", "alone_pipe"))
    (tmp_path / "pkg" / "relative.py").write_text(PIPES.replace("my_pipe", "rel_pipe"))
    # No DALI here (a quiet file, read again for the check), one absolute and one relative import.
    (tmp_path / "consumer.py").write_text("from pkg.pipes import my_pipe\n\np = my_pipe('/data')\np.build()\n")
    (tmp_path / "pkg" / "user.py").write_text("from . import relative\n\nq = relative.rel_pipe('/x')\n")
    files = sorted(str(p) for p in tmp_path.rglob("*.py"))
    texts = [(name, Path(name).read_text()) for name in files if "dali" in Path(name).read_text()]
    quiet = [name for name in files if "dali" not in Path(name).read_text()]
    kept, quiet_reads = api._imported_candidates(texts, texts, quiet)
    assert sorted(Path(name).name for name, _ in kept) == ["pipes.py", "relative.py"]
    # Of the quiet files, only those that name a candidate module are kept for the second look.
    assert sorted(Path(name).name for name in quiet_reads) == ["consumer.py", "user.py"]

    run = migrate_paths([tmp_path])
    full = scan_project([tmp_path])
    assert set(full.pipelines) == {"pkg.pipes.my_pipe", "pkg.alone.alone_pipe", "pkg.relative.rel_pipe"}
    # Two modules need Prefetch: they import it from the project's helper module (created, not migrated).
    assert [Path(f.path).name for f in run.files if f.created] == ["dali_dynamic_compat.py"]
    for result in [f for f in run.files if not f.created]:
        shared = "dali_dynamic_compat" if "from dali_dynamic_compat import" in result.migrated else None
        expected = migrate_source(Path(result.path).read_text(), result.path, project=full, helper_module=shared)
        assert result.migrated == expected.migrated, result.path
        assert [f.to_dict() for f in result.findings] == [f.to_dict() for f in expected.findings]
    consumer = next(f for f in run.files if f.path.endswith("consumer.py"))
    assert "p = my_pipe('/data')\n" in consumer.migrated and "p.build()" not in consumer.migrated


def test_a_module_keeping_its_own_pipeline_marks_its_own_reason(tmp_path):
    # Two unrelated modules each keep a pipeline of the same name (a Triton model: external_source fed by
    # name, serialized). Each is marked with its own reason, never as "kept in another module" (itself).
    body = ("from nvidia.dali import fn, pipeline_def\n\n\n"
            "@pipeline_def(batch_size=1, num_threads=1, device_id=None)\n"
            "def pipe():\n    x = fn.external_source(name=\"INPUT\")\n    return x * {k}\n\n\n"
            "pipe().serialize(filename=\"model_{k}.dali\")\n")
    for k in (1, 2):
        (tmp_path / f"model_{k}.py").write_text(body.format(k=k))
    run = migrate_paths([tmp_path], write=True)
    assert not run.errors
    for f in run.files:
        assert [m.rule for m in f.manual] == ["DM220"], (f.path, [(m.rule, m.message) for m in f.manual])
        assert "another module" not in Path(f.path).read_text()
    assert not any(f.changed for f in migrate_paths([tmp_path]).files)


def test_pipeline_classes_deriving_from_the_imported_reader_stream_pass_the_check(tmp_path):
    # Two modules with Pipeline subclasses share the helper module: each class derives from ReaderStream
    # imported from it, whose next() and epoch_size() the post-migration check must see (it marked them DM232).
    body = ("from nvidia.dali import fn\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
            "class Files{k}(Pipeline):\n"
            "    def __init__(self, root):\n"
            "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
            "        self.root = root\n\n"
            "    def define_graph(self):\n"
            "        jpegs, labels = fn.readers.file(file_root=self.root, name=\"Reader\")\n"
            "        return jpegs, labels\n\n\n"
            "def count(root):\n"
            "    pipe = Files{k}(root)\n"
            "    pipe.build()\n"
            "    steps = pipe.epoch_size(\"Reader\") // 2\n"
            "    return [len(pipe.run()[1]) for _ in range(steps)]\n")
    for k in (1, 2):
        (tmp_path / f"files_{k}.py").write_text(body.format(k=k))
    run = migrate_paths([tmp_path], write=True)
    assert not run.errors
    assert (tmp_path / "dali_dynamic_compat.py").exists()
    for f in run.files:
        if f.path.endswith("dali_dynamic_compat.py"):
            continue
        assert [m.rule for m in f.manual] == [], (f.path, [(m.rule, m.message) for m in f.manual])
        assert "from dali_dynamic_compat import" in Path(f.path).read_text()


OUTPUTS_PIPES = '''\
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def features(root):
    data = fn.readers.numpy(file_root=root, name="Features")
    return data
'''
OUTPUTS_MAIN = '''\
import sys

from pipes import features
from {module} import summary

pipe = features(sys.argv[1])
pipe.build()
(data,) = pipe.run()
print(summary(data))
'''


def _outputs_project(tmp_path, helper: str, module: str = "helpers"):
    (tmp_path / "pipes.py").write_text(OUTPUTS_PIPES)
    (tmp_path / "main.py").write_text(OUTPUTS_MAIN.format(module=module))
    (tmp_path / f"{module}.py").write_text(helper)
    return migrate_paths([tmp_path], write=True)


def test_outputs_passed_to_another_module_migrate_in_both(tmp_path):
    """The callee's module is told what it gets (a TensorList of pipes.features) and migrates its uses."""
    run = _outputs_project(tmp_path, "def summary(batch):\n    return batch.as_array().sum(), len(batch)\n")
    assert not run.errors and not [f for r in run.files for f in r.manual]
    helper = (tmp_path / "helpers.py").read_text()
    assert "np.array(ndd.as_tensor(batch)).sum(), batch.batch_size" in helper
    assert "next(pipe)" in (tmp_path / "main.py").read_text()


@pytest.mark.parametrize("helper, why", [
    ("def summary(batch):\n    return str(batch)\n", "str()"),  # a use the callee cannot migrate
    ("import numpy as np\n\nsummary = np.shape\n", "not a function or class defined here"),
])
def test_outputs_another_module_cannot_take_keep_the_unit_everywhere(tmp_path, helper, why):
    run = _outputs_project(tmp_path, helper)
    assert not run.errors
    for name in ("pipes.py", "main.py"):
        text = (tmp_path / name).read_text()
        assert "# dali-migrate: DM230" in text and "experimental.dynamic" not in text, name
    assert any(why in f.message for r in run.files for f in r.manual), [f.message for r in run.files for f in r.manual]


def test_outputs_passed_to_a_module_outside_the_run_stay(tmp_path):
    """A module that is not migrated with the others (here: not among the paths) cannot learn what it gets."""
    (tmp_path / "app").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers.py").write_text("def summary(batch):\n    return batch.as_array().sum()\n")
    (tmp_path / "app" / "pipes.py").write_text(OUTPUTS_PIPES)
    (tmp_path / "app" / "main.py").write_text(OUTPUTS_MAIN.format(module="helpers"))
    run = migrate_paths([tmp_path / "app"], write=True)
    assert not run.errors
    main = (tmp_path / "app" / "main.py").read_text()
    assert "DM231" in main and "helpers.summary, which dali-migrate cannot follow" in main


OPS_CLASS = '''\
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class TrainPipe(Pipeline):
    def __init__(self, root, batch_size):
        super().__init__(batch_size, 1, None, seed=5)
        self.input = ops.readers.File(file_root=root)
        self.decode = ops.decoders.Image(device="cpu")
        self.res = ops.Resize(resize_x=16, resize_y=16)
        self.coin = ops.random.CoinFlip(probability=0.5)
        self.flip = ops.Flip()

    def define_graph(self):
        mirror = self.coin()
        jpegs, labels = self.input(name="Reader")
        images = self.res(self.decode(jpegs))
        return self.flip(images, horizontal=mirror), labels
'''

OPS_CLASS_USER = '''\
from loaders import TrainPipe


def steps(root, count):
    pipe = TrainPipe(root, 3)
    pipe.build()
    return [pipe.run() for _ in range(count)], pipe.epoch_size("Reader")
'''


def test_an_ops_pipeline_class_another_module_imports_migrates(tmp_path):
    # The pre-scan describes the class before any pass has added the ndd import: its readers, ops objects
    # turned into ndd calls, were not known as readers, the statement before the reader (a random op) read as
    # "plain Python before a conditional reader", and the class was kept "marked in its module", which it
    # was not (DM230 with no reason anywhere). A script whose name is not a module name (`my-loader.py`) is
    # scanned as a module of its own run, and was kept the same way.
    images = str(make_images(tmp_path / "images", count=7, classes=2))
    for side in ("original", "migrated"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "loaders.py").write_text(OPS_CLASS)
        (tmp_path / side / "train.py").write_text(OPS_CLASS_USER)
    run = migrate_paths([tmp_path / "migrated"], write=True)
    assert not run.errors
    assert [(Path(f.path).name, [m.rule for m in f.manual]) for f in run.files] == [
        ("loaders.py", []), ("train.py", []), ("dali_dynamic_compat.py", [])]  # (the helper module the run wrote)
    assert "class TrainPipe(ReaderStream)" in (tmp_path / "migrated" / "loaders.py").read_text()
    (want, want_size), (got, got_size) = (_import_project(tmp_path / side).steps(images, 4)
                                          for side in ("original", "migrated"))
    assert want_size == got_size == 7
    # The flips are drawn by another generator in dynamic mode (ndd-facts 2.4; the harness feeds both the same
    # states): the labels and the image shapes are the pipeline's, flipped or not.
    want, got = steps_as_arrays(want), steps_as_arrays(got)
    assert_bitwise_equal(output(want, 1), output(got, 1), "labels")
    assert [a.shape for a in output(want, 0)] == [a.shape for a in output(got, 0)] == [(16, 16, 3)] * 12
    script = tmp_path / "alone" / "my-loader.py"
    script.parent.mkdir()
    script.write_text(OPS_CLASS)
    alone = migrate_paths([script], write=True)
    assert [m.rule for f in alone.files for m in f.manual] == [] and "ReaderStream" in script.read_text()


PLAIN_ATTRIBUTES_CLASS = '''import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Folder:
    def __init__(self, root):
        self.root = root

    def __len__(self):
        return 10


class FolderPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, tag="train"):
        super().__init__(batch_size, num_threads, device_id)
        self.data_dir = data_dir
        self.tag = tag
        self.dataset = Folder(data_dir)
        self.input = ops.readers.File(file_root=data_dir)
        self.steps_run = 0

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return jpegs, labels

    def iter_setup(self):
        self.steps_run += 1
'''


@pytest.mark.parametrize("use, marked", [
    ("pipe = FolderPipe(2, 1, 0, 'images')\nprint(len(pipe.dataset), pipe.data_dir, pipe.tag)\n", []),
    ("pipe = FolderPipe(2, 1, 0, data_dir='images', tag='eval')\nprint(pipe.tag)\n", []),
    # the argument is a DALI value (the migration rewrites it): the attribute would not hold what it held
    ("import nvidia.dali.types as types\npipe = FolderPipe(2, 1, 0, 'images', tag=types.FLOAT)\nprint(pipe.tag)\n",
     ["DM230", "DM231"]),
    ("pipe = FolderPipe(2, 1, 0, 'images')\nprint(pipe.steps_run)\n", ["DM230", "DM231"]),  # iter_setup's
    ("pipe = FolderPipe(2, 1, 0, 'images')\nprint(pipe.input)\n", ["DM230", "DM231"]),  # an ops reader
    ("args = (2, 1, 0, 'images')\npipe = FolderPipe(*args)\nprint(pipe.data_dir)\n", ["DM230", "DM231"]),
])
def test_plain_attributes_of_an_imported_pipeline_class(tmp_path, use, marked):
    # Another module reads attributes of a Pipeline subclass it imports: the plain ones the class's own methods
    # set migrate (the migrated class keeps them), a constructor parameter's as the arguments this module passes
    # are plain; DALI values, what iter_setup sets and arguments the model cannot read stay escapes.
    (tmp_path / "pipes.py").write_text(PLAIN_ATTRIBUTES_CLASS)
    (tmp_path / "main.py").write_text("from pipes import FolderPipe\n\n" + use)
    run = migrate_paths([tmp_path], write=True)
    assert not run.errors
    got = {Path(f.path).name: sorted(m.rule for m in f.manual) for f in run.files}
    assert got["main.py"] == marked, [(m.rule, m.message) for f in run.files for m in f.manual]
    assert ("class FolderPipe(ReaderStream)" in (tmp_path / "pipes.py").read_text()) == (not marked)


def test_a_module_that_does_not_migrate_keeps_what_it_is_passed(tmp_path):
    """A helper module of the run that cannot be migrated (it does not parse) never learns what it gets: the caller's
    pipeline stays in pipeline mode, marked at the call (DM239) with the helper's reason."""
    (tmp_path / "helper.py").write_text("def compare(outs, expected):\n    print 'no'\n")
    (tmp_path / "main.py").write_text(
        "from nvidia.dali import fn, pipeline_def\nfrom helper import compare\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef noise():\n"
        "    return fn.random.uniform(shape=(3,))\n\n\n"
        "pipe = noise()\nout = pipe.run()\ncompare(out, None)\n")
    run = migrate_paths([tmp_path], jobs=1)
    main = next(r for r in run.files if r.path.endswith("main.py"))
    assert "@pipeline_def" in main.migrated and "pipe.run()" in main.migrated
    assert [f.line for f in main.findings if f.rule == "DM239"] == [12]
    assert "in helper: not migrated" in main.migrated


# Two factories of one module whose pipelines are inner defs of the same name (one origin there), each kept by another
# module for its own reason: which factory names that origin used to follow ``units.top_level``, a set of nodes, in
# the order of their addresses; a whole-tree run over DALI named the other one now and then.
TWIN_FACTORIES = '''from nvidia.dali import pipeline_def, fn


def first_factory(batch_size):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def made():
        return fn.random.uniform(range=(0, 1), shape=(2,))

    return made()


def second_factory(batch_size):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def made():
        return fn.random.uniform(range=(0, 2), shape=(3,))

    return made()
'''
TWIN_USERS = {
    "use_first.py": "from helpers import first_factory\nimport unknown_library\n\n"
                    "pipe = first_factory(2)\nunknown_library.consume(pipe)\n",
    "use_second.py": "from helpers import second_factory\nimport other_library\n\n"
                     "pipe = second_factory(2)\nother_library.take(pipe)\n",
}


class _Reversed(set):
    """A set that iterates backwards from the module's order: where the set of top-level statements had iterated."""

    def __init__(self, ordered):
        super().__init__(ordered)
        self.ordered = list(ordered)

    def __iter__(self):
        return iter(reversed(self.ordered))


def test_the_factory_that_names_a_shared_origin_does_not_depend_on_set_order(tmp_path, monkeypatch):
    from dali_migrate import units

    (tmp_path / "helpers.py").write_text(TWIN_FACTORIES)
    for name, text in TWIN_USERS.items():
        (tmp_path / name).write_text(text)
    as_usual = {Path(f.path).name: f.migrated for f in migrate_paths([tmp_path], jobs=1).files}
    assert "line 5" in as_usual["helpers.py"]  # (one of the users' reasons names the shared pipeline)
    built = units.Units.__init__

    def reversed_top_level(self, flow, module, *args, **kwargs):
        built(self, flow, module, *args, **kwargs)
        self.top_level = _Reversed(module.body)

    monkeypatch.setattr(units.Units, "__init__", reversed_top_level)
    backwards = {Path(f.path).name: f.migrated for f in migrate_paths([tmp_path], jobs=1).files}
    assert backwards == as_usual
