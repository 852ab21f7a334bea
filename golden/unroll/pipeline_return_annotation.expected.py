from typing import Optional

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


def create_pipeline(root, batch_size):
    """Build the training pipeline (the annotation names what it returned before migration)."""
    @Prefetch(depth=2)
    def pipe_steps(*, batch_size=batch_size):
        reader = ndd.readers.File(file_root=root, name="reader")
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield ndd.decoders.image(jpegs), labels
    pipe = pipe_steps()
    return pipe


def evaluation_pipeline(root):
    @Prefetch(depth=2)
    def pipe_steps(*, batch_size=2):
        reader = ndd.readers.File(file_root=root)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                yield jpegs, labels
    pipe = pipe_steps()
    return pipe


# dali-migrate: DM105 Pipeline is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
def fed_pipeline() -> Pipeline:
    # stays in pipeline mode (fed by feed_input): its annotation stays, marked
    # dali-migrate: DM230 pipe stays in pipeline mode with everything that uses it: line 28: pipe stays in pipeline mode: external_source without source= is fed by feed_input; pass the data to the ndd ops instead
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    # dali-migrate: DM220 pipe stays in pipeline mode: external_source without source= is fed by feed_input; pass the data to the ndd ops instead
    with pipe:
        data = fn.external_source(name="data")
        pipe.set_outputs(data)
    return pipe


def no_pipeline(size) -> Optional[int]:
    return size
