"""A training script in the shape real code has: a @pipeline_def train pipeline consumed through
DALIClassificationIterator, a legacy-ops val pipeline class consumed by a run() loop, and a
`with pipe:` probe pipeline used for the dataset size."""

import argparse

import contextlib
import nvidia.dali.types as types
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


if ndd.get_num_threads() < 2:
    ndd.set_num_threads(2)  # grow only: shrinking it after use hangs DALI 2.4


def create_train_pipe(data_dir, crop, shard_id=0, num_shards=1, *, batch_size, seed=None):
    reader = ndd.readers.File(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                    random_shuffle=True, seed=2024, pad_last_batch=True, name="Reader", max_batch_size=batch_size)

    @Prefetch(depth=2)
    def steps():
        if seed is not None:
            ndd.random.set_seed(seed)
        while True:
            for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                images = ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)
                images = ndd.resize(images, resize_x=crop, resize_y=crop)
                mirror = ndd.random.coin_flip(probability=0.5, batch_size=batch_size)
                images = ndd.crop_mirror_normalize(images.gpu(), dtype=types.FLOAT, output_layout="CHW",
                                                  mean=MEAN, std=STD, mirror=mirror)
                yield images, labels

    return ReaderStream(steps(), {"Reader": reader}, batch_size)


class ValPipe(ReaderStream):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = None
        self.input = ndd.readers.File(file_root=data_dir, random_shuffle=False, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.input}
        self.res = lambda *inputs, **kwargs: ndd.resize(*inputs, device="gpu", resize_x=crop, resize_y=crop, **kwargs)

    @Prefetch(depth=2)
    def steps(self):
        with ndd.Device("gpu", self.device_id) if self.device_id is not None else contextlib.nullcontext():
            if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
                ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
            while True:
                for jpegs, labels in self.input.next_epoch(batch_size=self.batch_size):
                    yield ndd.crop_mirror_normalize(self.res(ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB)), device="gpu", dtype=types.FLOAT, output_layout="CHW",
                                                       mean=MEAN, std=STD), labels


def train(data_dir, epochs, batch_size=4, seed=7):
    pipe = create_train_pipe(data_dir, 24, batch_size=batch_size, seed=seed)
    loader = EpochIterator(pipe, ["data", "label"], reader_name="Reader", last_batch_policy="PARTIAL", auto_reset=True)
    seen = []
    for _ in range(epochs):
        for data in loader:
            seen.append((data[0]["data"].clone(), data[0]["label"].squeeze(-1).long()))
    return seen


def validate(data_dir, steps):
    pipe = ValPipe(4, 2, device_id=0, data_dir=data_dir, crop=24)
    outputs = []
    for _ in range(steps):
        images, labels = next(pipe)
        outputs.append((images, labels))
    return outputs


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    args = parser.parse_args()
    train(args.data, 2)
    validate(args.data, 3)
