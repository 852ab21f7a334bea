"""Facts about the installed DALI that lint rules and the flow model depend on, derived at run time.

The linter must run where DALI is not installed, so each fact has a recorded default (what DALI
2.4.0 says; ``tests/test_lint_derive.py`` checks each default against the installed DALI).
DALI is imported only when a rule needs the fact, and only once.
"""

from __future__ import annotations

import inspect
from functools import lru_cache

# -- capture= (2.4.0) vs compile= (older upstream revisions) -----------------------------------
# The keyword of Reader.next_epoch, the ExternalSource method and the ndd submodule, per spelling.
SPELLINGS = {
    "capture": {"keyword": "capture", "method": "captured", "module": "capture"},
    "compile": {"keyword": "compile", "method": "compiled", "module": "compile"},
}
RECORDED_TRACE_SPELLING = "capture"  # DALI 2.4.0: next_epoch(batch_size=None, ctx=None, capture=False)


@lru_cache(maxsize=1)
def trace_spelling() -> tuple[str, str]:
    """``(spelling, source)``: "capture" or "compile" as the installed DALI names the feature, and
    where that came from ("installed DALI x.y" or "recorded default")."""
    try:
        import nvidia.dali as dali
        import nvidia.dali.experimental.dynamic as ndd

        params = inspect.signature(ndd.readers.File.next_epoch).parameters
    except Exception:  # not installed, or an import that fails: use what 2.4.0 says
        return RECORDED_TRACE_SPELLING, "recorded default (DALI 2.4.0)"
    for spelling in SPELLINGS:
        if spelling in params:
            return spelling, f"installed DALI {getattr(dali, '__version__', '?')}"
    return RECORDED_TRACE_SPELLING, "recorded default (DALI 2.4.0)"


# -- operators that may return several outputs ------------------------------------------------
# ``x = ndd.random_bbox_crop(...)`` is a tuple, so ``x[0]`` is fine there. Derived from each
# schema: CalculateOutputs() != 1 for a default spec, or an output function (dynamic count).
RECORDED_MULTI_OUTPUT = frozenset({
    "bbox_rotate", "box_encoder", "decoders.audio", "element_extract", "experimental.resize",
    "nonsilent_region", "random_bbox_crop", "random_crop_generator", "resize",
    "segmentation.random_object_bbox", "segmentation.select_masks",
})
# Ops whose extra outputs appear only when an argument asks for them (reviewed by hand: the
# schema does not say which argument drives its output function).
EXTRA_OUTPUTS_ONLY_WITH = {"resize": "save_attrs", "experimental.resize": "save_attrs"}


def derive_multi_output_ops() -> frozenset[str]:
    """Recompute ``RECORDED_MULTI_OUTPUT`` from the installed DALI (for the test and the table)."""
    from nvidia.dali import backend

    from . import optable

    found = set()
    for path, entry in optable.table()["fn"].items():
        if not entry.get("ndd") or entry.get("kind") == "reader":
            continue
        schema = backend.GetSchema(entry["schema"])
        try:
            spec = backend.OpSpec(entry["schema"])
            count = schema.CalculateOutputs(spec) + schema.CalculateAdditionalOutputs(spec)
        except Exception:  # needs arguments to know: may be several
            count = None
        if count != 1 or schema.HasOutputFn():
            found.add(entry["ndd"])
    return frozenset(found)


def may_have_several_outputs(op: str, keywords: set[str]) -> bool:
    if op not in RECORDED_MULTI_OUTPUT:
        return False
    needs = EXTRA_OUTPUTS_ONLY_WITH.get(op)
    return needs is None or needs in keywords
