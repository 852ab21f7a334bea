"""Operators with no dynamic-mode counterpart are left and marked."""

import nvidia.dali.fn as fn
import nvidia.dali.experimental.dynamic as ndd


def graph(x):
    # dali-migrate: DM103 fn.python_function has no dynamic-mode counterpart: it is outside any pipeline step the tool migrates; where its graph migrates, the function is called on the samples and its results wrapped with ndd.as_batch
    y = fn.python_function(x, function=lambda a: a)
    shapes_input = y * 2
    shapes = ndd.as_batch(shapes_input.shape, dtype=ndd.int64, device=shapes_input.device)
    # dali-migrate: DM103 fn.external_source has no dynamic-mode counterpart: pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource
    return fn.external_source(source=lambda: [x]), shapes
