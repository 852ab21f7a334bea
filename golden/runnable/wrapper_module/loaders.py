"""The project's data-loading module: training and evaluation code hand their pipelines to it."""

from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


class TrainLoader(DALIGenericIterator):
    """(images, labels as int64) per step; a fixed number of samples per epoch, restarting by itself."""

    def __init__(self, pipe, size, **kw):
        super().__init__(pipe, ["images", "labels"], size=size, auto_reset=True, **kw)

    def __next__(self):
        out = super().__next__()[0]
        return out["images"], out["labels"].squeeze(-1).long()


class EvalLoader(DALIClassificationIterator):
    """What a Lightning module wants: a list, not a list of dicts."""

    def __next__(self):
        out = super().__next__()
        return [out[0][k] for k in self.output_map]


def make_loader(pipes, reader_name="Reader", policy=LastBatchPolicy.PARTIAL):
    return DALIGenericIterator(pipes, ["images", "labels"], reader_name=reader_name, last_batch_policy=policy)
