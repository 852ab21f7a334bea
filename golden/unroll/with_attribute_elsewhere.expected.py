"""A Pipeline made in __init__ as an attribute and filled by another method's `with self.pipe:` stays, marked with
that cause at the block (its reader is not marked for what it would lack once rewritten)."""
import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline


class Loader:
    def __init__(self, root, batch_size):
        self.root = root
        # dali-migrate: DM105 Pipeline is pipeline-mode API that was not migrated here: rewrite it with dynamic-mode (ndd) code
        # dali-migrate: DM230 self.pipe stays in pipeline mode with everything that uses it: line 14: self.pipe stays in pipeline mode: its graph is filled here, but self.pipe = Pipeline(...) is not made in this block (another method makes it, or an enclosing block), and the tool migrates a Pipeline made and filled in one block
        self.pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=None)
        self.fill()

    def fill(self):
        # dali-migrate: DM212 self.pipe stays in pipeline mode: its graph is filled here, but self.pipe = Pipeline(...) is not made in this block (another method makes it, or an enclosing block), and the tool migrates a Pipeline made and filled in one block
        with self.pipe:
            data = fn.readers.numpy(file_root=self.root, name="Reader")
            self.pipe.set_outputs(data * 2)

    def next(self):
        (data,) = self.pipe.run()
        return data.as_array()


loader = Loader("/data", 2)
loader.pipe.build()
print(loader.next().shape)
