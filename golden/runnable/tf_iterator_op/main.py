"""Feeding TensorFlow through the DALIIterator() graph op: an eager step method of a preprocessor class (the op
made once in __init__, called under tf.device for each step), a tf.function training step around the op, and a
TF1-style graph: a helper that builds the pipeline, reads its epoch size and returns the op's tensors (cast and
scaled), run in a tf.compat.v1.Session for an epoch and a step of the next."""

import argparse
import math

import numpy as np
import tensorflow as tf
from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.plugin.tf as dali_tf

BATCH = 4
SIZE = 8


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=0)
def image_pipe(root, shuffle):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=shuffle, seed=3, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
    return images, labels.gpu()


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=0)
def float_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="HWC", mean=[0.0], std=[255.0])
    return images, labels


class Preprocessor:
    def __init__(self, root, device_id):
        self.pipe = image_pipe(root, True, device_id=device_id)
        self.daliop = dali_tf.DALIIterator()
        self.device_id = device_id

    def minibatch(self):
        with tf.device("/gpu:0"):
            images, labels = self.daliop(pipeline=self.pipe, shapes=[(BATCH, SIZE, SIZE, 3), ()],
                                         dtypes=[tf.uint8, tf.int32], device_id=self.device_id)
        return images, labels


def get_pipeline_outs(pipe, device_id):
    daliop = dali_tf.DALIIterator()
    pipe.build()
    epoch_size = list(pipe.epoch_size().values())[0]
    steps = math.ceil(epoch_size / pipe.max_batch_size)
    with tf.device("/cpu:0"):
        images, labels = daliop(pipeline=pipe, shapes=[(BATCH, SIZE, SIZE, 1), (BATCH, 1)],
                                dtypes=[tf.float32, tf.int32], device_id=device_id)
        images = tf.cast(images, tf.float32) * 2.0 - 1.0
    return images, labels, steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    args = parser.parse_args()

    pre = Preprocessor(args.data, 0)
    for step in range(4):
        images, labels = pre.minibatch()
        print(f"eager {step}: {tuple(images.shape)} {images.dtype.name} sum {int(tf.reduce_sum(tf.cast(images, tf.int64)))} "
              f"labels {sorted(np.asarray(labels).ravel().tolist())}")

    pipe = float_pipe(args.data)
    daliop = dali_tf.DALIIterator()

    @tf.function
    def train_step(weights):
        with tf.device("/cpu:0"):
            images, labels = daliop(pipeline=pipe, shapes=[(BATCH, SIZE, SIZE, 1), (BATCH, 1)],
                                    dtypes=[tf.float32, tf.int32], device_id=0)
        logits = tf.reduce_sum(images, axis=[1, 2, 3]) * weights
        return tf.reduce_mean(logits), labels

    for step in range(3):
        loss, labels = train_step(tf.constant(0.5))
        print(f"function {step}: loss {float(loss):.4f} labels {np.asarray(labels).ravel().tolist()}")

    graph = tf.Graph()
    with graph.as_default():
        images, labels, steps = get_pipeline_outs(float_pipe(args.data), 0)
        print("graph", images.shape.as_list(), labels.shape.as_list(), images.dtype.name, "steps", steps)
        mean = tf.reduce_mean(images)
        with tf.compat.v1.Session() as sess:
            for step in range(steps + 1):
                value, batch_labels = sess.run([mean, labels])
                print(f"session {step}: mean {value:.4f} labels {batch_labels.ravel().tolist()}")


if __name__ == "__main__":
    main()
