"""Checkpointing migrated (golden/unroll/checkpoint_def.py): save after some steps, restore into a new
generator, and the resumed run equals an uninterrupted run, bitwise, random rotation angles included
(the reader and the default RNG are registered by name). Labels also equal the pipeline's (explicit
reader seed); the pipeline's own round trip is checked alongside."""

import json

import pytest

from runtime import assert_bitwise_equal, make_images, output, pair, steps_as_arrays

STEPS_PER_EPOCH = 3  # 10 images, batch 4


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return str(make_images(tmp_path_factory.mktemp("ckpt_images"), count=10, classes=2))


@pytest.fixture(scope="module")
def modules():
    original, migrated, _ = pair("unroll/checkpoint_def.py")
    return original, migrated


def _equal(want, got, outputs, what):
    want, got = steps_as_arrays(want), steps_as_arrays(got)
    for k in range(outputs):
        assert_bitwise_equal(output(want, k), output(got, k), f"{what}, output {k}")


@pytest.mark.parametrize("saved_after", [STEPS_PER_EPOCH, 2], ids=["epoch-boundary", "mid-epoch"])
def test_resume_equals_uninterrupted_run(modules, image_root, saved_after):
    """Mid-epoch too: the pipe.run() stream continues exactly (only next_epoch's boundaries move, DM222)."""
    original, migrated = modules
    resumed_steps = 4
    full, _ = migrated.run_and_save(image_root, saved_after + resumed_steps)
    first, saved = migrated.run_and_save(image_root, saved_after)
    assert isinstance(saved, str) and set(json.loads(saved)["states"]) == {"Reader", "rng"}
    resumed = migrated.resume(image_root, saved, resumed_steps)
    _equal(full[saved_after:], resumed, 3, "migrated resumed vs uninterrupted")

    pipe_full, _ = original.run_and_save(image_root, saved_after + resumed_steps)
    _, pipe_saved = original.run_and_save(image_root, saved_after)
    assert isinstance(pipe_saved, bytes)  # the formats differ: a pipeline checkpoint is protobuf bytes
    pipe_resumed = original.resume(image_root, pipe_saved, resumed_steps)
    _equal([s[1:2] for s in pipe_full[saved_after:]], [s[1:2] for s in pipe_resumed], 1, "pipeline round trip")
    _equal([s[1:2] for s in pipe_full], [s[1:2] for s in full], 1, "labels, pipeline vs migrated")


def test_pipeline_checkpoint_does_not_load_into_ndd(modules, image_root):
    original, migrated = modules
    _, pipe_saved = original.run_and_save(image_root, 1)
    with pytest.raises((ValueError, UnicodeDecodeError)):  # json.loads of protobuf bytes
        migrated.resume(image_root, pipe_saved, 1)


# -- Pipeline subclass (golden/unroll/checkpoint_class.py) ------------------------------------------

@pytest.fixture(scope="module")
def class_modules():
    original, migrated, _ = pair("unroll/checkpoint_class.py")
    return original, migrated


@pytest.mark.parametrize("saved_after", [STEPS_PER_EPOCH, 2], ids=["epoch-boundary", "mid-epoch"])
def test_class_resume_equals_uninterrupted_run(class_modules, image_root, saved_after):
    """A fresh CkptPipe(root, checkpoint=...) continues the stream of an uninterrupted one, bitwise."""
    original, migrated = class_modules
    resumed_steps = 4
    full, _ = migrated.run_and_save(image_root, saved_after + resumed_steps)
    _, saved = migrated.run_and_save(image_root, saved_after)
    assert isinstance(saved, str) and set(json.loads(saved)["states"]) == {"Reader", "rng"}
    resumed = migrated.resume(image_root, saved, resumed_steps)
    _equal(full[saved_after:], resumed, 3, "migrated class resumed vs uninterrupted")

    pipe_full, _ = original.run_and_save(image_root, saved_after + resumed_steps)
    _, pipe_saved = original.run_and_save(image_root, saved_after)
    assert isinstance(pipe_saved, bytes)
    pipe_resumed = original.resume(image_root, pipe_saved, resumed_steps)
    _equal([s[1:2] for s in pipe_full[saved_after:]], [s[1:2] for s in pipe_resumed], 1, "class pipeline round trip")
    _equal([s[1:2] for s in pipe_full], [s[1:2] for s in full], 1, "class labels, pipeline vs migrated")


def test_class_without_checkpoint_parameter_gets_one(class_modules, image_root):
    """PlainCkptPipe's __init__ had no checkpoint parameter: the migrated one takes checkpoint=None and
    registers its (unnamed) reader under its attribute name."""
    original, migrated = class_modules
    outputs, saved = migrated.plain_save(image_root, STEPS_PER_EPOCH)
    assert set(json.loads(saved)["states"]) == {"input"}
    pipe_outputs, _ = original.plain_save(image_root, STEPS_PER_EPOCH)
    _equal(pipe_outputs, outputs, 1, "PlainCkptPipe labels, pipeline vs migrated")
    fresh = migrated.ndd.checkpoint.Checkpoint()
    fresh.deserialize(saved)
    pipe = iter(migrated.PlainCkptPipe(image_root, checkpoint=fresh))
    resumed = [next(pipe) for _ in range(2)]
    uninterrupted, _ = migrated.plain_save(image_root, STEPS_PER_EPOCH + 2)
    _equal(uninterrupted[STEPS_PER_EPOCH:], resumed, 1, "PlainCkptPipe resumed vs uninterrupted")


# -- `with pipe:` (golden/unroll/checkpoint_with.py) ------------------------------------------------

@pytest.fixture(scope="module")
def with_modules():
    original, migrated, _ = pair("unroll/checkpoint_with.py")
    return original, migrated


@pytest.mark.parametrize("saved_after", [STEPS_PER_EPOCH, 2], ids=["epoch-boundary", "mid-epoch"])
def test_with_factory_resume_equals_uninterrupted_run(with_modules, image_root, saved_after):
    """make_pipe(root, checkpoint=...) forwards the ndd checkpoint to the pipe_steps generator."""
    original, migrated = with_modules
    resumed_steps = 4
    full, _ = migrated.run_and_save(image_root, saved_after + resumed_steps)
    _, saved = migrated.run_and_save(image_root, saved_after)
    assert isinstance(saved, str) and set(json.loads(saved)["states"]) == {"Reader", "rng"}
    resumed = migrated.resume(image_root, saved, resumed_steps)
    _equal(full[saved_after:], resumed, 3, "migrated factory resumed vs uninterrupted")

    pipe_full, _ = original.run_and_save(image_root, saved_after + resumed_steps)
    _, pipe_saved = original.run_and_save(image_root, saved_after)
    pipe_resumed = original.resume(image_root, pipe_saved, resumed_steps)
    _equal([s[1:2] for s in pipe_full[saved_after:]], [s[1:2] for s in pipe_resumed], 1, "with pipeline round trip")
    _equal([s[1:2] for s in pipe_full], [s[1:2] for s in full], 1, "with labels, pipeline vs migrated")


def test_with_factory_without_parameter_and_inline(with_modules, image_root):
    """make_plain_pipe() gets checkpoint=None; a pipeline built where it is used binds pipe_checkpoint
    (loaded from saved when given). Both restore to the uninterrupted stream, as the pipelines do."""
    original, migrated = with_modules
    for module in (original, migrated):
        full, _ = module.plain_save(image_root, STEPS_PER_EPOCH + 2)
        _, saved = module.plain_save(image_root, STEPS_PER_EPOCH)
        inline_full, _ = module.inline_round_trip(image_root, None, STEPS_PER_EPOCH + 2)
        _equal(full, inline_full, 1, f"{module.__name__}: factory vs inline")
        resumed, _ = module.inline_round_trip(image_root, saved, 2)  # the factory's state loads inline
        _equal(full[STEPS_PER_EPOCH:], resumed, 1, f"{module.__name__}: inline resumed vs uninterrupted")
    assert set(json.loads(migrated.plain_save(image_root, 1)[1])["states"]) == {"reader"}
