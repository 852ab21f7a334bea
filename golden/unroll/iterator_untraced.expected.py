"""A data-loading module that other modules hand their pipelines to (a project's dataloader.py): its PyTorch
iterators get pipelines from parameters and attributes, never from a pipeline of this module. The migrated
iterators decide at run time which kind of pipeline they were given."""

from dali_dynamic_compat import EpochIterator  # written by dali-migrate (migrate --write recreates it)


class Loader(EpochIterator):
    """Adapts the plugin's output for a training loop; options pass through **kw."""

    def __init__(self, pipe, size, **kw):
        super().__init__(pipe, ["data", "label"], size=size, auto_reset=True, **kw)

    def __next__(self):
        out = super().__next__()[0]
        return out["data"], out["label"].squeeze(-1).long()


class LightningLoader(EpochIterator):
    def __init__(self, pipelines, *args, **kwargs):  # DALIClassificationIterator's arguments
        super().__init__(pipelines, ["data", "label"], *args, **kwargs)

    def __next__(self):
        out = super().__next__()
        return [out[0][k] for k in self.output_map]


class ShardLoader(EpochIterator):
    def __init__(self, pipelines, size=-1, policy="DROP"):
        super().__init__(pipelines, ["data", "label"], size=size, reader_name="Reader", last_batch_policy=policy)


def make_loader(pipe, reader_name="Reader"):
    return EpochIterator([pipe], ["x", "y"], reader_name=reader_name,
                               last_batch_policy="PARTIAL")


class DataModule:
    def __init__(self, pipes, train=True):
        self.pipes = pipes
        self.train = train

    def loader(self):
        policy = "DROP" if self.train else "PARTIAL"
        return EpochIterator(self.pipes, ["data", "label"], reader_name="Reader", last_batch_policy=policy,
                                          auto_reset=True)
