"""The TensorFlow and JAX adapters (transforms/unroll/frameworks.py): what the migration writes, and that
TFDataset gives what DALI's own DALIDataset gives (the real TF plugin runs here), shape matching included.
TFIterator gives what the DALIIterator() graph op gives, eagerly and in a graph. The whole-program checks are the
golden programs tf_dataset, tf_iterator_op and jax_iterator."""

import functools
import textwrap

import numpy as np
import pytest

from dali_migrate import migrate_source


def _migrate(code: str):
    return migrate_source(textwrap.dedent(code), "prog.py")


TF_PROGRAM = """\
    import tensorflow as tf
    from nvidia.dali import fn, pipeline_def
    import nvidia.dali.plugin.tf as dali_tf

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def pipe(root):
        data, label = fn.readers.file(file_root=root)
        return data, label

    ds = dali_tf.DALIDataset(pipeline=pipe("/data"), batch_size=4, output_dtypes=(tf.uint8, tf.int32))
"""


def test_dalidataset_becomes_tfdataset_with_the_same_arguments():
    result = _migrate(TF_PROGRAM)
    assert "ds = TFDataset(pipeline=pipe(\"/data\"), batch_size=4, output_dtypes=(tf.uint8, tf.int32))" \
        in result.migrated
    assert "def TFDataset(" not in result.migrated and "dali_tf" not in result.migrated
    assert "from dali_dynamic_compat import Prefetch, TFDataset  # written by dali-migrate" in result.migrated
    assert "# dali-migrate:" not in result.migrated
    assert "DM228" in {f.rule for f in result.findings}
    again = migrate_source(result.migrated, "prog.py")
    assert again.migrated == result.migrated


def test_jax_iterator_becomes_jax_epoch_iterator():
    result = _migrate("""\
        from nvidia.dali import fn, pipeline_def
        from nvidia.dali.plugin.jax import DALIGenericIterator

        @pipeline_def(batch_size=4, num_threads=2, device_id=None)
        def pipe(root):
            data, label = fn.readers.file(file_root=root, name="Reader")
            return data, label

        p = pipe("/data")
        it = DALIGenericIterator([p], ["data", "label"], reader_name="Reader")
    """)
    assert 'it = JaxEpochIterator([p], ["data", "label"], ' in result.migrated
    # (its steps are taken where this module does not show them: prefetched, issue 35)
    assert "from dali_dynamic_compat import JaxEpochIterator, Prefetch  # written by dali-migrate" in result.migrated
    assert "class " not in result.migrated and result.helpers == ["JaxEpochIterator", "Prefetch"]
    assert "# dali-migrate:" not in result.migrated


def test_dali_iterator_op_becomes_tf_iterator_and_its_pipeline_migrates():
    result = _migrate("""\
        import tensorflow as tf
        from nvidia.dali import fn, pipeline_def
        import nvidia.dali.plugin.tf as dali_tf

        @pipeline_def(batch_size=4, num_threads=2, device_id=None)
        def pipe(root):
            data, label = fn.readers.file(file_root=root)
            return data, label

        p = pipe("/data")
        daliop = dali_tf.DALIIterator()
        with tf.device("/cpu:0"):
            images, labels = daliop(pipeline=p, shapes=[(4, 3), ()], dtypes=[tf.uint8, tf.int32], device_id=None)
    """)
    assert "daliop = TFIterator()" in result.migrated and "class TFIterator:" not in result.migrated
    # (handed to the op, which a tf.function may call at every step: prefetched, issue 35)
    assert "from dali_dynamic_compat import Prefetch, TFIterator  # written by dali-migrate" in result.migrated
    assert "ndd.readers.File(" in result.migrated and "dali_tf" not in result.migrated
    assert "# dali-migrate:" not in result.migrated
    assert "DM228" in {f.rule for f in result.findings}
    assert migrate_source(result.migrated, "prog.py").migrated == result.migrated


@pytest.mark.parametrize("plugin, call, says", [
    ("nvidia.dali.plugin.paddle", "DALIGenericIterator([p], ['data', 'label'], reader_name='Reader')",
     "the paddle plugin needs CUDA"),
    ("nvidia.dali.plugin.mxnet", "DALIGenericIterator([p], [('data', 0), ('label', 1)], reader_name='Reader')",
     "the mxnet plugin needs CUDA"),
    ("nvidia.dali.plugin.tf", "DALIRawIterator()", "graph op DALIRawIterator()"),
])
def test_plugins_without_adapter_stay_marked_with_the_reason(plugin, call, says):
    module, name = plugin, call.split("(")[0]
    result = _migrate(f"""\
        import tensorflow as tf
        from nvidia.dali import fn, pipeline_def
        from {module} import {name}

        @pipeline_def(batch_size=4, num_threads=2, device_id=None)
        def pipe(root):
            data, label = fn.readers.file(file_root=root, name="Reader")
            return data, label

        p = pipe("/data")
        it = {call}
    """)
    markers = [f for f in result.findings if f.rule == "DM215"]
    assert markers and says in markers[0].message
    if "[p]" in call:  # the pipeline it gets stays in pipeline mode, untouched
        assert "DM230" in {f.rule for f in result.findings}
        assert "fn.readers.file" in result.migrated


# --- TFDataset against DALI's own DALIDataset ---------------------------------------------------------------



@pytest.fixture(scope="module")
def tf_and_data(tmp_path_factory):
    import tensorflow
    import nvidia.dali.plugin.tf  # noqa: F401  (the real plugin: CI installs it, scripts/setup-venv.sh)

    root = tmp_path_factory.mktemp("files")
    for i in range(6):
        (root / f"c{i}").mkdir()
        np.arange(i, i + 3, dtype=np.uint8).tofile(root / f"c{i}" / f"{i}.jpg")
    return tensorflow, str(root)


def _helper():
    from dali_migrate.runtime.tf_dataset import TFDataset  # the code the migration copies into the helper module

    return TFDataset


def _both(tfm, root, dtypes, shapes, steps=4):
    """The elements of DALIDataset over a pipeline and of TFDataset over its dynamic-mode twin."""
    import nvidia.dali.experimental.dynamic as ndd
    import nvidia.dali.plugin.tf as dali_tf
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        data, label = fn.readers.file(file_root=root)
        return fn.reshape(data, shape=[1, 3, 1]), label

    def twin():
        reader = ndd.readers.File(file_root=root)
        while True:
            for data, label in reader.next_epoch(batch_size=3):
                yield ndd.reshape(data, shape=[1, 3, 1]), label

    kwargs = {"output_dtypes": dtypes, "batch_size": 3, "device_id": None}
    if shapes is not None:
        kwargs["output_shapes"] = shapes
    original = dali_tf.DALIDataset(pipeline=pipe(), **kwargs)
    migrated = _helper()(pipeline=twin(), **kwargs)
    assert migrated.element_spec == original.element_spec
    return list(original.take(steps)), list(migrated.take(steps))


@pytest.mark.parametrize("shapes", [None, ((3, 1, 3, 1), (3, 1)), ((3, 3), (3,)), ((None, 3, 1), (None,)),
                                    ((3, 1, 3), (3, 1))])
def test_tfdataset_gives_what_dalidataset_gives(tf_and_data, shapes):
    tfm, root = tf_and_data
    original, migrated = _both(tfm, root, (tfm.uint8, tfm.int32), shapes)
    for want, got in zip(original, migrated):
        assert len(want) == len(got) == 2
        for a, b in zip(want, got):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_tfdataset_refuses_a_wrong_dtype_as_dalidataset_does(tf_and_data):
    import nvidia.dali.experimental.dynamic as ndd
    import nvidia.dali.plugin.tf as dali_tf
    from nvidia.dali import fn, pipeline_def

    tfm, root = tf_and_data

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        return fn.readers.file(file_root=root)[1]

    def twin():
        reader = ndd.readers.File(file_root=root)
        while True:
            for _, label in reader.next_epoch(batch_size=3):
                yield label

    for make, dataset in ((dali_tf.DALIDataset, pipe()), (_helper(), twin())):
        with pytest.raises(Exception, match="type provided for output .?0"):
            next(iter(make(dataset, output_dtypes=tfm.float32, batch_size=3, device_id=None)))


# --- TFIterator against DALI's own DALIIterator() op ---------------------------------------------------------


@functools.cache
def _tf_iterator():
    """The class, made once: it holds the streams it runs to the end of the program, as the op held its
    pipelines (a stream closed on another thread than its own trips DALI's EvalContext)."""
    from dali_migrate.runtime.tf_iterator import TFIterator  # the code the migration copies into the helper module

    return TFIterator


def _op_twins(root, name):
    """A pipeline and its dynamic-mode twin (two outputs: data of shape (3,), label of shape (1,)). The reader's
    name makes the pipeline's definition one of its own: in eager mode the op shares its pipeline between calls
    over pipelines defined alike (docs/dali-facts.md), across tests too."""
    import nvidia.dali.experimental.dynamic as ndd
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        data, label = fn.readers.file(file_root=root, name=name)
        return data, label

    def twin():
        reader = ndd.readers.File(file_root=root, name=name)
        while True:
            for data, label in reader.next_epoch(batch_size=3):
                yield data, label

    return pipe(), twin()


OP_ARGS = {"shapes": [(3, 3), ()], "dtypes": ["uint8", "int32"], "device_id": None}


def _op_call(tfm, op, pipeline, **changes):
    kwargs = dict(OP_ARGS, **changes)
    kwargs["dtypes"] = [tfm.as_dtype(d) for d in kwargs["dtypes"]]
    return op(pipeline=pipeline, **kwargs)


def test_tf_iterator_gives_what_the_op_gives_eagerly(tf_and_data):
    import nvidia.dali.plugin.tf as dali_tf

    tfm, root = tf_and_data
    pipe, twin = _op_twins(root, "eager")
    op, adapter = dali_tf.DALIIterator(), _tf_iterator()()
    for _ in range(5):  # 6 files, batch 3: the readers wrap
        want, got = _op_call(tfm, op, pipe), _op_call(tfm, adapter, twin)
        assert isinstance(got, list) and len(got) == len(want) == 2
        for a, b in zip(want, got):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_tf_iterator_gives_what_the_op_gives_in_a_graph(tf_and_data):
    import nvidia.dali.plugin.tf as dali_tf

    tfm, root = tf_and_data
    pipe, twin = _op_twins(root, "graph")
    results = []
    for op, pipeline in ((dali_tf.DALIIterator(), pipe), (_tf_iterator()(), twin)):
        graph = tfm.Graph()
        with graph.as_default(), tfm.device("/cpu:0"):
            data, label = _op_call(tfm, op, pipeline)
            shapes = (data.shape, label.shape)  # the op's static shapes: (3, 3) and, for (), none
            total = tfm.reduce_sum(tfm.cast(data, tfm.int32))
            with tfm.compat.v1.Session() as session:
                results.append((shapes, [session.run([total, label]) for _ in range(4)]))
    (want_shapes, want), (got_shapes, got) = results
    assert got_shapes == want_shapes and want_shapes[1].rank is None
    for (a_total, a_label), (b_total, b_label) in zip(want, got):
        assert a_total == b_total
        np.testing.assert_array_equal(a_label, b_label)


def test_tf_iterator_in_a_tf_function_takes_the_next_step_at_each_call(tf_and_data):
    import nvidia.dali.plugin.tf as dali_tf

    tfm, root = tf_and_data
    pipe, twin = _op_twins(root, "function")
    runs = []
    for op, pipeline in ((dali_tf.DALIIterator(), pipe), (_tf_iterator()(), twin)):
        @tfm.function
        def step():
            with tfm.device("/cpu:0"):
                data, label = _op_call(tfm, op, pipeline)
            return tfm.reduce_sum(tfm.cast(data, tfm.int32)) + tfm.reduce_sum(label)

        runs.append([int(step()) for _ in range(4)])
    assert runs[0] == runs[1] and len(set(runs[0])) > 1


@pytest.mark.parametrize("changes, error, says", [
    ({"shapes": [(3, 3), (3,)]}, "InvalidArgumentError", r"DALI pipeline output shape at 1 \[3, ?1\] != \[3\]"),
    ({"shapes": [(None, 3), ()]}, "InvalidArgumentError", "is not fully defined"),
    ({"shapes": []}, "Exception", "shapes and batch_size arguments cannot be empty"),
])
def test_tf_iterator_refuses_what_the_op_refuses(tf_and_data, changes, error, says):
    import nvidia.dali.plugin.tf as dali_tf

    tfm, root = tf_and_data
    pipe, twin = _op_twins(root, "refused")
    for op, pipeline in ((dali_tf.DALIIterator(), pipe), (_tf_iterator()(), twin)):
        with pytest.raises(Exception, match=says) as raised:
            _op_call(tfm, op, pipeline, **changes)
        assert type(raised.value).__name__ == error


def test_tf_iterator_refuses_a_wrong_dtype_the_op_reinterpreted(tf_and_data):
    tfm, root = tf_and_data
    _, twin = _op_twins(root, "dtype")
    with pytest.raises(TypeError, match="reinterpreted"):
        _op_call(tfm, _tf_iterator()(), twin, dtypes=["uint8", "int64"])


def test_tf_iterator_hands_a_pipeline_mode_pipeline_to_the_op(tf_and_data):
    import nvidia.dali.plugin.tf as dali_tf

    tfm, root = tf_and_data
    first, _ = _op_twins(root, "kept")
    second, _ = _op_twins(root, "kept2")
    adapter, op = _tf_iterator()(), dali_tf.DALIIterator()
    for _ in range(3):
        want, got = _op_call(tfm, op, second), _op_call(tfm, adapter, first)
        np.testing.assert_array_equal(want[0].numpy(), got[0].numpy())
    assert id(first) not in _tf_iterator()._streams  # no stream of its own: the op holds the pipeline
