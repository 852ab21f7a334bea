from typing import Optional

import nvidia.dali as dali
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


def create_pipeline(root, batch_size) -> dali.Pipeline:
    """Build the training pipeline (the annotation names what it returned before migration)."""
    pipe = dali.Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root, name="reader")
        pipe.set_outputs(fn.decoders.image(jpegs), labels)
    return pipe


def evaluation_pipeline(root) -> Pipeline:
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(file_root=root)
        pipe.set_outputs(jpegs, labels)
    return pipe


def fed_pipeline() -> Pipeline:
    # stays in pipeline mode (fed by feed_input): its annotation stays, marked
    pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
    with pipe:
        data = fn.external_source(name="data")
        pipe.set_outputs(data)
    return pipe


def no_pipeline(size) -> Optional[int]:
    return size
