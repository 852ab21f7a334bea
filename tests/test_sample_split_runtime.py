"""``SampleSplit`` (dali_migrate/runtime/sample_split.py), the run-time helper migrated per-sample conditionals use:
its split, parts and merge on real ndd batches, and the values it gives against pipeline mode's own ``if`` on the
same data (enable_conditionals=True)."""

import numpy as np
import pytest

import nvidia.dali.experimental.dynamic as ndd
from nvidia.dali import fn, pipeline_def

from dali_migrate.runtime.sample_split import SampleSplit


def _ragged(count):
    return ndd.as_batch([np.full((2, i + 1), i, np.int32) for i in range(count)], layout="HW")


def _values(batch):
    return [np.asarray(sample).tolist() for sample in batch]


@pytest.mark.parametrize("flags, then", [
    (np.array([1, 0, 0, 1, 0], np.int32), [0, 3]),
    (np.array([True, False, True, True, False]), [0, 2, 3]),
    (np.array([0.0, 0.5, -0.25, 0.0, 2.0], np.float32), [1, 2, 4]),  # nonzero is true, as in pipeline mode
])
def test_the_samples_each_branch_takes(flags, then):
    split = SampleSplit(ndd.as_batch(flags))
    assert split.then == then
    assert split.orelse == [i for i in range(5) if i not in then]
    assert split.batch_size == 5


def test_a_condition_must_be_a_scalar_per_sample():
    with pytest.raises(ValueError, match="restricted to scalar"):
        SampleSplit(ndd.as_batch(np.array([[1], [0]], np.int32)))


def test_parts_keep_the_samples_in_order_with_their_layout():
    split = SampleSplit(ndd.as_batch(np.array([0, 1, 0, 1, 1], np.int32)))
    data = _ragged(5)
    then, orelse = split.then_part(data), split.else_part(data)
    assert then.shape == [(2, 2), (2, 4), (2, 5)] and then.layout == "HW"
    assert orelse.shape == [(2, 1), (2, 3)] and orelse.layout == "HW"
    assert split.then_part(7) == 7  # not a batch: the same value in every branch


def test_merge_puts_the_branches_back_in_sample_order():
    split = SampleSplit(ndd.as_batch(np.array([0, 1, 0, 1, 1], np.int32)))
    data = _ragged(5)
    merged = split.merge(split.then_part(data) * 10, split.else_part(data))
    assert merged.shape == data.shape and merged.layout == "HW"
    assert _values(merged) == [v if i % 2 == 0 and i != 4 else [[x * 10 for x in row] for row in v]
                               for i, v in enumerate(_values(data))]
    passed_through = split.merge(split.then_part(data), split.else_part(data))
    assert _values(passed_through) == _values(data)


def test_a_branch_no_sample_takes_gives_none():
    split = SampleSplit(ndd.as_batch(np.array([1, 1, 1], np.int32)))
    assert split.orelse == []
    data = _ragged(3)
    assert _values(split.merge(split.then_part(data) + 1, None)) == _values(data + 1)


def test_merging_values_that_disagree_fails_as_in_pipeline_mode():
    split = SampleSplit(ndd.as_batch(np.array([1, 0], np.int32)))
    with pytest.raises(ValueError, match="Divergent data"):
        split.merge(ndd.as_batch([np.zeros(3, np.float32)]), ndd.as_batch([np.zeros(3, np.int32)]))
    with pytest.raises(ValueError, match="computed 2 samples for 1"):
        split.merge(ndd.as_batch([np.zeros(3, np.float32)] * 2), ndd.as_batch([np.zeros(3, np.float32)]))


def test_equal_to_pipeline_modes_if():
    """The same data through pipeline mode's per-sample if/elif/else and through SampleSplit, by hand as the
    migration writes it: the same values, sample by sample."""
    arrays = [np.arange(i + 1, dtype=np.float32) + i for i in range(6)]

    @pipeline_def(batch_size=6, num_threads=1, device_id=None, enable_conditionals=True)
    def branches():
        x = fn.external_source(lambda: arrays)
        level = fn.reductions.max(x)
        if level > 6:
            y = x * 10
        elif level > 2:
            y = fn.flip(fn.reshape(x, shape=[1, -1, 1], layout="HWC"), horizontal=1)
            y = fn.reshape(y, shape=[-1])
        else:
            y = x - 1
        return y

    pipe = branches()
    pipe.build()
    expected = [np.array(pipe.run()[0].at(i)).tolist() for i in range(6)]

    x = ndd.as_batch(arrays)
    level = ndd.reductions.max(x)
    split = SampleSplit(level > 6)
    x_then = split.then_part(x)
    y_then = x_then * 10
    x_else, level_else = split.else_part(x), split.else_part(level)
    inner = SampleSplit(level_else > 2)
    y_else_then = ndd.reshape(ndd.flip(ndd.reshape(inner.then_part(x_else), shape=[1, -1, 1], layout="HWC"),
                                       horizontal=1), shape=[-1])
    y_else_else = inner.else_part(x_else) - 1
    y = split.merge(y_then, inner.merge(y_else_then, y_else_else))
    assert _values(y) == expected


def test_tuples_and_dicts_merge_item_by_item_with_constants_typed_as_pipeline_mode():
    split = SampleSplit(ndd.as_batch(np.array([1, 0, 1], np.int32)))
    data = ndd.as_batch(np.arange(3, dtype=np.int32))
    then = {"pair": (split.then_part(data) * 10, np.array(7)), "scale": 2.5}
    orelse = {"pair": (split.else_part(data), np.array(-1)), "scale": 0.5}
    assert split.then_part({"x": (data, 3)})["x"][0].batch_size == 2
    merged = split.merge(then, orelse)
    assert _values(merged["pair"][0]) == [0, 1, 20]
    assert _values(merged["pair"][1]) == [7, -1, 7] and merged["pair"][1].dtype == ndd.int32  # (int64 -> int32)
    assert _values(merged["scale"]) == [2.5, 0.5, 2.5] and merged["scale"].dtype == ndd.float32
    with pytest.raises(ValueError, match="nesting structure"):
        split.merge((data, data), (data,))
