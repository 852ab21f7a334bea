"""Outputs collected in a list (a comprehension, or append) are still followed; a list that also
holds something else is not: its pipeline stays in pipeline mode, with everything that uses it."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def p_def(root, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield labels, jpegs


def collected(root):
    p = p_def(root)
    res = [next(p) for _ in range(6)]
    for labels, jpegs in res:
        print(np.array(ndd.as_tensor(labels)), jpegs.batch_size)
    outs = []
    for _ in range(2):
        outs.append(next(p))
    return [np.array(o[0].select(0)) for o in outs], res[0][0].cpu()


# dali-migrate: DM230 p_mixed stays in pipeline mode with everything that uses it: line 37: o.at: a pipeline's outputs has no dynamic-mode `.at` that dali-migrate can write
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def p_mixed(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels, jpegs


def mixed(root, frames):
    p = p_mixed(root)
    outs = []
    outs.append(p.run())
    outs.append(frames[0])  # not provably DALI any more: p_mixed stays in pipeline mode (DM231)
    # dali-migrate: DM231 o.at: a pipeline's outputs has no dynamic-mode `.at` that dali-migrate can write
    return [o.at(0) for o in outs]
