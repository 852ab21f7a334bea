"""An import the original kept for what importing does (noqa, or a leading underscore), not for its name, stays."""
import nvidia.dali.ops.transforms as _registered  # noqa: F401
import nvidia.dali.types as types  # noqa: F401  (kept for its side effect)
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def pipe(*, batch_size=2):
    while True:
        yield (ndd.random.uniform(range=(0.0, 1.0), batch_size=batch_size),)
