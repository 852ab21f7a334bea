import sys

from nvidia.dali import fn, pipeline_def

from pipes import DALIDetectionIterator, DetectionPipeline


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def shuffled_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader", random_shuffle=True, seed=11)
    images = fn.decoders.image(jpegs, device="mixed")
    return fn.resize(images, resize_x=3, resize_y=3), labels


def show(title, loader, epochs=2):
    print(title, "size", loader._size, "batch size", loader.batch_size)
    for epoch in range(epochs):
        for step, batches in enumerate(loader):
            for shard, (images, labels) in enumerate(batches):
                print(epoch, step, shard, [tuple(im.shape) for im in images], images[0].dtype,
                      int(images[0].sum()), labels[0].view(-1).tolist())
        loader.reset()


if __name__ == "__main__":
    root = sys.argv[1]
    shards = [DetectionPipeline(root, batch_size=2, num_threads=2, device_id=0, shard_id=s, num_shards=2)
              for s in range(2)]
    show("the data module's pipelines", DALIDetectionIterator(shards))
    show("a pipeline of this script", DALIDetectionIterator(shuffled_pipe(root)))
