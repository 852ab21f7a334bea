"""Whether a pipeline's outputs are dense tensors (TensorList.is_dense_tensor()) decides how a program reads them:
one array when every sample has the same shape, sample by sample otherwise. Arrays from a numpy reader (all the
same shape), crops of them whose length varies per sample, and a padded version of those crops."""

import sys

import numpy as np
from nvidia.dali import fn, pipeline_def, types


def lengths(info):
    return np.array([1 + info.idx_in_batch % 3], dtype=np.int32)


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def arrays(root):
    data = fn.readers.numpy(file_root=root, name="Reader")
    length = fn.external_source(lengths, batch=False)
    cropped = fn.slice(data, 0, length, axes=[0])
    padded = fn.pad(cropped, axes=[0])
    return data, cropped, padded


def describe(name, batch):
    if batch.is_dense_tensor():
        array = np.array(batch.as_tensor())
        print(name, "dense", array.shape, float(array.sum()))
    else:
        print(name, "ragged", [np.array(batch.at(i)).shape for i in range(len(batch))])
    print(name, "dense again:", batch.is_dense_tensor() == True, not batch.is_dense_tensor())


def main(root):
    pipe = arrays(root)
    pipe.build()
    for step in range(2):
        data, cropped, padded = pipe.run()
        describe("data", data)
        describe("cropped", cropped)
        describe("padded", padded)
        print("all dense", all(out.is_dense_tensor() for out in (data, padded)))


if __name__ == "__main__":
    main(sys.argv[1])
