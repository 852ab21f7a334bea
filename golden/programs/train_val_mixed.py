"""A training script in the shape real code has: a @pipeline_def train pipeline consumed through
DALIClassificationIterator, a legacy-ops val pipeline class consumed by a run() loop, and a
`with pipe:` probe pipeline used for the dataset size."""

import argparse

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline, pipeline_def
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def create_train_pipe(data_dir, crop, shard_id=0, num_shards=1):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    random_shuffle=True, seed=2024, pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=crop, resize_y=crop)
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images.gpu(), dtype=types.FLOAT, output_layout="CHW",
                                      mean=MEAN, std=STD, mirror=mirror)
    return images, labels


class ValPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=False)
        self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)
        self.res = ops.Resize(device="gpu", resize_x=crop, resize_y=crop)
        self.cmn = ops.CropMirrorNormalize(device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                           mean=MEAN, std=STD)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.cmn(self.res(self.decode(jpegs))), labels


def train(data_dir, epochs, batch_size=4, seed=7):
    pipe = create_train_pipe(data_dir, 24, batch_size=batch_size, num_threads=2, device_id=0,
                             seed=seed)
    pipe.build()
    loader = DALIClassificationIterator(pipe, reader_name="Reader", auto_reset=True,
                                        last_batch_policy=LastBatchPolicy.PARTIAL)
    seen = []
    for _ in range(epochs):
        for data in loader:
            seen.append((data[0]["data"].clone(), data[0]["label"].squeeze(-1).long()))
    return seen


def validate(data_dir, steps):
    pipe = ValPipe(4, 2, device_id=0, data_dir=data_dir, crop=24)
    pipe.build()
    outputs = []
    for _ in range(steps):
        images, labels = pipe.run()
        outputs.append((images, labels))
    return outputs


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    args = parser.parse_args()
    train(args.data, 2)
    validate(args.data, 3)
