"""Pipeline subclasses (define_graph) and legacy ops objects: filled in next step."""

from .model import CannotUnroll


def describe_class(unroller, node):
    raise CannotUnroll("Pipeline subclasses are not unrolled yet", node)


def emit_class(unroller, desc, original, updated):
    return updated
