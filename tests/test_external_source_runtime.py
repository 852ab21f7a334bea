"""fn.external_source migrated (golden/unroll/external_source.py): original and migrated pipelines run
on the CPU side by side, bitwise, including where each one stops (an exhausted source ends pipe.run()
with StopIteration; the migrated generator ends at the same step)."""

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


@pytest.mark.parametrize("kind", ["generator function", "list", "callable"])
def test_source_of_unknown_kind_stays_a_pipeline_that_runs(modules, kind):
    """given_source(source): the text cannot tell what source is (DM220: a ragged list would fail in
    ndd.ExternalSource), so its unit stays in pipeline mode, marked, and runs as it did."""
    original, migrated, _ = modules
    batches = original.BATCHES

    def make():
        if kind == "list":
            return batches
        if kind == "generator function":
            def gen():
                yield from batches
            return gen
        pending = iter(batches)
        return lambda: next(pending)

    assert "# dali-migrate: DM220 what source=source is" in modules[2]
    assert hasattr(migrated.given_source(make()), "build")  # still a pipeline-mode Pipeline
    assert _compare(_pipeline_steps(original.given_source(make()), 5), _pipeline_steps(migrated.given_source(make()), 5),
                    1) == [6]


def test_reader_next_to_a_source(modules, image_root):
    """The reader drives the loop; the source (3 pairs) is pulled each step and ends the pipeline after 3."""
    original, migrated, _ = modules
    root = str(image_root)
    assert _compare(_pipeline_steps(original.reader_and_source(root), 6),
                    _generator_steps(migrated.reader_and_source(root), 6), 3) == [6, 6, 6]


def test_marked_sources_stay_pipelines(modules):
    _, migrated, text = modules
    for name in ("per_sample", "with_batch_info", "raise_at_end"):
        assert f"# dali-migrate: DM220 {name} stays in pipeline mode" in text
        assert hasattr(getattr(migrated, name)(), "build")  # still a pipeline-mode Pipeline
