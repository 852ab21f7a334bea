"""The TensorFlow and JAX adapters (transforms/unroll/frameworks.py): what the migration writes, and that
TFDataset gives what DALI's own DALIDataset gives (the real TF plugin runs here), shape matching included.
The whole-program checks are the golden programs tf_dataset and jax_iterator."""

import textwrap

import numpy as np
import pytest

from dali_migrate import migrate_source
from dali_migrate.transforms.unroll import frameworks


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
    assert "def TFDataset(" in result.migrated and "dali_tf" not in result.migrated
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
    assert "class EpochIterator" in result.migrated and "class JaxEpochIterator(EpochIterator)" in result.migrated
    assert "# dali-migrate:" not in result.migrated


@pytest.mark.parametrize("plugin, call, says", [
    ("nvidia.dali.plugin.paddle", "DALIGenericIterator([p], ['data', 'label'], reader_name='Reader')",
     "the paddle plugin needs CUDA"),
    ("nvidia.dali.plugin.mxnet", "DALIGenericIterator([p], [('data', 0), ('label', 1)], reader_name='Reader')",
     "the mxnet plugin needs CUDA"),
    ("nvidia.dali.plugin.tf", "DALIIterator()", "graph op DALIIterator()"),
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
    namespace = {}
    exec(frameworks.TF_SOURCE, namespace)  # the very text the migration writes
    return namespace["TFDataset"]


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
