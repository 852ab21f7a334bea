"""Values are followed through unpacking, indexing, loops, comprehensions and self attributes."""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def pipe_def(*, batch_size):
    while True:
        yield ndd.random.uniform(range=(0, 1), batch_size=batch_size), ndd.random.coin_flip(batch_size=batch_size)


# dali-migrate: DM212 GraphPipe stays in pipeline mode: a Pipeline subclass without __init__ and define_graph
class GraphPipe(Pipeline):
    def define_graph(self):
        return fn.random.uniform(range=(0, 1))


class Loader:
    def __init__(self):
        self.pipe = pipe_def(batch_size=2)

    def next(self):
        outs = next(self.pipe)
        return [np.array(tl.select(0)) for tl in outs]


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
