"""The script builds the loader and hands it to the trainer of another module, which steps it in its loop."""

import sys

from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator

from trainer import fit


@pipeline_def(batch_size=2, num_threads=2, device_id=0)
def features(root):
    data = fn.readers.numpy(file_root=root, file_filter="*.npy", name="Features")
    return fn.reductions.mean(data, axes=[0]) * 2.0


def main(root):
    pipe = features(root)
    pipe.build()
    loader = DALIGenericIterator([pipe], ["features"], reader_name="Features", auto_reset=True)
    fit(loader, epochs=2)


if __name__ == "__main__":
    main(sys.argv[1])
