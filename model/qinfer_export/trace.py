"""torch.jit.trace_module of the wrapper, one method an input kind (and torch.export into AOTInductor
packages), under the patches; device constants unpinned; the trace checked against the untraced module on
batches unlike its examples."""

import os
import re
import warnings

import torch

from aoti_export import compile_options, export_packages, parse_targets

from . import CheckFailed, Refused
from .checkpoint import Plan
from .checks import excess, within_text
from .inputs import InputKind
from .patches import attention_swap, causal_mask_skipped, keys_repeated_for_sdpa
from .wrappers import Wrapper, make_wrapper


def trace(wrapper: Wrapper, kinds: list[InputKind]) -> torch.jit.ScriptModule:
    """torch.jit.trace_module on each input kind's example, as the kind's method (text: padded, so the
    masking path is the padded one), devices unpinned."""
    examples = {kind.method: kind.trace_example() for kind in kinds}
    causal = wrapper.mask == "causal"
    with (torch.no_grad(), warnings.catch_warnings(), keys_repeated_for_sdpa(causal),
          causal_mask_skipped(wrapper.model, causal)):
        warnings.simplefilter("ignore")  # TracerWarnings: the trace is checked below instead
        traced = torch.jit.trace_module(wrapper, examples, check_trace=False)
    for method in examples:
        unpin_devices(traced, method)
    return traced


def unpin_devices(traced: torch.jit.ScriptModule, method: str = "forward") -> int:
    """Each device constant of the method's trace (a tensor the library makes with device=..., e.g. its
    masks' or positions' aranges, which the trace records as the tracing device) replaced by the device of
    the method's first input, so the model follows its inputs to any device. The graph is inlined first
    (the constants sit in the submodules' graphs). Returns how many were replaced; 0 leaves the graph as
    it was."""
    graph = getattr(traced, method).graph
    if not re.search(r"Device = prim::Constant", str(getattr(traced, method).inlined_graph)):
        return 0
    torch._C._jit_pass_inline(graph)
    constants = [node for node in graph.nodes()
                 if node.kind() == "prim::Constant" and node.output().type().kind() == "DeviceObjType"]
    device = graph.create("prim::device", [list(graph.inputs())[1]])
    device.output().setType(torch._C.DeviceObjType.get())
    device.insertBefore(next(iter(graph.nodes())))
    for node in constants:
        node.output().replaceAllUsesWith(device.output())
        node.destroy()
    return len(constants)


def pinned_devices(traced: torch.jit.ScriptModule, methods: tuple = ("forward",)) -> list[str]:
    """Device constants in the traced methods' graphs (each would tie the model to the tracing device)."""
    return [device for method in methods for device in re.findall(
        r'Device = prim::Constant\[value="([^"]+)"\]\(\)[^\n]*', str(getattr(traced, method).inlined_graph))]


def check_trace(traced, wrapper: Wrapper, plan: Plan, kinds: list[InputKind]) -> float:
    """The trace vs. the untraced module, each input kind's method on its batches unlike the example."""
    worst = 0.0
    with torch.inference_mode():
        for kind in kinds:
            for rows, args in kind.trace_batches():
                got, want = getattr(traced, kind.method)(*args), getattr(wrapper, kind.method)(*args)
                if got.shape != want.shape:
                    raise CheckFailed(f"the trace's {kind.method} gives shape {tuple(got.shape)} for {rows}, the "
                                      f"module {tuple(want.shape)}")
                real = kind.real_positions(args) if plan.task == "tokens" else slice(None)
                worst = max(worst, excess(got[real], want[real]))
    if worst > 1:
        raise CheckFailed(f"the trace differs from the module {within_text(worst)} on batches unlike the tracing "
                          "example")
    return worst


def traced_model(plan: Plan, kinds: list[InputKind]) -> tuple[torch.jit.ScriptModule, Wrapper, str]:
    """The first attention implementation whose trace passes check_trace and names no device."""
    errors = []
    for attn in plan.family.attention:
        try:
            wrapper = make_wrapper(plan, kinds, attn)
            with attention_swap(plan, attn):
                traced = trace(wrapper, kinds)
            devices = pinned_devices(traced, tuple(kind.method for kind in kinds))
            if devices:
                raise CheckFailed(f"the trace pins tensors to a device ({'; '.join(devices)[:300]}): it would "
                                  "not run on another device")
            check_trace(traced, wrapper, plan, kinds)
            return traced, wrapper, attn
        except (CheckFailed, RuntimeError, ValueError) as e:
            errors.append(f"attn_implementation={attn}: {str(e).strip().splitlines()[-1]}")
    raise CheckFailed("no traceable attention implementation: " + " | ".join(errors))


def save_aoti(wrapper: Wrapper, plan: Plan, a) -> tuple[str, dict]:
    """AOTInductor packages of the wrapper (aoti_export.py); returns the cpu/float32 one and the manifest's fields."""
    try:
        entries = export_packages(wrapper, a.out, a.max_batch, plan.max_positions, parse_targets(a.devices, a.dtypes),
                                  compile_options(a))
    except ValueError as e:
        raise Refused(f"--devices/--dtypes: {e}") from None
    return os.path.join(a.out, entries["cpu/float32"]["file"]), {"max_batch": a.max_batch, "packages": entries}
