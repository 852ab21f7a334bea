from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=4, num_threads=2, device_id=0)
def files(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


class Pairs(DALIGenericIterator):
    # it returns the batch the plugin prepared at construction itself (as the plugin's __next__ does), then pairs
    def __init__(self, pipe, output_map=["images", "labels"]):
        self.output_map = output_map
        super().__init__(pipelines=pipe, output_map=output_map, reader_name="Reader", auto_reset=True)

    def __next__(self):
        if self._first_batch is not None:
            batch = self._first_batch
            self._first_batch = None
            return batch
        step = super().__next__()[0]
        return step[self.output_map[0]], step[self.output_map[1]]

    def __len__(self):
        return -(-self.size // self.batch_size)


def loader(root):
    return Pairs(files(root))
