"""The class a module whose code used DALIGenericIterator / DALIClassificationIterator imports (its code:
``dali_migrate/runtime/epoch_iterator.py``).

It is plain Python over the migrated pipelines (iterators that yield one tuple of ndd.Batch per
step, crossing epochs like pipe.run()); it counts samples per epoch the way the plugin does
(nvidia/dali/plugin/base_iterator.py, DALI 2.4.0: its counter, and with reader_name its per-shard
counters, shard sizes and shard moves, step for step), so batches per epoch, their content, size/_size
and len() match, sharded readers included (docs/dali-facts.md). Over several pipelines (one per GPU,
each reading its own shard) a step is one dict per pipeline, as the plugin's: with reader_name the
counter counts one pipeline's samples and PARTIAL cuts each pipeline's batch to what is left of the
shard it reads; with size= the counter counts all pipelines' samples and PARTIAL returns only the
pipelines that still hold samples of the epoch, the last one cut. Like the plugin it reads and counts its
first batch when it is made (unless prepare_first_batch=False) and gives it first. ``next()`` is a method and
the plugin's instance attributes (ITERATOR_ATTRS: ``output_map``, ``batch_size``, ``_num_gpus``, ``_size``,
``_counter``, ``_first_batch``, ``_last_batch_policy`` as a LastBatchPolicy member, ``_auto_reset`` as "yes"/"no",
...) hold the plugin's values at the same times, for subclasses and code it is handed to
(units.ITERATOR_HANDED_ON); ``last_batch_policy`` and ``auto_reset`` take the plugin's values (a LastBatchPolicy
member, or its name as the migration writes it; "yes"/"no") and refuse others as it does. Over pipeline-mode
pipelines a subclass's reads and writes of the plugin's state go to the plugin's iterator, which holds it.
"""

from .helper_classes import EPOCH_ITERATOR

CLASS_NAME = EPOCH_ITERATOR
POLICIES = ("FILL", "DROP", "PARTIAL")
# What the migrated iterator (EpochIterator) has with the plugin iterator's meaning and values (docs/dali-facts.md):
# its methods, and the instance attributes that hold the same values at the same times as the installed plugin's
# (tests/test_unroll_runtime.py::test_iterator_private_state_is_the_plugins derives them by running both). Not among
# them: checkpoints(), _pipes (pipeline-mode objects) and the per-shard numpy arrays (_shards_id, _counter_per_gpu,
# _shard_sizes_per_gpu, _shard_sizes_per_gpu_initial).
ITERATOR_ATTRS = frozenset({"reset", "size", "__len__", "__iter__", "__next__", "next",
                            "_size", "batch_size", "output_map", "_num_gpus", "_counter", "_first_batch",
                            "_ever_consumed", "_ever_scheduled", "_auto_reset", "_last_batch_policy",
                            "_last_batch_padded", "_prepare_first_batch", "_reader_name", "_output_categories",
                            "_enable_checkpointing", "_size_no_pad", "_shards_num", "_is_stick_to_shard"})


def policy_member(imports, node) -> str | None:
    """``X`` for a reference to the plugins' ``LastBatchPolicy.X`` (by its qualified name), else None."""
    import libcst as cst

    if not isinstance(node, cst.Attribute) or node.attr.value not in POLICIES:
        return None
    qualname = imports.qualname(node.value)
    if qualname and qualname.startswith("nvidia.dali.plugin.") and qualname.endswith(".LastBatchPolicy"):
        return node.attr.value
    return None


