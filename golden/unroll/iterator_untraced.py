"""A data-loading module that other modules hand their pipelines to (a project's dataloader.py): its PyTorch
iterators get pipelines from parameters and attributes, never from a pipeline of this module. The migrated
iterators decide at run time which kind of pipeline they were given."""

from nvidia.dali.plugin.pytorch import DALIClassificationIterator, DALIGenericIterator, LastBatchPolicy


class Loader(DALIGenericIterator):
    """Adapts the plugin's output for a training loop; options pass through **kw."""

    def __init__(self, pipe, size, **kw):
        super().__init__(pipe, ["data", "label"], size=size, auto_reset=True, **kw)

    def __next__(self):
        out = super().__next__()[0]
        return out["data"], out["label"].squeeze(-1).long()


class LightningLoader(DALIClassificationIterator):
    def __next__(self):
        out = super().__next__()
        return [out[0][k] for k in self.output_map]


class ShardLoader(DALIClassificationIterator):
    def __init__(self, pipelines, size=-1, policy=LastBatchPolicy.DROP):
        super().__init__(pipelines, size, "Reader", last_batch_policy=policy)


def make_loader(pipe, reader_name="Reader"):
    return DALIGenericIterator([pipe], ["x", "y"], reader_name=reader_name,
                               last_batch_policy=LastBatchPolicy.PARTIAL)


class DataModule:
    def __init__(self, pipes, train=True):
        self.pipes = pipes
        self.train = train

    def loader(self):
        policy = LastBatchPolicy.DROP if self.train else LastBatchPolicy.PARTIAL
        return DALIClassificationIterator(self.pipes, reader_name="Reader", last_batch_policy=policy,
                                          auto_reset=True)
