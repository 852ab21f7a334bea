"""A shuffled reader that relies on the pipeline seed for its order."""

import sys

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=5, num_threads=2, device_id=0, seed=77)
def shuffled(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, initial_fill=10)
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=3, resize_y=3), labels


if __name__ == "__main__":
    pipe = shuffled(sys.argv[1])
    pipe.build()
    for epoch in range(2):
        images, labels = pipe.run()
        print(f"shapes {images.as_array().shape}")
        print(f"order epoch {epoch}: {labels.as_array().ravel().tolist()} pixel sums "
              f"{[int(images.at(i).sum()) for i in range(len(images))]}")
