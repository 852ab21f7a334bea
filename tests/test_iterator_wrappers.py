"""Iterator wrappers (DM241): modules whose PyTorch iterators get pipelines they cannot trace (a parameter, an
attribute, another module's value) migrate to the EpochIterator that decides at run time; in project mode a
pipeline handed to such a wrapper of another module migrates too (as a ReaderStream)."""

from __future__ import annotations

import textwrap

from dali_migrate import migrate_paths, migrate_source
from dali_migrate.project import scan_project

WRAPPER = textwrap.dedent('''\
    from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


    class Loader(DALIGenericIterator):
        def __init__(self, pipe, size, **kw):
            super().__init__(pipe, ["data", "label"], size=size, auto_reset=True, **kw)


    class Lightning(DALIClassificationIterator):
        def __next__(self):
            return [super().__next__()[0][k] for k in self.output_map]


    def make_loader(pipe, reader_name="Reader"):
        return DALIGenericIterator([pipe], ["x", "y"], reader_name=reader_name,
                                   last_batch_policy=LastBatchPolicy.PARTIAL)


    def peek(pipe):
        pipe.build()
        return DALIGenericIterator(pipe, ["x"], size=8)
''')

CALLER = textwrap.dedent('''\
    from nvidia.dali import fn, pipeline_def
    from nvidia.dali.plugin.pytorch import LastBatchPolicy

    from wrapper import Loader, make_loader


    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def labels_pipe(root):
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        return labels + 1, labels


    def main(root):
        loader = make_loader(labels_pipe(root))
        other = Loader(labels_pipe(root), 10, last_batch_policy=LastBatchPolicy.DROP)
        return [len(loader), len(other)]
''')


def test_a_wrapper_module_migrates_alone_with_a_run_time_decision():
    """Each iterator over a parameter becomes the EpochIterator with the call's own arguments (the policy member
    its name, DALIClassificationIterator's map put in), the subclasses derive from it, nothing is marked, and
    the finding names the run-time decision."""
    result = migrate_source(WRAPPER, "wrapper.py")
    migrated = result.migrated
    assert "dali-migrate: DM" not in migrated and not [f for f in result.findings if not f.fixed]
    assert 'return EpochIterator([pipe], ["x", "y"], reader_name=reader_name,' in migrated
    assert 'last_batch_policy="PARTIAL")' in migrated
    assert 'super().__init__(pipe, ["data", "label"], size=size, auto_reset=True, **kw)' in migrated
    assert "class Lightning(EpochIterator):\n    def __init__(self, pipelines, *args, **kwargs):" in migrated
    assert 'super().__init__(pipelines, ["data", "label"], *args, **kwargs)' in migrated
    decided = [f for f in result.findings if f.rule == "DM241"]
    assert {f.line for f in decided} >= {4, 9, 15} and all("run time" in f.message for f in decided)
    assert migrate_source(migrated, "wrapper.py").migrated == migrated  # a second run changes nothing


def test_pre_scan_knows_which_arguments_reach_a_run_time_iterator(tmp_path):
    """make_loader's pipe (position 0) only feeds an iterator; peek's pipe is built too (pipeline-mode API on it),
    so peek is no wrapper; the subclasses take any argument."""
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    (tmp_path / "train.py").write_text(CALLER)
    wrappers = scan_project([tmp_path]).iterator_wrappers
    assert wrappers == {"wrapper.Loader": frozenset({"*"}), "wrapper.Lightning": frozenset({"*"}),
                        "wrapper.make_loader": frozenset({0, "pipe"})}


def test_a_pipeline_handed_to_a_wrapper_of_another_module_migrates(tmp_path):
    """Project mode: the caller's pipeline is no escape any more; it becomes a ReaderStream (the wrapper's iterator
    asks it for its batch size and reader), the policy member handed over becomes its name, both modules are
    unmarked, and a second run changes nothing."""
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    (tmp_path / "train.py").write_text(CALLER)
    run = migrate_paths([str(tmp_path)], write=True, jobs=1)
    findings = [f for r in run.files for f in r.findings]
    assert not [f for f in findings if not f.fixed], [f.message for f in findings if not f.fixed]
    train = (tmp_path / "train.py").read_text()
    assert 'return ReaderStream(steps(), {"Reader": reader}, batch_size)' in train
    assert 'other = Loader(labels_pipe(root), 10, last_batch_policy="DROP")' in train
    assert any(f.rule == "DM241" and f.path.endswith("train.py") for f in findings)
    assert "EpochIterator([pipe]" in (tmp_path / "wrapper.py").read_text()
    again = migrate_paths([str(tmp_path)], write=False, jobs=1)
    assert all(r.migrated == r.original for r in again.files if r.original)


# An iterator class of the data module that calls pipeline-only API on what another module gives it (DM242).
ITERATOR_CLASS = textwrap.dedent('''\
    from nvidia.dali import fn
    from nvidia.dali.pipeline import Pipeline


    class Shard(Pipeline):
        def __init__(self, root, batch_size, device_id):
            super().__init__(batch_size=batch_size, num_threads=2, device_id=device_id)
            self.root = root

        def define_graph(self):
            jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
            return jpegs, labels


    class Buffered:
        def __init__(self, steps, pipes):
            self._pipes = pipes
            self.steps = steps
            for p in self._pipes:
                p.build()
                p.schedule_run()

        def __next__(self):
            outputs = [p.share_outputs() for p in self._pipes]
            for p in self._pipes:
                p.release_outputs()
                p.schedule_run()
            return [[o.as_array().copy() for o in out] for out in outputs]
''')
ITERATOR_CALLER = textwrap.dedent('''\
    import sys

    from data import Buffered, Shard

    loader = Buffered(3, pipes=[Shard(sys.argv[1], 2, 0)])
''')


def test_an_iterator_class_given_pipelines_from_elsewhere_adapts_them():
    """Migrated alone: the parameter the untraced calls reach (pipes, a list: it is iterated) goes through
    ReaderStream.adapt, the pipeline-only calls go, and the module's pipeline class migrates with it (one unit)."""
    result = migrate_source(ITERATOR_CLASS, "data.py")
    assert "# dali-migrate:" not in result.migrated
    assert "        pipes = ReaderStream.adapt(pipes)  # nvidia.dali Pipelines or migrated ones: one interface\n" \
           "        self._pipes = pipes\n" in result.migrated
    assert "outputs = [next(p) for p in self._pipes]" in result.migrated
    assert "schedule_run" not in result.migrated.split("class Buffered")[1]
    assert "class Shard(ReaderStream):" in result.migrated
    assert [f.rule for f in result.findings].count("DM242") == 1
    assert migrate_source(result.migrated, "data.py").migrated == result.migrated


def test_pre_scan_lists_an_adapting_iterator_class_before_and_after_migration(tmp_path):
    """The class takes pipelines at position 1 and keyword pipes; migrated, its ReaderStream.adapt says the same."""
    (tmp_path / "data.py").write_text(ITERATOR_CLASS)
    assert scan_project([tmp_path]).iterator_wrappers == {"data.Buffered": frozenset({1, "pipes"})}
    (tmp_path / "data.py").write_text(migrate_source(ITERATOR_CLASS, "data.py").migrated)
    assert scan_project([tmp_path]).iterator_wrappers == {"data.Buffered": frozenset({1, "pipes"})}


def test_a_project_hands_its_pipelines_to_an_adapting_iterator_class(tmp_path):
    """Project mode: the caller's pipelines passed to the class (by keyword) are no escape; both modules migrate."""
    (tmp_path / "data.py").write_text(ITERATOR_CLASS)
    (tmp_path / "train.py").write_text(ITERATOR_CALLER)
    run = migrate_paths([str(tmp_path)], write=True, jobs=1)
    findings = [f for r in run.files for f in r.findings]
    assert not [f for f in findings if not f.fixed], [f.message for f in findings if not f.fixed]
    assert "pipes = ReaderStream.adapt(pipes)" in (tmp_path / "data.py").read_text()
    again = migrate_paths([str(tmp_path)], write=False, jobs=1)
    assert all(r.migrated == r.original for r in again.files if r.original)


# A wrapper class and a factory that hand their *args/**kwargs to DALIGenericIterator (reshaping its output), and
# one that also reads its *args itself.
FORWARDING = textwrap.dedent('''\
    from nvidia.dali.plugin.pytorch import DALIGenericIterator


    class Loader:
        def __init__(self, *args, **kwargs):
            self.inner = DALIGenericIterator(*args, **kwargs)

        def __next__(self):
            return next(self.inner)[0]["x"]

        def __len__(self):
            return self.inner._size // self.inner.batch_size


    def make(scale, *args, flag=False, **kwargs):
        return DALIGenericIterator(*args, **kwargs), scale, flag


    class Peek:
        def __init__(self, *args, **kwargs):
            self.first = args[0]
            self.inner = DALIGenericIterator(*args, **kwargs)
''')
FORWARDING_CALLER = textwrap.dedent('''\
    from nvidia.dali import fn, pipeline_def

    from loaders import Loader, make


    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def labels_pipe(root):
        jpegs, labels = fn.readers.file(file_root=root)
        return labels + 1, labels


    def main(root):
        first = Loader([labels_pipe(root)], ["x", "y"], size=10)
        second = Loader(pipelines=labels_pipe(root), output_map=["x", "y"], size=10)
        third = make(2, [labels_pipe(root)], ["x", "y"], size=10, flag=True)
        return [len(first), len(second), third]
''')


def test_a_wrapper_forwarding_star_arguments_decides_at_run_time():
    """DALIGenericIterator(*args, **kwargs) in a def that only hands its star parameters on becomes the EpochIterator
    with the same arguments (DM241); the same module's pipelines passed there (by position, or as pipelines=) migrate
    as ReaderStreams (only the wrapper asks them for their batch size). A wrapper that also reads args[0] keeps its
    iterator (marked) and the pipeline passed to it stays in pipeline mode (DM231)."""
    module = FORWARDING.replace("from nvidia.dali.plugin", "from nvidia.dali import fn, pipeline_def\n"
                                                             "from nvidia.dali.plugin") + textwrap.dedent('''\


        @pipeline_def(batch_size=4, num_threads=2, device_id=None)
        def labels_pipe(root):
            jpegs, labels = fn.readers.file(file_root=root)
            return labels + 1, labels


        @pipeline_def(batch_size=2, num_threads=2, device_id=None)
        def peeked(root):
            jpegs, labels = fn.readers.file(file_root=root, name="Reader")
            return labels


        def main(root):
            first = Loader([labels_pipe(root)], ["x", "y"], size=10)
            second = Loader(pipelines=labels_pipe(root), output_map=["x", "y"], size=10)
            third = make(2, [labels_pipe(root)], ["x", "y"], size=10, flag=True)
            fourth = Peek(peeked(root), ["x"], reader_name="Reader")
            return [len(first), len(second), third, fourth.first]
    ''')
    result = migrate_source(module, "loaders.py")
    migrated = result.migrated
    assert "        self.inner = EpochIterator(*args, **kwargs)\n" in migrated
    assert "    return EpochIterator(*args, **kwargs), scale, flag\n" in migrated
    assert "return ReaderStream(steps(), {}, batch_size)" in migrated.split("def labels_pipe")[1]
    decided = sorted(f.line for f in result.findings if f.rule == "DM241")
    assert decided == [7, 17, 39, 40, 41], decided  # the two iterators, and the three calls handing pipelines on
    left = sorted(f.rule for f in result.findings if not f.fixed)
    assert left == ["DM212", "DM230", "DM231"], left
    assert "        self.inner = DALIGenericIterator(*args, **kwargs)\n" in migrated.split("class Peek")[1]
    assert "@pipeline_def(batch_size=2" in migrated and "fn.readers.file(file_root=root, name=\"Reader\")" in migrated
    assert migrate_source(migrated, "loaders.py").migrated == migrated


def test_pre_scan_knows_where_star_arguments_land(tmp_path):
    """The wrapper class takes every argument (positions from 0 on, any keyword); the factory's *args start after
    scale, its **kwargs take the keywords other than scale and flag; Peek is no wrapper. Migrated, the same."""
    (tmp_path / "loaders.py").write_text(FORWARDING)
    expected = {"loaders.Loader": frozenset({("*", 0), ("**", frozenset())}),
                "loaders.make": frozenset({("*", 1), ("**", frozenset({"scale", "flag"}))})}
    assert scan_project([tmp_path]).iterator_wrappers == expected
    (tmp_path / "loaders.py").write_text(migrate_source(FORWARDING, "loaders.py").migrated)
    assert scan_project([tmp_path]).iterator_wrappers == expected


def test_a_project_hands_its_pipelines_to_a_forwarding_wrapper(tmp_path):
    """Project mode: the pipelines another module passes into the wrapper's star parameters (by position, as
    pipelines=, after a named parameter) become ReaderStreams; only Peek's iterator is marked, a second run changes
    nothing."""
    (tmp_path / "loaders.py").write_text(FORWARDING)
    (tmp_path / "train.py").write_text(FORWARDING_CALLER)
    run = migrate_paths([str(tmp_path)], write=True, jobs=1)
    findings = [f for r in run.files for f in r.findings]
    left = [(f.path.rsplit("/", 1)[-1], f.rule) for f in findings if not f.fixed]
    assert left == [("loaders.py", "DM212")], left
    train = (tmp_path / "train.py").read_text()
    assert "return ReaderStream(steps(), {}, batch_size)" in train
    assert sum(f.rule == "DM241" and f.path.endswith("train.py") for f in findings) == 3
    # the EpochIterator now comes from the helper module: the wrapper is still one
    assert "from dali_dynamic_compat import EpochIterator" in (tmp_path / "loaders.py").read_text()
    assert scan_project([tmp_path]).iterator_wrappers["loaders.Loader"] == frozenset({("*", 0), ("**", frozenset())})
    again = migrate_paths([str(tmp_path)], write=False, jobs=1)
    assert all(r.migrated == r.original for r in again.files if r.original)
