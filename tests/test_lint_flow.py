"""Value-following (the rules see Batches through names, loops and calls) and negative cases (the
rules stay quiet on lists, numpy, pandas and code without DALI)."""

import textwrap

import pytest

from dali_migrate.lint import lint_source

H = "import nvidia.dali.experimental.dynamic as ndd\nimport numpy as np\n"


def found(src, header=H):
    text = header + textwrap.dedent(src).lstrip("\n")
    result = lint_source(text, "t.py")
    assert result.error is None, result.error
    offset = header.count("\n")
    return sorted((f.rule, f.line - offset) for f in result.findings)


POSITIVE = {
    "as_batch assigned, then indexed": ("""
        b = ndd.as_batch(samples)
        x = b[0]
        """, [("DM302", 2)]),
    "ndd.batch through two names": ("""
        b = ndd.batch(samples)
        c = b
        n = len(c)
        """, [("DM303", 3)]),
    "next_epoch loop targets": ("""
        reader = ndd.readers.File(file_root="d")
        for jpegs, labels in reader.next_epoch(batch_size=4):
            n = len(labels)
        """, [("DM303", 3)]),
    "next_epoch single target, then subscript gives a Batch": ("""
        reader = ndd.readers.File(file_root="d")
        for outs in reader.next_epoch(batch_size=4):
            images = outs[0]
            first = images[0]
        """, [("DM302", 4)]),
    "enumerate over next_epoch": ("""
        reader = ndd.readers.File(file_root="d")
        for i, (jpegs, labels) in enumerate(reader.next_epoch(batch_size=4)):
            arr = np.asarray(labels)
        """, [("DM306", 3)]),
    "op result keeps a Batch through reassignment": ("""
        reader = ndd.readers.File(file_root="d")
        for jpegs, labels in reader.next_epoch(batch_size=4):
            images = ndd.decoders.image(jpegs)
            images = ndd.resize(images, size=[8, 8])
            if images:
                pass
        """, [("DM307", 5)]),
    "annotated parameter": ("""
        def count(b: ndd.Batch):
            return len(b)
        """, [("DM303", 2)]),
    "module-level Batch used in a function": ("""
        b = ndd.as_batch(samples)
        def f():
            return b[1]
        """, [("DM302", 3)]),
    "Tensor truth value, comparison and not": ("""
        t = ndd.as_tensor(0)
        while not t > 0:
            break
        y = 1 if t else 2
        """, [("DM307", 2), ("DM307", 4)]),
    "op with batch_size is a Batch": ("""
        angles = ndd.random.uniform(batch_size=4, range=(0, 1))
        a = angles[0]
        """, [("DM302", 2)]),
    "select(slice(...)) on a reader batch": ("""
        reader = ndd.readers.File(file_root="d")
        for jpegs, labels in reader.next_epoch(batch_size=4):
            head = labels.select(slice(0, 2))
        """, [("DM305", 3)]),
    "select through a name as an op argument": ("""
        xy = ndd.random.uniform(batch_size=4, range=[0, 1], shape=2)
        cx = xy.select(0)
        out = ndd.crop(images, crop=(2, 2), crop_pos_x=cx)
        """, [("DM304", 2)]),
    "random op assigned, then fed to an op": ("""
        flip = ndd.random.coin_flip(probability=0.5)
        images = ndd.flip(images, horizontal=flip)
        """, [("DM312", 1)]),
    "aliased import": ("""
        import nvidia.dali.experimental.dynamic as dyn
        r = dyn.readers.file(file_root="d")
        """, [("DM310", 2)]),
    "from-import of the module": ("""
        from nvidia.dali.experimental import dynamic
        b = dynamic.as_batch(samples)
        x = b[0]
        """, [("DM302", 3)]),
    "reader in a while loop": ("""
        while True:
            reader = ndd.readers.File(file_root="d")
            for a, b in reader.next_epoch(batch_size=2):
                pass
        """, [("DM308", 2)]),
    "break with a later next_epoch call": ("""
        reader = ndd.readers.File(file_root="d")
        for a, b in reader.next_epoch(batch_size=2):
            break
        for a, b in reader.next_epoch(batch_size=2):
            pass
        """, [("DM311", 3)]),
    "mixed on a reader": ("""
        reader = ndd.readers.File(file_root="d", device='mixed')
        """, [("DM301", 1)]),
    "capture module under the old name": ("""
        x = ndd.compile.invariant(3)
        """, [("DM318", 1)]),
    "cpu before torch to a cuda device": ("""
        import torch
        y = images.cpu().torch().to(torch.device("cuda:0"))
        z = images.cpu().torch().to("cuda")
        """, [("DM315", 2), ("DM315", 3)]),
    "evaluate right on an op": ("""
        x = ndd.decoders.image(jpegs).evaluate()
        y = ndd.resize(x, size=[8, 8]).evaluate()
        """, [("DM314", 1), ("DM314", 2)]),
    "gpu data through the host into a model": ("""
        reader = ndd.readers.File(file_root="d")
        for jpegs, labels in reader.next_epoch(batch_size=2):
            images = ndd.decoders.image(jpegs, device="gpu")
            images = ndd.resize(images, size=[8, 8])
            loss = train_step(images.cpu().torch(), labels.torch())
            crops = ndd.crop(labels.gpu(), crop=(1, 1))
            out = self.model(crops.cpu().torch())
        """, [("DM315", 5), ("DM315", 7)]),
}


@pytest.mark.parametrize("name", POSITIVE)
def test_follows_values(name):
    src, expected = POSITIVE[name]
    assert found(src) == expected


NEGATIVE = {
    "pandas .at and .iloc": """
        import pandas as pd
        df = pd.DataFrame({"a": [1]})
        v = df.at[0, "a"]
        w = df.iloc[0]
        if df.empty:
            pass
        """,
    "a list indexed and measured": """
        x = [1, 2, 3]
        y = x[0]
        n = len(x)
        if x:
            pass
        """,
    "numpy array in np.asarray": """
        a = np.zeros(3)
        b = np.asarray(a)
        c = np.asarray([1, 2])
        """,
    "a Tensor may be indexed and converted": """
        t = ndd.as_tensor(np.zeros((2, 3)))
        row = t[1]
        arr = np.asarray(t)
        """,
    "batch .slice[] and .select(i) are the right API": """
        b = ndd.as_batch(samples)
        first = b.select(0)
        inner = b.slice[0]
        size = b.batch_size
        arr = np.asarray(ndd.as_tensor(b))
        if b.batch_size > 2:
            pass
        """,
    "a name bound to a Batch and to a list is unknown": """
        x = ndd.as_batch(samples)
        if cond:
            x = [1, 2]
        n = len(x)
        """,
    "a shadowed len": """
        def len(v):
            return 3
        b = ndd.as_batch(samples)
        n = len(b)
        """,
    "a parameter without annotation": """
        def f(batch):
            return len(batch), batch[0]
        """,
    "a comprehension variable shadows nothing": """
        b = ndd.as_batch(samples)
        lens = [len(b) for b in lists]
        """,
    "reader per folder in a loop": """
        for root in roots:
            reader = ndd.readers.File(file_root=root)
            for a, b in reader.next_epoch(batch_size=2):
                pass
        """,
    "break in the last epoch loop": """
        reader = ndd.readers.File(file_root="d")
        for a, b in reader.next_epoch(batch_size=2):
            break
        """,
    "break in a nested non-epoch loop": """
        reader = ndd.readers.File(file_root="d")
        for epoch in range(2):
            for a, b in reader.next_epoch(batch_size=2):
                for x in range(3):
                    break
        """,
    "random op with a Batch argument or batch_size": """
        reader = ndd.readers.File(file_root="d")
        for a, b in reader.next_epoch(batch_size=2):
            c = ndd.random.coin_flip(batch_size=2)
            d = ndd.random.uniform(b)
            e = ndd.random.uniform(range=rng_range)
        """,
    "a lone random scalar is fine": """
        angle = ndd.random.uniform(range=(0, 1))
        """,
    "multi-output op result indexed": """
        reader = ndd.readers.File(file_root="d")
        for a, b in reader.next_epoch(batch_size=2):
            crop = ndd.random_bbox_crop(b, bbox_layout="xyXY")
            anchor = crop[0]
        """,
    "metadata with max_batch_size or after the first epoch": """
        r1 = ndd.readers.File(file_root="d", max_batch_size=4)
        m = r1.get_metadata()
        for a, b in r1.next_epoch(batch_size=4):
            pass
        r2 = ndd.readers.File(file_root="d")
        for a, b in r2.next_epoch(batch_size=4):
            pass
        m2 = r2.get_metadata()
        """,
    "register before the first epoch": """
        reader = ndd.readers.File(file_root="d")
        ckpt = ndd.checkpoint.Checkpoint()
        ckpt.load("c_{seq}.json")
        ckpt.register(reader, "r")
        for a, b in reader.next_epoch(batch_size=4):
            pass
        """,
    "a single evaluate on a value": """
        x = ndd.decoders.image(jpegs)
        x.evaluate()
        """,
    "cpu data, or gpu data read on the host, through cpu and torch": """
        reader = ndd.readers.File(file_root="d")
        for jpegs, labels in reader.next_epoch(batch_size=2):
            images = ndd.decoders.image(jpegs)
            out = model(images.cpu().torch())
            on_gpu = ndd.decoders.image(jpegs, device="gpu")
            back = ndd.resize(on_gpu, size=[8, 8], device="cpu")
            out = model(back.cpu().torch())
            a = np.asarray(on_gpu.cpu().torch())
            print(on_gpu.cpu().torch())
            kept = on_gpu.cpu().torch()
        """,
    "torch to cpu consumer": """
        y = images.cpu().torch().numpy()
        """,
    "device mixed outside ndd": """
        import nvidia.dali.fn as fn
        images = fn.decoders.image(jpegs, device="mixed")
        """,
}


@pytest.mark.parametrize("name", NEGATIVE)
def test_quiet(name):
    assert found(NEGATIVE[name]) == []


def test_no_dali_at_all_is_never_linted():
    text = "x = [1]\nif x:\n    y = x[0]\nn = len(x)\nimport numpy as np\nz = np.asarray(x)\n"
    assert lint_source(text).findings == []
    # Even code that looks like ndd code is not DALI unless ndd is imported.
    text = "b = ndd.as_batch(s)\nn = len(b)\nimages = ndd.decoders.image(j, device='mixed')\n"
    assert lint_source(text).findings == []
