"""Graph parts whose reader call is returned as it is, with no name bound to its outputs first."""
import nvidia.dali.fn as fn


def files(root):
    return fn.readers.file(file_root=root, name="Reader", pad_last_batch=True)


def shuffled_files(root):
    return fn.readers.file(file_root=root, random_shuffle=True, seed=11)  # its own seed: the same order in both modes
