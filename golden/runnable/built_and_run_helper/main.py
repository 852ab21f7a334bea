import sys

from nvidia.dali import fn, pipeline_def

from runs import arrays_pipe, dali_run


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def scaled_pipe(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Reader")
    return data + 1, data * 3


if __name__ == "__main__":
    root = sys.argv[1]
    for shape, total, peak in dali_run(arrays_pipe(root), 4):
        print("module's own", shape, total, peak)
    for shape, total, peak in dali_run(scaled_pipe(root), 3):
        print("a script's", shape, total, peak)
