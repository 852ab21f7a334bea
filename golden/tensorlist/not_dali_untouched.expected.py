"""Nothing here is provably a DALI TensorList: every look-alike is left alone."""

import pandas as pd
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


# dali-migrate: DM230 pipe_def stays in pipeline mode with everything that uses it: line 29: out (a pipeline output (TensorList)) is passed to <lambda>(), which is also called where dali-migrate cannot see
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe_def():
    return fn.random.uniform(range=(0, 1))


def frames(df: pd.DataFrame, tl):
    print(df.at[0, "a"], df.shape, len(df))  # a pandas frame
    print(tl.at(0), len(tl))  # a parameter: could be anything


def reassigned():
    pipe = pipe_def()
    pipe.build()
    out = pipe.run()[0]
    out = pd.Series([1, 2])  # now a Series on some paths: not provably DALI
    return out.at(0), len(out)


def shadowed_len(pipe):
    len = lambda x: 0  # noqa: E731
    (out,) = pipe_def().run()
    # dali-migrate: DM231 out (a pipeline output (TensorList)) is passed to <lambda>(), which is also called where dali-migrate cannot see
    return len(out)


def unknown_pipe(pipe):
    outs = pipe.run()  # `pipe` is a parameter, not a pipeline this module made
    return outs[0].at(0)
