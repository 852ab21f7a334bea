"""An import the original kept for what importing does (noqa, or a leading underscore), not for its name, stays."""
import nvidia.dali.fn as fn
import nvidia.dali.ops.transforms as _registered  # noqa: F401
import nvidia.dali.types as types  # noqa: F401  (kept for its side effect)
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe():
    return fn.random.uniform(range=(0.0, 1.0))
