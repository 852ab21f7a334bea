"""Feeding TensorFlow through DALIDataset: a tf.data pipeline (map, take) over a shuffled reader, labels of
shape (N, 1) squeezed to the requested (N,), a single-output dataset, and a Keras model trained on it."""

import argparse

import numpy as np
import tensorflow as tf
from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.plugin.tf as dali_tf

BATCH = 4
SIZE = 8


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=0)
def image_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=17, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", mean=[0.0], std=[255.0])
    return images, labels


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=0)
def label_pipe(root):
    _, labels = fn.readers.file(file_root=root, name="Reader")
    return labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()

    shapes = ((BATCH, SIZE, SIZE), (BATCH))  # DALI gives (BATCH, 1, SIZE, SIZE) and (BATCH, 1): squeezed
    dtypes = (tf.float32, tf.int32)
    with tf.device("/cpu:0"):
        dataset = dali_tf.DALIDataset(pipeline=image_pipe(args.data), batch_size=BATCH, output_shapes=shapes,
                                      output_dtypes=dtypes, device_id=0)
    print("spec", [(tuple(s.shape), s.dtype.name) for s in dataset.element_spec])
    scaled = dataset.map(lambda images, labels: (images * 2.0, labels))
    for step, (images, labels) in enumerate(scaled.take(args.steps)):
        print(f"step {step}: {tuple(images.shape)} {images.dtype.name} sum {float(tf.reduce_sum(images)):.4f} "
              f"labels {labels.numpy().tolist()}")

    only_labels = dali_tf.DALIDataset(label_pipe(args.data), dtypes=tf.int32, batch_size=BATCH, device_id=0)
    for (labels,) in only_labels.take(3):  # one output: each element is a 1-tuple
        print("labels", tuple(labels.shape), np.asarray(labels).ravel().tolist())

    tf.keras.utils.set_random_seed(5)
    model = tf.keras.Sequential([tf.keras.layers.Input(shape=(SIZE, SIZE)), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    with tf.device("/cpu:0"):
        train = dali_tf.DALIDataset(pipeline=image_pipe(args.data), batch_size=BATCH, output_shapes=shapes,
                                    output_dtypes=dtypes, device_id=0)
    history = model.fit(train, epochs=2, steps_per_epoch=3, verbose=0)
    print("losses", [f"{loss:.4f}" for loss in history.history["loss"]])


if __name__ == "__main__":
    main()
