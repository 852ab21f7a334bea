"""The names of the run-time helper classes migrated code imports from the project's helper module (their code is
``dali_migrate/runtime``): one place below the steps that write them (``epoch_iterator``, ``stream``,
``prefetch``, ``frameworks``, ``per_sample``) and ``helpers``, which says what each one holds and how to drop it."""

from __future__ import annotations

from ...dataflow import STREAM_CLASS, TF_OP_CLASS  # the flow model knows these classes' values by name

EPOCH_ITERATOR = "EpochIterator"
READER_STREAM = STREAM_CLASS
PREFETCH = "Prefetch"
JAX_ITERATOR = "JaxEpochIterator"
TF_DATASET = "TFDataset"
TF_ITERATOR = TF_OP_CLASS
SAMPLE_SPLIT = "SampleSplit"
