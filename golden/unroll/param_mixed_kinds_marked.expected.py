from nvidia.dali import fn, pipeline_def
from nvidia.dali.pipeline import Pipeline


# dali-migrate: DM230 make_def_pipe stays in pipeline mode with everything that uses it (one unit with SubclassPipe): line 26: pipe.reset() restarts an external source that ended (StopIteration); the migrated generator does not restart: create the pipeline again for the next epoch; line 26: pipe.reset(...) not migrated: pipe may be any of SubclassPipe, make_def_pipe, which migrate to different kinds of value
@pipeline_def
def make_def_pipe(root):
    x = fn.readers.numpy(file_root=root, name="Reader")
    return x, x * 2


# dali-migrate: DM230 SubclassPipe stays in pipeline mode with everything that uses it (one unit with make_def_pipe): line 26: pipe.reset() restarts an external source that ended (StopIteration); the migrated generator does not restart: create the pipeline again for the next epoch; line 26: pipe.reset(...) not migrated: pipe may be any of SubclassPipe, make_def_pipe, which migrate to different kinds of value
class SubclassPipe(Pipeline):
    def __init__(self, root, batch_size):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None)
        self.root = root

    def define_graph(self):
        x = fn.readers.numpy(file_root=self.root, name="Reader")
        return x, x + 1


# reset() on a parameter that may be either kind (the tool rewrites only next(), build() and, where both are
# ReaderStreams, epoch_size()/reader_meta()): marked, both stay in pipeline mode
def run(pipe, steps):
    pipe.build()
    print(pipe.epoch_size("Reader"))
    # dali-migrate: DM212 pipe.reset(...) not migrated: pipe may be any of SubclassPipe, make_def_pipe, which migrate to different kinds of value
    # dali-migrate: DM214 pipe.reset() restarts an external source that ended (StopIteration); the migrated generator does not restart: create the pipeline again for the next epoch
    pipe.reset()
    sums = []
    for _ in range(steps):
        out = pipe.run()
        sums.append(float(out[1].as_array().sum()))
    return sums


def main(root):
    print(run(make_def_pipe(root, batch_size=2, num_threads=1, device_id=None), 2))
    print(run(SubclassPipe(root, 2), 2))
