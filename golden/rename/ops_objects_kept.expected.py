"""An ops object handed to code the tool cannot follow (a registry of another package) stays as it is: whatever
calls it there may build a pipeline-mode graph. The pipeline that calls it here stays in pipeline mode with it, and
so does every ops object that pipeline calls (one unit), while a pipeline that shares nothing with them migrates."""

from nvidia.dali import fn, ops, pipeline_def
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)
from augmentations import register

# dali-migrate: DM230 ops.Flip(...) is called by kept, which stays in pipeline mode with everything that uses it, so it stays an ops object: line 9: flip (a pipeline-mode operator) is passed to register, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
flip = ops.Flip(horizontal=1)
# dali-migrate: DM231 flip (a pipeline-mode operator) is passed to register, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
register("flip", flip)
# dali-migrate: DM230 ops.Rotate(...) is called by kept, which stays in pipeline mode with everything that uses it, so it stays an ops object: line 9: flip (a pipeline-mode operator) is passed to register, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
rotate = ops.Rotate(angle=90)
blur = lambda *inputs, **kwargs: ndd.gaussian_blur(*inputs, window_size=3, **kwargs)


# dali-migrate: DM230 kept stays in pipeline mode with everything that uses it: line 9: flip (a pipeline-mode operator) is passed to register, which dali-migrate cannot follow: the pipeline that calls it there may stay in pipeline mode, so it stays as it is
@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def kept(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return flip(images), rotate(images), labels


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


@Prefetch(depth=2)
def migrated(root, *, batch_size=4):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield blur(ndd.decoders.image(jpegs)), labels
