"""The flow model (dali_migrate/dataflow.py): which values come from which pipelines, through the
whole module. Each case is a small program and the value the model must give one of its names, as
``kind [origins]``; what the model cannot prove is ``top``."""

import textwrap

import libcst as cst
import pytest

from dali_migrate import dataflow as df
from dali_migrate.source import parse_module
from dali_migrate.names import ImportTable

HEADER = "from nvidia.dali import pipeline_def, fn, Pipeline\nimport nvidia.dali.experimental.dynamic as ndd\n"
PIPE = """
@pipeline_def(batch_size=4)
def pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels
"""


def describe(found) -> str:
    kind, origins = found

    def word(k):
        if isinstance(k, tuple):
            return "(" + " ".join(word(x) for x in k) + ")"
        if isinstance(k, cst.CSTNode):
            return getattr(getattr(k, "name", None), "value", type(k).__name__)
        return str(k)

    return f"{word(kind)} {sorted(origins)}"


def value_of(source: str, name: str, occurrence: int = -1) -> str:
    """The value of the ``occurrence``-th read of ``name`` (default: the last) in ``source``."""
    rest = source[len(PIPE):] if source.startswith(PIPE) else source
    module = parse_module(HEADER + (PIPE if rest is not source else "") + textwrap.dedent(rest))
    flow = df.DataFlow(module, ImportTable.from_module(module))
    reads = []

    class Reads(cst.CSTVisitor):
        def visit_Name(self, node):
            if node.value == name and node in flow.name_scope:
                reads.append(node)

    module.visit(Reads())
    return describe(flow.value_of(reads[occurrence]))


CASES = {
    "run outputs": (PIPE + "p = pipe('r')\nimages, labels = p.run()\nimages", "images", "tensorlist ['pipe']"),
    "a factory's return": (PIPE + """
        def make(root):
            p = pipe(root)
            p.build()
            return p
        q = make('r')
        q""", "q", "pipeline ['pipe']"),
    "a helper's parameter": (PIPE + """
        def show(batch):
            return batch
        p = pipe('r')
        show(p.run()[0])""", "batch", "tensorlist ['pipe']"),
    "a keyword argument and a default": (PIPE + """
        def show(x, batch=None):
            return batch
        p = pipe('r')
        show(1, batch=p.run()[1])""", "batch", "tensorlist ['pipe']"),
    "an escaping helper knows nothing": (PIPE + """
        def show(batch):
            return batch
        p = pipe('r')
        show(p.run()[0])
        callbacks = [show]""", "batch", "top []"),
    "a list comprehension of pipelines": (PIPE + """
        pipes = [pipe(str(i)) for i in range(2)]
        pipes""", "pipes", "(seq pipeline) ['pipe']"),
    "loop over a list": (PIPE + """
        pipes = [pipe(str(i)) for i in range(2)]
        for p in pipes:
            p""", "p", "pipeline ['pipe']"),
    "append": (PIPE + """
        outs = []
        p = pipe('r')
        for _ in range(3):
            outs.append(p.run())
        outs""", "outs", "(seq tuple:tensorlist) ['pipe']"),
    "a dict store and items()": (PIPE + """
        loaders = {}
        loaders['train'] = pipe('r')
        for name, p in loaders.items():
            p""", "p", "pipeline ['pipe']"),
    "attributes of the module's own class": (PIPE + """
        class Loader:
            def __init__(self, pipes):
                self.pipes = pipes
            def step(self):
                return [p.run() for p in self.pipes]
        loader = Loader([pipe('a'), pipe('b')])
        step = loader.step()
        step""", "step", "(seq tuple:tensorlist) ['pipe']"),
    "an attribute set from outside": (PIPE + """
        class Box:
            pass
        box = Box()
        box.pipe = pipe('r')
        box.pipe
        q = box.pipe
        q""", "q", "pipeline ['pipe']"),
    "an iterator class": (PIPE + """
        class Batches:
            def __init__(self, p):
                self.p = p
            def __iter__(self):
                return self
            def __next__(self):
                return self.p.run()
        for step in Batches(pipe('r')):
            step""", "step", "tuple:tensorlist ['pipe']"),
    # iter(obj) is what obj.__iter__ returns: obj itself here (its .next stays), not a generator of steps
    "iter() of a user iterator class": ("""
        class Batches:
            def __iter__(self):
                self.i = 0
                return self
            def __next__(self):
                items = []
                items.append(self.i)
                return items, items
            next = __next__
        it = iter(Batches())
        it""", "it", "(instance Batches) []"),
    "iter() of a subclass whose base's __iter__ returns self": ("""
        class Base:
            def __iter__(self):
                return self
            def __next__(self):
                items = []
                items.append(1)
                return items
        class Batches(Base):
            pass
        it = iter(Batches())
        it""", "it", "(instance Batches) []"),
    "iter() of a class whose __iter__ is a generator": (PIPE + """
        class Steps:
            def __init__(self, p):
                self.p = p
            def __iter__(self):
                while True:
                    yield self.p.run()
        it = iter(Steps(pipe('r')))
        it""", "it", "(gen tuple:tensorlist) ['pipe']"),
    "a user generator": (PIPE + """
        def steps(p):
            while True:
                yield p.run()
        for images, labels in steps(pipe('r')):
            images""", "images", "tensorlist ['pipe']"),
    "a global set in a function": (PIPE + """
        PIPE = None
        def setup():
            global PIPE
            PIPE = pipe('r')
        def use():
            return PIPE
        PIPE""", "PIPE", "pipeline ['pipe']"),
    "two pipelines meet": (PIPE + """
        w = Pipeline(batch_size=2)
        with w:
            w.set_outputs(fn.random.uniform())
        p = pipe('r') if True else w
        p""", "p", "pipeline [':w', 'pipe']"),
    "a DataNode inside a with block": ("""
        def build():
            w = Pipeline(batch_size=2)
            with w:
                x = fn.random.uniform()
                w.set_outputs(x)
            return w
        """, "x", "datanode ['build:w']"),
    "a graph helper's DataNode": (PIPE + """
        def augment(images):
            return fn.flip(images)
        @pipeline_def(batch_size=2)
        def other():
            images = augment(fn.random.uniform())
            return images
        """, "images", "datanode ['<operator fn.flip 1>', 'other']"),  # the helper's op: one unit with `other`
    "an operator named as a value": ("""
        flip = fn.flip
        flip""", "flip", "operator ['<operator fn.flip 1>']"),
    "a table of lambdas over math, called in a pipeline through its parameter": ("""
        import nvidia.dali.math as dmath
        TABLE = [(lambda x: dmath.sqrt(x), "sqrt"), (lambda x: dmath.exp(x), "exp")]
        @pipeline_def(batch_size=2)
        def unary(op):
            out = op(fn.random.uniform())
            return out
        for op, name in TABLE:
            unary(op)
        """, "out", "datanode ['<operator math.exp 2>', '<operator math.sqrt 1>', 'unary']"),
    "an op built outside `with pipe:` for set_outputs": ("""
        pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)
        perm = fn.batch_permutation()
        pipe.set_outputs(perm)
        perm""", "perm", "datanode ['<operator fn.batch_permutation 1>']"),
    "nose's test generator passes its tuple to the check": ("""
        def check(op):
            op
        def test_ops():
            for op in [fn.flip, fn.rotate]:
                yield check, op
        """, "op", "operator ['<operator fn.flip 1>', '<operator fn.rotate 2>']"),
    "zip": (PIPE + """
        pipes = [pipe('a')]
        for p, name in zip(pipes, ['a']):
            p""", "p", "pipeline ['pipe']"),
    "enumerate": (PIPE + """
        outs = [pipe('a').run()]
        for i, o in enumerate(outs):
            o""", "o", "tuple:tensorlist ['pipe']"),
    "a mixed binding is top but keeps its origins": (PIPE + """
        x = pipe('a').run()[0]
        if len(x) > 3:
            x = 3
        x""", "x", "top ['pipe']"),
    "None joins away": (PIPE + """
        x = None
        x = pipe('a').run()
        x""", "x", "tuple:tensorlist ['pipe']"),
    "a name reused after its pipeline's definition (notebook style)": ("""
        pipe = Pipeline(batch_size=2)
        with pipe:
            boxes = fn.random.uniform(shape=4)
            pipe.set_outputs(boxes)
        pipe.build()
        (out,) = pipe.run()
        boxes = out.at(0)
        for box in boxes:
            box""", "box", "top []"),
    "a migrated generator (dynamic mode)": ("""
        def gen(root, *, batch_size=4):
            reader = ndd.readers.File(file_root=root)
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(jpegs), labels
        g = gen('r')
        images, labels = next(g)
        images""", "images", "batch []"),
    "a method through self": (PIPE + """
        class Trainer:
            def __init__(self):
                self.p = pipe('r')
            def batch(self):
                return self.p.run()
            def train(self):
                out = self.batch()
                return out
        """, "out", "tuple:tensorlist ['pipe']"),
    # A local of another function named like a module function is not a reference to it: the
    # function keeps its call sites (a helper class with `step = next(gen)` beside `def step(q)`).
    "same_name_local_elsewhere": (PIPE + """
        def step(q):
            return q.run()
        def other(gen):
            step = next(gen)
            return step
        p = pipe('r')
        out = step(p)
        """, "q", "pipeline ['pipe']"),
    "calling a reader reads one sample": ("""
        reader = ndd.readers.Video(device="gpu", filenames=f, sequence_length=4)
        video = reader()
        video""", "video", "tensor []"),
    # A list of [pipeline function, plain value] pairs (issue 15: NVIDIA's various-readers notebook): the
    # elements keep their places, and the plain one does not carry the pipeline's origins.
    "a pipeline function in a pair list": (PIPE + """
        kinds = [[pipe, (0, 9)], [pipe, (1, 8)]]
        for kind in kinds:
            fn_, bounds = kind
            fn_""", "fn_", "pipeline_factory ['pipe']"),
    "the plain element of a pair list has no origins": (PIPE + """
        kinds = [[pipe, (0, 9)], [pipe, (1, 8)]]
        for kind in kinds:
            fn_, bounds = kind
            bounds""", "bounds", "top []"),
    "the plain element by index": (PIPE + """
        pair = [pipe, 'name']
        pair
        item = pair[1]
        item""", "item", "top []"),
    "a pair list is a tuple of kinds": (PIPE + """
        pair = [pipe, 'name']
        pair""", "pair", "(tup (pipeline_factory plain)) ['pipe']"),
    "an unknown beside a pipeline's value keeps the origins": (PIPE + """
        x = pipe('a').run()[0]
        if len(x) > 3:
            x = 3
        pair = (pipe, x)
        a, b = pair
        b""", "b", "top ['pipe']"),
    "a mutated pair list is top": (PIPE + """
        pair = [pipe, 'name']
        pair.append(pipe('a').run())
        pair""", "pair", "top ['pipe']"),
    "an output in a pair list stays an output": (PIPE + """
        pair = ['name', pipe('a').run()[0]]
        for item in pair:
            item""", "item", "top ['pipe']"),
    "a dict keyed by pipelines, with plain values": (PIPE + """
        sets = {pipe: [['a'], ['b']]}
        sets""", "sets", "(keyed pipeline_factory) ['pipe']"),
    "its values are plain data, without the keys' origins": (PIPE + """
        sets = {pipe: [['a']]}
        sets[pipe].append(['c'])
        for paths in sets[pipe]:
            paths""", "paths", "top []"),
    "its keys are the pipelines": (PIPE + """
        sets = {pipe: [['a']]}
        for key in sets.keys():
            p = key('r')
        p""", "p", "pipeline ['pipe']"),
    "its keys through items()": (PIPE + """
        sets = {pipe: [['a']]}
        for key, paths in sets.items():
            key""", "key", "pipeline_factory ['pipe']"),
    "a dict with a pipeline's value among its values is not followed": (PIPE + """
        sets = {pipe: pipe('a').run()}
        sets""", "sets", "top ['pipe']"),
    "function_passed_as_value_escapes": (PIPE + """
        def step(q):
            return q.run()
        callbacks = [step]
        p = pipe('r')
        out = step(p)
        """, "q", "top []"),
    "a list of pipelines wrapped by the isinstance idiom stays a list": (PIPE + """
        class Loader:
            def __init__(self, pipelines):
                if not isinstance(pipelines, list):
                    pipelines = [pipelines]
                self._pipes = pipelines
        got = Loader([pipe('a'), pipe('b')])._pipes
        got""", "got", "(seq pipeline) ['pipe']"),
    "one pipeline wrapped by the isinstance idiom becomes a list of it": (PIPE + """
        class Loader:
            def __init__(self, pipelines):
                if not isinstance(pipelines, (list, tuple)):
                    pipelines = [pipelines]
                self._pipes = pipelines
            def step(self):
                return [p.run() for p in self._pipes]
        got = Loader(pipe('a'))._pipes
        got""", "got", "(seq pipeline) ['pipe']"),
    "another rebinding under the isinstance test is not the idiom": (PIPE + """
        def wrap(pipelines):
            if not isinstance(pipelines, list):
                pipelines = [pipelines, pipelines]
            return pipelines
        got = wrap(pipe('a'))
        got""", "got", "top ['pipe']"),
    "super().__init__ of a plain class passes to its base's __init__": (PIPE + """
        class Base:
            def __init__(self, pipes, names):
                self._pipes = pipes
        class Child(Base):
            def __init__(self, pipes):
                super().__init__(pipes, ["data", "label"])
        got = Child([pipe('a')])._pipes
        got""", "got", "(seq pipeline) ['pipe']"),
}


@pytest.mark.parametrize("source, name, expected", CASES.values(), ids=CASES.keys())
def test_value(source, name, expected):
    assert value_of(source, name) == expected


# Which binding a read sees (dali_migrate/reaching.py): (program, name, which read, value).
ORDER_CASES = {
    "rebound to a numpy array": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        images = images.as_array()
        images[0]""", "images", -1, "top []"),
    "the conversion reads the output": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        images = images.as_array()""", "images", 1, "tensorlist ['pipe']"),
    "rebound in a loop, read after it": (PIPE + """
        p = pipe('r')
        for i in range(3):
            images, labels = p.run()
            images = images.as_array()
        images[0]""", "images", -1, "top []"),
    "the top of a loop body sees the last iteration": (PIPE + """
        p = pipe('r')
        images = None
        for i in range(3):
            print(images)
            images, labels = p.run()
            images = images.as_array()""", "images", 0, "top ['pipe']"),
    "an inner loop that does not rebind the name": (PIPE + """
        p = pipe('r')
        for i in range(3):
            images, labels = p.run()
            images = images.as_array()
            for b in range(2):
                images[b]""", "images", -1, "top []"),
    "a for target is bound again before each iteration": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        for images in [1, 2]:
            print(images)
            images = p.run()[0]""", "images", 2, "top []"),
    "an if without else joins what came before": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        if labels is None:
            images = images.as_array()
        images""", "images", -1, "top ['pipe']"),
    "an if with else on both branches": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        if labels is None:
            images = images.as_array()
        else:
            images = 1
        images""", "images", -1, "top []"),
    "an elif chain": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        if labels is None:
            images = 0
        elif p:
            images = 2
        images""", "images", -1, "top ['pipe']"),
    "a mutation keeps what was bound": (PIPE + """
        p = pipe('r')
        outs = []
        outs.append(p.run())
        outs""", "outs", -1, "(seq tuple:tensorlist) ['pipe']"),
    "try is not modelled": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        try:
            images = images.as_array()
        except ValueError:
            pass
        images""", "images", -1, "top ['pipe']"),
    "a parameter, then a rebinding": (PIPE + """
        def show(batch):
            batch = batch.as_array()
            return batch[0]
        p = pipe('r')
        show(p.run()[0])""", "batch", -1, "top []"),
    "a read from a nested function sees every binding": (PIPE + """
        def outer():
            p = pipe('r')
            images, labels = p.run()
            def inner():
                return images
            images = images.as_array()
            return inner""", "images", 1, "top ['pipe']"),
    "a global rebinding sees every binding": (PIPE + """
        p = pipe('r')
        images, labels = p.run()
        def f():
            global images
            images = 1
        images = images.as_array()
        images""", "images", -1, "top ['pipe']"),
}


@pytest.mark.parametrize("source, name, occurrence, expected", ORDER_CASES.values(), ids=ORDER_CASES.keys())
def test_reaching_binding(source, name, occurrence, expected):
    assert value_of(source, name, occurrence) == expected


def test_migrated_pipelines_are_origins_when_named():
    """The post-check reads migrated code: its generator functions are the pipelines they were."""
    source = textwrap.dedent("""
        import nvidia.dali.experimental.dynamic as ndd
        def pipe(root, *, batch_size=4):
            reader = ndd.readers.File(file_root=root)
            while True:
                for jpegs, labels in reader.next_epoch(batch_size=batch_size):
                    yield ndd.decoders.image(jpegs), labels
        def make():
            return pipe('r')
        p = make()
        images, labels = next(p)
        images
        """)
    module = parse_module(source)
    flow = df.DataFlow(module, ImportTable.from_module(module), extra_pipelines={"pipe": "pipe"})
    names = {}

    class Reads(cst.CSTVisitor):
        def visit_Name(self, node):
            if node in flow.name_scope:
                names[node.value] = node

    module.visit(Reads())
    assert describe(flow.value_of(names["p"])) == "(gen tuple:batch) ['pipe']"
    assert describe(flow.value_of(names["images"])) == "batch ['pipe']"



@pytest.mark.parametrize("streamed, expected", [(False, "(gen top) ['tp']"),
                                                (True, "(stream top) ['tp']")])
def test_an_imported_migrated_pipeline_is_a_generator_or_a_stream(streamed, expected):
    """The post-check of a module importing another module's migrated pipeline: one mapping, local name ->
    ProjectPipeline, whose ``streamed`` says a ReaderStream."""
    from dali_migrate.project import ProjectPipeline

    source = "from loaders.pipes import train_pipe as tp\npipe = tp('r', batch_size=2)\npipe\n"
    module = parse_module(source)
    pipeline = ProjectPipeline(module="loaders.pipes", name="train_pipe", style="def", path="loaders/pipes.py",
                               streamed=streamed)
    flow = df.DataFlow(module, ImportTable.from_module(module), imported_generators={"tp": pipeline})
    read = module.body[-1].body[0].value
    assert describe(flow.value_of(read)) == expected

def test_super_of_a_pipeline_subclass_is_left_to_the_class_pass():
    """super().__init__ in a Pipeline class hierarchy is not routed to the base's __init__: the hierarchy's
    migration (unroll/class_writing.py) rewrites those calls itself."""
    source = """
        class Base(Pipeline):
            def __init__(self, batch_size, extra):
                super().__init__(batch_size, 1, None)
                self.extra = extra
        class Child(Base):
            def __init__(self, extra):
                super().__init__(2, extra)
        Child(pipe)
        """
    assert value_of(PIPE + source, "extra", occurrence=0) == "top []"


def test_deep_nesting_is_top_and_the_solver_ends():
    source = PIPE + "x = pipe('r')\nfor _ in range(3):\n    x = [x]\nx\n"
    assert value_of(source, "x").startswith("top")


class _Expressions(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.found = []

    def on_visit(self, node):
        if isinstance(node, cst.BaseExpression):
            self.found.append(node)
        return True


@pytest.mark.parametrize("name", ["unroll/checkpoint_class.py", "unroll/branch_readers.py", "unroll/body_bindings.py",
                                  "runnable/roi_crop_patch/main.py"])
def test_answers_kept_while_a_walk_reads_are_the_answers(name):
    """``answers_kept`` evaluates each expression once while a walk reads the solved model: every expression of the
    module, asked inside it in the order a walk asks (outer before inner), gets what it gets outside it."""
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "golden" / name
    module = parse_module(path.read_text())
    flow = df.DataFlow(module, ImportTable.from_module(module))
    expressions = _Expressions()
    module.visit(expressions)
    plain = [flow.value_of(e) for e in expressions.found]
    with flow.answers_kept():
        kept = [flow.value_of(e) for e in expressions.found]
        assert "_eval" in flow.__dict__
    assert kept == plain and len(plain) > 20
    assert "_eval" not in flow.__dict__  # (the memo goes with the walk)
