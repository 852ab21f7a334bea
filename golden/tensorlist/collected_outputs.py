"""Outputs collected in a list (a comprehension, or append) are still followed; a list that also
holds something else is not: its pipeline stays in pipeline mode, with everything that uses it."""

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def p_def(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels, jpegs


def collected(root):
    p = p_def(root)
    p.build()
    res = [p.run() for _ in range(6)]
    for labels, jpegs in res:
        print(labels.as_array(), len(jpegs))
    outs = []
    for _ in range(2):
        outs.append(p.run())
    return [o[0].at(0) for o in outs], res[0][0].as_cpu()


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def p_mixed(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return labels, jpegs


def mixed(root, frames):
    p = p_mixed(root)
    outs = []
    outs.append(p.run())
    outs.append(frames[0])  # not provably DALI any more: p_mixed stays in pipeline mode (DM231)
    return [o.at(0) for o in outs]
