"""A hand-written data loader over several pipelines (one per shard) with double buffering."""

import numpy as np


class ShardedLoader:
    def __init__(self, pipes, reader_name="Reader"):
        self.pipes = pipes
        for p in pipes:
            p.build()
        self.batch_size = pipes[0].max_batch_size
        self.size = pipes[0].epoch_size(reader_name)
        for p in self.pipes:
            p.schedule_run()  # the first batch is computed while the caller sets up

    def __len__(self):
        return int(np.ceil(self.size / (self.batch_size * len(self.pipes))))

    def __iter__(self):
        return self

    def __next__(self):
        batches = []
        for p in self.pipes:
            images, labels = p.share_outputs()
            batches.append((images.as_array().copy(), labels.as_array().copy()))
            p.release_outputs()
            p.schedule_run()
        return batches
