"""Values are followed through unpacking, indexing, loops, comprehensions and self attributes."""

import numpy as np
from nvidia.dali import Pipeline, pipeline_def
import nvidia.dali.experimental.dynamic as ndd


@pipeline_def
def pipe_def():
    return ndd.random.uniform(range=(0, 1)), ndd.random.coin_flip()


class GraphPipe(Pipeline):
    def define_graph(self):
        return ndd.random.uniform(range=(0, 1))


class Loader:
    def __init__(self):
        self.pipe = pipe_def(batch_size=2, num_threads=1, device_id=None)
        self.pipe.build()

    def next(self):
        outs = self.pipe.run()
        return [np.array(tl.select(0)) for tl in outs]


def subclass():
    pipe = GraphPipe(batch_size=2, num_threads=1, device_id=None)
    pipe.build()
    outs = pipe.run()
    head, *rest = outs
    for i, tl in enumerate(outs):
        print(i, tl.batch_size)
    for tl in outs[1:]:
        print(tl.shape)
    single = outs[0]
    print(np.array(head.select(0)), np.array(rest[0].select(0)), np.array(single.cpu().select(0)))
    return np.array(single.select(0))
