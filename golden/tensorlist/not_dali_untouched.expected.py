"""Nothing here is provably a DALI TensorList: every look-alike is left alone."""

import pandas as pd
import nvidia.dali.experimental.dynamic as ndd


def pipe_def(*, batch_size=2, num_threads=1, device_id=None, seed=None):
    if num_threads is not None and num_threads > ndd.get_num_threads():
        ndd.set_num_threads(num_threads)  # grow only: shrinking it after use hangs DALI 2.4
    if seed is not None:
        ndd.random.set_seed(seed)
    while True:
        yield (ndd.random.uniform(range=(0, 1), batch_size=batch_size),)


def frames(df: pd.DataFrame, tl):
    print(df.at[0, "a"], df.shape, len(df))  # a pandas frame
    print(tl.at(0), len(tl))  # a parameter: could be anything


def reassigned():
    pipe = pipe_def()
    out = next(pipe)[0]
    out = pd.Series([1, 2])  # now a Series on some paths: not provably DALI
    return out.at(0), len(out)


def shadowed_len(pipe):
    len = lambda x: 0  # noqa: E731
    (out,) = pipe_def().run()
    return len(out)


def unknown_pipe(pipe):
    outs = pipe.run()  # `pipe` is a parameter, not a pipeline this module made
    return outs[0].at(0)
