"""The migration passes, in the order they run. One pass per module, one job per pass."""

from .imports import ImportsPass
from .rename import RenamePass

PASSES = [
    RenamePass(),
    ImportsPass(),  # last: prunes what the other passes left unused
]
