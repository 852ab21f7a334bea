"""Run original and migrated golden programs on the CPU and compare their outputs.

Deterministic outputs (reader with an explicit seed or no shuffle -> decode -> resize -> normalise)
must be bitwise identical over enough steps to cross epoch boundaries. Random outputs cannot match
pipeline mode (ndd-facts §2.4); each test names them and checks them in a way luck cannot satisfy:
per-sample variation (no broadcast value), distribution, and run-to-run reproducibility for a seed.
"""

import numpy as np
import pytest
import nvidia.dali.experimental.dynamic as ndd

from dali_migrate import migrate_source
from runtime import GOLDEN, assert_bitwise_equal, load, make_images, output, pair, steps_as_arrays

STEPS = 7  # 10 images, batch 4: 3 steps per epoch, so 7 steps cross two epoch boundaries


@pytest.fixture(scope="module")
def image_root(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("images"), count=10, classes=2)


def test_def_run_loop_bitwise(image_root):
    original, migrated, _ = pair("unroll/def_run_loop.py")
    want = steps_as_arrays(original.collect(str(image_root), STEPS))
    got = steps_as_arrays(migrated.collect(str(image_root), STEPS))
    assert len(got) == STEPS
    n = assert_bitwise_equal(output(want, 0), output(got, 0), "images")
    assert_bitwise_equal(output(want, 1), output(got, 1), "labels")
    assert n == STEPS * 4


def _flip_varies_within_a_batch(steps, index):
    flips = [np.array([int(s) for s in step[index]]) for step in steps]
    assert all(set(f.tolist()) <= {0, 1} for f in flips)
    # With one value per sample, 7 batches of 4 fair coins are all constant with p = (1/8)^7.
    assert any(len(set(f.tolist())) > 1 for f in flips), "coin_flip broadcast one value to the batch"


def test_def_call_site_args_random_parts(image_root):
    """Random here: the shuffle order (reader without seed), the rotation angle and the flip."""
    original, migrated, _ = pair("unroll/def_call_site_args.py")
    want = steps_as_arrays(original.collect(str(image_root), STEPS))
    got = steps_as_arrays(migrated.collect(str(image_root), STEPS))
    assert len(got) == len(want) == STEPS
    for w, g in zip(want, got):  # same outputs, ranks, channels and types per step (rotate sizes vary)
        assert [[(s.ndim, s.shape[-1:], s.dtype) for s in out] for out in w] == \
            [[(s.ndim, s.shape[-1:], s.dtype) for s in out] for out in g]
    _flip_varies_within_a_batch(want, 2)
    _flip_varies_within_a_batch(got, 2)
    # One epoch (the first 10 samples of the stream) holds every image once: 5 of each label.
    labels = [int(s.reshape(-1)[0]) for s in output(got, 1)[:10]]
    assert sorted(labels) == [0] * 5 + [1] * 5
    # Reproducible for a seed, different for another (pipeline mode with seed=None was neither).
    again = steps_as_arrays(migrated.collect(str(image_root), STEPS))
    assert_bitwise_equal(output(got, 0), output(again, 0), "same seed, images")


def test_def_no_reader_distribution():
    """Random here: everything (normal noise); compared by shape, distribution and per-sample variation."""
    original, migrated, _ = pair("unroll/def_no_reader.py")
    want = steps_as_arrays(original.collect(5))
    got = steps_as_arrays(migrated.collect(5))
    for steps in (want, got):
        values = np.stack(output(steps, 0))
        assert values.shape == (40, 2, 3) and values.dtype == np.float32
        assert abs(values.mean()) < 0.35 and 0.75 < values.std() < 1.25
        for step in steps:  # not one sample broadcast to the batch
            assert len({s.tobytes() for s in step[0]}) == 8


def test_with_pipe_factory_bitwise(image_root):
    original, migrated, _ = pair("unroll/with_pipe.py")
    want = steps_as_arrays(original.collect(str(image_root), STEPS))
    got = steps_as_arrays(migrated.collect(str(image_root), STEPS))
    assert_bitwise_equal(output(want, 0), output(got, 0), "images")
    assert_bitwise_equal(output(want, 1), output(got, 1), "labels")


def _mirror_consistent(steps):
    """Output 2 is output 0 mirrored exactly where the coin (output 3) says so."""
    flips = 0
    for step in steps:
        plain, mirrored, coins = step[0], step[2], step[3]
        for a, b, coin in zip(plain, mirrored, coins):
            expect = a[:, :, ::-1] if int(coin) else a
            assert np.array_equal(b, expect)
            flips += int(coin)
    return flips


def test_class_ops_bitwise_and_mirror(image_root):
    """Deterministic: outputs 0 (normalised images) and 1 (labels), bitwise. Random: the coin flip
    (output 3), checked through output 2, which must be output 0 mirrored exactly where the coin is 1."""
    original, migrated, _ = pair("unroll/class_ops_modern.py")
    want = steps_as_arrays(original.collect(str(image_root), STEPS))
    got = steps_as_arrays(migrated.collect(str(image_root), STEPS))
    assert_bitwise_equal(output(want, 0), output(got, 0), "images")
    assert_bitwise_equal(output(want, 1), output(got, 1), "labels")
    for steps in (want, got):
        flips = _mirror_consistent(steps)
        assert 0 < flips < STEPS * 4  # 28 fair coins: all equal with p = 2 / 2**28
        _flip_varies_within_a_batch(steps, 3)


def _torch_pairs(seen):
    return [(images.numpy(), labels.numpy()) for images, labels in seen]


@pytest.mark.parametrize("pad", [False, True], ids=["no-pad", "pad"])
@pytest.mark.parametrize("consumer", ["partial_epochs", "fill_epochs", "drop_epochs"])
def test_torch_iterators_bitwise(image_root, consumer, pad):
    """DALIClassificationIterator / DALIGenericIterator (PARTIAL, FILL + reset(), DROP + size) vs
    EpochIterator over 3 epochs: the same batches, sizes and values (everything is deterministic)."""
    pytest.importorskip("torch")
    original, migrated, _ = pair("unroll/torch_iterators.py")
    want = getattr(original, consumer)(str(image_root), 3, pad)
    got = getattr(migrated, consumer)(str(image_root), 3, pad)
    # EpochIterator converts under EvalMode.sync_cpu (issue 18); the mode must not outlive the conversion
    assert ndd.EvalMode.current() is ndd.EvalMode.eager
    if consumer == "drop_epochs":
        (want, want_len), (got, got_len) = want, got
        assert want_len == got_len == 2
    want, got = _torch_pairs(want), _torch_pairs(got)
    assert [w[1].tolist() for w in want] == [g[1].tolist() for g in got]
    assert len(want) == len(got) >= 6
    for (wi, wl), (gi, gl) in zip(want, got):
        assert wi.dtype == gi.dtype and wi.shape == gi.shape and wi.tobytes() == gi.tobytes()


def test_program_train_val_mixed(image_root):
    """Whole program. Val (legacy-ops class, run() loop): bitwise. Train (@pipeline_def through
    DALIClassificationIterator PARTIAL, 2 epochs): labels bitwise (explicit reader seed); the coin-flip
    mirror is random, so each image must equal the pipeline's image or exactly its mirror, and both
    must occur."""
    pytest.importorskip("torch")
    original, migrated, _ = pair("programs/train_val_mixed.py")
    want = steps_as_arrays(original.validate(str(image_root), STEPS))
    got = steps_as_arrays(migrated.validate(str(image_root), STEPS))
    assert_bitwise_equal(output(want, 0), output(got, 0), "val images")
    assert_bitwise_equal(output(want, 1), output(got, 1), "val labels")

    want = _torch_pairs(original.train(str(image_root), 2))
    got = _torch_pairs(migrated.train(str(image_root), 2))
    assert [len(w[1]) for w in want] == [len(g[1]) for g in got] == [4, 4, 2] * 2
    assert [w[1].tolist() for w in want] == [g[1].tolist() for g in got]
    same = mirrored = 0
    for (wi, _), (gi, _) in zip(want, got):
        for a, b in zip(wi, gi):
            if np.array_equal(a, b):
                same += 1
            else:
                assert np.array_equal(a[:, :, ::-1], b), "neither the image nor its mirror"
                mirrored += 1
    assert same + mirrored == 20 and 0 < mirrored < 20  # 20 pairs of fair coins agree or differ: p = 2**-19


def test_with_pipe_in_a_loop_keeps_each_iterations_values(image_root):
    """Three `with pipe:` pipelines built in a loop over sizes: each must resize to its own size (a
    generator reading the loop variable at its first next() would give all three the last size)."""
    original, migrated, text = pair("unroll/with_pipe_loop.py")
    assert "pipe = pipe_steps(root, size)" in text
    want = steps_as_arrays(original.one_pipe_per_size(str(image_root), [8, 12, 16]))
    got = steps_as_arrays(migrated.one_pipe_per_size(str(image_root), [8, 12, 16]))
    assert [step[0][0].shape[:2] for step in got] == [(8, 8), (12, 12), (16, 16)]
    for k in range(2):
        assert_bitwise_equal(output(want, k), output(got, k), f"output {k}")


SEEDED_OPS_CLASS = '''
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class SeededCoinPipe(Pipeline):
    def __init__(self, probability, batch_size=8):
        super().__init__(batch_size=batch_size, num_threads=1, device_id=None)
        self.coin = ops.random.CoinFlip(probability=probability, seed=5)  # arguments from __init__

    def define_graph(self):
        return self.coin()
'''


def test_seeded_ops_object_draws_new_values_every_step():
    """A seeded ops object built from __init__ values becomes a lambda over an ndd op; its RNG must be
    created once (an RNG made inside the lambda restarts at every call: every step would repeat)."""
    result = migrate_source(SEEDED_OPS_CLASS, "seeded.py")
    assert result.error is None and not result.manual, result.findings
    assert "self.coin_rng = ndd.random.RNG(seed=5)" in result.migrated
    module = load(result.migrated, "seeded_migrated")
    pipe = iter(module.SeededCoinPipe(0.5))
    steps = [tuple(int(x.item()) for x in next(pipe)[0]) for _ in range(6)]
    # 6 steps of 8 fair coins: all six identical has probability 2**-40.
    assert len(set(steps)) > 1, steps
    # The same seed gives the same stream in a fresh object (the RNG is per object, seeded once).
    again = iter(module.SeededCoinPipe(0.5))
    assert [tuple(int(x.item()) for x in next(again)[0]) for _ in range(6)] == steps


@pytest.mark.parametrize("name", ["gallery", "named_tuple", "from_helper", "from_helper_named", "one"])
def test_outputs_shapes_same_arity_and_values(image_root, name):
    """pipe.run() gives one output per element of a returned tuple; the migrated generator must yield
    tuples of the same arity (a `return tuple(...)` was once yielded as one nested output)."""
    original, migrated, _ = pair("unroll/outputs_shapes.py")
    pipe = getattr(original, name)(str(image_root))
    pipe.build()
    gen = getattr(migrated, name)(str(image_root))
    for _ in range(3):
        want, got = pipe.run(), next(gen)
        assert isinstance(got, tuple) and len(got) == len(want)
        for w, g in zip(want, got):
            for i in range(len(w)):
                assert np.array_equal(np.asarray(w.as_cpu().at(i)), np.asarray(g.cpu().select(i)))


def test_only_what_is_used_bitwise(image_root):
    """Three pipelines, one thread-pool growth (to 2), options dropped at the call sites: same outputs."""
    import nvidia.dali.experimental.dynamic as ndd

    original, migrated, text = pair("unroll/only_what_is_used.py")
    assert text.count("ndd.set_num_threads(") == 2  # the module's one growth, and the computed WORKERS
    assert "device_id" not in text and "seed=123" not in text
    want = steps_as_arrays(original.collect(str(image_root), STEPS))
    got = steps_as_arrays(migrated.collect(str(image_root), STEPS))
    assert len(got) == STEPS
    for index, what in enumerate(["train images", "train labels", "val images", "val labels", "worker labels"]):
        assert_bitwise_equal(output(want, index), output(got, index), what)
    assert ndd.get_num_threads() >= 2


# 10 images: batch 3 and 4 leave a partial last batch, 16 is larger than the epoch (the plugin then starts
# an epoch afresh where the samples read ahead would cover it whole). DROP with a batch larger than the
# epoch has no data in the plugin (it raises), so it is not a case.
_SIZE_CASES = [(bs, policy, pad) for bs in (3, 4, 16) for policy in ("FILL", "DROP", "PARTIAL") for pad in (False, True)
               if not (bs == 16 and policy == "DROP")]


@pytest.fixture(scope="module")
def iterator_size_pair():
    return pair("unroll/iterator_size.py")


@pytest.mark.parametrize("batch_size, policy, pad", _SIZE_CASES)
def test_iterator_size_and_len_per_epoch(image_root, iterator_size_pair, batch_size, policy, pad):
    """EpochIterator's size, _size and len() before each of 4 epochs are the plugin's (they change from epoch
    to epoch for FILL over an unpadded reader), and so are the labels of each epoch's batches."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    want = original.by_reader(str(image_root), batch_size, policy, pad, epochs=4)
    got = migrated.by_reader(str(image_root), batch_size, policy, pad, epochs=4)
    assert got == want
    if policy == "FILL" and not pad and batch_size != 16:
        assert len({counted for counted, _ in want}) > 1  # the case where the count changes is exercised


@pytest.mark.parametrize("policy", ["FILL", "DROP", "PARTIAL"])
@pytest.mark.parametrize("size", [10, 7])
def test_iterator_size_given(image_root, iterator_size_pair, policy, size):
    """With size= (no reader_name) size and _size are what was given, len() is the plugin's."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    want = original.by_size(str(image_root), 4, policy, size)
    got = migrated.by_size(str(image_root), 4, policy, size)
    assert [counted for counted, _ in got] == [counted for counted, _ in want]
    assert got == want


@pytest.mark.parametrize("batch_size", [3, 4])
def test_iterator_loops_without_reset(image_root, iterator_size_pair, batch_size):
    """`for batch in loader:` once per epoch, never reset() and no auto_reset: the plugin's __iter__ resets
    a finished epoch, so every loop has an epoch of batches (EpochIterator gave empty ones after the first)."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    want = original.without_reset(str(image_root), batch_size)
    got = migrated.without_reset(str(image_root), batch_size)
    assert got == want and all(want)


# Sharded readers, one pipeline (one rank of a distributed run): the plugin counts every shard's samples,
# moves to the next shard each epoch (unless stick_to_shard) and sizes the epoch by the largest shard.
# 10 samples in 3 shards are 3, 3 and 4; in 2 shards 5 and 5. DROP needs a batch no larger than a shard.
_SHARD_CASES = [(bs, policy, pad, shard, shards, stick)
                for shards in (2, 3) for shard in range(shards) for bs in (2, 4)
                for policy in ("FILL", "DROP", "PARTIAL") for pad in (False, True) for stick in (False, True)
                if not (policy == "DROP" and bs > 10 // shards)]


@pytest.mark.parametrize("batch_size, policy, pad, shard_id, num_shards, stick", _SHARD_CASES)
def test_sharded_iterator_counts_as_the_plugin(image_root, iterator_size_pair, batch_size, policy, pad, shard_id,
                                                num_shards, stick):
    """Batches (labels), size, _size and len() of each of 5 epochs over one shard are the plugin's."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    args = dict(epochs=5, shard_id=shard_id, num_shards=num_shards, stick=stick)
    want = original.by_reader(str(image_root), batch_size, policy, pad, **args)
    got = migrated.by_reader(str(image_root), batch_size, policy, pad, **args)
    assert got == want


# Several pipelines in one iterator, one per GPU, each over its own shard (shard_id = the GPU's index): a step
# is one dict per pipeline. With reader_name the plugin counts one pipeline's samples, reads every reader's
# shard and cuts (PARTIAL) each pipeline's batch to what is left of its shard, empty batches included; with
# size= it counts all pipelines' samples and PARTIAL returns only the pipelines that still hold samples.
# 10 images in 10 classes, so each label names its sample.
_PIPELINES_CASES = [(bs, policy, pad, pipes, shards, stick)
                    for bs in (2, 3) for policy in ("FILL", "DROP", "PARTIAL") for pad in (False, True)
                    for pipes, shards in ((2, 2), (2, 3), (3, 3), (3, 4)) for stick in (False, True)
                    if not (policy == "DROP" and bs > 10 // shards)]


@pytest.fixture(scope="module")
def labelled_root(tmp_path_factory):
    return make_images(tmp_path_factory.mktemp("labelled"), count=10, classes=10)


@pytest.mark.parametrize("batch_size, policy, pad, num_pipelines, num_shards, stick", _PIPELINES_CASES)
def test_iterator_over_several_pipelines_counts_as_the_plugin(labelled_root, iterator_size_pair, batch_size, policy,
                                                              pad, num_pipelines, num_shards, stick):
    """Each pipeline's batch (labels) of each step, size, _size and len() of 5 epochs are the plugin's."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    args = dict(num_pipelines=num_pipelines, num_shards=num_shards, stick=stick, epochs=5)
    want = original.by_readers(str(labelled_root), batch_size, policy, pad, **args)
    got = migrated.by_readers(str(labelled_root), batch_size, policy, pad, **args)
    assert got == want
    assert all(len(step) == num_pipelines for _, steps in want for step in steps)


@pytest.mark.parametrize("policy", ["FILL", "DROP", "PARTIAL"])
@pytest.mark.parametrize("batch_size, size, num_pipelines", [(2, 10, 2), (3, 7, 2), (2, 9, 3), (3, 10, 3)])
def test_iterator_over_several_pipelines_with_size(labelled_root, iterator_size_pair, policy, batch_size, size,
                                                   num_pipelines):
    """size= over several pipelines: the plugin counts all their samples; PARTIAL drops the pipelines past the
    end of the epoch and cuts the last one (3 pipelines of 2 for size 9: [2], [2], [1])."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    want = original.by_sizes(str(labelled_root), batch_size, policy, size, num_pipelines)
    got = migrated.by_sizes(str(labelled_root), batch_size, policy, size, num_pipelines)
    assert got == want


def test_iterator_with_no_data_raises_as_the_plugin(labelled_root, iterator_size_pair):
    """DROP with more samples per step than the epoch has: the plugin's first batch is dropped and it raises."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    for module in (original, migrated):
        with pytest.raises(RuntimeError, match="no data in the pipeline"):
            module.by_sizes(str(labelled_root), 3, "DROP", 7, 3)


@pytest.mark.parametrize("policy", ["FILL", "DROP", "PARTIAL"])
@pytest.mark.parametrize("batch_size", [3, 4])
def test_iterator_stepped_len_times_then_reset(image_root, iterator_size_pair, batch_size, policy):
    """next() len(loader) times, then reset(), each epoch: the same batches as the plugin's (its DROP reset
    reads the batch that would not fit, so the next epoch starts after it)."""
    pytest.importorskip("torch")
    original, migrated, _ = iterator_size_pair
    want = original.by_length(str(image_root), batch_size, policy, epochs=4)
    got = migrated.by_length(str(image_root), batch_size, policy, epochs=4)
    assert got == want


@pytest.fixture(scope="module")
def handed_on_pair():
    return pair("unroll/iterator_handed_on.py")


def test_iterator_has_the_plugins_public_api(handed_on_pair):
    """Every public name of the installed plugin iterator (but checkpoints(): checkpointed pipelines are not
    migrated to ReaderStreams) is on the EpochIterator, so code it is handed to finds what it used; and the
    migration hands it on (DM233) instead of keeping the unit."""
    pytest.importorskip("torch")
    from nvidia.dali.plugin.pytorch import DALIGenericIterator

    _, migrated, text = handed_on_pair
    public = {name for name in dir(DALIGenericIterator) if not name.startswith("_")}
    assert public - {"checkpoints"} <= set(dir(migrated.EpochIterator)), public
    assert {"next", "reset", "size"} <= public
    assert "itertools.islice(loader, n)" in text and "DALIGenericIterator(" not in text


# (batch_size, policy, pad, num_pipelines, size, prepare_first_batch): readers (sharded over 2 or 3 pipelines, padded
# or not) and size= (-1: reader_name), each policy; without prepare_first_batch the first batch is read at next().
_PRIVATE_CASES = [(3, "FILL", False, 1, -1, True), (4, "DROP", False, 1, -1, True), (3, "PARTIAL", True, 1, -1, True),
                  (2, "FILL", False, 2, -1, True), (3, "PARTIAL", False, 2, -1, True), (2, "DROP", True, 3, -1, True),
                  (3, "FILL", False, 3, -1, True), (4, "FILL", False, 1, 7, True), (3, "PARTIAL", False, 1, 7, True),
                  (3, "DROP", False, 1, 10, False), (2, "PARTIAL", False, 2, 9, True), (3, "FILL", False, 1, -1, False),
                  (3, "PARTIAL", False, 2, -1, False)]


def _plain(value):
    """A value as plain data with its type's name (tensors and arrays by their values, sets sorted)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(value))
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist"):
        return (type(value).__name__, value.tolist())
    if value is None or isinstance(value, (bool, int, float, str)) or type(value).__name__ == "LastBatchPolicy":
        return (type(value).__name__, value)
    return type(value).__name__  # a pipeline-mode object (a Pipeline), or AttributeError where the name is missing


def test_iterator_private_state_is_the_plugins(labelled_root, iterator_size_pair):
    """The attributes a subclass may read (epoch_iterator.ITERATOR_ATTRS) are exactly the installed plugin's instance
    attributes that the EpochIterator holds with the same value and type after construction, after every step and
    after every reset() (the first batch it prepared, its counter, the policy member, "yes"/"no" ...), derived by
    running both over readers and size=, each policy, with and without prepare_first_batch; the other names it
    offers are the plugin's methods and properties."""
    pytest.importorskip("torch")
    from nvidia.dali.plugin.pytorch import DALIGenericIterator

    from dali_migrate.transforms.unroll.epoch_iterator import ITERATOR_ATTRS

    original, migrated, text = iterator_size_pair
    assert "prepare_first_batch=first" in text and "DALIGenericIterator(" not in text
    held, differ = set(), {}
    for case in _PRIVATE_CASES:
        names = sorted(vars(original.private_loader(str(labelled_root), *case)))
        held |= set(names)

        def look(loader):
            return {name: _plain(getattr(loader, name, AttributeError)) for name in names}

        want = original.private_state(look, str(labelled_root), *case)
        got = migrated.private_state(look, str(labelled_root), *case)
        assert len(got) == len(want) > 3
        for w, g in zip(want, got):
            differ.update({name: (case, w[name], g[name]) for name in names if w[name] != g[name] and name not in differ})
    same = held - set(differ)
    assert {name for name in ITERATOR_ATTRS if name in held} == same, differ
    assert ITERATOR_ATTRS - held <= set(dir(DALIGenericIterator))
    assert {"_first_batch", "_counter", "_last_batch_policy", "_auto_reset", "_ever_consumed"} <= same
    assert set(differ) == {"_pipes", "_shards_id", "_counter_per_gpu", "_shard_sizes_per_gpu",
                           "_shard_sizes_per_gpu_initial"}


def test_plugin_iterator_names_are_the_installed_plugins(labelled_root, tmp_path):
    """units.PLUGIN_ITERATOR_NAMES is every name the installed plugin iterators have (class attributes beyond
    object's, and what an instance sets with reader_name and with checkpointing): a name outside it and outside the
    EpochIterator raises AttributeError before and after the migration (DM235)."""
    pytest.importorskip("torch")
    from nvidia.dali import fn, pipeline_def
    from nvidia.dali.plugin import pytorch

    from dali_migrate.units import PLUGIN_ITERATOR_NAMES, missing_in_both

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def labels():
        jpegs, label = fn.readers.file(file_root=str(labelled_root), name="R")
        return label, label

    names = set()
    classes = [pytorch.DALIGenericIterator, pytorch.DALIClassificationIterator, pytorch.DALIRaggedIterator]
    made = [pytorch.DALIGenericIterator(labels(), ["x", "y"], reader_name="R"),
            pytorch.DALIGenericIterator(labels(enable_checkpointing=True), ["x", "y"], size=5),
            pytorch.DALIClassificationIterator(labels(), reader_name="R"),
            pytorch.DALIRaggedIterator(labels(), ["x", "y"], reader_name="R")]
    try:
        from nvidia.dali.plugin import jax as jax_plugin
    except ImportError:
        jax_plugin = None
    if jax_plugin is not None:
        classes.append(jax_plugin.DALIGenericIterator)
        made.append(jax_plugin.DALIGenericIterator(labels(), ["x", "y"], reader_name="R"))
    for cls in classes:
        names |= set(dir(cls)) - set(dir(object))
    for iterator in made:
        names |= set(vars(iterator))
    if jax_plugin is None:  # (JAX not installed: its names cannot be listed here)
        assert names <= PLUGIN_ITERATOR_NAMES, names - PLUGIN_ITERATOR_NAMES
    else:
        assert names == PLUGIN_ITERATOR_NAMES, names ^ PLUGIN_ITERATOR_NAMES
    assert missing_in_both("shutdown") and not missing_in_both("_pipes") and not missing_in_both("_plugin")
    assert not missing_in_both("_step") and not missing_in_both("__class__")


def test_iterator_shutdown_fails_at_the_same_line_in_both(image_root):
    """loader.shutdown(), which the plugin's iterator does not have: the original raises AttributeError there after
    its epoch; the migration leaves the line (DM235, no marker) and raises AttributeError there after the same epoch."""
    pytest.importorskip("torch")
    original, migrated, text = pair("unroll/iterator_shutdown.py")
    assert "# dali-migrate:" not in text and "loader.shutdown()" in text and "EpochIterator(" in text
    for module in (original, migrated):
        with pytest.raises(AttributeError, match="has no attribute 'shutdown'"):
            module.train(str(image_root))
    result = migrate_source((GOLDEN / "unroll/iterator_shutdown.py").read_text())
    assert [f.rule for f in result.findings if "shutdown" in f.message] == ["DM235"]


@pytest.mark.parametrize("policy", ["FILL", "DROP", "PARTIAL"])
def test_iterator_next_method_and_policy_from_a_table(image_root, handed_on_pair, policy):
    """loader.next() len(loader) times then reset(), the policy read from a module-level table of members
    (strings after migration): the plugin's batches, epoch by epoch."""
    pytest.importorskip("torch")
    original, migrated, _ = handed_on_pair
    want = original.by_next_method(str(image_root), 3, policy, epochs=4)
    assert migrated.by_next_method(str(image_root), 3, policy, epochs=4) == want


@pytest.mark.parametrize("batch_size, n", [(2, 1), (2, 2), (3, 1)])
def test_iterator_handed_to_a_library_call(image_root, handed_on_pair, batch_size, n):
    """itertools.islice over an iterator of two sharded pipelines (policy from a parameter's default), the rest
    of each epoch, reset(): the same steps, size and _num_gpus as the plugin's."""
    pytest.importorskip("torch")
    original, migrated, _ = handed_on_pair
    want = original.first_batches(str(image_root), batch_size, n)
    assert want[0][0] == 2
    assert migrated.first_batches(str(image_root), batch_size, n) == want


def test_iterator_policy_given_at_run_time(image_root, handed_on_pair):
    """A member given by the caller works in both; a value that is not a policy is refused by both
    (ValueError), so the migrated iterator never counts with a policy the plugin would not have taken."""
    pytest.importorskip("torch")
    from nvidia.dali.plugin.pytorch import LastBatchPolicy

    original, migrated, _ = handed_on_pair
    for module in (original, migrated):
        loader = module.given_policy(str(image_root), 4, LastBatchPolicy.PARTIAL)
        assert [len(b[0]["labels"]) for b in loader] == [4, 4, 2]
        with pytest.raises(ValueError):
            module.given_policy(str(image_root), 4, "LAST")


def test_subclass_binds_super_init_arguments_by_the_plugins_parameters():
    """iterator_subclass.PLUGIN_PARAMETERS is the installed plugin's constructor signature, in order: a subclass's
    positional super().__init__ arguments bind as the plugin binds them."""
    pytest.importorskip("torch")
    import inspect

    from nvidia.dali.plugin import pytorch

    from dali_migrate.transforms.unroll.iterator_subclass import PLUGIN_PARAMETERS

    for qualname, names in PLUGIN_PARAMETERS.items():
        plugin_class = getattr(pytorch, qualname.rsplit(".", 1)[1])
        assert tuple(inspect.signature(plugin_class.__init__).parameters)[1:] == names


def test_iterator_fill_last_batch_decides_over_the_policy(image_root, handed_on_pair):
    """fill_last_batch=False with last_batch_policy=DROP: the plugin counts PARTIAL, and so does the migration."""
    pytest.importorskip("torch")
    original, migrated, text = handed_on_pair
    want = original.deprecated_flag(str(image_root), 4)
    assert [len(labels) for labels in want[0]] == [4, 4, 2]
    assert migrated.deprecated_flag(str(image_root), 4) == want
    assert 'last_batch_policy="PARTIAL"' in text


def test_iterator_subclass_building_its_pipeline_migrates_with_it(tmp_path):
    """A subclass whose __init__ builds the pipeline it hands super().__init__: the pipeline becomes a ReaderStream
    and the class an EpochIterator, and both epochs of both policies give the plugin's batches."""
    pytest.importorskip("torch")
    for k in range(6):
        np.save(tmp_path / f"a{k}.npy", np.full((2, 3), k, dtype=np.float32))
    original, migrated, text = pair("unroll/iterator_subclass_builds.py")
    assert "class Loader(EpochIterator)" in text and "ReaderStream(" in text and "dali-migrate:" not in text
    for drop_last in (False, True):
        got = []
        for module in (original, migrated):
            loader = module.Loader(str(tmp_path), 4, drop_last)
            got.append([[(b[0]["x"].numpy().tolist(), b[0]["twice"].numpy().tolist()) for b in loader]
                        for _epoch in range(2)])
        assert [len(epoch) for epoch in got[0]] == ([1, 1] if drop_last else [2, 2])
        assert got[1] == got[0]


def test_kept_iterator_subclass_keeps_the_pipeline_it_builds(image_root):
    """A subclass that stays in pipeline mode (it reads the plugin's _pipes) keeps the pipeline its __init__ builds
    too: the plugin gets a Pipeline, and the migrated module runs as the original did."""
    pytest.importorskip("torch")
    original, migrated, text = pair("unroll/iterator_subclass_builds_kept.py")
    assert "@pipeline_def" in text and "DM212 super().__init__(...) not migrated" in text
    got = []
    for module in (original, migrated):
        loader = module.loader(str(image_root))
        got.append(([batch[0]["labels"].flatten().tolist() for batch in loader], loader.progress()))
    assert len(got[0][0]) == 3
    assert got[1] == got[0]


_MAKER_CLASS = '''
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, files):
        super().__init__(batch_size, 1, None)
        self.files = files

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=0, num_shards=1)


class Sub(Base):
    def __init__(self, batch_size, files):
        super().__init__(batch_size, files)
        self.input_x = self.get_reader({ARGUMENT})

    def define_graph(self):
        img = self.input_x(name="ReaderX")
        return img * 2.0,
'''


def test_base_class_reader_maker_creates_the_subclass_reader_or_marks_it():
    """A reader maker of the base class (``self.get_reader(files)`` in a subclass's __init__) creates the ndd reader
    there; an argument it cannot read twice (a call) keeps the class marked, never an ops-style call left behind."""
    made = migrate_source(_MAKER_CLASS.replace("{ARGUMENT}", 'self.files["x"]'), "m.py")
    assert not [f for f in made.findings if not f.fixed]
    assert 'self.input_x = ndd.readers.Numpy(files=self.files["x"], shard_id=0, num_shards=1, name="ReaderX"' \
        in made.migrated
    kept = migrate_source(_MAKER_CLASS.replace("{ARGUMENT}", "sorted(self.files)"), "m.py")
    assert any(f.rule == "DM212" and "reader maker" in f.message for f in kept.findings if not f.fixed)
    assert "class Sub(Base):" in kept.migrated and "self.input_x(name=\"ReaderX\")" in kept.migrated


_BASE_READER_CLASS = '''
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class Base(Pipeline):
    def __init__(self, batch_size, files, shard_id, num_shards):
        super().__init__(batch_size, 1, None, seed=5)
        self.files, self.shard_id, self.num_shards = files, shard_id, num_shards
        self.input = ops.readers.Numpy(files=files, shard_id=shard_id, num_shards=num_shards)
        self.other = self.get_reader(self.files)

    def get_reader(self, data):
        return ops.readers.Numpy(files=data, shard_id=self.shard_id, num_shards=self.num_shards)

    def finish(self, x):
        return fn.reductions.sum(x)


class Sub(Base):
    def define_graph(self):
        x = self.input({SITE})
        y = self.other(name="Other")
        return self.finish(x), y * 2.0
'''


def test_readers_a_base_class_creates_are_read_by_its_subclass(tmp_path):
    """Readers created in a base class's __init__ (an ops object, and one through its reader maker) and read by the
    subclass's define_graph: ndd readers created once in the base, the shard arguments kept, listed by the names the
    subclass gave them; each shard's steps of two epochs equal pipeline mode's. A call with other arguments than
    name= stays marked, with nothing of the ops API left half-migrated."""
    for k in range(6):
        np.save(tmp_path / f"a{k}.npy", np.full((2, 3), k, dtype=np.float32))
    files = sorted(str(p) for p in tmp_path.glob("*.npy"))
    text = _BASE_READER_CLASS.replace("{SITE}", 'name="Reader"')
    made = migrate_source(text, "m.py")
    assert not [f for f in made.findings if not f.fixed], made.migrated
    assert "self.input = ndd.readers.Numpy(files=files, shard_id=shard_id, num_shards=num_shards, " \
           "max_batch_size=self.batch_size)" in made.migrated
    assert '"Reader": self.input' in made.migrated and '"Other": self.other' in made.migrated
    original, migrated = load(text, "orig_base_reader"), load(made.migrated, "migr_base_reader")
    for shard in range(2):
        want_pipe = original.Sub(2, files, shard, 2)
        want_pipe.build()
        got_pipe = migrated.Sub(2, files, shard, 2)
        assert got_pipe.epoch_size("Reader") == want_pipe.epoch_size("Reader") == 6
        assert got_pipe.epoch_size("Other") == want_pipe.epoch_size("Other")
        for _ in range(4):  # 3 samples a shard: the steps cross the epoch end as pipe.run() did
            want = [np.array(o.as_tensor()) for o in want_pipe.run()]
            got = [np.array(ndd.as_tensor(o)) for o in next(got_pipe)]
            assert [g.tolist() for g in got] == [w.tolist() for w in want]
    kept = migrate_source(_BASE_READER_CLASS.replace("{SITE}", 'name="Reader", seed=3'), "m.py")
    assert any(f.rule == "DM212" and "other than name=" in f.message for f in kept.findings if not f.fixed)
    assert "class Base(Pipeline):" in kept.migrated and "ops.readers.Numpy(files=files" in kept.migrated


def test_body_bindings_stay_where_they_are_read(image_root, tmp_path):
    """A walrus in an operator's arguments binds k in the steps: `shift = k + 1` stays there too (it was
    hoisted before the steps and raised UnboundLocalError); the `with ... as` read and the annotated and
    augmented offset are computed once before the steps, as pipeline mode computed them once."""
    original, migrated, text = pair("unroll/body_bindings.py")
    assert "# dali-migrate" not in text
    steps_text = text[text.index("for images, labels in reader.next_epoch"):]
    assert "shift = k + 1" in steps_text and "offset: int = width + 1" not in steps_text
    notes = tmp_path / "notes.txt"
    notes.write_text("twelve chars\nmore\n")
    want = steps_as_arrays(original.collect(str(image_root), str(notes), STEPS))
    got = steps_as_arrays(migrated.collect(str(image_root), str(notes), STEPS))
    assert_bitwise_equal(output(want, 0), output(got, 0), "labels")
    assert_bitwise_equal(output(want, 1), output(got, 1), "images")
    assert {int(np.asarray(v).ravel()[0]) for v in output(want, 0)} == {2 * label + 3 + 15 for label in (0, 1)}


def _firsts(steps, output=0) -> list[float]:
    """The first value of the first sample of one output, step by step."""
    return [float(step[output][0].reshape(-1)[0]) for step in steps_as_arrays(steps)]


def test_rebound_parameter_draws_again_every_step():
    """A parameter (and a name around a `with pipe:` block) that the body reads and binds again to a random value:
    pipeline mode drew a new value at each run(); each step of the generator must too (it once reused step 1's)."""
    original, migrated, text = pair("unroll/rebound_parameter.py")
    assert "factor_step = factor" in text and "angle_step = angle" in text
    for module in (original, migrated):
        drawn = module.collect(None, 4)
        for output in (0, 2):
            # 4 steps of a uniform draw all equal: probability 0 for floats
            assert len(set(_firsts(drawn, output))) == 4, (module.__name__, output, _firsts(drawn, output))
        assert _firsts(module.collect(3.0, 4), 0) == [3.0] * 4  # given: the same value every step
        assert len(set(_firsts(module.rotation(True, steps=4)))) == 4, module.__name__
        assert _firsts(module.rotation(False, steps=4)) == [10.0] * 4
