import numpy as np
import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


@Prefetch(depth=2)
def make_def_pipe(root, *, batch_size):
    reader = ndd.readers.Numpy(file_root=root, name="Reader")
    while True:
        for (x,) in reader.next_epoch(batch_size=batch_size):
            yield x, x * 2


class SubclassPipe(ReaderStream):
    def __init__(self, root, batch_size):
        self.batch_size = batch_size
        self.num_threads = 1
        self.device_id = None
        self.seed = None
        self.root = root
        self.reader = ndd.readers.Numpy(file_root=self.root, name="Reader", max_batch_size=self.batch_size)
        self._readers = {"Reader": self.reader}

    @Prefetch(depth=2)
    def steps(self):
        if self.num_threads is not None and self.num_threads > ndd.get_num_threads():
            ndd.set_num_threads(self.num_threads)  # grow only: shrinking it after use hangs DALI 2.4
        while True:
            for (x,) in self.reader.next_epoch(batch_size=self.batch_size):
                yield x, x + 1


# one parameter, two kinds of migrated pipeline (a generator, a ReaderStream): build() dropped, run() -> next()
def run(pipe, steps):
    sums = []
    for _ in range(steps):
        out = next(pipe)
        sums.append(float(np.array(ndd.as_tensor(out[1])).sum()))
    return sums


def main(root):
    print(run(make_def_pipe(root, batch_size=2), 2))
    print(run(SubclassPipe(root, 2), 2))
