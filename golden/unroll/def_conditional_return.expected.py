from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def segmentation(root, with_masks, *, batch_size=2):
    # the outputs depend on a pipeline argument: pipeline mode chose them once, when the graph was defined
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, output_type=types.RGB)
            masks = ndd.cast(labels, dtype=types.FLOAT)
            yield tuple((images, masks) if with_masks else (images,))


@Prefetch(depth=2)
def serving(root, for_server=False, *, batch_size=2):
    reader = ndd.readers.File(file_root=root)
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs)
            yield tuple((images, labels) if not for_server else (ndd.cast(images, dtype=types.FLOAT16),))


# dali-migrate: DM213 data_dependent stays in pipeline mode: per-sample conditionals: a branch of `if labels` returns (pipeline mode merged the returned values per sample)
@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def data_dependent(root):
    # the condition reads pipeline data: kept
    jpegs, labels = fn.readers.file(file_root=root)
    if labels:
        return jpegs, labels
    else:
        return jpegs,
