"""The export, stage by stage: the plan, the input kinds, the trace, the saved model checked, the manifest."""

import os
import time

from qinfer_model import format_precision

from . import Refused
from .checkpoint import make_plan
from .checks import check_packages
from .inputs import kinds_of
from .manifest import save_model, write_package
from .patches import attention_swap
from .trace import traced_model


def by_kind(kinds, reports: list):
    """One kind's report as it is (a text model's manifest as before); several keyed by kind."""
    return reports[0] if len(kinds) == 1 else {kind.name: report for kind, report in zip(kinds, reports)}


def export(a) -> dict:
    """The whole export; returns the manifest. Raises Refused or CheckFailed."""
    t0 = time.monotonic()
    plan = make_plan(a.checkpoint, a.task, a.max_tokens, getattr(a, "max_tokens_up_to_positions", False))
    if a.format == "aoti" and "image" in plan.input_kinds:
        raise Refused(f"--format aoti: {plan.config.model_type} takes images; an image model's package is "
                      "TorchScript (--format torchscript) for now")
    kinds = kinds_of(plan)
    for kind in kinds:
        kind.prepare()
    traced, wrapper, attn = traced_model(plan, kinds)
    os.makedirs(a.out, exist_ok=True)
    stale = os.path.join(a.out, "manifest.json")
    if os.path.exists(stale):
        os.remove(stale)  # a failed export leaves no manifest beside a new model file
    with attention_swap(plan, attn):  # torch.export (--format aoti) runs the wrapper again
        path, model, extra = save_model(traced, wrapper, plan, a)
    contract = "; ".join(kind.check_contract(model) for kind in kinds)
    library = by_kind(kinds, [kind.check_library(model) for kind in kinds])
    print(f"self-check ok: contract ({plan.output}, {contract}); library: {library}")
    if a.format == "aoti":
        # A package's precision is fixed when it is compiled (autocast does not reach into it).
        check_packages(extra["packages"], model, kinds[0], a)
    else:
        precision = [kind.check_precision(model, a.min_cosine) for kind in kinds]
        extra = {"precision_check": by_kind(kinds, precision)}
        for kind, report in zip(kinds, precision):
            print((f"{kind.method}: " if len(kinds) > 1 else "") + format_precision(report))
    manifest = write_package(plan, kinds, a, attn, path, {"library_check": library, **extra})
    print(f"wrote {path} ({plan.task}, {plan.config.model_type}, attn {attn}) and "
          f"{os.path.join(a.out, 'manifest.json')} in {time.monotonic() - t0:.1f} s; digest {manifest['digest']}")
    return manifest
