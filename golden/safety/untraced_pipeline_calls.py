"""Hand-written iterators over pipelines another module builds. One is given them as a parameter, which alone would
migrate and adapt what it gets when it is made (ReaderStream.adapt, DM242). The other fetches them from an object it
is given (registry.lookup(...)), which the tool cannot follow: those calls may reach any pipeline of this module, as a
generator after migration, so the pipeline class stays in pipeline mode with everything that may get it (the first
iterator too: one unit) and the calls are marked, never left to fail after migration."""
from nvidia.dali import fn
from nvidia.dali.pipeline import Pipeline


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
        pipe.schedule_run()
        images, labels = pipe.share_outputs()
        return images.as_array().copy(), labels.as_array().copy()
