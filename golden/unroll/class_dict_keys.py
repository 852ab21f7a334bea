"""Pipeline classes as the keys of a dict of data sets, and an ops attribute that holds a different operator in
each branch of an if/else."""
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, paths, batch_size, num_threads, device_id, crop):
        super(Base, self).__init__(batch_size, num_threads, device_id)
        if crop:
            self.decode = ops.decoders.ImageRandomCrop(device="mixed", output_type=types.RGB)
        else:
            self.decode = ops.decoders.Image(device="mixed", output_type=types.RGB)

    def finish(self, jpegs, labels):
        return self.decode(jpegs), labels


class FilePipe(Base):
    def __init__(self, **kwargs):
        super(FilePipe, self).__init__(**kwargs)
        self.input = ops.readers.File(file_root=kwargs["paths"][0])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.finish(jpegs, labels)


data = {FilePipe: [["/data/train"], ["/data/val"]]}
data[FilePipe].append(["/data/extra"])
for cls in data.keys():
    for paths in data[cls]:
        pipe = cls(paths=paths, batch_size=8, num_threads=2, device_id=0, crop=len(data[cls]) > 2)
        pipe.build()
        print(pipe.epoch_size("Reader"))
        images, labels = pipe.run()
