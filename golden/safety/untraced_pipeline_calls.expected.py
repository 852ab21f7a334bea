"""Hand-written iterators over pipelines another module builds. One is given them as a parameter, which alone would
migrate and adapt what it gets when it is made (ReaderStream.adapt, DM242). The other fetches them from an object it
is given (registry.lookup(...)), which the tool cannot follow: those calls may reach any pipeline of this module, as a
generator after migration, so the pipeline class stays in pipeline mode with everything that may get it (the first
iterator too: one unit) and the calls are marked, never left to fail after migration."""
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


# dali-migrate: DM230 LabelPipeline stays in pipeline mode with everything that uses it (one unit with <pipelines given to DoubleBufferedIterator(pipelines)>): line 43: pipe.schedule_run: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration; line 44: pipe.share_outputs: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
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
            p.schedule_run()

    def __next__(self):
        outputs = [p.share_outputs() for p in self._pipes]
        copies = [[o.as_array().copy() for o in out] for out in outputs]
        for p in self._pipes:
            p.release_outputs()
            p.schedule_run()
        return copies


class RegistryIterator:
    def __init__(self, registry, name):
        self._registry = registry
        self._name = name

    def __next__(self):
        pipe = self._registry.lookup(self._name)
        # dali-migrate: DM231 pipe.schedule_run: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
        pipe.schedule_run()
        # dali-migrate: DM231 pipe.share_outputs: called on a value dali-migrate cannot trace to a pipeline (a parameter, an attribute); a pipeline of this module that reaches it would be a dynamic-mode value after migration
        images, labels = pipe.share_outputs()
        return images.as_array().copy(), labels.as_array().copy()
