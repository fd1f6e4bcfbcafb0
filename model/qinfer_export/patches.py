"""What is swapped into transformers' modules while the model is traced (and, for the sdpa swap, exported
by torch.export): a family's sdpa_swap of the library's eager attention, a decoder's causal mask skipped
(sdpa's causal kernel instead), and key heads repeated before sdpa. Never open while the library's own
modules run as the reference."""

import contextlib
import sys

from torch import nn

from .checkpoint import Plan


def causal_only(plan: Plan, attn: str) -> bool:
    """Whether a decoder's attention needs no mask but the causal one. qinfer pads on the right, so a
    real position attends only to earlier positions of its own row, all real, whatever the padding
    holds; the padded positions' outputs are never read (lasttoken and classifiers pick a real position,
    the other poolings weigh padding 0). The model is then traced without a mask: sdpa runs is_causal,
    whose kernel skips the blocks above the diagonal, instead of a [B, 1, L, L] mask over every block
    (transformers builds that mask whenever it traces: causal_mask_skipped). Not with a sliding window,
    whose mask is the model's to build. Only trace() opens those patches: torch.export (--format aoti)
    keeps the model's own mask."""
    if not plan.family.decoder or attn != "sdpa":
        return False
    config = plan.config
    sliding = getattr(config, "sliding_window", None) is not None and getattr(config, "use_sliding_window", True)
    return not sliding and all(t == "full_attention" for t in (getattr(config, "layer_types", None) or []))


def swapped(plan: Plan, attn: str) -> bool:
    """Whether `attn` is sdpa through the family's swap of the library's eager attention."""
    return attn == "sdpa" and plan.family.sdpa_swap is not None


def attention_swap(plan: Plan, attn: str):
    """The family's sdpa swap where `attn` asks for it, else nothing: open while the model is traced or
    exported, never while the library's own modules are run as the reference."""
    return plan.family.sdpa_swap() if swapped(plan, attn) else contextlib.nullcontext()


@contextlib.contextmanager
def answering(owner, name: str, value, on: bool = True):
    """While `on` (and `owner` has `name`), owner.name is a function that answers `value` whatever it is
    asked; restored after."""
    if not on or not hasattr(owner, name):
        yield
        return
    original = getattr(owner, name)
    setattr(owner, name, lambda *args, **kwargs: value)
    try:
        yield
    finally:
        setattr(owner, name, original)


def causal_mask_skipped(model: nn.Module, on: bool):
    """While `on`, the model's own module (modeling_qwen3, modeling_llama, ...) builds no causal mask: its
    create_causal_mask answers None, as transformers' own does outside a trace when no row is padded, and
    the attention calls sdpa with no mask and is_causal (causal_only says when that is exact)."""
    return answering(sys.modules[type(model).__module__], "create_causal_mask", None, on)


def keys_repeated_for_sdpa(on: bool):
    """With no mask, transformers asks sdpa for grouped-query attention (enable_gqa), which torch's CPU
    flash kernel does not take: sdpa would fall back to its math path and hold L x L scores (3x slower on
    long passages, bench/real_models/results/qwen3-levers-causal-no-mask.json). While `on`, transformers
    repeats the key and value heads itself, as it does when a mask is given, and sdpa runs the flash
    kernel."""
    from transformers.integrations import sdpa_attention

    return answering(sdpa_attention, "use_gqa_in_sdpa", False, on)
