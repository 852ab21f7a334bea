"""`with self.pipe:` whose reader is chosen by an if/elif/else chain over build-time arguments and whose block
ends with set_outputs in each branch of a build-time if/else (a speech data layer's shape): each branch
yields its own outputs; the stream lists whichever reader the chain made, for reader_name=."""

import nvidia.dali.fn as fn
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


class AudioLayer:
    def __init__(self, batch_size, manifest=None, root=None, file_list=None, has_preprocessor=False, drop_last=False):
        self.pipe = Pipeline(batch_size=batch_size, num_threads=4, device_id=0, exec_async=True,
                             exec_pipelined=True)
        with self.pipe:
            if root is None and file_list is None:
                audio, idx = fn.readers.file(name="Reader", files=manifest, random_shuffle=True, seed=1)
            elif root is not None and file_list is not None:
                audio, idx = fn.readers.file(name="Reader", file_root=root, file_list=file_list)
            else:
                raise ValueError("root and file_list go together")
            audio, _ = fn.decoders.audio(audio, downmix=True)
            audio_len = fn.shapes(audio)
            if not has_preprocessor:
                # the raw signal
                self.pipe.set_outputs(audio, audio_len, idx)
            else:
                spec = fn.spectrogram(audio, nfft=64, window_length=64, window_step=32)
                spec_len = fn.shapes(spec)
                self.pipe.set_outputs(spec, spec_len, idx)
        self.output_map = ["audio", "audio_len", "idx"]
        self.pipe.build()
        self._iter = DALIGenericIterator([self.pipe], self.output_map, reader_name="Reader",
                                         last_batch_policy=LastBatchPolicy.DROP if drop_last else LastBatchPolicy.PARTIAL,
                                         dynamic_shape=True, auto_reset=True)

    def __next__(self):
        dali_out = self._iter.__next__()[0]
        return [dali_out[name] for name in self.output_map]

    def __len__(self):
        return len(self._iter)
