"""The export, stage by stage: the plan, the input kind, the trace, the saved model checked, the manifest."""

import os
import time

from qinfer_model import TASK_OUTPUT, format_precision

from .checkpoint import make_plan
from .checks import check_packages
from .inputs import kind_of
from .manifest import save_model, write_package
from .patches import attention_swap
from .trace import traced_model


def export(a) -> dict:
    """The whole export; returns the manifest. Raises Refused or CheckFailed."""
    t0 = time.monotonic()
    plan = make_plan(a.checkpoint, a.task, a.max_tokens, getattr(a, "max_tokens_up_to_positions", False))
    kind = kind_of(plan)
    kind.prepare()
    traced, wrapper, attn = traced_model(plan, kind)
    os.makedirs(a.out, exist_ok=True)
    stale = os.path.join(a.out, "manifest.json")
    if os.path.exists(stale):
        os.remove(stale)  # a failed export leaves no manifest beside a new model file
    with attention_swap(plan, attn):  # torch.export (--format aoti) runs the wrapper again
        path, model, extra = save_model(traced, wrapper, plan, a)
    contract = kind.check_contract(model)
    library = kind.check_library(model)
    print(f"self-check ok: contract ({TASK_OUTPUT[plan.task]}, {contract}); library: {library}")
    if a.format == "aoti":
        # A package's precision is fixed when it is compiled (autocast does not reach into it).
        check_packages(extra["packages"], model, kind, a)
    else:
        extra = {"precision_check": kind.check_precision(model, a.min_cosine)}
        print(format_precision(extra["precision_check"]))
    manifest = write_package(plan, kind, a, attn, path, {"library_check": library, **extra})
    print(f"wrote {path} ({plan.task}, {plan.config.model_type}, attn {attn}) and "
          f"{os.path.join(a.out, 'manifest.json')} in {time.monotonic() - t0:.1f} s; digest {manifest['digest']}")
    return manifest
