"""Writing the package: the model file (model.pt, or the AOTI packages), the input kinds' files,
manifest.json (its fields, the digest of every model file: qinfer_model.write_manifest)."""

import json
import os
import shutil

import torch

from aoti_export import load_package
from qinfer_model import write_manifest

from . import Refused
from .checkpoint import Plan
from .inputs import InputKind
from .trace import save_aoti
from .wrappers import Wrapper


def copy_into(src: str, out: str) -> None:
    dest = os.path.join(out, os.path.basename(src))
    if os.path.abspath(dest) == os.path.abspath(src):
        return  # exported into the checkpoint's own directory
    shutil.copyfile(src, dest + ".tmp")
    os.replace(dest + ".tmp", dest)  # readers never see half a file


def save_model(traced, wrapper: Wrapper, plan: Plan, a) -> tuple[str, object, dict]:
    """Writes model.pt (or the aoti packages); returns the model path, the reloaded model and manifest fields."""
    if a.format == "aoti":
        path, extra = save_aoti(wrapper, plan, a)
        return path, load_package(path), extra
    path = os.path.join(a.out, "model.pt")
    traced.save(path + ".tmp")
    os.replace(path + ".tmp", path)
    return path, torch.jit.load(path, map_location="cpu").eval(), {}


def manifest_fields(plan: Plan, kinds: list[InputKind], a, attn: str, extra: dict) -> dict:
    """The manifest's fields: the task's, the model's, the input kinds', then `extra` (the checks', aoti's).
    layers and heads are forward's tower's (the text tower of a two-tower model), where its config has
    them (a convolutional network has neither)."""
    config = plan.config
    fields = {"name": a.name or os.path.basename(os.path.abspath(plan.checkpoint)), "format": a.format,
              "task": plan.task, "output": plan.output, "dim": plan.dim}
    if plan.labels:
        fields["labels"] = plan.labels
    fields.update({"activation": plan.activation, "family": config.model_type})
    if config.problem_type:
        fields["problem_type"] = config.problem_type
    tower = plan.text_config if "text" in plan.input_kinds else getattr(config, "vision_config", None) or config
    fields["normalized"] = plan.normalized
    for key, name in (("layers", "num_hidden_layers"), ("heads", "num_attention_heads")):
        if getattr(tower, name, None) is not None:
            fields[key] = getattr(tower, name)
    fields.update({"source": os.path.abspath(plan.checkpoint), "attn_implementation": attn})
    if plan.pooling:
        fields["pooling"] = plan.pooling
    if plan.sparse:
        fields["sparse"] = {"pooling_strategy": plan.sparse.pooling_strategy, "activation": plan.sparse.activation}
    for kind in kinds:
        fields.update(kind.manifest_fields())
    fields.update(extra)
    return fields


def read_int8_ranges(path: str, plan) -> list:
    """--int8-ranges: [[min, ...], [max, ...]], one of each a dimension of the embedding. Raises Refused."""
    import numpy as np

    if plan.task != "embed":
        raise Refused(f"--int8-ranges: the int8 encodings are for embeddings; this model's task is {plan.task}")
    try:
        ranges = np.load(path) if path.endswith(".npy") else np.array(json.load(open(path)), dtype=np.float64)
    except (OSError, ValueError) as e:
        raise Refused(f"--int8-ranges {path}: {e}") from None
    if ranges.shape != (2, plan.dim) or not np.isfinite(ranges).all() or (ranges[0] > ranges[1]).any():
        raise Refused(f"--int8-ranges {path}: shape {ranges.shape}, want (2, {plan.dim}) of finite numbers, "
                      "each minimum at most its maximum")
    return ranges.astype(np.float32).tolist()


def write_package(plan: Plan, kinds: list[InputKind], a, attn: str, path: str, extra: dict) -> dict:
    """The input kinds' files, then manifest.json (the digest of the model file at `path` in it: written last,
    so that a package with a manifest is whole); returns the manifest."""
    for kind in kinds:
        kind.copy_files(a.out)
    if getattr(a, "int8_ranges", None):
        extra["int8_ranges"] = read_int8_ranges(a.int8_ranges, plan)
    return write_manifest(a.out, path, manifest_fields(plan, kinds, a, attn, extra))
