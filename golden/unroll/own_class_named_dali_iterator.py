"""A class of the program named DALIGenericIterator, not DALI's (nothing imports it from nvidia.dali): left as it is;
the pipeline it steps migrates, its run() inside the class included."""
from nvidia.dali import fn, pipeline_def


class DALIGenericIterator:
    """Our own iterator, not DALI's: walks a pipeline for a fixed number of steps."""

    def __init__(self, pipe, names, size=4):
        self.pipe, self.names, self.size = pipe, names, size

    def __iter__(self):
        for _ in range(self.size):
            images, labels = self.pipe.run()
            yield {"images": images, "labels": labels}

    def reset(self):
        pass


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


def main(root):
    p = pipe(root)
    p.build()
    loader = DALIGenericIterator(p, ["images", "labels"], size=3)
    for batch in loader:
        print(len(batch["labels"]), batch["labels"].as_array().ravel().tolist())
    loader.reset()


if __name__ == "__main__":
    import sys
    main(sys.argv[1])
