"""Iterating a pipeline output sample by sample means the same in both modes (docs/dali-facts.md, "Iterating a
pipeline output"): the migration relies on it to leave ``for sample in outputs:`` as it is."""
import numpy as np
import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

SAMPLES = [np.arange(k + 2, dtype=np.int32) * (k + 1) for k in range(3)]


def test_a_batch_iterates_its_samples_in_order():
    batch = ndd.as_batch(SAMPLES)
    samples = list(batch)
    assert [type(s).__name__ for s in samples] == ["Tensor"] * 3
    assert [np.asarray(s).tolist() for s in samples] == [s.tolist() for s in SAMPLES]


def test_a_tensorlist_iterates_the_same_samples():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe_fn():
        return fn.external_source(source=lambda: SAMPLES, batch=True)

    pipe = pipe_fn()
    pipe.build()
    (outputs,) = pipe.run()
    assert [type(s).__name__ for s in outputs] == ["TensorCPU"] * 3
    assert [np.asarray(s).tolist() for s in outputs] == [s.tolist() for s in SAMPLES]
    assert [s.shape() for s in outputs] == [list(s.shape) for s in ndd.as_batch(SAMPLES)]
