"""An import block emptied by pruning keeps a `pass` so the code still parses."""

try:
    import nvidia.dali.fn as fn
except ImportError:
    pass

if True: import nvidia.dali.math as dmath


def run(images):
    return fn.flip(images)
