"""``JaxEpochIterator``: what the JAX plugin's DALIGenericIterator gave (``transforms/unroll/frameworks.py``)."""

from .epoch_iterator import EpochIterator


class JaxEpochIterator(EpochIterator):
    """Epochs of {name: jax.Array} over a dynamic-mode pipeline, as the JAX plugin's DALIGenericIterator gave.

    Written by dali-migrate: it counts as EpochIterator does, and hands each output to JAX through DLPack.
    Several pipelines give their outputs stacked (as the plugin did for shards on one device). Over pipelines
    still in pipeline mode it is the JAX plugin's own iterator.
    """

    @staticmethod
    def _plugin_class():
        import importlib

        return getattr(importlib.import_module("nvidia.dali.plugin.jax"), "DALIGenericIterator")

    def _convert(self, steps, keep):
        import jax.dlpack
        import jax.numpy as jnp
        import nvidia.dali.experimental.dynamic as ndd

        outputs = [{name: jax.dlpack.from_dlpack(ndd.as_tensor(batch))[:n] for name, batch in zip(self.output_map, step)}
                   for step, n in zip(steps, keep)]
        if len(outputs) == 1:
            return outputs[0]
        return {name: jnp.stack([output[name] for output in outputs]) for name in self.output_map}
