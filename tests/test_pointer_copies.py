"""Copies through a raw pointer (``data.copy_to_external(ctypes.c_void_p(t.data_ptr()))``, as detection
loaders convert their samples to torch), run on the installed DALI in both modes: the migrated
``t.view(d.dtype).view_as(d).copy_(d)`` (``d = data.torch()``) writes the same bytes into the same tensor,
also where t's dtype or shape differ from the data's (copy_to_external converted nothing and checked no shape)."""

import textwrap

import pytest

torch = pytest.importorskip("torch")

from dali_migrate import migrate_source  # noqa: E402
from runtime import load, make_images  # noqa: E402

SOURCE = textwrap.dedent('''
    import ctypes

    import torch
    import nvidia.dali.fn as fn
    import nvidia.dali.types as types
    from nvidia.dali import pipeline_def


    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe(root):
        jpegs, labels = fn.readers.file(file_root=root)
        images = fn.resize(fn.decoders.image(jpegs), resize_x=4, resize_y=4)
        return fn.cast(images, dtype=types.FLOAT), labels, images


    def copies(root, steps):
        p = pipe(root)
        p.build()
        out = []
        for _ in range(steps):
            floats, labels, images = p.run()
            ids = torch.empty(3, dtype=torch.int32)
            labels.copy_to_external(ctypes.c_void_p(ids.data_ptr()))  # a (3, 1) batch into a (3,) tensor
            bits = torch.zeros(3, dtype=torch.float32)
            labels.copy_to_external(ctypes.c_void_p(bits.data_ptr()))  # int32 bytes into float32: unconverted
            for i in range(3):
                sample = floats[i]
                datum = torch.zeros(sample.shape(), dtype=torch.float)
                pointer = ctypes.c_void_p(datum.data_ptr())
                sample.copy_to_external(pointer)
                flat = torch.zeros(4 * 4 * 3, dtype=torch.uint8)
                images[i].copy_to_external(ctypes.c_void_p(flat.data_ptr()))  # HWC into a flat buffer
                out.append((datum, flat))
            out.append((ids, bits))
        return out


    def too_large(root):
        p = pipe(root)
        p.build()
        floats, _, _ = p.run()
        buffer = torch.full((60,), -1.0)
        floats[0].copy_to_external(ctypes.c_void_p(buffer.data_ptr()))
        return buffer
''')


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    result = migrate_source(SOURCE, "pointer_copies.py")
    assert result.error is None and not [f for f in result.findings if not f.fixed]
    return load(SOURCE, "pointer_original"), load(result.migrated, "pointer_migrated"), result.migrated


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return str(make_images(tmp_path_factory.mktemp("images"), count=7, classes=3))


def test_the_migration_copies_the_same_bytes(modules, root):
    original, migrated, text = modules
    assert "copy_to_external" not in text and "ctypes" not in text
    want, got = original.copies(root, 4), migrated.copies(root, 4)
    assert len(want) == len(got) == 16
    for (a, b), (c, d) in zip(want, got):
        assert a.dtype == c.dtype and b.dtype == d.dtype and a.shape == c.shape and b.shape == d.shape
        assert torch.equal(a.view(torch.uint8), c.view(torch.uint8)) and torch.equal(b.view(torch.uint8),
                                                                                     d.view(torch.uint8))
    labels = [got[step * 4 + 3] for step in range(4)]
    for ids, bits in labels:
        assert torch.equal(bits.view(torch.int32), ids)  # the labels' bits, not their values as floats
    assert sorted({int(i) for ids, _ in labels for i in ids}) == [0, 1, 2]


def test_a_tensor_with_more_bytes_than_the_data_raises_after_migration(modules, root):
    """copy_to_external wrote the 48 floats of the sample over the first 48 of the 60; the migrated view
    needs the same number of bytes and raises: the one difference, and a loud one."""
    original, migrated, _ = modules
    buffer = original.too_large(root)
    assert (buffer[48:] == -1).all() and (buffer[:48] != -1).all()
    with pytest.raises(RuntimeError, match="shape"):
        migrated.too_large(root)
