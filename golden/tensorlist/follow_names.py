"""Values are followed through unpacking, indexing, loops, comprehensions and self attributes."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import Pipeline, pipeline_def


@pipeline_def
def pipe_def():
    return fn.random.uniform(range=(0, 1)), fn.random.coin_flip()


class GraphPipe(Pipeline):
    def define_graph(self):
        return fn.random.uniform(range=(0, 1))


class Loader:
    def __init__(self):
        self.pipe = pipe_def(batch_size=2, num_threads=1, device_id=None)
        self.pipe.build()

    def next(self):
        outs = self.pipe.run()
        return [tl.at(0) for tl in outs]


def subclass():
    pipe = GraphPipe(batch_size=2, num_threads=1, device_id=None)
    pipe.build()
    outs = pipe.run()
    head, *rest = outs
    for i, tl in enumerate(outs):
        print(i, len(tl))
    for tl in outs[1:]:
        print(tl.shape())
    single = outs[0]
    print(head.at(0), rest[0].at(0), single.as_cpu().at(0))
    return np.asarray(single.at(0))
