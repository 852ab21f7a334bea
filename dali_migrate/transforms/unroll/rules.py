"""The DM2xx rules: unrolling pipelines, their consumers, seeds, random batch_size, external
sources and checkpoints. Declared once here; reported by the unroll pass."""

from ...findings import rule

UNROLL = rule(
    "DM200", "unroll-pipeline", "info",
    "A pipeline (@pipeline_def, `with pipe:`, a Pipeline subclass or legacy ops objects) becomes "
    "a generator that yields one tuple of batches per former pipe.run().",
    "Dynamic mode has no pipeline graph: operators run when called, in ordinary Python code.",
    before="@pipeline_def(batch_size=4)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n"
           "    return fn.decoders.image(jpegs), labels",
    after="def pipe(root, *, batch_size=4, num_threads=None, device_id=None, seed=None):\n"
          "    if num_threads is not None and num_threads > ndd.get_num_threads():\n"
          "        ndd.set_num_threads(num_threads)\n"
          "    reader = ndd.readers.File(file_root=root)\n"
          "    while True:\n        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
          "            yield ndd.decoders.image(jpegs), labels",
)
READER_ONCE = rule(
    "DM201", "reader-created-once", "info",
    "A reader is created once, before the loop, and iterated with reader.next_epoch(batch_size=...).",
    "ndd readers are stateful objects; the batch size belongs to next_epoch, never to the constructor. "
    "`while True` around next_epoch keeps the sample stream of repeated pipe.run() calls, which fill "
    "the last batch of an epoch from the next one.",
    before="jpegs, labels = fn.readers.file(file_root=root)",
    after="reader = ndd.readers.File(file_root=root)\nwhile True:\n"
          "    for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n        ...",
)
SOURCE_HELPER = rule(
    "DM240", "source-helper", "info",
    "A graph helper that creates its readers (a source helper, called by pipelines of other modules) becomes a "
    "stream: it creates the readers once and yields its outputs each step; pipelines create it once and take "
    "next() of it each step.",
    "A dynamic-mode reader is created once and iterated; called per step, a helper would start a new reader "
    "each time. The stream takes the pipeline's batch_size (and seed, for a reader that shuffles without its "
    "own) as keyword-only parameters, the same convention on both sides, so a module migrated alone agrees "
    "with the modules that call it.",
    before="def images(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n    return fn.decoders.image(jpegs), labels",
    after="def images(root, *, batch_size):\n    reader = ndd.readers.File(file_root=root)\n    while True:\n"
          "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
          "            yield ndd.decoders.image(jpegs), labels",
)
ITERATOR_KIND_AT_RUN_TIME = rule(
    "DM241", "iterator-kind-at-run-time", "info",
    "A PyTorch or JAX DALI iterator (or a subclass of one) over pipelines the tool cannot trace (a parameter, an "
    "attribute, another module's value, the *args/**kwargs a wrapper hands on to it) becomes the EpochIterator, which decides at run time which kind it was "
    "given: over pipeline-mode Pipelines it is the plugin's own iterator, over migrated pipelines (ReaderStream) "
    "it counts as the plugin does.",
    "A wrapper module (a dataloader.py that other modules hand their pipelines to) cannot see whether its callers "
    "were migrated: a caller the migration kept in pipeline mode, or one that was never migrated, hands it a "
    "Pipeline. Deciding when the iterator is made keeps the wrapper right for both, and needs no marker. The "
    "EpochIterator takes the plugin's arguments, by position too, so the call keeps them as they were "
    "(dynamic_shape changes nothing over migrated pipelines; prepare_first_batch reads the first batch when the "
    "iterator is made, as the plugin's).",
    before="def make_loader(pipe, reader_name=\"Reader\"):\n"
           "    return DALIGenericIterator([pipe], [\"x\", \"y\"], reader_name=reader_name, "
           "last_batch_policy=LastBatchPolicy.PARTIAL)",
    after="def make_loader(pipe, reader_name=\"Reader\"):\n"
          "    return EpochIterator([pipe], [\"x\", \"y\"], reader_name=reader_name, last_batch_policy=\"PARTIAL\")",
)
ADAPTED_AT_RUN_TIME = rule(
    "DM242", "pipelines-adapted-at-run-time", "info",
    "A function or an iterator class of the module is given pipelines from elsewhere (another module builds them) and "
    "uses them as pipelines (schedule_run, share_outputs, release_outputs, max_batch_size, epoch_size, device_id; "
    "build() and run() together, beside pipelines the module defines): it migrates, and its parameter goes through ReaderStream.adapt when it is called, so it takes "
    "migrated pipelines and nvidia.dali Pipelines alike.",
    "The module cannot see whether its callers were migrated. ReaderStream.adapt leaves a migrated pipeline as it is "
    "and wraps an nvidia.dali Pipeline in a ReaderStream over its run() outputs, copied into ndd Batches (a "
    "TensorList's buffer is reused by the next run), which answers max_batch_size, epoch_size(name), "
    "reader_meta(name), device_id and reset() from the Pipeline. The class then needs one form only, the "
    "migrated one.",
    before="class Loader:\n    def __init__(self, pipes):\n        self.pipes = pipes\n"
           "    def __next__(self):\n        for p in self.pipes:\n            p.schedule_run()\n"
           "        return [p.share_outputs() for p in self.pipes]",
    after="class Loader:\n    def __init__(self, pipes):\n        pipes = ReaderStream.adapt(pipes)\n"
          "        self.pipes = pipes\n    def __next__(self):\n        return [next(p) for p in self.pipes]",
)
RANDOM_VALUES = rule(
    "DM202", "random-values-differ", "warning",
    "The pipeline seed becomes ndd.random.set_seed (or an ndd.random.RNG); random values differ from "
    "pipeline mode for the same seed.",
    "Dynamic mode draws random numbers from a Philox RNG per op call; no public API reproduces the "
    "numbers a pipeline with the same seed produced. They are equally distributed, and reproducible "
    "from run to run for a fixed seed.",
    before="@pipeline_def(batch_size=4, seed=3)\ndef pipe():\n    return fn.random.uniform(range=(0, 1))",
    after="def pipe(*, batch_size=4, num_threads=None, device_id=None, seed=3):\n"
          "    ndd.random.set_seed(seed)\n    while True:\n"
          "        yield (ndd.random.uniform(range=(0, 1), batch_size=batch_size),)",
)
READER_SEED = rule(
    "DM203", "reader-shuffle-seed", "warning",
    "A shuffling reader without its own seed gets `seed=` from the pipeline seed: the order is "
    "reproducible, but it is not the order the pipeline produced.",
    "Pipeline mode derives each reader's shuffle seed from the pipeline seed inside C++; an ndd reader "
    "without seed= shuffles in the same fixed order on every run, and ndd.random.set_seed does not "
    "affect readers.",
    before="jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)",
    after="reader = ndd.readers.File(file_root=root, random_shuffle=True, seed=seed)",
)
RANDOM_BATCH_SIZE = rule(
    "DM204", "random-batch-size", "info",
    "An input-less random or transform operator gets batch_size=, so that it yields one value per sample.",
    "Without batch_size (and without a batch input) a dynamic-mode random op returns one Tensor, which "
    "is silently broadcast to the whole batch.",
    before="flip = fn.random.coin_flip()",
    after="flip = ndd.random.coin_flip(batch_size=batch_size)",
)
OP_SEED = rule(
    "DM205", "op-seed-to-rng", "warning",
    "A per-operator seed= becomes an ndd.random.RNG created once and passed as rng=; the program then "
    "uses RNG objects everywhere instead of ndd.random.set_seed.",
    "ndd random ops reject seed=; one RNG per seeded op keeps each op's stream independent and "
    "reproducible (values differ from pipeline mode).",
    before="angle = fn.random.uniform(range=(-10, 10), seed=7)",
    after="rng_1 = ndd.random.RNG(seed=7)\n...\nangle = ndd.random.uniform(range=(-10, 10), rng=rng_1, batch_size=batch_size)",
)
NUM_THREADS = rule(
    "DM206", "num-threads", "info",
    "The pipelines' num_threads grows the process-wide CPU pool (ndd.set_num_threads) when it is smaller, "
    "never shrinks it: once per module, to the largest thread count its pipelines are given as literals "
    "(nothing for 1), before the first of them; a generator whose callers pass a computed num_threads "
    "keeps a num_threads parameter and grows the pool itself.",
    "Dynamic mode has one process-wide CPU thread pool instead of one per pipeline. In DALI 2.4.0, lowering "
    "it after CPU work hangs the next CPU operator, and programs run a training pipeline and then a "
    "validation one with fewer threads; thread counts change speed, never results.",
    before="@pipeline_def(num_threads=4)\ndef train_pipe(root): ...\n\n@pipeline_def(num_threads=2)\n"
           "def val_pipe(root): ...",
    after="if ndd.get_num_threads() < 4:\n"
          "    ndd.set_num_threads(4)  # grow only: shrinking it after use hangs DALI 2.4\n\n\n"
          "def train_pipe(root, *, batch_size): ...\n\n\ndef val_pipe(root, *, batch_size): ...",
)
DEVICE_ID = rule(
    "DM207", "device-id", "info",
    "A pipeline's device_id that is not a literal None or 0 (a variable such as args.local_rank, an expression, "
    "another GPU) becomes the GPU its generator runs on: the generator takes device_id and runs its body under "
    "`with ndd.Device(\"gpu\", device_id)`, selecting nothing when device_id is None at run time (a CPU-only run). "
    "Left marked where that cannot cover the pipeline's work: a Pipeline subclass that creates a GPU reader in "
    "__init__, a pipeline function with a parameter named device_id, a Pipeline subclass of another module.",
    "Pipeline mode ran all of a pipeline built with device_id=k on GPU k. ndd runs GPU operators, readers and "
    "next_epoch's evaluation context on the current CUDA device of the thread that calls them, which ndd.Device "
    "sets for that thread (the generator's, also the Prefetch thread it runs in). ndd.Device(\"gpu\", None) would "
    "ask CUDA for its current device and raise on a CPU-only machine, hence nothing for None. An EvalContext would "
    "select the device too, but brings its own executor thread and CUDA stream; ndd.Device keeps the default "
    "context and the thread pool ndd.set_num_threads sized.",
    before="@pipeline_def\ndef train_pipe(root): ...\n\npipe = train_pipe(root, batch_size=32, device_id=args.local_rank)",
    after="def train_pipe(root, *, batch_size, device_id=None):\n"
          "    with ndd.Device(\"gpu\", device_id) if device_id is not None else contextlib.nullcontext():\n"
          "        ...\n\npipe = train_pipe(root, batch_size=32, device_id=args.local_rank)",
)
PIPELINE_OPTION = rule(
    "DM208", "pipeline-option-dropped", "info",
    "A pipeline option with no dynamic-mode counterpart (prefetch_queue_depth, exec_async, ...) is dropped, "
    "and so is one the migrated generator does not take (device_id None or 0, a seed where nothing is "
    "random, a literal num_threads the module's one pool growth covers).",
    "Eager dynamic mode has no pipeline executor to configure; readers keep their own prefetch settings. "
    "The generator takes only the options its body or its callers use.",
    before="pipe = create(batch_size=8, num_threads=2, device_id=0, prefetch_queue_depth=2, exec_async=False)",
    after="pipe = create(batch_size=8)",
)
BUILD_RUN = rule(
    "DM209", "build-run", "info",
    "pipe.build() is dropped; pipe.run() becomes next(pipe).",
    "The migrated pipeline is a generator: there is nothing to build, and each next() runs one step.",
    before="pipe.build()\nimages, labels = pipe.run()",
    after="images, labels = next(pipe)",
)
TORCH_ITERATOR = rule(
    "DM210", "torch-iterator", "info",
    "DALIGenericIterator / DALIClassificationIterator become EpochIterator, a class imported from the project's "
    "helper module (DM224) that counts samples per epoch like the plugin and yields [{name: torch.Tensor}] (one dict "
    "per pipeline, over several pipelines).",
    "Dynamic mode has no framework iterators; outputs convert with Batch.torch(). With reader_name=, the "
    "EpochIterator asks each migrated pipeline for its reader's metadata (its shard) and the first for the "
    "batch size when it is made (a ReaderStream answers them, DM211), wherever the pipelines came from; for "
    "a pipeline built in a `with pipe:` block, they come from a reader built with the same arguments.",
    before="loader = DALIClassificationIterator(pipe, reader_name=\"Reader\", "
           "last_batch_policy=LastBatchPolicy.PARTIAL)",
    after="loader = EpochIterator(pipe, [\"data\", \"label\"], reader_name=\"Reader\", "
          "last_batch_policy=\"PARTIAL\")",
)
READER_META = rule(
    "DM211", "epoch-size", "info",
    "A @pipeline_def whose readers' metadata the program asks for returns a ReaderStream: its steps, and "
    "epoch_size(name), reader_meta(name) and max_batch_size answered by its reader at run time; the code "
    "that asks stays as it was. A reader-less pipeline whose external source ends an epoch, and that the program "
    "resets (pipe.reset(), a PyTorch iterator), returns one too: its steps end with the epoch and reset() starts "
    "the next.",
    "Pipeline mode answers from the pipeline object wherever it went (a factory's result, a parameter, a "
    "list); the ReaderStream goes the same ways. Its reader is created with max_batch_size, so asking "
    "before the first batch does not freeze the batch size (DALI 2.4.0). Pipelines built in `with pipe:` "
    "blocks get the same.",
    before="@pipeline_def\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root, name=\"Reader\")\n"
           "    return jpegs, labels\n\np = make()\nn = p.epoch_size(\"Reader\")",
    after="def pipe(root, *, batch_size, ...):\n    reader = ndd.readers.File(file_root=root, name=\"Reader\", "
          "max_batch_size=batch_size)\n\n    def steps():\n        ...\n\n"
          "    return ReaderStream(steps(), {\"Reader\": reader}, batch_size)\n\np = make()\n"
          "n = p.epoch_size(\"Reader\")",
)
CANNOT_UNROLL = rule(
    "DM212", "cannot-unroll", "warning",
    "A pipeline has a shape the tool does not unroll; it is left in pipeline mode and marked.",
    "Unrolling must not change what the code computes; shapes the tool does not understand are left "
    "for a person.",
    before="@pipeline_def\ndef pipe(roots):\n    a = [fn.readers.file(file_root=r) for r in roots]\n    return a[0]",
    after="# dali-migrate: DM212 pipe stays in pipeline mode: a reader that is not assigned directly in the "
          "pipeline body\n@pipeline_def\ndef pipe(roots):\n    a = [fn.readers.file(file_root=r) for r in roots]\n"
          "    return a[0]",
    fix="manual",
    suggestion="Write the loop by hand: create each reader once and iterate next_epoch(batch_size=N).",
)
CONDITIONALS = rule(
    "DM213", "per-sample-conditionals", "warning",
    "A per-sample conditional (an `if`, `and`, `or` or `not` on pipeline data, which pipeline mode runs with "
    "enable_conditionals=True) that the tool cannot write out faithfully keeps its pipeline in pipeline mode, marked "
    "with the reason: a branch that returns, a per-sample `if` inside a loop, `with` or `try`, a reader or external "
    "source in a branch, a plain Python value assigned in a branch and read after it, a helper function that "
    "branches on pipeline data itself, pipeline data `and`/`or` a plain Python value; and every "
    "`enable_conditionals=True` of a Pipeline subclass or Pipeline() (DALI 2.4.0 lets only @pipeline_def enable "
    "them).",
    "`if` on a Batch is always true in dynamic mode (Batch has no __bool__): a literal port silently takes one "
    "branch for every sample. The rewrite (DM243) covers the shapes whose meaning it can keep.",
    before="@pipeline_def(enable_conditionals=True)\ndef pipe():\n    x = fn.random.uniform(range=(0, 1))\n"
           "    if x > 0.5:\n        return x * 2\n    return x",
    after="# dali-migrate: DM213 pipe stays in pipeline mode: per-sample conditionals: a branch of `if x > 0.5` returns "
          "(pipeline mode merged the returned values per sample)\n"
          "@pipeline_def(enable_conditionals=True)\ndef pipe():\n    x = fn.random.uniform(range=(0, 1))\n"
          "    if x > 0.5:\n        return x * 2\n    return x",
    fix="manual",
    suggestion="Assign the branch's value to a variable and return it after the `if` (the rewrite then merges it), "
               "or split the batch by hand with SampleSplit.",
)
CONDITIONALS_SPLIT = rule(
    "DM243", "per-sample-conditionals-split", "info",
    "An `if` on pipeline data in a @pipeline_def (enable_conditionals=True) becomes SampleSplit(condition), a "
    "run-time helper (DM224): each branch runs on the part of the values it reads that takes it (skipped when no "
    "sample does), operators with no input there get batch_size=len(split.then), and each value a branch assigns "
    "and the code reads after the `if` is merged back in sample order. `elif` and nested ifs split their part "
    "again; `a and b`, `a or b`, `not a` on pipeline data become `a & b`, `a | b`, `a == 0` (or `a != b` for "
    "`not a == b`). enable_conditionals= at a call is dropped.",
    "Pipeline mode runs each branch only on the samples whose condition holds and merges the branches' values "
    "per sample; dynamic mode has no such statement, and Python's `if` on a Batch is always true. A random "
    "operator in a branch draws for the branch's samples only in both modes (its values differ from pipeline "
    "mode: DM202). Pipeline mode requires the logical operands to be boolean scalars, on which the bitwise forms "
    "give the same values (DALI's own error message suggests them). Plain Python in a branch that neither reads "
    "nor binds anything (a print) runs once, before the steps, as pipeline mode ran it when it traced the branch.",
    before="@pipeline_def(enable_conditionals=True)\ndef pipe():\n    jpegs, labels = fn.readers.file(file_root=root)\n"
           "    images = fn.decoders.image(jpegs)\n    if labels[0] == 1:\n        images = fn.flip(images, horizontal=1)\n"
           "    return images, labels",
    after="        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
          "            images = ndd.decoders.image(jpegs)\n"
          "            split = SampleSplit(labels.slice[0] == 1)  # per-sample if: each branch runs on its samples\n"
          "            images_then = images_else = None\n            if split.then:\n"
          "                images_then = split.then_part(images)\n"
          "                images_then = ndd.flip(images_then, horizontal=1)\n            if split.orelse:\n"
          "                images_else = split.else_part(images)\n"
          "            images = split.merge(images_then, images_else)\n            yield images, labels",
)
UNSUPPORTED_API = rule(
    "DM214", "pipeline-only-api", "warning",
    "A pipeline-only feature (serialize/deserialize, feed_input/iter_setup, schedule_run/share_outputs/"
    "outputs, parallel external_source) has no dynamic-mode counterpart; it is marked.",
    "Dynamic mode has no serialized graph, no prefetch queue to feed or schedule, and no worker processes "
    "for external sources.",
    before="pipe.feed_input(\"data\", batch)",
    after="# dali-migrate: DM214 feed_input has no dynamic-mode counterpart: pass the data straight to the ndd ops\n"
          "pipe.feed_input(\"data\", batch)",
    fix="manual",
    suggestion="Pass the data straight to the ndd ops (ndd.as_batch(...)); run steps with next(pipe).",
)
OTHER_FRAMEWORK = rule(
    "DM215", "framework-iterator", "warning",
    "A DALI framework plugin the migration has no adapter for (PaddlePaddle and MXNet iterators, TensorFlow's "
    "raw DALIRawIterator() op and DALIDatasetWithInputs, JAX's data_iterator decorators and "
    "jax_function), or a DALIDataset / JAX DALIGenericIterator over a pipeline the tool cannot follow; it is marked.",
    "Dynamic mode converts to other frameworks only through DLPack. The Paddle and MXNet plugins need CUDA "
    "(paddle.device.cuda.current_stream), so no adapter for them could be tested without a GPU.",
    before="loader = DALIGenericIterator(pipe, [\"image\"], reader_name=\"Reader\")  # nvidia.dali.plugin.paddle",
    after="# dali-migrate: DM215 DALIGenericIterator (paddle) has no dynamic-mode adapter: the paddle plugin needs "
          "CUDA, so none was tested; ...\nloader = DALIGenericIterator(pipe, [\"image\"], reader_name=\"Reader\")",
    fix="manual",
    suggestion="Iterate the migrated generator and hand each output to your framework through DLPack "
               "(ndd.as_tensor(batch).__dlpack__()).",
)
FRAMEWORK_MIGRATED = rule(
    "DM228", "framework-adapter", "info",
    "TensorFlow's DALIDataset becomes TFDataset (a tf.data.Dataset.from_generator over the migrated pipeline, "
    "same arguments), its DALIIterator() graph op becomes TFIterator() (the next step as tf.Tensors at each call, "
    "or at each run of a tf.py_function node in a graph), and JAX's DALIGenericIterator becomes JaxEpochIterator "
    "(EpochIterator's counting, {name: jax.Array} through DLPack), imported from the project's helper module.",
    "Dynamic mode has no framework plugins. TFDataset keeps DALIDataset's elements: a tuple per step, the "
    "output_dtypes checked (not cast), the output_shapes matched as the plugin matches them (size-1 dimensions "
    "dropped where exactly one way fits). Two differences: a new iterator over the dataset continues the "
    "pipeline's stream (DALIDataset restarted the pipeline for each iterator; Keras keeps one iterator when "
    "steps_per_epoch is given), and the tensors are made on the host (TensorFlow copies them to the device "
    "of the ops that use them). TFIterator checks shapes and dtypes as the op did (a shape given must be the "
    "step's; a wrong dtype, whose bytes the op reinterpreted, is an error); calls over one pipeline object continue "
    "its one stream, where the op gave each node of a graph its own copy of the pipeline.",
    before="ds = dali_tf.DALIDataset(pipeline=pipe, batch_size=32, output_dtypes=(tf.float32, tf.int32))",
    after="ds = TFDataset(pipeline=pipe, batch_size=32, output_dtypes=(tf.float32, tf.int32))",
)
NO_BATCH_SIZE = ("has no batch_size here: it returns one value for the whole batch, not one per sample; pass the "
                 "batch size in and call it with batch_size=")
RANDOM_OUTSIDE = rule(
    "DM216", "random-op-needs-batch-size", "warning",
    "An input-less random or transform operator outside an unrolled pipeline has no batch_size; marked.",
    "Without batch_size the op returns one Tensor that is broadcast to the whole batch. In a module "
    "whose pipelines seed ndd.random.RNG objects (some op had seed=), an op without rng= draws from the "
    "default RNG, which nothing seeds, so the values change from run to run.",
    before="def augment(images):\n    return fn.flip(images, horizontal=fn.random.coin_flip())",
    after="def augment(images):\n    # dali-migrate: DM216 ndd.random.coin_flip has no batch_size here: it returns one "
          "value for the whole batch\n    return ndd.flip(images, horizontal=ndd.random.coin_flip())",
    fix="manual",
    suggestion="Pass the batch size in (or use images.batch_size) and call the op with batch_size=.",
)
ITERATOR_DIFFERENCE = rule(
    "DM217", "iterator-difference", "warning",
    "A DALI iterator without reader_name or size (size=-1) is emulated only approximately.",
    "EpochIterator follows the plugin's counting (shard counts, one pipeline or several); without size or "
    "reader_name the plugin ran until the pipeline ended, which a migrated pipeline never does.",
    before="loader = DALIGenericIterator([pipe], [\"images\", \"labels\"])",
    after="# dali-migrate: DM217 DALIGenericIterator without reader_name or size ran until the pipeline ended; the "
          "migrated pipeline never ends: pass size=\n"
          "loader = EpochIterator([pipe], [\"images\", \"labels\"], batch_size=4, size=-1)",
    fix="manual",
    suggestion="Check the number of batches per epoch against the original loader.",
)
EXTERNAL_SOURCE = rule(
    "DM218", "external-source", "info",
    "fn.external_source fed by a generator function, an iterable or a callable becomes the source "
    "iterated or called by the migrated generator itself, each item wrapped in ndd.as_batch; a per-sample source "
    "(batch=False) is called batch_size times a step, and a source that takes SampleInfo, BatchInfo or the "
    "iteration gets the values pipeline mode passed; a source whose kind the code does not show is decided at "
    "run time as pipeline mode did (with cycle=True/\"quiet\" it goes through ndd.ExternalSource). parallel=True runs the source in the "
    "generator's thread (reported). An exhausted source ends the generator, as pipe.run() raised StopIteration "
    "from then on; where the module resets the pipeline (pipe.reset(), a PyTorch iterator) or the source has "
    "cycle=\"raise\", the pipeline is a ReaderStream whose steps end with the epoch the source ends and start again "
    "on reset(), calling iter() on the source again where pipeline mode did.",
    "Dynamic mode has no graph input to feed: data goes straight to the ops. ndd.as_batch reads a list of samples, "
    "an array with the batch as its first dimension or a TensorList the way pipeline mode did; "
    "ndd.ExternalSource would turn a returned list into one Tensor. dtype= checked the type in pipeline mode; "
    "ndd.as_batch(dtype=) converts.",
    before="@pipeline_def(batch_size=2)\ndef pipe():\n    jpegs = fn.external_source(source=read_batches)\n"
           "    return fn.decoders.image(jpegs),",
    after="def pipe(*, batch_size=2, num_threads=None, device_id=None, seed=None):\n"
          "    if num_threads is not None and num_threads > ndd.get_num_threads():\n"
          "        ndd.set_num_threads(num_threads)\n"
          "    for jpegs in read_batches():\n"
          "        jpegs = ndd.as_batch(jpegs)\n        yield (ndd.decoders.image(jpegs),)",
)
EXTERNAL_SOURCE_MANUAL = rule(
    "DM220", "external-source-manual", "warning",
    "An fn.external_source the tool cannot migrate faithfully (repeat_last=True, parallel=True over a generator or "
    "iterable, no source=, cycle=\"raise\" next to a reader or in a Pipeline subclass, a cycled per-sample source of "
    "unknown kind) keeps its pipeline in pipeline mode. A batch source of unknown kind is migrated: the generator "
    "decides what it is when it runs, as pipeline mode did.",
    "ndd has no repeat_last or feed_input mode. pipe.reset() restarts a cycle=\"raise\" source but not a reader's "
    "epoch, which a restarted generator would.",
    before="@pipeline_def(batch_size=2)\ndef pipe():\n    data = fn.external_source(source=BATCHES, repeat_last=True)\n"
           "    return data,",
    after="# dali-migrate: DM220 pipe stays in pipeline mode: repeat_last=True repeats the last fed batch; ndd has no "
          "counterpart\n@pipeline_def(batch_size=2)\n"
          "def pipe():\n    data = fn.external_source(source=BATCHES, repeat_last=True)\n    return data,",
    fix="manual",
    suggestion="Loop over your data in Python, build each batch with ndd.as_batch([...]) and call the ops on it.",
)
CHECKPOINT = rule(
    "DM219", "checkpoint", "warning",
    "Pipeline checkpointing the tool does not migrate faithfully (a checkpoint= that is not a plain name or is "
    "passed by position, a subclass whose Pipeline(checkpoint=) is not an __init__ parameter or whose seeded ops "
    "objects hide their RNGs in lambdas, pipe.checkpoint() on a pipeline without enable_checkpointing) is marked.",
    "Dynamic mode has no pipeline checkpoint; readers and RNGs carry their own state. Pipeline and ndd "
    "checkpoints are not interchangeable.",
    before="pipe = make_pipe(root)  # a pipeline built without enable_checkpointing=True\n"
           "state = pipe.checkpoint()",
    after="pipe = make_pipe(root)\n# dali-migrate: DM219 pipe.checkpoint(): dynamic mode checkpoints readers and RNGs "
          "through ndd.checkpoint.Checkpoint (collect/save); pipeline checkpoints do not load there\n"
          "state = pipe.checkpoint()",
    fix="manual",
    suggestion="Register each reader and RNG by name before the first next_epoch; save at epoch boundaries.",
)
CHECKPOINT_MIGRATED = rule(
    "DM221", "checkpoint-migrated", "info",
    "enable_checkpointing=True becomes a checkpoint= parameter taking an ndd.checkpoint.Checkpoint (on a "
    "@pipeline_def generator, a Pipeline subclass's __init__ (kept in self.checkpoint), a `with pipe:` "
    "generator <pipe>_steps and the factory returning it): readers get enable_checkpointing=True and are registered by name with the RNGs "
    "before the first next_epoch; pipe.checkpoint() becomes collect() + serialize(), checkpoint=saved a "
    "Checkpoint loaded with deserialize(saved).",
    "Dynamic mode checkpoints readers and RNGs one by one; registering into a loaded checkpoint restores them, "
    "which must happen before the reader's first iteration.",
    before="@pipeline_def(batch_size=4, enable_checkpointing=True)\ndef pipe(root):\n"
           "    jpegs, labels = fn.readers.file(file_root=root, name=\"Reader\")\n    return jpegs, labels\n\n"
           "p = pipe(root, checkpoint=saved)\np.build()\nout = p.run()\nstate = p.checkpoint()",
    after="def pipe(root, *, batch_size=4, num_threads=None, device_id=None, seed=None, checkpoint=None):\n"
          "    if num_threads is not None and num_threads > ndd.get_num_threads():\n"
          "        ndd.set_num_threads(num_threads)\n"
          "    reader = ndd.readers.File(file_root=root, name=\"Reader\", enable_checkpointing=True)\n"
          "    if checkpoint is not None:\n        checkpoint.register(reader, 'Reader')\n    while True:\n"
          "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n            yield jpegs, labels\n\n"
          "p_checkpoint = ndd.checkpoint.Checkpoint()\nif saved is not None:\n    p_checkpoint.deserialize(saved)\n"
          "p = pipe(root, checkpoint=p_checkpoint)\nout = next(p)\np_checkpoint.collect()\n"
          "state = p_checkpoint.serialize()",
)
CHECKPOINT_DIFFERENCE = rule(
    "DM222", "checkpoint-difference", "warning",
    "A migrated checkpoint differs from the pipeline's: the saved state is ndd JSON, not pipeline protobuf bytes "
    "(old checkpoints do not load), and a restore in the middle of an epoch moves the epoch boundaries.",
    "ndd-facts §8: Checkpoint.serialize() gives {\"version\": 2, \"states\": ...}; after a mid-epoch restore "
    "next_epoch yields a whole epoch's count of batches from the restored position (the sample stream itself "
    "continues as pipe.run() did).",
    before="state = pipe.checkpoint()   # bytes; restored with pipe_fn(checkpoint=state)",
    after="pipe_checkpoint.collect()\nstate = pipe_checkpoint.serialize()   # a JSON string; only ndd loads it",
)
PREFETCH = rule(
    "DM223", "prefetch", "info",
    "The migrated generator loads its next step in a background thread while the caller works "
    "(@Prefetch(depth=N), N the pipeline's prefetch_queue_depth, 2 by default), as pipeline mode prefetched; "
    "a pipeline that checkpoints or reads external_source is not prefetched, and says why.",
    "A generator computes a step only when next() asks for it, so loading and training would take turns: with "
    "a 10 ms training step a migrated loop ran at about half of pipeline mode's speed (issue 18). The thread "
    "runs the whole generator, in order, and hands over finished steps, so the values are the ones the "
    "generator computes alone; running ahead would change what a checkpoint saves or when a user's source is "
    "called, so those pipelines load on demand.",
    before="@pipeline_def(batch_size=16)\ndef pipe(root):\n    jpegs, labels = fn.readers.file(file_root=root)\n"
           "    return fn.decoders.image(jpegs), labels",
    after="@Prefetch(depth=2)\ndef pipe(root, *, batch_size=16):\n"
          "    ...\n    while True:\n        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
          "            yield ndd.decoders.image(jpegs), labels",
)
CONSTANT = rule(
    "DM225", "constant", "info",
    "types.Constant and fn.constant inside a pipeline become ndd.tensor(value, dtype=...): the value itself "
    "as an operand of arithmetic or a keyword argument, else a batch of it (ndd.Batch.broadcast), with the "
    "dtype pipeline mode gave it. A value held in a name or an attribute (its type not shown) is typed at run "
    "time the same way; built outside the steps (a dataset class's __init__), the constant becomes the tensor "
    "where every read of it meets batch data.",
    "Dynamic mode has no constant operator. Pipeline mode typed a Python int int32 and a float float32, and "
    "narrowed int/float lists and arrays to int32/float32; the migration writes those types down (numpy's "
    "would be int64/float64), or decides them at run time. A constant whose value is a call, with shape=/layout=/"
    "device=, or read outside the steps on its own stays marked (DM103).",
    before="scale = types.Constant([1.5, 2.5])\nout = images * types.Constant(255).uint8()",
    after="scale = ndd.Batch.broadcast(ndd.tensor([1.5, 2.5], dtype=ndd.float32), batch_size)\n"
          "out = images * ndd.tensor(255, dtype=ndd.uint8)",
)
PYTHON_FUNCTION = rule(
    "DM229", "python-function", "info",
    "fn.python_function, fn.dl_tensor_python_function and torch_python_function inside a pipeline become the "
    "function called on the data: per sample (python_function, torch_python_function) or per batch "
    "(dl_tensor_python_function, or batch_processing=True), each result wrapped back with ndd.as_batch.",
    "Dynamic mode has no Python operators: operators run when called, so the function is ordinary code. It gets a "
    "writable view of each sample as pipeline mode did (numpy, torch.Tensor or a DLPack capsule), its results keep their "
    "dtype and get a layout only where output_layouts= gave one. On the GPU (device=\"gpu\") it stays marked.",
    before="out = fn.python_function(images, function=invert)",
    after="out = ndd.as_batch([np.require(invert(np.asarray(sample)), requirements=\"C\") for sample in images.tensors])",
)
HELPER_MODULE = rule(
    "DM224", "helper-module", "info",
    "The run-time helpers (EpochIterator, ReaderStream, Prefetch, ...) live in one module the run writes at the top "
    "of its import roots (dali_dynamic_compat.py, or helper_module in [tool.dali-migrate]), holding only the "
    "helpers the migrated code imports; a later run that needs another one adds it.",
    "The user's files keep only their own rewritten code and one import; the helpers are maintained once; the "
    "absolute import resolves from the same sys.path folder as the modules' own packages. A file of that name "
    "with other content is never overwritten (error, exit 2; the helpers then go into the modules that need "
    "them), and a deleted one is written again by the next migrate --write (migrate --check reports it with the "
    "files that import it).",
    before="# train.py and val.py both iterate DALIGenericIterator",
    after="from dali_dynamic_compat import EpochIterator  # written by dali-migrate (migrate --write recreates it)",
)
GRAPH_HELPER_RENAMED = rule(
    "DM234", "graph-helper-renamed", "info",
    "A method of a migrated Pipeline class whose name contains define_graph (a helper its subclasses' define_graph "
    "call, such as base_define_graph) is renamed with `step` for `define_graph` (base_step), and so is every call of "
    "it in the migrated classes (self.X(...), super().X(...), Base.X(self, ...)). Where the new name is taken in the "
    "class hierarchy, the method keeps its name and the finding says so.",
    "define_graph becomes the steps() generator, and the helper now computes the outputs of one step from that "
    "step's batches: there is no graph left to define. Code the migration did not see (another module that calls "
    "pipe.base_define_graph(...)) must use the new name too.",
    before="class Base(Pipeline):\n    def base_define_graph(self, images):\n        return fn.flip(images)\n\n"
           "class Files(Base):\n    def define_graph(self):\n        jpegs, labels = self.input()\n"
           "        return self.base_define_graph(fn.decoders.image(jpegs)), labels",
    after="class Base(ReaderStream):\n    def base_step(self, images):\n        return ndd.flip(images)\n\n"
          "class Files(Base):\n    def steps(self):\n        ...\n"
          "            yield self.base_step(ndd.decoders.image(jpegs)), labels",
)

ARGUMENT_INPUT_RULE = "DM117"  # transforms/arguments.py ARGUMENT_INPUT: an argument dynamic mode reads differently
