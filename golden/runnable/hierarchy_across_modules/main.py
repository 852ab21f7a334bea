"""A Pipeline class hierarchy across modules: the base class (data/pipeline.py) creates the readers, the shared
ops objects and helpers; TrainPipeline (data/training.py, a relative import of the base) and EvalPipeline
(data/evaluation.py, an absolute one) define the graphs. Epoch sizes by reader name, two epochs per pipeline and
shard."""

import glob
import os
import sys

from data.evaluation import EvalPipeline
from data.training import TrainPipeline


def main(folder):
    files = sorted(glob.glob(os.path.join(folder, "*.npy")))
    for shard in range(2):
        options = dict(imgs=files, gpus=2, shard_id=shard, patch_size=[3, 3], seed=11)
        train = TrainPipeline(batch_size=3, num_threads=2, device_id=0, **options)
        train.build()
        samples = train.epoch_size("ReaderX")
        print("train shard", shard, "samples", samples)
        for epoch in range(2):
            for i in range(samples // 2 // 3):
                img, shape, half = train.run()
                print(epoch, i, img.as_array().shape, img.as_array().sum().round(3), shape.as_array().tolist(),
                      half.as_array().tolist())
        for reverse in (False, True):
            pipe = EvalPipeline(3, 2, device_id=0, reverse=reverse, **options)
            pipe.build()
            print("eval shard", shard, "reverse", reverse, "samples", pipe.epoch_size("ReaderY"))
            for epoch in range(2):
                diff, total = pipe.run()
                print(epoch, diff.as_array().sum().round(3), total.as_array().ravel().tolist())


if __name__ == "__main__":
    main(sys.argv[1])
