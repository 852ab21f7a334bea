"""A dataset wrapper class (as speech and segmentation projects write their DALI data layers): __init__ makes a
Pipeline(exec_async=True, exec_pipelined=True) and fills it in `with self.pipe:`, choosing its reader by an
if/elif/else chain over build-time arguments (a list of files, or a root folder with a file list, else a
ValueError) and ending with a build-time `if not self.featurize: ... self.pipe.set_outputs(...)` /
`else: ... self.pipe.set_outputs(...)`; then build() and a DALIGenericIterator with reader_name=, DROP or PARTIAL
by a flag, dynamic_shape=True and auto_reset=True, which the class's own __iter__/__next__/reset/__len__ use."""

import argparse
import glob
import os

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class ClipDataLayer:
    def __init__(self, batch_size, files=None, labels=None, root=None, file_list=None, featurize=False,
                 drop_last=False, shuffle=False, workers=2):
        self.featurize = featurize
        self.pipe = Pipeline(batch_size=batch_size, num_threads=workers, device_id=None, exec_async=True,
                             exec_pipelined=True)
        with self.pipe:
            if root is None and file_list is None:
                encoded, label = fn.readers.file(name="Reader", files=files, labels=labels,
                                                 random_shuffle=shuffle, seed=17)
            elif root is not None and file_list is not None:
                encoded, label = fn.readers.file(name="Reader", file_root=root, file_list=file_list)
            else:
                raise ValueError("give both root and file_list, or neither")
            signal = fn.resize(fn.decoders.image(encoded), size=(6, 8))
            signal_len = fn.shapes(signal)
            if not self.featurize:
                signal = fn.cast(signal, dtype=types.FLOAT) / 255.0
                self.pipe.set_outputs(signal, signal_len, label)
            else:
                features = fn.reductions.mean(fn.cast(signal, dtype=types.FLOAT), axes=[2])
                features_len = fn.shapes(features)
                self.pipe.set_outputs(features, features_len, label)
        self.output_map = ["signal", "signal_len", "label"]
        self.pipe.build()
        self._iter = DALIGenericIterator([self.pipe], self.output_map, reader_name="Reader",
                                         last_batch_policy=LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL,
                                         dynamic_shape=True, auto_reset=True)

    def __iter__(self):
        return self

    def __next__(self):
        dali_out = self._iter.__next__()[0]
        return tuple(dali_out[name] for name in self.output_map)

    def reset(self):
        self._iter.reset()

    def __len__(self):
        return len(self._iter)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("images")
    parser.add_argument("filelist")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.images, "*", "*.jpg")))
    layers = {
        "files": lambda: ClipDataLayer(4, files=files, labels=list(range(len(files)))),
        "files-featurized-drop": lambda: ClipDataLayer(3, files=files, labels=[i % 4 for i in range(len(files))],
                                                       featurize=True, drop_last=True, shuffle=True),
        "file-list-featurized": lambda: ClipDataLayer(4, root=args.images, file_list=args.filelist, featurize=True),
    }
    for name, make in layers.items():
        layer = make()
        print(name, "batches per epoch", len(layer))
        for epoch in range(args.epochs):
            for step, (signal, signal_len, label) in enumerate(layer):
                print(name, epoch, step, tuple(signal.shape), signal.dtype, round(float(signal.sum()), 3),
                      signal_len.tolist(), label.ravel().tolist())
    try:
        ClipDataLayer(4, root=args.images)
    except ValueError as error:
        print("refused:", error)


if __name__ == "__main__":
    main()
