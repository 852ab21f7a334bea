"""Framework plugins besides PyTorch: TensorFlow's DALIDataset and JAX's DALIGenericIterator.

``nvidia.dali.plugin.tf.DALIDataset(pipeline=..., output_dtypes=..., output_shapes=...)`` becomes
``TFDataset(...)`` with the same arguments: a ``tf.data.Dataset.from_generator`` over the migrated pipeline
whose elements are what DALIDataset gave (DALI 2.4.0, dali_dataset_op.cc, checked against the real plugin
in docs/dali-facts.md): a tuple of tensors even for one output, each of its output_dtype (another dtype is an
error, not a cast), shaped to output_shapes the way the plugin matches shapes (size-1 dimensions of the step
are dropped where exactly one way fits). ``nvidia.dali.plugin.jax.DALIGenericIterator`` becomes
``JaxEpochIterator``: the ``EpochIterator`` (same counting, reader metadata, policies) that gives
``{name: jax.Array}`` through DLPack, as the JAX plugin does for one pipeline.

``nvidia.dali.plugin.tf.DALIIterator()``, the graph op, becomes ``TFIterator()``: called with the op's
arguments it gives the pipeline's next step as a list of tf.Tensors, eagerly or as a ``tf.py_function`` node in
a graph (a tf.function, a TF1 session), with the op's shape and dtype checks (docs/dali-facts.md). It decides at
run time: a pipeline still in pipeline mode goes to the plugin's own op.

What stays marked (DM215): PaddlePaddle and MXNet iterators (their plugins need CUDA, so no adapter was tested
here), TensorFlow's raw op ``DALIRawIterator()``, ``DALIDatasetWithInputs``, JAX's
``data_iterator``/``peekable_data_iterator`` decorators and ``jax_function``.
"""

from __future__ import annotations

import libcst as cst

from ... import dataflow as df
from ...names import dotted
from . import rules
from .epoch_iterator import policy_member
from .helper_classes import JAX_ITERATOR, TF_DATASET, TF_ITERATOR
from .model import code_of, kwarg

TF_NAME = TF_DATASET
TF_OP_NAME = TF_ITERATOR
TF_ITERATOR_OP = df.TF_ITERATOR_OP
JAX_NAME = JAX_ITERATOR
TF_DATASET = "nvidia.dali.plugin.tf.DALIDataset"
JAX_ITERATOR = "nvidia.dali.plugin.jax.DALIGenericIterator"
JAX_ITERATORS = (JAX_ITERATOR, "nvidia.dali.plugin.jax.iterator.DALIGenericIterator")
TF_DATASETS = (TF_DATASET, "nvidia.dali.plugin.tf._DALIDatasetV2")




_NOT_HERE = {
    "nvidia.dali.plugin.tf.DALIRawIterator": "the TensorFlow graph op DALIRawIterator() has no dynamic-mode "
                                             "adapter: feed tf.data.Dataset.from_generator from the migrated "
                                             "pipeline",
}


def why_not(qualname: str) -> str:
    """The DM215 text for a framework plugin name the migration leaves marked."""
    if qualname in _NOT_HERE:
        return _NOT_HERE[qualname]
    name, module = qualname.rsplit(".", 1)[-1], qualname.split(".")[3] if qualname.count(".") >= 3 else "plugin"
    if module in ("paddle", "mxnet"):
        return (f"{name} ({module}) has no dynamic-mode adapter: the {module} plugin needs CUDA, so none was tested; "
                f"iterate the migrated generator and hand each output to {module} through DLPack "
                f"(ndd.as_tensor(batch).__dlpack__())")
    return (f"{name} ({module}) has no dynamic-mode adapter: iterate the migrated generator and convert each "
            f"output through DLPack (ndd.as_tensor(batch))")


def _pipeline_value(call: cst.Call):
    arg = df.pipeline_argument(call)
    return arg.value if arg is not None else None


def _migrated(unroller, node) -> bool:
    """``node`` holds a pipeline this run migrates (a generator, a ReaderStream or a migrated class's object)."""
    if node is None:
        return False
    name = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
    if unroller._pipe_kind_of(node, name) is not None or unroller.streams(node):
        return True
    return name == "self" and unroller.in_migrated_class()


def rewrite_tf_dataset(unroller, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    pipeline = _pipeline_value(original)
    if kwarg(original, "input_datasets") is not None:
        unroller.mark(rules.OTHER_FRAMEWORK.id, "DALIDataset with input_datasets has no dynamic-mode adapter: "
                      "feed the migrated pipeline's external data yourself", original)
        return call
    if any(a.star for a in original.args) and pipeline is None or not _migrated(unroller, pipeline):
        what = code_of(pipeline) if pipeline is not None else "its pipeline"
        unroller.mark(rules.OTHER_FRAMEWORK.id, f"DALIDataset (tf) not migrated: the tool cannot follow {what} to a "
                      f"pipeline it migrated in this module; pass the migrated pipeline to a "
                      f"tf.data.Dataset.from_generator", original)
        return call
    unroller.need_tf_dataset = True
    unroller.report(rules.FRAMEWORK_MIGRATED.id, f"DALIDataset -> {TF_NAME}, written into this module: a "
                    f"tf.data.Dataset.from_generator over the migrated pipeline (same dtypes and shapes; a new "
                    f"iterator continues the stream where DALIDataset restarted the pipeline)", original)
    return call.with_changes(func=cst.Name(TF_NAME))


def rewrite_tf_iterator(unroller, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    """``dali_tf.DALIIterator()`` -> ``TFIterator()``: it takes a migrated pipeline or a kept one (run time)."""
    if original.args:
        unroller.mark(rules.OTHER_FRAMEWORK.id, "DALIIterator() takes no arguments: not migrated", original)
        return call
    unroller.need_tf_iterator = True
    unroller.report(rules.FRAMEWORK_MIGRATED.id, f"DALIIterator() -> {TF_OP_NAME}(), written into this module: the "
                    f"pipeline's next step as tf.Tensors at each call (eager) or each run of its tf.py_function "
                    f"node (graph), shapes and dtypes checked as the op checked them; calls over one pipeline object "
                    f"continue its one stream (the op gave each graph node its own copy)", original)
    return call.with_changes(func=cst.Name(TF_OP_NAME))


def rewrite_jax_iterator(unroller, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
    from .consumers import rewrite_torch_iterator

    policy = kwarg(original, "last_batch_policy")
    if policy is not None and code_of(policy).endswith("PARTIAL"):
        unroller.mark(rules.OTHER_FRAMEWORK.id, "DALIGenericIterator (jax) with last_batch_policy=PARTIAL: the JAX "
                      "plugin refuses it, so there is nothing to keep", original)
        return call
    if policy is not None and policy_member(unroller.ctx.imports, policy) is None:
        unroller.mark(rules.OTHER_FRAMEWORK.id, f"DALIGenericIterator (jax) with last_batch_policy={code_of(policy)}: "
                      f"the JAX plugin refuses PARTIAL, which this value may be at run time; name the member", original)
        return call
    rewritten = rewrite_torch_iterator(unroller, original, call, None, jax=True)
    if isinstance(rewritten, cst.Call) and isinstance(rewritten.func, cst.Name) and rewritten is not call:
        unroller.need_jax_iterator = True
        unroller.report(rules.FRAMEWORK_MIGRATED.id, f"DALIGenericIterator (jax) -> {JAX_NAME}: EpochIterator's "
                        f"counting, outputs as jax.Array through DLPack", original)
        return rewritten.with_changes(func=cst.Name(JAX_NAME))
    return rewritten
