import sys

from nvidia.dali import fn, pipeline_def, types

from pipes import DoubleBufferedLoader, ShardPipeline


@pipeline_def(batch_size=3, num_threads=2, device_id=0)
def saved_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.GRAY)
    return fn.resize(images, resize_x=5, resize_y=5), labels


def show(title, loader, epochs):
    print(title, "steps", len(loader), "batch size", loader.batch_size)
    for epoch in range(epochs):
        for step, batches in enumerate(loader):
            for shard, batch in enumerate(batches):
                images, labels = batch["images"], batch["labels"]
                print(epoch, step, shard, tuple(images.shape), images.dtype, int(images.sum()),
                      labels.view(-1).tolist())
        loader.reset()


if __name__ == "__main__":
    root = sys.argv[1]
    pipes = [ShardPipeline(root, batch_size=2, num_threads=2, device_id=0, shard_id=s, num_shards=2) for s in range(2)]
    print("shards", [p.epoch_size("Reader") for p in pipes])
    show("migrated with the loader", DoubleBufferedLoader(pipes, ["images", "labels"], pipes[0].epoch_size("Reader")), 2)
    # A pipeline this module keeps in pipeline mode (it is saved): the loader gets an nvidia.dali Pipeline.
    saved = saved_pipe(root)
    saved.serialize(filename="saved.dali")
    show("kept in pipeline mode", DoubleBufferedLoader(saved, ["images", "labels"], saved.epoch_size("Reader")), 2)
