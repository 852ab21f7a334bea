"""The project's pipelines, imported by the training script."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def numpy_features(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Features")
    return data, fn.reductions.mean(data, axes=[1])
