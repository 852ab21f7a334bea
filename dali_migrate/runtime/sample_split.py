"""``SampleSplit``: pipeline mode's per-sample ``if`` (``@pipeline_def(enable_conditionals=True)``) in dynamic mode.

The migration's side is ``transforms/unroll/per_sample.py``.
"""


class SampleSplit:
    """The samples of a batch split by a per-sample condition, as pipeline mode's `if` on a DataNode split them.

    Written by dali-migrate. ``then`` lists the samples where the condition holds, ``orelse`` the others (an empty
    list: no sample takes that branch, which is then skipped). ``then_part(batch)`` and ``else_part(batch)`` are the
    samples of ``batch`` each branch runs on; ``merge(then_value, else_value)`` puts a value the branches computed
    back together in sample order. The condition must hold one scalar per sample (a bool, or a number: nonzero is
    true), as pipeline mode required; a plain Python value (with the batch size) sends every sample one way.
    """

    def __init__(self, condition, batch_size=None):
        import numpy as np
        import nvidia.dali.experimental.dynamic as ndd

        if not isinstance(condition, (ndd.Batch, ndd.Tensor)):  # `flag and c` where flag is false: a plain Python
            condition = [np.asarray(bool(condition))] * batch_size  # if in pipeline mode, for every sample
        flags = []
        for sample in condition:
            value = np.asarray(sample.cpu() if hasattr(sample, "cpu") else sample)
            if value.ndim != 0:
                raise ValueError(f"Conditions inside `if` statements are restricted to scalar (0-d tensors) inputs, as "
                                 f"in pipeline mode; got a {value.ndim}-d input as a condition of the `if` statement.")
            flags.append(bool(value))
        self.batch_size = len(flags)
        self.then = [i for i, flag in enumerate(flags) if flag]
        self.orelse = [i for i, flag in enumerate(flags) if not flag]

    def then_part(self, value):
        """The samples of ``value`` where the condition holds (a tuple, list or dict: of each of its values; a value
        that is not a batch: itself)."""
        return self._part(value, self.then)

    def else_part(self, value):
        """The samples of ``value`` where it does not hold (as ``then_part``)."""
        return self._part(value, self.orelse)

    def _part(self, value, samples):
        import nvidia.dali.experimental.dynamic as ndd

        if isinstance(value, (tuple, list)):
            return type(value)(self._part(item, samples) for item in value)
        if isinstance(value, dict):
            return {key: self._part(item, samples) for key, item in value.items()}
        if not isinstance(value, ndd.Batch):
            return value
        if value.batch_size != self.batch_size:
            raise ValueError(f"a batch of {value.batch_size} samples in a branch of a condition over "
                             f"{self.batch_size} samples")
        # (Batch.select of a list returns the whole batch in DALI 2.4.0: the samples one by one)
        return ndd.as_batch([value.select(i) for i in samples])

    def merge(self, then_value, else_value):
        """The branches' values of one variable in sample order: sample i from the branch that sample took
        (``None`` for a branch no sample took). Like pipeline mode, both must agree in type, dimensions and layout,
        tuples, lists and dicts in their structure (merged item by item), and a plain value (a number, an array) in
        a branch is a constant of each sample, typed as pipeline mode typed it (int64 to int32, float64 to float32)."""
        return self._merge([(value, indices) for value, indices in ((then_value, self.then),
                                                                    (else_value, self.orelse)) if indices])

    def _merge(self, parts):
        import numpy as np
        import nvidia.dali.experimental.dynamic as ndd

        first = parts[0][0]
        if isinstance(first, (tuple, list, dict)):
            shapes = {(type(v), tuple(v) if isinstance(v, dict) else len(v)) if isinstance(v, (tuple, list, dict))
                      else type(v) for v, _ in parts}
            if len(shapes) > 1:
                raise ValueError("Divergent data found in different branches of `if/else` control flow statement: "
                                 "a variable must have the same nesting structure in every branch, as in pipeline "
                                 "mode")
            keys = list(first) if isinstance(first, dict) else range(len(first))
            merged = [self._merge([(v[key], indices) for v, indices in parts]) for key in keys]
            return dict(zip(keys, merged)) if isinstance(first, dict) else type(first)(merged)
        samples = [None] * self.batch_size
        kinds = set()
        for value, indices in parts:
            batch = isinstance(value, ndd.Batch)
            if batch and value.batch_size != len(indices):
                raise ValueError(f"a branch computed {value.batch_size} samples for {len(indices)} that took it")
            if not batch and not isinstance(value, ndd.Tensor):  # a constant, as pipeline mode's Constant typed it
                array = np.asarray(value)
                narrowed = {"float64": np.float32, "int64": np.int32, "uint64": np.uint32}.get(str(array.dtype))
                value = ndd.as_tensor(array.astype(narrowed) if narrowed else array)
            for k, i in enumerate(indices):
                samples[i] = value.select(k) if batch else value
                kinds.add((samples[i].dtype, samples[i].ndim, samples[i].layout or None))
        if len(kinds) > 1:
            raise ValueError("Divergent data found in different branches of `if/else` control flow statement: "
                             "the values merged into one batch must have the same type, number of dimensions and "
                             "layout, as in pipeline mode; got " + ", ".join(sorted(map(str, kinds))))
        return ndd.as_batch(samples)
