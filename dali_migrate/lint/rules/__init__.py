"""The DM3xx lint rules, one module per small family. Importing this package registers them."""

from . import batch_api, checkpoints, devices, execution, pipeline_api, randomness, readers  # noqa: F401
