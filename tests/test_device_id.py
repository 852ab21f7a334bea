"""device_id from a variable (issue 15, capability 6): the migrated generator runs its steps under
``with ndd.Device("gpu", device_id)`` and selects nothing when device_id is None.

This machine has no GPU, so the two paths are told apart by what DALI does there: with None the steps run
on the CPU and equal the pipeline's (device_id=None, CPU ops); with 0 the generator asks DALI for GPU 0, and
``ndd.Device("gpu", 0)`` raises ValueError (no device 0) at the first step, in the thread that runs the steps
(the Prefetch thread for a prefetched generator): a migration that dropped device_id, or selected the device
anywhere else, would run on the CPU instead. The GPU itself is checked by benchmarks/gpu_check.sh.
"""

import threading

import numpy as np
import pytest
import nvidia.dali.experimental.dynamic as ndd

from runtime import assert_bitwise_equal, load, make_images, on_cpu, pair, samples

NO_GPU = "Invalid device id: 0 for device type: gpu"


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("images"), count=10, classes=2)


@pytest.fixture(scope="module")
def modules():
    original, migrated, text = pair("unroll/device_id_variable.py")
    return original, migrated, text


def _labels(steps):
    return [[int(s.reshape(-1)[0]) for s in samples(step[1])] for step in steps]


def test_the_generators_take_device_id_and_select_it(modules):
    _, _, text = modules
    assert text.count('with ndd.Device("gpu", device_id) if device_id is not None else contextlib.nullcontext():') == 6  # 5 generators, 1 GPU reader
    assert "import contextlib" in text
    assert "EvalContext(" not in text  # the lighter construct: no executor thread or stream of its own


def test_reader_stream_with_device_none_runs_on_the_cpu_as_the_pipeline(modules, image_root):
    original, migrated, _ = modules
    pipe = original.create_dali_pipeline(batch_size=4, num_threads=2, device_id=None, seed=12, data_dir=str(image_root),
                                         crop=8, shard_id=0, num_shards=1, dali_cpu=True)
    pipe.build()
    stream = migrated.create_dali_pipeline(batch_size=4, device_id=None, seed=12, data_dir=str(image_root), crop=8,
                                           shard_id=0, num_shards=1, dali_cpu=True)
    assert stream.epoch_size("Reader") == pipe.epoch_size("Reader") == 10
    before = threading.active_count()
    got = [next(stream) for _ in range(6)]
    want = [pipe.run() for _ in range(6)]
    # the reader's shuffle order depends on how its seed is given (ndd-facts §3.2), so compare what an epoch
    # holds: pad_last_batch, 10 samples in 3 batches of 4, each label 5 times plus the padding repeats
    for steps in (got, want):
        epochs = [sorted(sum(_labels(steps[k:k + 3]), [])) for k in (0, 3)]
        assert all(len(e) == 12 and e.count(0) >= 5 and e.count(1) >= 5 for e in epochs), epochs
    assert [[s.shape for s in samples(step[0])] for step in got] == [[(8, 8, 3)] * 4] * 6
    assert threading.active_count() > before  # the steps run in the Prefetch thread
    stream.close()
    assert ndd.Device.current() == ndd.Device("cpu")
    assert not getattr(ndd.Device._thread_local, "devices", None)  # nothing left selected in this thread


def test_reader_stream_with_a_device_selects_it_in_the_prefetch_thread(modules, image_root):
    _, migrated, _ = modules
    stream = migrated.create_dali_pipeline(batch_size=4, device_id=0, seed=12, data_dir=str(image_root), crop=8,
                                           shard_id=0, num_shards=1, dali_cpu=True)
    assert stream.epoch_size("Reader") == 10  # the reader was created on the CPU, in this thread
    with pytest.raises(ValueError, match=NO_GPU):
        next(stream)


def test_plain_generator_and_with_block(modules, image_root):
    _, migrated, _ = modules
    for make in (lambda d: migrated.second_gpu(str(image_root), device_id=d),
                 lambda d: migrated.make_with_block(str(image_root), 2, 2, d)):
        steps = make(None)
        assert [s.shape for s in samples(next(steps)[0])][0][-1] == 3
        steps.close()
        with pytest.raises(ValueError, match=NO_GPU):
            next(make(0))
    # the decorator's device_id=1 is the default: GPU 1 is asked for
    with pytest.raises(ValueError, match="Invalid device id: 1 for device type: gpu"):
        next(migrated.second_gpu(str(image_root)))


def test_own_parameter_named_device_id_is_the_functions(modules, image_root):
    """pipeline_def gives a device_id= keyword to a function parameter of that name (the pipeline keeps its
    own default): the generator keeps it as the function's argument and selects no device."""
    original, migrated, _ = modules
    pipe = original.own_parameter(str(image_root), device_id=1)
    pipe.build()
    want = pipe.run()
    got = next(migrated.own_parameter(str(image_root), device_id=1))
    assert_bitwise_equal(samples(want[1]), samples(got[1]), "labels of shard 1")
    assert_bitwise_equal(samples(want[0]), samples(got[0]), "images of shard 1")


def test_pipeline_subclass(image_root):
    original, migrated, text = pair("unroll/class_ops_modern.py")
    assert 'with ndd.Device("gpu", self.device_id) if self.device_id is not None' in text
    got = iter(migrated.TrainPipe(4, 2, None, data_dir=str(image_root), crop=24, dali_cpu=True))
    assert np.asarray(samples(next(got)[0])[0]).shape[:1] in ((3,), (24,))
    with pytest.raises(ValueError, match=NO_GPU):
        next(iter(migrated.TrainPipe(4, 2, 0, data_dir=str(image_root), crop=24, dali_cpu=True)))


def test_device_variable_mixed_becomes_gpu(image_root):
    """NVIDIA's ResNet-50 keeps its decoder's device in a variable: the migrated one says "gpu" (ndd's name for
    the mixed backend; "mixed" would be a ValueError), and the CPU path is the pipeline's, bitwise."""
    original, migrated, text = pair("arguments/device_variable.py")
    assert "decoder_device = 'cpu' if dali_cpu else 'gpu'" in text
    assert "if decoder_device == 'gpu' else 0" in text
    pipe = original.resnet_style(str(image_root), dali_cpu=True)
    pipe.build()
    steps = migrated.resnet_style(str(image_root), dali_cpu=True)
    for _ in range(3):
        want, got = pipe.run(), next(steps)
        assert_bitwise_equal(samples(want[0]), samples(got[0]), "images")
        assert_bitwise_equal(samples(want[1]), samples(got[1]), "labels")
    with pytest.raises(RuntimeError, match="cudaErrorInsufficientDriver"):  # "gpu" asked for, not "mixed"
        next(migrated.resnet_style(str(image_root), dali_cpu=False))
    with pytest.raises(ValueError, match="Invalid device type: mixed"):  # what the variable held
        next(load(text.replace("else 'gpu'", "else 'mixed'"), "unrenamed").resnet_style(str(image_root)))


def test_rebound_device_parameter_mixed_becomes_gpu(image_root):
    """A device parameter rebound to the decoder's device (``device = 'mixed' if 'gpu' in device.lower() else
    'cpu'``): the migrated binding says "gpu", the reads after it ('cpu' in device, device != 'cpu') answer as
    before (a CPU run reads the second shard in both modes), and a GPU run asks ndd for "gpu", not "mixed"."""
    original, migrated, text = pair("arguments/device_rebound_parameter.py")
    assert "device = 'gpu' if 'gpu' in device.lower() else 'cpu'" in text
    assert 'device = "gpu" if "gpu" in device.lower() else "cpu"' in text  # the nested pipeline's
    files = sorted(str(p) for p in image_root.rglob("*.jpg"))
    pipe = original.masks_pipe(files, device="CPU", num_shards=2)
    pipe.build()
    steps = migrated.masks_pipe(files, device="CPU", num_shards=2)
    for _ in range(3):
        want, got = pipe.run(), next(steps)
        for index, what in enumerate(("images", "masks", "labels")):
            assert_bitwise_equal(samples(want[index]), samples(got[index]), what)
    nested_pipe = original.make_generator(files, 2, "cpu")
    nested_pipe.build()
    nested = migrated.make_generator(files, 2, "cpu")
    for _ in range(3):
        want, got = nested_pipe.run(), next(nested)
        assert_bitwise_equal(samples(want[0]), samples(got[0]), "nested images")
    with pytest.raises(RuntimeError, match="cudaErrorInsufficientDriver"):  # "gpu" asked for, not "mixed"
        next(load(text, "rebound_parameter").masks_pipe(files, device="GPU"))
    with pytest.raises(ValueError, match="Invalid device type: mixed"):  # what the variable held
        unrenamed = text.replace("device = 'gpu' if", "device = 'mixed' if")
        next(load(unrenamed, "unrenamed_parameter").masks_pipe(files, device="GPU"))


REBOUND = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1)
def pipe(files, device="gpu"):
    device = 'mixed' if 'gpu' in device.lower() else 'cpu'
    flag = {use}
    jpegs, labels = fn.readers.file(files=files)
    return fn.decoders.image(jpegs, device=device), labels
"""


@pytest.mark.parametrize("use, alike", [
    ("'cpu' in device", True), ("'cpu' not in device", True), ("device == 'cpu'", True), ("'cpu' != device", True),
    ("device in ('cpu', 'CPU')", True), ("device is None", True), ("device == 'mixed'", False),
    ("'mixed' in device", False), ("'g' in device", False), ("device in ['gpu', 'cpu']", False),
    ("device == 'gpu'", False), ("str(device)", False), ("device.upper()", False), ("device", False),
])
def test_rebound_device_migrates_only_when_every_later_read_answers_alike(use, alike):
    """The rebinding's "mixed" becomes "gpu" only when no read after it can tell the two apart."""
    from dali_migrate import migrate_source

    result = migrate_source(REBOUND.format(use=use), "rebound.py")
    rewritten = "device = 'gpu' if 'gpu' in device.lower() else 'cpu'" in result.migrated
    marked = "DM115" in {f.rule for f in result.findings if not f.fixed}
    assert (rewritten, marked) == (alike, not alike)


def test_pipeline_current_device_id_is_the_generators_device_id(modules, image_root):
    """shard_id=Pipeline.current().device_id: the generator's device_id, so each GPU's pipeline reads its own
    shard (the reader is created before the steps select the GPU, so its metadata is readable here)."""
    original, migrated, text = modules
    assert "Pipeline.current()" not in text
    for device_id in (0, 1):
        stream = migrated.per_gpu(str(image_root), 2, device_id=device_id)
        assert stream.reader_meta("Reader")["shard_id"] == device_id
        with pytest.raises(ValueError, match="Invalid device id"):
            next(stream)  # the steps run on that GPU
    pipe = original.per_gpu(str(image_root), 2, device_id=None)
    pipe.build()
    stream = migrated.per_gpu(str(image_root), 2, device_id=None)
    assert stream.reader_meta("Reader") == pipe.reader_meta("Reader")  # no device: shard 0, as the pipeline's
    assert _labels([next(stream) for _ in range(5)]) == _labels([pipe.run() for _ in range(5)])
