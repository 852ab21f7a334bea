"""fn.external_source migrated (golden/unroll/external_source.py): original and migrated pipelines run
on the CPU side by side, bitwise, including where each one stops (an exhausted source ends pipe.run()
with StopIteration; the migrated generator ends at the same step)."""

import functools

import numpy as np
import pytest

from runtime import assert_bitwise_equal, make_images, output, pair, steps_as_arrays


@pytest.fixture(scope="module")
def modules():
    original, migrated, text = pair("unroll/external_source.py")
    return original, migrated, text


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("es_images"), count=10, classes=2)


def _files(root):
    return sorted(str(p) for p in root.rglob("*.jpg"))


def _pipeline_steps(pipe, limit):
    pipe.build()
    steps = []
    for _ in range(limit):
        try:
            steps.append(pipe.run())
        except StopIteration:
            return steps, True
    return steps, False


def _generator_steps(gen, limit):
    steps = []
    for _ in range(limit):
        try:
            steps.append(next(gen))
        except StopIteration:
            return steps, True
    return steps, False


def _compare(want, got, outputs):
    (want, want_stopped), (got, got_stopped) = want, got
    assert len(want) == len(got) and want_stopped == got_stopped
    want, got = steps_as_arrays(want), steps_as_arrays(got)
    return [assert_bitwise_equal(output(want, k), output(got, k), f"output {k}") for k in range(outputs)]


def test_generator_of_ragged_jpeg_batches(modules, image_root):
    """A generator function of encoded JPEGs (ragged): a plain loop over it; 5 batches, then both stop."""
    original, migrated, text = modules
    assert "for jpegs in encoded_batches():" in text
    original.FILES[:] = migrated.FILES[:] = _files(image_root)
    counts = _compare(_pipeline_steps(original.decode_files(16), 8), _generator_steps(migrated.decode_files(16), 8), 1)
    assert counts == [10]


def test_two_outputs_and_count_of_steps(modules, image_root):
    original, migrated, _ = modules
    files = _files(image_root)
    original.FILES[:] = migrated.FILES[:] = files
    counts = _compare(_pipeline_steps(original.decode_labelled(), 8), _generator_steps(migrated.decode_labelled(), 8), 2)
    assert counts == [10, 10]
    assert original.count_steps(files) == migrated.count_steps(files) == 5


def test_cycled_list_runs_on_with_its_layout(modules):
    original, migrated, _ = modules
    want, got = _pipeline_steps(original.cycled_arrays(), 7), _generator_steps(migrated.cycled_arrays(), 7)
    assert _compare(want, got, 1) == [14]  # 3 batches in the list, 7 steps: cycled twice
    assert got[0][-1][0].layout == "HW" == want[0][-1][0].layout()


def test_callable_source_stops_with_the_pipeline(modules):
    original, migrated, _ = modules
    batches = original.BATCHES
    got = _generator_steps(migrated.called_each_step(batches), 5)
    assert _compare(_pipeline_steps(original.called_each_step(batches), 5), got, 1) == [6]


@pytest.mark.parametrize("kind", ["generator function", "list", "callable", "ragged list", "partial of a generator function"])
def test_source_of_unknown_kind_is_decided_at_run_time(modules, kind):
    """given_source(source): the text cannot tell what source is, so the migrated generator decides as
    pipeline mode does (a generator function is called, a list iterated, a callable called), and each item
    goes through ndd.as_batch: a batch of differently shaped samples works too."""
    original, migrated, text = modules
    batches = original.BATCHES
    if kind == "ragged list":
        batches = [[np.zeros((k + 1, 2), np.uint8), np.ones((1, 2), np.uint8)] for k in range(3)]

    def make():
        if kind in ("list", "ragged list"):
            return batches
        if kind == "generator function":
            def gen():
                yield from batches
            return gen
        if kind == "partial of a generator function":  # DALI calls it once, as the function it wraps
            def gen_of(some, *, rest):
                yield from some
                yield from rest
            return functools.partial(gen_of, batches[:1], rest=batches[1:])
        pending = iter(batches)
        return lambda: next(pending)

    assert "DM220 what source=source is" not in text and "inspect.signature(source_2)" in text
    assert _compare(_pipeline_steps(original.given_source(make()), 5), _generator_steps(migrated.given_source(make()), 5),
                    1) == [sum(len(batch) for batch in batches)]


def test_reader_next_to_a_source(modules, image_root):
    """The reader drives the loop; the source (3 pairs) is pulled each step and ends the pipeline after 3."""
    original, migrated, _ = modules
    root = str(image_root)
    assert _compare(_pipeline_steps(original.reader_and_source(root), 6),
                    _generator_steps(migrated.reader_and_source(root), 6), 3) == [6, 6, 6]


def test_indexed_lambdas_run_as_the_pipeline(modules):
    """The per-sample lambda (SampleInfo) and the batch_info lambda (BatchInfo) of the first golden now
    migrate; both are endless, so 5 steps are compared."""
    original, migrated, text = modules
    assert "DM220 per_sample" not in text and "DM220 with_batch_info" not in text
    for name in ("per_sample", "with_batch_info"):
        want, _ = _pipeline_steps(getattr(original, name)(), 5)
        got, _ = _generator_steps(getattr(migrated, name)(), 5)
        _compare((want, False), (got, False), 1)


@pytest.fixture(scope="module")
def indexed_modules():
    return pair("unroll/external_source_per_sample.py")


@pytest.mark.parametrize("name, outputs, steps", [
    ("indexed", 1, 2),  # 11 samples at batch 4: the StopIteration of sample 11 drops the third batch
    ("from_generator", 1, 2),  # 11 items, one sample each: the same
    ("from_list", 1, 1),  # 6 items: one batch, the other two samples dropped
    ("with_batch_info", 1, 3),
    ("with_iteration", 1, 2),
])
def test_per_sample_and_indexed_sources(indexed_modules, name, outputs, steps):
    """Each migrated generator gives the pipeline's batches bitwise, with the same SampleInfo/BatchInfo/
    iteration values, and stops at the same step."""
    original, migrated, text = indexed_modules
    assert f"def {name}(" in text and "dali-migrate: DM" not in text
    want = _pipeline_steps(getattr(original, name)(), steps + 3)
    assert want[1] and len(want[0]) == steps  # the pipeline itself stops there
    _compare(want, _generator_steps(getattr(migrated, name)(), steps + 3), outputs)


def test_per_sample_values_are_the_sample_info(indexed_modules):
    _, migrated, _ = indexed_modules
    steps = steps_as_arrays(list(migrated.indexed()))
    rows = [sample.tolist() for step in steps for sample in step[0]]
    # (idx_in_epoch, idx_in_batch, iteration, epoch_idx) * 2, as pipeline mode passes them at batch 4
    assert rows == [[2 * k, 2 * (k % 4), 2 * (k // 4), 0] for k in range(8)]


def test_parallel_source_with_two_outputs(indexed_modules):
    """parallel=True with py_num_workers=2 (worker processes) against the migrated generator that calls
    the stateless loader in its own thread: the same ragged images and labels, and the same stop."""
    original, migrated, text = indexed_modules
    assert "py_num_workers" not in text.split("def loaded(")[1].split("\n\n\n")[0]
    _compare(_pipeline_steps(original.loaded(2), 5), _generator_steps(migrated.loaded(2), 5), 2)


def _indexed(info):
    if info.idx_in_epoch >= 5:
        raise StopIteration
    return np.array([info.idx_in_epoch, info.iteration], np.int32)


def _numbered_samples():
    for k in range(5):
        yield np.array([k, 10 * k], np.int32)


def _scaled_samples(scale):
    for k in range(5):
        yield np.array([k, scale * k], np.int32)


class _Counted:
    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.calls > 5:
            raise StopIteration
        return np.array([self.calls], np.int32)


@pytest.mark.parametrize("make_source", [
    lambda: _indexed,  # takes a SampleInfo
    lambda: _numbered_samples,  # a generator function: called, then one sample per item
    lambda: functools.partial(_scaled_samples, 7),  # a partial of one: the same (DALI unwraps it)
    lambda: [np.array([k], np.uint8) for k in range(5)],  # an iterable
    _Counted,  # a callable without an argument: called once per sample
], ids=["sample_info", "generator_function", "partial_generator_function", "list", "no_argument"])
def test_per_sample_source_of_unknown_kind_is_decided_at_run_time(make_source):
    """A per-sample source passed as a parameter: the migrated generator decides what it is as pipeline
    mode does, so each kind gives the same batches and stops at the same step (5 samples at batch 2)."""
    from runtime import load, on_cpu
    from dali_migrate.engine import migrate_source
    code = ("from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
            "def p(loader):\n    data = fn.external_source(loader, batch=False)\n    return data\n")
    migrated_text = migrate_source(code, "unknown.py").migrated
    assert "dali-migrate: DM" not in migrated_text and "inspect.signature(source)" in migrated_text
    original, migrated = load(on_cpu(code), "unknown_original"), load(on_cpu(migrated_text), "unknown_migrated")
    want = _pipeline_steps(original.p(make_source()), 5)
    assert want[1] and len(want[0]) == 2
    _compare(want, _generator_steps(migrated.p(make_source()), 5), 1)


CLASS_STYLE = '''import numpy as np
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


class Loader:
    def __call__(self, sample_info):
        if sample_info.idx_in_epoch >= 7:
            raise StopIteration
        return np.array([sample_info.idx_in_epoch], np.int32), np.array([sample_info.iteration], np.int32)


class SourcePipeline(Pipeline):
    def __init__(self, batch_size, loader):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None, py_num_workers=2)
        self.loader = loader

    def define_graph(self):
        ids, steps = fn.external_source(source=self.loader, batch=False, num_outputs=2, parallel=True)
        return ids * 2, steps
'''


def test_parallel_per_sample_source_held_in_an_attribute_of_a_pipeline_subclass():
    """source=self.loader in define_graph, parallel=True and py_num_workers in super().__init__: the
    migrated class decides at run time that the loader takes a SampleInfo, and gives the same two
    batches at batch 3 (7 samples: the third batch is dropped), with self.batch_size counting."""
    from runtime import load, on_cpu
    from dali_migrate.engine import migrate_source
    result = migrate_source(CLASS_STYLE, "class_style.py")
    assert "dali-migrate: DM" not in result.migrated and "self.batch_size + i" in result.migrated
    assert {f.rule for f in result.findings} >= {"DM218"}
    original, migrated = load(on_cpu(CLASS_STYLE), "class_original"), load(on_cpu(result.migrated), "class_migrated")
    want = _pipeline_steps(original.SourcePipeline(3, original.Loader()), 5)
    assert want[1] and len(want[0]) == 2
    assert _compare(want, _generator_steps(iter(migrated.SourcePipeline(3, migrated.Loader())), 5), 2) == [6, 6]


def test_ops_external_source_given_source_runs_bitwise():
    """golden/unroll/class_ops_source.py: ops.ExternalSource(source=, num_outputs=2, dtype=[...]) called in
    define_graph and a class that builds itself; same steps, same end, as pipeline mode."""
    original, migrated, text = pair("unroll/class_ops_source.py")
    assert "dali-migrate:" not in text and "        self.build()" not in text

    def batches():
        for k in range(3):
            yield ([np.full((2, 3), k + i, dtype=np.float32) for i in range(4)],
                   [np.array([k * 4 + i], dtype=np.uint8) for i in range(4)])

    pipe = original.SamplesPipeline(4, batches(), 2, None)
    want, want_end = [], False
    for _ in range(5):
        try:
            want.append(pipe.run())
        except StopIteration:
            want_end = True
            break
    got, got_end = _generator_steps(migrated.SamplesPipeline(4, batches(), 2, None), 5)
    assert want_end and got_end and len(want) == len(got) == 3
    want, got = steps_as_arrays(want), steps_as_arrays(got)
    for k in range(2):
        assert_bitwise_equal(output(want, k), output(got, k), f"output {k}")
    assert migrated.first_labels(batches()).ravel().tolist() == [0, 1, 2, 3]


def test_ops_external_source_without_source_or_feed_stays_marked():
    from dali_migrate.engine import migrate_source

    source = (
        "import nvidia.dali.ops as ops\n"
        "from nvidia.dali.pipeline import Pipeline\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size):\n"
        "        super().__init__(batch_size, 1, None)\n"
        "        self.input = ops.ExternalSource()\n\n"
        "    def define_graph(self):\n"
        "        return self.input()\n\n"
        "pipe = P(2)\npipe.build()\nout = pipe.run()\n")
    text = migrate_source(source, "p.py").migrated
    assert "DM212" in text and "given no source=" in text and "pipe.run()" in text


def _speech_utterances(kind):
    """The speech golden's utterances as each kind of source: 3 batches of samples of different lengths."""
    batches = [[np.arange(4 * (2 + i + step), dtype=np.float32) + 10 * step for i in range(2)] for step in range(3)]
    if kind == "list":
        return batches
    if kind == "generator function":
        def utterances():
            yield from batches
        return utterances

    class Utterances:  # an iterable object: iter() again at each end
        def __iter__(self):
            return iter(batches)
    return Utterances()


@pytest.mark.parametrize("masking", [True, False])
@pytest.mark.parametrize("kind", ["list", "generator function", "iterable object"])
def test_cycled_parameter_source_is_decided_at_run_time(kind, masking):
    """golden/unroll/source_kind_cycled.py: cycle=True over a pipeline parameter (ragged utterances) and, under a
    build-time condition, over the nested one-yield generator function its caller passes (or None): each step
    calls that function again, as pipeline mode's _CycleGenFunc did, and a list of differently shaped samples is
    one batch (ndd.as_batch, not ndd.ExternalSource's stacking). 8 steps: both sources wrap."""
    original, migrated, text = pair("unroll/source_kind_cycled.py")
    assert "DM220" not in text and "ndd.ExternalSource" not in text
    want = _pipeline_steps(original.make_pipeline(_speech_utterances(kind), 2, masking), 8)
    got = _generator_steps(migrated.make_pipeline(_speech_utterances(kind), 2, masking), 8)
    assert _compare(want, got, 1) == [16]
    sums = [float(np.asarray(step[0].select(0)).sum()) for step in got[0]]
    assert sums[:3] == sums[3:6]  # the utterances cycle, the cutouts come again each step


def test_cycled_generator_function_is_called_again_at_each_end():
    """A one-yield generator function with cycle=True gives one batch per call: pipeline mode calls it again
    when it ends, every step (docs/dali-facts.md); the migrated generator does the same, ragged batch included."""
    original, migrated, _ = pair("unroll/source_kind_cycled.py")
    runs = []
    for module in (original, migrated):
        calls = []

        def utterances():
            calls.append(len(calls))
            k = len(calls)
            yield [np.full((4 * k,), k, np.float32), np.full((4 * (k + 1),), -k, np.float32)]
        pipe = module.make_pipeline(utterances, 2, False)
        steps = _pipeline_steps(pipe, 4) if module is original else _generator_steps(pipe, 4)
        runs.append((steps, len(calls)))
    assert _compare(runs[0][0], runs[1][0], 1) == [8]
    assert runs[1][1] == 4 and runs[0][1] >= 4  # one call per step (pipeline mode prefetches a little ahead)


def _speech_batches(k):
    return [np.sin(np.arange(200 + 20 * i + 10 * k, dtype=np.float32) / 7) for i in range(3)]


@pytest.mark.parametrize("train", [True, False])
def test_attribute_holding_a_source_or_an_operator(train):
    """golden/unroll/class_source_or_operator.py: self.speed_coeffs is an ops.ExternalSource in one branch of
    __init__, an ops.random.Uniform in another, None in the third. Fed, the migrated steps read the source's batches
    in order and end where it ends (StopIteration at the same step; not training, the source is never read and the
    utterances end the steps); None gives the plain steps; both bitwise equal to pipeline mode."""
    original, migrated, text = pair("unroll/class_source_or_operator.py")
    assert "dali-migrate:" not in text
    for kwargs in ({"speeds": "fed"}, {}):
        runs = []
        for module in (original, migrated):
            utterances = [_speech_batches(k) for k in range(5)]
            made = {**kwargs, "speeds": module.speeds(3)} if kwargs else {}
            pipe = module.AudioPipeline(utterances, 3, train, **made)
            runs.append(_pipeline_steps(pipe, 7) if module is original else _generator_steps(pipe, 7))
        counts = _compare(runs[0], runs[1], 2)
        assert counts == ([9, 9] if kwargs and train else [15, 15]), (kwargs, train, counts)


def test_attribute_holding_a_random_operator_is_seeded_and_per_sample():
    """The random branch: one value per sample (batch_size=), the pipeline's seed (the same seed gives the same
    values again), inside the range; pipeline mode's values differ (docs: random values never match)."""
    _, migrated, _ = pair("unroll/class_source_or_operator.py")

    def rates(seed):
        pipe = migrated.AudioPipeline([_speech_batches(k) for k in range(3)], 3, True, resample_range=[0.9, 1.1],
                                      seed=seed)
        steps = [next(pipe)[1] for _ in range(3)]
        return [np.asarray(rate.select(i)).item() for rate in steps for i in range(3)]
    first = rates(12)
    assert first == rates(12) and first != rates(13)
    assert len(set(first[:3])) == 3 and all(0.9 * 16000 <= r <= 1.1 * 16000 for r in first)


@pytest.mark.parametrize("name", ["masked", "masked_known"])
def test_cycled_source_under_a_condition_keeps_cycling(image_root, name):
    """golden/unroll/external_source_in_if.py: a one-yield generator function read with cycle=True under a
    build-time `if`, pulled each step beside a reader: pipeline mode calls it again at each end, so it never ends
    the pipeline; the migrated step reads it again from the start too (a known generator function as well as a
    parameter whose kind shows at run time). 6 steps, bitwise."""
    original, migrated, _ = pair("unroll/external_source_in_if.py")
    root = str(image_root)
    made = {"source": original.cutouts} if name == "masked" else {}
    want = _pipeline_steps(getattr(original, name)(root, masking=True, **made), 6)
    made = {"source": migrated.cutouts} if name == "masked" else {}
    got = _generator_steps(getattr(migrated, name)(root, masking=True, **made), 6)
    assert _compare(want, got, 2) == [12, 12]


def test_sources_nested_in_expressions_run_as_the_pipeline(image_root):
    """golden/unroll/external_source_nested.py: each nested source is read into a name of its own and migrates;
    bitwise equal, with the same last step (encoded JPEGs decoded at once; a cycled source times 3; two sources
    as set_outputs' arguments); the one under a conditional expression stays in pipeline mode, marked."""
    original, migrated, text = pair("unroll/external_source_nested.py")
    assert "images = ndd.decoders.image(source_data, output_type=types.GRAY)" in text
    assert text.count("# dali-migrate:") == 2 and "def chosen(flag):" in text
    original.FILES[:] = migrated.FILES[:] = _files(image_root)
    assert _compare(_pipeline_steps(original.decoded(), 8), _generator_steps(migrated.decoded(), 8), 1) == [10]
    assert _compare(_pipeline_steps(original.scaled(), 6), _generator_steps(migrated.scaled(), 6), 1) == [12]
    assert _compare(_pipeline_steps(original.block_pipeline(), 6), _generator_steps(migrated.block_pipeline(), 6),
                    2) == [8, 8]
