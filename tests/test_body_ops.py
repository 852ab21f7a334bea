"""Ops objects made in a @pipeline_def body and called there (transforms/unroll/body_ops.py), helpers whose random
op is seeded by a parameter (graph_functions.py), per-op RNGs seeded by a name the body computes; and the DALI
facts they rest on (real DALI)."""

import warnings

import numpy as np
import pytest

from dali_migrate import migrate_source

ndd = pytest.importorskip("nvidia.dali.experimental.dynamic")
from nvidia.dali import fn, ops, pipeline_def, types  # noqa: E402

HEAD = ("import random\nimport nvidia.dali.fn as fn\nimport nvidia.dali.ops as ops\nimport nvidia.dali.types as types\n"
        "from nvidia.dali import pipeline_def\n\n\n")

FLIP = "def flip(images, seed):\n    return fn.flip(images, horizontal=fn.random.coin_flip(seed=seed))"


def _migrate(text):
    result = migrate_source(text, "m.py")
    assert result.error is None
    return result.migrated


def _pipe(body, returns="a, b"):
    return HEAD + ("@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef pipe(files):\n"
                   "    jpegs, labels = fn.readers.file(files=files)\n    images = fn.decoders.image(jpegs)\n"
                   + "".join(f"    {line}\n" for line in body) + f"    return {returns}\n")


def test_each_call_of_an_ops_object_is_an_ndd_call_and_the_seed_is_read_after_the_body_draws_it():
    migrated = _migrate(_pipe(["seed = random.randint(1, 100)", "crop = ops.Crop(crop=(4, 4), name='c')",
                               "pos = ops.random.Uniform(range=(0.0, 1.0), seed=seed)",
                               "a = crop(images, crop_pos_x=pos(), seed=seed)", "b = crop(images, crop_pos_x=pos())"]))
    assert "dali-migrate:" not in migrated and "ops." not in migrated
    assert "a = ndd.crop(images, crop_pos_x=ndd.random.uniform(range=(0.0, 1.0), rng=rng_1, batch_size=batch_size), " \
           "crop=(4, 4))" in migrated  # the call's seed= and the constructor's name= dropped
    assert "b = ndd.crop(images, crop_pos_x=ndd.random.uniform(range=(0.0, 1.0), rng=rng_2" in migrated
    lines = [line.strip() for line in migrated.splitlines()]
    drawn = lines.index("seed = random.randint(1, 100)")
    assert lines[drawn + 1:drawn + 3] == ["rng_1 = ndd.random.RNG(seed=seed)", "rng_2 = ndd.random.RNG(seed=seed)"]


@pytest.mark.parametrize("why, body, returns", [
    ("handed on as a value", ["flip = ops.Flip()", "a = flip"], "a(images), labels"),
    ("its constructor reads a name bound after it", ["size = 4", "crop = ops.Crop(crop=size)", "size = 5",
                                                     "a = crop(images)"], "a, labels"),
    ("its constructor makes a call", ["crop = ops.Crop(crop=max(4, 5))", "a = crop(images)"], "a, labels"),
    ("a random op's call gives seed=", ["coin = ops.random.CoinFlip(seed=3)", "a = coin(seed=4)"], "a, labels"),
    ("made twice", ["flip = ops.Flip()", "flip = ops.Flip(vertical=1)", "a = flip(images)"], "a, labels"),
    ("a random one called in a loop (an operator, a stream, per pass)",
     ["pos = ops.random.Uniform(range=(0.0, 1.0), seed=3)", "a = images",
      "for _ in range(2):\n        a = fn.crop(a, crop=(2, 2), crop_pos_x=pos())"], "a, labels"),
    ("the generator's own name read from the module", ["coin = ops.random.CoinFlip(seed=batch_size)", "a = coin()"],
     "a, labels"),
])
def test_ops_objects_that_stay_objects_keep_the_pipeline_marked(why, body, returns):
    migrated = _migrate(_pipe(body, returns).replace("\n\n\n@", "\n\nbatch_size = 3\n\n\n@"))
    # (DM212 where the body reads batch_size itself: the generator's batch_size= parameter would hide it)
    assert "# dali-migrate: DM230" in migrated or "# dali-migrate: DM212 pipe stays in pipeline mode: its body reads " \
        "batch_size" in migrated, why


def test_a_helper_seeded_by_its_parameter_gets_an_rng_per_call_from_the_calls_seed():
    migrated = _migrate(HEAD + FLIP + "\n\n\n" + _pipe(["seed = random.randint(1, 100)", "a = flip(images, seed)",
                                          "b = flip(images, seed=seed + 1)"]).split("\n\n\n", 1)[1])
    assert "dali-migrate:" not in migrated
    assert "def flip(images, seed, *, rng):" in migrated
    assert "rng_1 = ndd.random.RNG(seed=seed)" in migrated and "rng_2 = ndd.random.RNG(seed=seed + 1)" in migrated
    assert "a = flip(images, seed, rng=rng_1)" in migrated


@pytest.mark.parametrize("why, call", [
    ("a seed from a call", "a = flip(images, int(seed))"),
    ("a seed the body binds twice", "seed = 5\n    a = flip(images, seed)"),
    ("a call in a loop (an operator per pass)", "a = images\n    for _ in range(2):\n        a = flip(a, seed)"),
])
def test_a_helper_whose_seed_is_not_one_value_stays_marked(why, call):
    pipe = _pipe(["seed = random.randint(1, 100)", call], "a, labels").split("\n\n\n", 1)[1]
    migrated = _migrate(HEAD + FLIP + "\n\n\n" + pipe)
    assert "# dali-migrate: DM112" in migrated, why


def test_an_uncalled_helper_stays_marked_and_says_why():
    migrated = _migrate(HEAD + FLIP + "\n")
    assert "# dali-migrate: DM112" in migrated and "would restart at each call" in migrated


def test_pipeline_mode_each_call_of_a_seeded_ops_object_is_an_operator_with_that_seed():
    """Verified facts (docs/dali-facts.md): two calls of one ops.random.Uniform(seed=S) object draw the same values
    as each other and as fn.random.uniform(seed=S), new ones each step, and a new pipeline starts them again;
    seed= on a call of ops.Crop is ignored (a DeprecationWarning) and ndd.crop rejects it (TypeError)."""
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def calls():
        uniform = ops.random.Uniform(range=(0.0, 1.0), seed=1234)
        crop = ops.Crop(crop=(2, 2))
        image = fn.reshape(types.Constant(np.arange(16, dtype=np.uint8).reshape(4, 4, 1)), layout="HWC")
        a = uniform()
        return a, uniform(), fn.random.uniform(range=(0.0, 1.0), seed=1234), crop(image, crop_pos_x=a, seed=7), \
            crop(image, crop_pos_x=a)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipe, again = calls(), calls()
        pipe.build()
        again.build()
    assert any("should not be used with operators that don't use random numbers" in str(w.message) for w in caught)
    steps = [[np.array(o.as_tensor()) for o in pipe.run()] for _ in range(2)]
    for a, b, c, seeded, plain in steps:
        assert np.array_equal(a, b) and np.array_equal(a, c) and np.array_equal(seeded, plain)
    assert not np.array_equal(steps[0][0], steps[1][0])
    assert np.array_equal(np.array(again.run()[0].as_tensor()), steps[0][0])
    with pytest.raises(TypeError):
        ndd.crop(ndd.as_batch([np.zeros((4, 4, 1), np.uint8)], layout="HWC"), crop=(2, 2), seed=7)
