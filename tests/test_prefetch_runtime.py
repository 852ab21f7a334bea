"""Prefetching migrated generators (issue 18): ``@Prefetch(depth=N)`` runs the generator in a thread of its
own, up to N - 1 steps ahead of the caller, and must not change what the generator computes.

The helper is ``dali_migrate/runtime/prefetch.py``, the code the migration copies into the project's helper module; it
is tested here on plain
Python generators (order, reach, errors, closing) and on migrated DALI pipelines (bitwise the values the
same generator gives without the thread, random ops included; errors at the same batch; no thread left
behind; a clean exit while the thread works).
"""

import gc
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dali_migrate import migrate_source
from dali_migrate.transforms.unroll import helpers
from runtime import assert_bitwise_equal, load, make_images, on_cpu, output, steps_as_arrays

THREAD = "dali-migrate prefetch"


def _helper():
    from dali_migrate.runtime.prefetch import Prefetch

    return Prefetch


def _prefetch_threads():
    return [t for t in threading.enumerate() if t.name == THREAD]


def _wait_until(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.fixture(autouse=True)
def _no_thread_left_behind():
    yield
    gc.collect()
    assert _wait_until(lambda: not _prefetch_threads()), "a prefetch thread outlived its test"


# ------------------------------------------------------------------------- the helper on plain generators
def _counting(log, steps=None, fail_at=None):
    def steps_function(start):
        log.append(("started", threading.get_ident()))
        try:
            k = start
            while steps is None or k < start + steps:
                if k == fail_at:
                    raise ValueError(f"step {k} failed")
                log.append(("made", k))
                yield k
                k += 1
        finally:
            log.append(("closed", threading.get_ident()))
    return steps_function


def test_steps_come_in_order_from_one_other_thread_which_starts_at_the_first_next():
    log = []
    gen = _helper()(depth=2)(_counting(log))(10)
    assert not _prefetch_threads() and log == []  # nothing runs before the first next(), as with a generator
    assert [next(gen) for _ in range(5)] == [10, 11, 12, 13, 14]
    started = [who for what, who in log if what == "started"]
    assert started and started[0] != threading.get_ident()
    gen.close()
    assert log[-1] == ("closed", started[0])  # closed in the thread that ran it


@pytest.mark.parametrize("depth", [2, 3])
def test_never_more_than_depth_minus_one_steps_ahead(depth):
    log = []
    gen = _helper()(depth=depth)(_counting(log))(0)
    for taken in range(1, 5):
        next(gen)
        time.sleep(0.2)  # room for the thread to run ahead as far as it may
        made = sum(1 for what, _ in log if what == "made")
        assert made == taken + depth - 1, (taken, made)
    gen.close()


def test_depth_one_keeps_the_generator_function():
    def steps():
        yield 1

    assert _helper()(depth=1)(steps) is steps


def test_an_exception_of_the_generator_is_raised_by_the_next_that_asks_for_that_step():
    log = []
    gen = _helper()(depth=3)(_counting(log, fail_at=3))(0)
    assert [next(gen) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="step 3 failed"):
        next(gen)
    with pytest.raises(StopIteration):  # a generator that raised is finished
        next(gen)


def test_a_finite_generator_ends_like_the_generator():
    gen = _helper()(depth=2)(_counting([], steps=3))(5)
    assert list(gen) == [5, 6, 7]


def test_a_dropped_or_closed_generator_leaves_no_thread():
    log = []
    gen = _helper()(depth=2)(_counting(log))(0)
    next(gen)
    assert len(_prefetch_threads()) == 1
    del gen
    gc.collect()
    assert _wait_until(lambda: not _prefetch_threads())
    assert log[-1][0] == "closed"
    gen = _helper()(depth=2)(_counting([]))(0)
    next(gen)
    gen.close()
    assert not _prefetch_threads()  # close() joins the thread


# ------------------------------------------------------------------------- migrated DALI pipelines
DEFAULT_RNG = '''
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=11)
def augmented(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=3)
    images = fn.decoders.image_random_crop(jpegs, random_area=[0.3, 1.0])
    images = fn.resize(images, size=(16, 16))
    angle = fn.random.uniform(range=(-20.0, 20.0))
    images = fn.rotate(images, angle=angle, fill_value=0)
    images = fn.crop_mirror_normalize(images, mirror=fn.random.coin_flip(), dtype=types.FLOAT)
    return images, labels, angle
'''
RNG_OBJECTS = DEFAULT_RNG.replace("fn.random.uniform(range=(-20.0, 20.0))",
                                  "fn.random.uniform(range=(-20.0, 20.0), seed=5)")  # RNG objects, not set_seed
STEPS = 9  # 10 images, batch 4: three epochs


def _migrated(text, name):
    result = migrate_source(text, f"{name}.py")
    assert result.error is None and "@Prefetch(depth=2)" in result.migrated
    plain = result.migrated.replace("@Prefetch(depth=2)\n", "")
    return load(on_cpu(result.migrated), name), load(on_cpu(plain), name + "_plain")


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("images"), count=10, classes=2)


def _take(gen, n):
    steps = steps_as_arrays([next(gen) for _ in range(n)])
    gen.close()
    return steps


@pytest.mark.parametrize("text", [DEFAULT_RNG, RNG_OBJECTS], ids=["set_seed", "rng_objects"])
def test_prefetched_steps_are_bitwise_the_generators_own(text, image_root):
    prefetched, plain = _migrated(text, "augmented_" + str(len(text)))
    want = _take(plain.augmented(str(image_root)), STEPS)
    gen = prefetched.augmented(str(image_root))
    first = next(gen)
    assert len(_prefetch_threads()) == 1  # loaded in the background
    got = steps_as_arrays([first] + [next(gen) for _ in range(STEPS - 1)])
    gen.close()
    for k, name in enumerate(["images", "labels", "angle"]):
        assert assert_bitwise_equal(output(want, k), output(got, k), name) == STEPS * 4
    angles = np.array([float(a) for a in output(got, 2)])
    assert len(set(angles.tolist())) > 1  # random values, one per sample


def test_two_seeded_generators_side_by_side_each_give_their_own_stream(image_root):
    """Each prefetched generator draws from the default RNG of its own thread, which its set_seed seeded, as
    each pipeline had its own RNG. Without the threads both would share the caller's default RNG, and the
    second set_seed would change the first generator's values."""
    prefetched, plain = _migrated(DEFAULT_RNG, "side_by_side")
    alone = _take(prefetched.augmented(str(image_root)), 4)
    train, val = prefetched.augmented(str(image_root)), prefetched.augmented(str(image_root))
    both = [(next(train), next(val)) for _ in range(4)]
    train.close(), val.close()
    for which in (0, 1):
        got = steps_as_arrays([pair[which] for pair in both])
        assert_bitwise_equal(output(alone, 2), output(got, 2), "angle")
    train, val = plain.augmented(str(image_root)), plain.augmented(str(image_root))
    shared = [(next(train), next(val)) for _ in range(4)]
    train.close(), val.close()
    first = steps_as_arrays([pair[0] for pair in shared])
    assert [a.tobytes() for a in output(first, 2)] != [a.tobytes() for a in output(alone, 2)]


def _outcomes(gen, n):
    """What a consumer sees per step: the labels it read, or the error reading the images raised."""
    seen = []
    for _ in range(n):
        images, labels, _ = next(gen)
        try:
            np.asarray(images.select(0))
            seen.append(np.asarray(labels.select(0)).tolist())
        except RuntimeError as e:
            seen.append(type(e).__name__)
    gen.close()
    return seen


def test_an_operator_that_fails_raises_when_that_step_is_read_and_the_next_step_comes(tmp_path):
    root = make_images(tmp_path / "images", count=10, classes=1)
    sorted(root.rglob("*.jpg"))[5].write_bytes(b"not a jpeg")  # in the second batch of every epoch
    text = DEFAULT_RNG.replace("random_shuffle=True, seed=3", "random_shuffle=False")
    prefetched, plain = _migrated(text, "failing")
    want = _outcomes(plain.augmented(str(root)), 6)
    assert want[1] == "RuntimeError" and want.count("RuntimeError") == 2
    assert _outcomes(prefetched.augmented(str(root)), 6) == want


def test_the_program_exits_cleanly_while_the_thread_works(tmp_path, image_root):
    """A thread still inside DALI when the interpreter ends aborts it (exit 134); the thread stops after its
    step when the calling thread has ended."""
    prefetched = migrate_source(DEFAULT_RNG, "exiting.py").migrated
    (tmp_path / "pipes.py").write_text(on_cpu(prefetched))
    (tmp_path / "dali_dynamic_compat.py").write_text(helpers.module_text({"Prefetch"}))  # as migrate --write writes it
    for what in ("pass", "time.sleep(0.01)", "raise SystemExit(3)"):
        program = textwrap.dedent(f"""\
            import time
            import pipes
            gen = pipes.augmented({str(image_root)!r})
            next(gen)
            {what}
            """)
        (tmp_path / "main.py").write_text(program)
        done = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == (3 if "SystemExit" in what else 0), done.stderr[-2000:]
        assert "terminate called" not in done.stderr


def test_verify_feeds_the_random_states_drawn_ahead(tmp_path, image_root):
    from dali_migrate.harness import verify_sources

    path = tmp_path / "augmented.py"
    path.write_text(DEFAULT_RNG)
    report = verify_sources(DEFAULT_RNG, str(path), "augmented", args=[str(image_root)], iterations=STEPS)
    assert "@Prefetch(depth=2)" in migrate_source(DEFAULT_RNG, str(path)).migrated
    assert report.verdict == "equal", report.format()
    assert all(o.random_handling == "fed" for o in report.outputs if o.random_ops)


# ------------------------------------------------------------------------- what the migration writes
def _findings(text):
    result = migrate_source(text, "pipes.py")
    return result, [f.message for f in result.findings if f.rule == "DM223"]


def test_the_pipelines_depth_is_kept_and_one_means_no_thread():
    three = DEFAULT_RNG.replace("seed=11)", "seed=11, prefetch_queue_depth=3)")
    result, messages = _findings(three)
    assert "@Prefetch(depth=3)\ndef augmented(" in result.migrated
    assert not [f for f in result.findings if f.rule == "DM208"]  # not reported as dropped: it is kept
    one = DEFAULT_RNG.replace("seed=11)", "seed=11, prefetch_queue_depth=1)")
    result, messages = _findings(one)
    assert "Prefetch" not in result.migrated
    assert messages == ["augmented is not prefetched: prefetch_queue_depth=1: pipeline mode did not load ahead "
                        "either; each step loads when next() asks for it"]


def test_checkpointing_and_external_source_pipelines_load_on_demand():
    checkpointed = DEFAULT_RNG.replace("seed=11)", "seed=11, enable_checkpointing=True)")
    result, messages = _findings(checkpointed)
    assert "Prefetch" not in result.migrated and "it checkpoints" in messages[0]
    fed = '''
import numpy as np
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


def source():
    while True:
        yield [np.zeros((2, 2), dtype=np.uint8)]


@pipeline_def(batch_size=1, num_threads=1, device_id=None)
def fed():
    data = fn.external_source(source=source)
    return fn.flip(data, horizontal=1)
'''
    result, messages = _findings(fed)
    assert "Prefetch" not in result.migrated and "external_source" in messages[0]


def test_a_pipeline_class_prefetches_its_steps():
    text = '''
import nvidia.dali.fn as fn
from nvidia.dali import Pipeline


class Pipe(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.root = root

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root)
        return fn.decoders.image(jpegs), labels
'''
    result, messages = _findings(text)
    assert "    @Prefetch(depth=2)\n    def steps(self):" in result.migrated  # the generator ReaderStream starts
    assert result.migrated.count("import Prefetch, ReaderStream  # written by dali-migrate") == 1


def test_a_dropped_pipeline_object_stops_its_prefetch_thread(image_root):
    """A migrated Pipeline subclass is a ReaderStream that holds its prefetched steps: dropping the object (without
    gc: its steps see it through a weak proxy, no cycle) stops their thread, as dropping a generator does."""
    text = '''
import nvidia.dali.fn as fn
from nvidia.dali import Pipeline


class Pipe(Pipeline):
    def __init__(self, root):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.root = root

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.root, name="Reader")
        return fn.decoders.image(jpegs), labels
'''
    result = migrate_source(text, "pipes.py")
    module = load(on_cpu(result.migrated), "dropped_pipeline_object")
    pipe = module.Pipe(str(image_root))
    assert pipe.epoch_size("Reader") > 0 and pipe.max_batch_size == 2
    first, second = next(pipe), next(pipe)
    assert first[0].batch_size == second[0].batch_size == 2 and len(_prefetch_threads()) == 1
    gc.disable()
    try:
        del pipe
        assert _wait_until(lambda: not _prefetch_threads())
    finally:
        gc.enable()


STEPPED = '''
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=3)
def pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    return fn.decoders.image(jpegs), labels


p = pipe(ROOT)
p.build()
images, labels = p.run()
print([labels.at(i).item() for i in range(len(labels))])
'''


@pytest.mark.parametrize("form, prefetched", [
    ("top level", False),  # a demo: a step or two, nothing to overlap with
    ("loop", True),
    ("function called once", False),  # a notebook's show(pipe) helper
    ("function called in a loop", True),
    ("function called by nobody here", True),  # another module may call it in a loop
    ("comprehension", True),
    ("never used here", True),  # another module may step it in a loop
])
def test_a_pipeline_stepped_only_at_the_top_level_is_not_prefetched(form, prefetched, image_root, tmp_path):
    text = STEPPED.replace("ROOT", repr(str(image_root)))
    if form == "loop":
        text = text.replace("images, labels = p.run()\n", "for _ in range(3):\n    images, labels = p.run()\n")
    elif form.startswith("function"):
        call = {"function called once": "images, labels = step(p)\n",
                "function called in a loop": "for _ in range(2):\n    images, labels = step(p)\n"}.get(form)
        if call is None:  # a library's function: its callers are elsewhere
            text = text[:text.index("p = pipe(")] + "def step(root):\n    q = pipe(root)\n    return q.run()\n"
        else:
            text = text.replace("images, labels = p.run()\n", "def step(q):\n    return q.run()\n\n\n" + call)
    elif form == "comprehension":
        text = text.replace("images, labels = p.run()\n", "images, labels = [p.run() for _ in range(2)][-1]\n")
    elif form == "never used here":
        text = text[:text.index("p = pipe(")]
    result, messages = _findings(text)
    assert ("@Prefetch(depth=2)\ndef pipe(" in result.migrated) is prefetched, result.migrated
    assert ("import Prefetch  # written by dali-migrate" in result.migrated) is prefetched
    if not prefetched:
        assert messages == ["pipe is not prefetched: it is stepped a few times, never in a loop, so there is no work "
                            "to load ahead of"]
    if form not in ("never used here", "function called by nobody here"):  # it prints what pipeline mode did
        (tmp_path / "dali_dynamic_compat.py").write_text(helpers.module_text({"Prefetch"}))  # as migrate --write
        runs = [subprocess.run([sys.executable, "-c", on_cpu(source)], capture_output=True, text=True, timeout=120,
                               cwd=tmp_path) for source in (text, result.migrated)]
        assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout, runs


def test_loops_inside_the_pipeline_definition_step_nothing():
    """A comprehension in the graph (one op per conversion) is not a loop over steps."""
    text = STEPPED.replace("    return fn.decoders.image(jpegs), labels\n",
                           "    images = [fn.decoders.image(jpegs) for _ in range(2)]\n"
                           "    return tuple(images + [labels])\n").replace("images, labels = p.run()",
                                                                         "images, _, labels = p.run()")
    result, messages = _findings(text.replace("ROOT", "'root'"))
    assert "Prefetch" not in result.migrated and "never in a loop" in messages[0]


def test_a_call_sites_depth_is_reported_as_the_generator_is_written():
    """prefetch_queue_depth= at the call site of a pipeline stepped once: the generator is not prefetched,
    and no finding says that it loads ahead."""
    text = STEPPED.replace("ROOT", "'root'").replace("p = pipe('root')", "p = pipe('root', prefetch_queue_depth=3)")
    result, messages = _findings(text)
    assert "Prefetch" not in result.migrated and "never in a loop" in messages[0]
    dropped = [f.message for f in result.findings if f.rule == "DM208"]
    assert dropped == ["prefetch_queue_depth= has no dynamic-mode counterpart and is dropped"], dropped
    looped = text.replace("images, labels = p.run()", "for _ in range(2):\n    images, labels = p.run()")
    result, _ = _findings(looped)
    assert "@Prefetch(depth=2)" in result.migrated
    assert [f.message for f in result.findings if f.rule == "DM208"] == [
        "prefetch_queue_depth= is dropped here: pipe loads ahead with its definition's depth (2)"]


@pytest.mark.parametrize("form, prefetched", [
    ("handed to a trainer", True),  # trainer.fit(loader): steps the model does not follow, in a loop for all it knows
    ("stored on an outside object", True),  # config.pipe = p: whoever holds config steps it
    ("only wrapped at the top level", True),  # loader = DALIGenericIterator([p]): another module's loop steps it
    ("returned by a function called once", False),  # p = make(); p.run(): the caller is here, its step seen
    ("printed", False),  # print(p) looks at it and steps nothing
])
def test_a_pipeline_whose_steps_leave_the_module_is_prefetched(form, prefetched):
    """Issue 35 (5): a pipeline loses its prefetch only when every step is where the module shows it, and bounded;
    steps that leave the module (a call the model does not follow, an object it does not know, a module-level
    iterator nobody here steps) may be a training loop elsewhere, which would slow down with no warning."""
    text = STEPPED.replace("ROOT", "'root'")
    step = "images, labels = p.run()\n"
    wrapped = "loader = DALIGenericIterator([p], ['images', 'labels'], size=4)\n"
    if form == "handed to a trainer":  # (after a first batch here: a step seen does not make the others seen)
        text = ("import trainer\nfrom nvidia.dali.plugin.pytorch import DALIGenericIterator\n" + text[:text.index(step)]
                + wrapped + "print(len(next(loader)))\ntrainer.fit(loader, epochs=10)\n")
    elif form == "stored on an outside object":
        text = "import config\n" + text.replace(step, step + "config.pipe = p\n")
    elif form == "only wrapped at the top level":
        text = "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n" + text[:text.index(step)] + wrapped
    elif form == "returned by a function called once":
        text = text.replace("p = pipe('root')\np.build()\n",
                            "def make():\n    q = pipe('root')\n    q.build()\n    return q\n\n\np = make()\n")
    elif form == "printed":
        text = text.replace(step, step + "print(p is not None)\n")
    result, messages = _findings(text)
    assert "# dali-migrate: DM" not in result.migrated, result.migrated  # migrated, not kept
    assert ("@Prefetch(depth=2)\ndef pipe(" in result.migrated) is prefetched, result.migrated
    if not prefetched:
        assert messages == ["pipe is not prefetched: it is stepped a few times, never in a loop, so there is no work "
                            "to load ahead of"]


@pytest.mark.parametrize("case, module, prefetched", [
    ("prefetch_loader_module_level", "data.py", True),  # the loader made at import time, stepped by train.py
    ("prefetch_loader_factory", "loaders.py", True),  # a factory train.py calls (and one smoke step here)
    ("prefetch_loader_handed_on", "main.py", True),  # the iterator handed to another module's trainer
    ("prefetch_bounded_steps", "main.py", False),  # two steps, both seen, in a script nobody imports
])
def test_the_golden_programs_keep_the_prefetch_where_the_steps_leave_the_module(case, module, prefetched):
    """The golden programs of issue 35 (5) print the same in both modes (tests/test_golden_programs.py); here, that
    the migration decided about their prefetch as the case says (the programs' output cannot show it)."""
    from dali_migrate.api import migrate_paths

    folder = Path(__file__).resolve().parent.parent / "golden" / "runnable" / case
    run = migrate_paths([folder], jobs=1, progress=False)
    migrated = {Path(f.path).name: f for f in run.files}[module]
    assert ("@Prefetch(depth=2)" in migrated.migrated) is prefetched, migrated.migrated
    said = [f.message for f in migrated.findings if f.rule == "DM223"]
    assert len(said) == 1 and ("is not prefetched" not in said[0]) is prefetched, said


def test_a_thread_fed_by_a_daemon_caller_is_stopped_when_the_program_ends(tmp_path, image_root):
    """A framework's worker thread (tf.data's from_generator, say) is a daemon that never ends before the program:
    the prefetch thread it started would still be loading ahead, inside DALI, as the interpreter finalizes, which
    aborts it (seen as `terminate called without an active exception`). It is stopped and joined at exit."""
    prefetched = migrate_source(DEFAULT_RNG, "exiting.py").migrated
    (tmp_path / "pipes.py").write_text(on_cpu(prefetched))
    (tmp_path / "dali_dynamic_compat.py").write_text(helpers.module_text({"Prefetch"}))  # as migrate --write writes it
    program = textwrap.dedent(f"""\
        import atexit
        import threading
        import pipes

        def left():  # registered first, so it runs after the helper's own handlers
            alive = [t.name for t in threading.enumerate() if t.name == "dali-migrate prefetch"]
            print("prefetch threads at the end:", len(alive), flush=True)

        atexit.register(left)
        taken = threading.Event()

        def consume():
            gen = pipes.augmented({str(image_root)!r})
            next(gen)
            taken.set()
            threading.Event().wait()  # holds the generator, never closes it

        threading.Thread(target=consume, daemon=True).start()
        taken.wait(120)
        """)
    (tmp_path / "main.py").write_text(program)
    done = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "prefetch threads at the end: 0" in done.stdout, done.stdout + done.stderr[-2000:]
    assert "terminate called" not in done.stderr


CONDITIONAL_READER = '''
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def pipe(root, second):
    jpegs, labels = fn.readers.file(file_root=root)
    if second:
        _, more = fn.readers.file(file_root=root, name="Second")
    else:
        more = labels * 0
    return fn.decoders.image(jpegs), labels, more


def run(root, steps, keep):
    p = pipe(root, True)
    p.build()
    print("epoch size", p.epoch_size("Second"))
    for _ in range(steps):
        images, labels, more = p.run()
        print(more.as_array().ravel().tolist())
    if keep is not None:
        keep.append(p)
'''


def test_streams_the_steps_read_from_their_closure_are_closed_in_the_prefetch_thread(tmp_path, image_root):
    """A reader created under a condition is read through a stream the pipeline function makes before its steps
    (``batches_2 = endless(reader_2)``), advanced in the prefetch thread, where DALI's next_epoch enters its
    EvalContext. Finalized by another thread (the pipeline dropped, the program ending) it printed "Exception
    ignored ... cannot release un-acquired lock"; the prefetch thread closes it when it stops."""
    text = migrate_source(CONDITIONAL_READER, "pipes.py").migrated
    assert "batches_2 = endless(reader_2)" in text and "@Prefetch(depth=2)" in text
    (tmp_path / "pipes.py").write_text(on_cpu(text))
    (tmp_path / "dali_dynamic_compat.py").write_text(helpers.module_text())  # as migrate --write writes it
    (tmp_path / "main.py").write_text(textwrap.dedent(f"""\
        import gc
        import pipes

        pipes.run({str(image_root)!r}, 3, None)  # dropped when run() returns
        gc.collect()
        print("dropped", flush=True)
        held = []
        pipes.run({str(image_root)!r}, 2, held)  # held until the program ends
        """))
    done = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("epoch size 10") == 2 and "dropped" in done.stdout, done.stdout
    assert "Exception ignored" not in done.stderr and "un-acquired lock" not in done.stderr, done.stderr[-2000:]
