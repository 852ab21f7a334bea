"""Epochs that an external source ends (issue 15, capability 4; docs/dali-facts.md, "Epochs an external
source ends"): golden/unroll/epoch_sources.py and the cycle="raise" pipeline of golden/unroll/external_source.py
run in pipeline mode and migrated, side by side on the CPU, over 3 epochs."""

import pytest

from runtime import assert_bitwise_equal, output, pair, steps_as_arrays

MODES = ("reset", "for", "auto", "next")  # how the program starts the next epoch of the PyTorch iterator


@pytest.fixture(scope="module")
def modules():
    return pair("unroll/epoch_sources.py")


@pytest.fixture(scope="module")
def external_sources():
    return pair("unroll/external_source.py")


def test_the_pipelines_become_restarting_streams(modules):
    _, migrated, text = modules
    assert "# dali-migrate" not in text
    assert text.count("return ReaderStream(steps(), {}, batch_size, restart=steps)") == 2
    assert "nonlocal source_2_next" in text  # cycle="raise" reads the source again at its end
    assert "size=-1" in text and "never ends" not in text


@pytest.mark.parametrize("cycle", [None, "raise"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("run", ["partial_epochs", "drop_epochs"])
def test_epochs_match_the_plugin(modules, cycle, mode, run):
    """Batches per epoch (3, 3 and the short 1: without size the plugin reads until StopIteration, whatever
    the policy), the iter() calls on the source, size and len() are the plugin's, for each way of starting
    the next epoch. cycle=None keeps the one iterator: epochs 2 and 3 are empty, as in pipeline mode."""
    original, migrated, _ = modules
    want = getattr(original, run)(cycle, mode)
    got = getattr(migrated, run)(cycle, mode)
    assert got == want
    epochs, iters, size, length = want
    assert [len(batches) for batches in epochs] == ([3, 3, 3] if cycle == "raise" else [3, 0, 0])
    assert [len(b) for b in epochs[0]] == [3, 3, 1] and (size, length) == (-1, 0)
    assert iters == (4 if cycle == "raise" else 1)


def _epoch(pipe, step):
    steps = []
    while True:
        try:
            steps.append(step(pipe))
        except StopIteration:
            return steps


def test_cycle_raise_restarts_after_reset(external_sources):
    """raise_at_end (cycle="raise" over a list of 3 batches): StopIteration after the 3rd step, again on
    every step until reset(), then the same 3 batches; bitwise equal to pipe.run(), epoch by epoch."""
    original, migrated, text = external_sources
    assert "DM220 raise_at_end" not in text
    pipe, gen = original.raise_at_end(), migrated.raise_at_end()
    pipe.build()
    for _ in range(3):
        want, got = _epoch(pipe, lambda p: p.run()), _epoch(gen, next)
        assert len(want) == len(got) == 3
        assert_bitwise_equal(output(steps_as_arrays(want), 0), output(steps_as_arrays(got), 0), "raise_at_end")
        for stepped in (lambda: pipe.run(), lambda: next(gen)):
            with pytest.raises(StopIteration):
                stepped()
        pipe.reset()
        gen.reset()


RUN_AHEAD = '''\
import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator

DEPTH = {depth}


@pipeline_def(batch_size=2, num_threads=1, device_id=None, {options})
def pipe(source):
    values = fn.external_source(source=source, cycle="raise")
    return values


loader = DALIGenericIterator(pipe([[np.zeros(1)] * 2] * 3), ["values"], size=4)
for epoch in range(2):
    print([batch[0]["values"].shape for batch in loader])
    loader.reset()
'''


@pytest.mark.parametrize("options, written", [
    ("prefetch_queue_depth=1", "restart=steps, prefetch_depth=1)"),
    ("exec_pipelined=False", "restart=steps, prefetch_depth=1)"),
    ('prefetch_queue_depth={"cpu_size": 1, "gpu_size": 3}, exec_dynamic=False', "restart=steps, prefetch_depth=3)"),
    ("prefetch_queue_depth=2", "restart=steps)"),
    ("prefetch_queue_depth=DEPTH", "restart=steps, prefetch_depth=ReaderStream.prefetch_depth_of(prefetch_queue_depth=DEPTH))"),
    ("prefetch_queue_depth=int(DEPTH)", None),
])
def test_streams_know_how_far_an_iterator_ran_them_ahead(options, written):
    """The EpochIterator runs a stream whose source ends epochs as far past an epoch's end as the plugin had
    (golden program prefetch_depth_epochs runs these against the plugin); a depth given by a name is read at run
    time; one computed by a call is marked (DM217), not silently taken as 2."""
    from dali_migrate import migrate_source

    result = migrate_source(RUN_AHEAD.format(depth=1, options=options), "prog.py")
    if written is None:
        assert "DM217" in {f.rule for f in result.findings} and "# dali-migrate: DM217" in result.migrated
        assert "prefetch_queue_depth or exec_pipelined cannot be read again" in result.migrated
    else:
        assert written in result.migrated and "# dali-migrate:" not in result.migrated
