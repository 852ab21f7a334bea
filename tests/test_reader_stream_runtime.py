"""The DALI 2.4.0 facts the ReaderStream (unroll/stream.py) and the truth-test rule stand on, run on
real DALI with generated data (docs/dali-facts.md, "Reader metadata at run time")."""

import threading

import numpy as np
import pytest

from runtime import make_images

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
from nvidia.dali import fn, pipeline_def  # noqa: E402


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    return str(make_images(tmp_path_factory.mktemp("images"), count=10))


def _pipeline_mode(root):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def files():
        jpegs, labels = fn.readers.file(file_root=root, name="Reader", pad_last_batch=True)
        return fn.decoders.image(jpegs), labels

    pipe = files()
    pipe.build()
    return pipe


def test_metadata_asked_in_one_thread_then_read_in_another_gives_the_pipelines_values(images):
    pipe = _pipeline_mode(images)
    expected_meta = pipe.reader_meta("Reader")
    expected = []
    for _ in range(4):  # across the epoch end (10 samples, batches of 4)
        decoded, labels = pipe.run()
        expected.append([int(np.array(decoded.at(i)).sum()) for i in range(4)] + np.array(labels.as_tensor()).ravel().tolist())

    reader = ndd.readers.File(file_root=images, name="Reader", pad_last_batch=True, max_batch_size=4)
    assert reader.get_metadata() == expected_meta  # asked before the first batch: safe with max_batch_size
    got = []

    def steps():
        while len(got) < 4:
            for jpegs, labels in reader.next_epoch(batch_size=4):
                decoded = ndd.decoders.image(jpegs)
                got.append([int(np.array(decoded.select(i)).sum()) for i in range(4)]
                           + np.array(ndd.as_tensor(labels)).ravel().tolist())
                if len(got) == 4:
                    break

    thread = threading.Thread(target=steps)
    thread.start()
    thread.join()
    assert got == expected
    assert reader.get_metadata() == expected_meta


def test_epoch_size_without_a_name_is_a_dict_by_reader_name(images):
    pipe = _pipeline_mode(images)
    assert pipe.epoch_size() == {"Reader": 10}
    assert pipe.epoch_size("Reader") == pipe.reader_meta("Reader")["epoch_size"] == 10


def test_a_tensorlist_is_true_unless_empty_and_a_batch_always_is(images):
    pipe = _pipeline_mode(images)
    decoded, _ = pipe.run()
    assert bool(decoded) is True  # len() > 0: a reader's batch is never empty

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def fed():
        return fn.external_source(source=lambda: [], batch=True)

    empty = fed()
    empty.build()
    (out,) = empty.run()
    assert len(out) == 0 and bool(out) is False  # an external_source can give an empty batch
    assert bool(ndd.random.coin_flip(batch_size=2)) is True  # a Batch has no __bool__ and no __len__
