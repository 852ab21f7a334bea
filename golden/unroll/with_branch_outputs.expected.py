"""`with self.pipe:` whose reader is chosen by an if/elif/else chain over build-time arguments and whose block
ends with set_outputs in each branch of a build-time if/else (a speech data layer's shape): each branch
yields its own outputs; the stream lists whichever reader the chain made, for reader_name=."""

import nvidia.dali.experimental.dynamic as ndd
from dali_dynamic_compat import EpochIterator, Prefetch, ReaderStream  # written by dali-migrate (migrate --write recreates it)


class AudioLayer:
    def __init__(self, batch_size, manifest=None, root=None, file_list=None, has_preprocessor=False, drop_last=False):
        def pipe_steps(*, batch_size=batch_size):
            def endless(reader):  # one reader's batches, epoch after epoch, as pipe.run() read them
                while True:
                    yield from reader.next_epoch(batch_size=batch_size)

            if root is None and file_list is None:
                reader = ndd.readers.File(name="Reader", files=manifest, random_shuffle=True, seed=1, max_batch_size=batch_size)
                batches = endless(reader)
            elif root is not None and file_list is not None:
                reader_2 = ndd.readers.File(name="Reader", file_root=root, file_list=file_list, max_batch_size=batch_size)
                batches_2 = endless(reader_2)
            else:
                raise ValueError("root and file_list go together")

            @Prefetch(depth=2)
            def steps():
                if ndd.get_num_threads() < 4:
                    ndd.set_num_threads(4)  # grow only: shrinking it after use hangs DALI 2.4
                while True:
                    if root is None and file_list is None:
                        audio, idx = next(batches)
                    elif root is not None and file_list is not None:
                        audio, idx = next(batches_2)
                    audio, _ = ndd.decoders.audio(audio, downmix=True)
                    audio_len = ndd.as_batch(audio.shape, dtype=ndd.int64, device=audio.device)
                    if not has_preprocessor:
                        # the raw signal
                        yield audio, audio_len, idx
                    else:
                        spec = ndd.spectrogram(audio, nfft=64, window_length=64, window_step=32)
                        spec_len = ndd.as_batch(spec.shape, dtype=ndd.int64, device=spec.device)
                        yield spec, spec_len, idx

            return ReaderStream(steps(), {**({"Reader": reader} if (root is None and file_list is None) else {}), **({"Reader": reader_2} if not (root is None and file_list is None) and (root is not None and file_list is not None) else {})}, batch_size)
        self.pipe = pipe_steps()
        self.output_map = ["audio", "audio_len", "idx"]
        self._iter = EpochIterator([self.pipe], self.output_map, reader_name="Reader", last_batch_policy="DROP" if drop_last else "PARTIAL", auto_reset=True)

    def __next__(self):
        dali_out = self._iter.__next__()[0]
        return [dali_out[name] for name in self.output_map]

    def __len__(self):
        return len(self._iter)
