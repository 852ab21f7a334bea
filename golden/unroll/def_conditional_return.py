from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def segmentation(root, with_masks):
    # the outputs depend on a pipeline argument: pipeline mode chose them once, when the graph was defined
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    masks = fn.cast(labels, dtype=types.FLOAT)
    if with_masks:
        return images, masks
    else:
        return images,


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def serving(root, for_server=False):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    if not for_server:
        return images, labels
    else:
        return fn.cast(images, dtype=types.FLOAT16)


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def data_dependent(root):
    # the condition reads pipeline data: kept
    jpegs, labels = fn.readers.file(file_root=root)
    if labels:
        return jpegs, labels
    else:
        return jpegs,
