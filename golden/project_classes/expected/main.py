"""A Pipeline class hierarchy across modules: the base class (data/pipeline.py) creates the readers, the shared
ops objects and helpers; TrainPipeline (data/training.py, a relative import of the base) and EvalPipeline
(data/evaluation.py, an absolute one) define the graphs. Epoch sizes by reader name, two epochs per pipeline and
shard."""

import glob
import os
import sys

from data.evaluation import EvalPipeline
from data.training import TrainPipeline
import numpy as np
import nvidia.dali.experimental.dynamic as ndd


def main(folder):
    files = sorted(glob.glob(os.path.join(folder, "*.npy")))
    for shard in range(2):
        options = dict(imgs=files, gpus=2, shard_id=shard, patch_size=[3, 3], seed=11)
        train = TrainPipeline(batch_size=3, num_threads=2, device_id=0, **options)
        samples = train.epoch_size("ReaderX")
        print("train shard", shard, "samples", samples)
        for epoch in range(2):
            for i in range(samples // 2 // 3):
                img, shape, half = next(train)
                print(epoch, i, np.array(ndd.as_tensor(img)).shape, np.array(ndd.as_tensor(img)).sum().round(3), np.array(ndd.as_tensor(shape)).tolist(),
                      np.array(ndd.as_tensor(half)).tolist())
        for reverse in (False, True):
            pipe = EvalPipeline(3, 2, device_id=0, reverse=reverse, **options)
            print("eval shard", shard, "reverse", reverse, "samples", pipe.epoch_size("ReaderY"))
            for epoch in range(2):
                diff, total = next(pipe)
                print(epoch, np.array(ndd.as_tensor(diff)).sum().round(3), np.array(ndd.as_tensor(total)).ravel().tolist())


if __name__ == "__main__":
    main(sys.argv[1])
