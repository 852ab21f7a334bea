import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Source:
    def __call__(self, info):
        return np.full((2,), info.idx_in_epoch, np.float32), np.array([info.iteration])


# dali-migrate: DM212 SourcePipeline stays in pipeline mode: a Pipeline subclass with no define_graph, used here as a Pipeline filled with `with pipe:`: each instance is both the pipeline and an object of the class (scale, source), and the tool does not split one into a dynamic-mode generator and an object that keeps the rest
# dali-migrate: DM230 SourcePipeline stays in pipeline mode with everything that uses it: line 21: pipe stays in pipeline mode: it is an instance of SourcePipeline, a Pipeline subclass that stays in pipeline mode: see its definition
class SourcePipeline(Pipeline):
    def __init__(self, scale, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.scale = scale
        self.source = Source()


def source_pipeline(batch_size):
    pipe = SourcePipeline(2.0, batch_size=batch_size, num_threads=1, device_id=None)
    # dali-migrate: DM212 pipe stays in pipeline mode: it is an instance of SourcePipeline, a Pipeline subclass that stays in pipeline mode: see its definition
    with pipe:
        data, index = fn.external_source(pipe.source, batch=False, num_outputs=2)
        pipe.set_outputs(fn.cast(data * pipe.scale, dtype=types.FLOAT), index)
    return pipe


pipe = source_pipeline(2)
pipe.build()
print(pipe.run()[0].as_array())
