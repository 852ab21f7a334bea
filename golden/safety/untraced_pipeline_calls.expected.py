"""A hand-written iterator over pipelines another module builds: the calls on its parameters cannot be
traced to this module's pipeline class, so the class stays in pipeline mode (it would reach them as a
generator) and the calls are marked, never left to fail after migration."""
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


# dali-migrate: DM230 LabelPipeline stays in pipeline mode with everything that uses it: line 23: p.schedule_run: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration; line 26: p.share_outputs: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration; line 29: p.release_outputs: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration; and 1 more
class LabelPipeline(Pipeline):
    def __init__(self, batch_size, root, device_id):
        super().__init__(batch_size=batch_size, num_threads=2, device_id=device_id)
        self.root = root

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        return fn.decoders.image(jpegs), labels


class DoubleBufferedIterator:
    def __init__(self, pipelines):
        self._pipes = pipelines
        for p in self._pipes:
            p.build()
            # dali-migrate: DM231 p.schedule_run: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
            p.schedule_run()

    def __next__(self):
        # dali-migrate: DM231 p.share_outputs: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
        outputs = [p.share_outputs() for p in self._pipes]
        copies = [[o.as_array().copy() for o in out] for out in outputs]
        for p in self._pipes:
            # dali-migrate: DM231 p.release_outputs: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
            p.release_outputs()
            # dali-migrate: DM231 p.schedule_run: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
            p.schedule_run()
        return copies
