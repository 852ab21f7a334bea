"""Operators with no dynamic-mode counterpart are left and marked."""

import nvidia.dali.fn as fn


def graph(x):
    # dali-migrate: DM103 fn.python_function has no dynamic-mode counterpart: it is outside any pipeline step the tool migrates; where its graph migrates, the function is called on the samples and its results wrapped with ndd.as_batch
    y = fn.python_function(x, function=lambda a: a)
    # dali-migrate: DM103 fn.shapes has no dynamic-mode counterpart: its input is not a name here (or it has arguments besides dtype= and a literal device=): bind the input to a name, then it becomes ndd.as_batch(x.shape, dtype=..., device=x.device)
    shapes = fn.shapes(y * 2)
    # dali-migrate: DM103 fn.external_source has no dynamic-mode counterpart: pass the data to the ops directly (ndd.as_batch) or use ndd.ExternalSource
    return fn.external_source(source=lambda: [x]), shapes
