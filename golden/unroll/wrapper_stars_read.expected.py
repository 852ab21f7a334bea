"""A wrapper that hands its *args/**kwargs to DALIGenericIterator but also reads them itself (args[0]): the model
cannot tell what that read gets once migrated, so the pipeline a caller passes there stays in pipeline mode (DM231)
and the iterator is left as it is, marked: the plugin's iterator over a Pipeline, as before. (The forwarding shape:
wrapper_forwarding_stars.py.)"""

import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


class Peek:
    def __init__(self, *args, **kwargs):
        self.first = args[0]
        # dali-migrate: DM212 DALIGenericIterator(...) not migrated: the tool cannot follow its pipelines to a pipeline it migrated in this module; iterate the migrated generator with next() and convert each output with .torch()
        self.inner = DALIGenericIterator(*args, **kwargs)


# dali-migrate: DM230 peeked stays in pipeline mode with everything that uses it: line 30: peeked(root) (a pipeline) lands in __init__()'s *args/**kwargs, which dali-migrate cannot follow
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def peeked(root):
    jpegs, _ = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs), jpegs


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def plain(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs), labels


def peek(root):
    # dali-migrate: DM231 peeked(root) (a pipeline) lands in __init__()'s *args/**kwargs, which dali-migrate cannot follow
    seen = Peek(peeked(root), ["images", "files"], reader_name="Reader")
    print(seen.first.max_batch_size)
    images, labels = next(plain(root))
    print(images.shape, np.array(ndd.as_tensor(labels)))
