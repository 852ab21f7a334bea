"""Operator objects in a @pipeline_def body that stay objects: one handed on as a value, one whose
constructor reads a name the body changes after it, a random one whose call is given its own seed=. The
pipeline stays in pipeline mode (marked)."""

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali import pipeline_def


# dali-migrate: DM230 apply builds part of handed_on, which stays in pipeline mode with everything that uses it: line 18: ops.Flip is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
def apply(op, data):
    return op(data)


# dali-migrate: DM230 handed_on stays in pipeline mode with everything that uses it: line 18: ops.Flip is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
@pipeline_def
def handed_on(files):
    jpegs, _ = fn.readers.file(files=files)
    images = fn.decoders.image(jpegs)
    # dali-migrate: DM105 ops.Flip is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
    flip = ops.Flip(horizontal=1)
    return apply(flip, images)


# dali-migrate: DM230 changed_after stays in pipeline mode with everything that uses it: line 26: ops.Resize is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
@pipeline_def
def changed_after(files, size):
    jpegs, _ = fn.readers.file(files=files)
    images = fn.decoders.image(jpegs)
    # dali-migrate: DM105 ops.Resize is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
    resize = ops.Resize(resize_x=size)
    size = size * 2
    return resize(images), fn.resize(images, resize_x=size)


# dali-migrate: DM230 seeded_call stays in pipeline mode with everything that uses it: line 34: ops.random.CoinFlip is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
@pipeline_def
def seeded_call(files):
    jpegs, _ = fn.readers.file(files=files)
    # dali-migrate: DM105 ops.random.CoinFlip is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
    coin = ops.random.CoinFlip(probability=0.5, seed=3)
    return jpegs, coin(seed=4)
