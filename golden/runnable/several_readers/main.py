"""Two readers in one pipeline: images with their labels, and arrays read beside them."""
import argparse

from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None)
def paired(images_root, arrays_root):
    jpegs, labels = fn.readers.file(file_root=images_root, name="Images")
    arrays = fn.readers.numpy(file_root=arrays_root, name="Arrays")
    images = fn.decoders.image(jpegs)
    means = fn.reductions.mean(images)
    return means, arrays * 2.0, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("arrays")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    pipe = paired(args.images, args.arrays)
    pipe.build()
    print("epochs", pipe.epoch_size("Images"), pipe.epoch_size("Arrays"))
    for step in range(args.steps):
        means, arrays, labels = pipe.run()
        print(step, [round(float(m), 3) for m in means.as_array().ravel()],
              arrays.as_array().sum(axis=(1, 2)).round(3).tolist(), labels.as_array().ravel().tolist())


if __name__ == "__main__":
    main()
