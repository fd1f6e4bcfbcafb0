"""AOTInductor (.pt2) packages of a model that follows qinfer's contract.

One helper for model/export_model.py and model/export_hf.py (export_minilm.py is export_hf.py on MiniLM):

    entries = export_packages(module, out_dir, max_batch=..., max_positions=...,
                              targets=[("cpu", "float32"), ("cuda", "bfloat16")],
                              options=CompileOptions(threads=2, freezing=True))

exports `module` (forward(input_ids, attention_mask[, token_type_ids]), all
int64 [B, T]) once per target with torch.export (dynamic batch 1..max_batch,
dynamic tokens 1..max_positions), compiles and packages it with
torch._inductor.aoti_compile_and_package, writes OUT/model-<device>-<dtype>.pt2
and returns the manifest's `packages` object:

    {"cpu/float32": {"file": "model-cpu-float32.pt2", "digest": "sha256:...",
                     "cpu_capability": "AVX512+avx512_bf16", "threads": 2,
                     "inductor": {"freezing": true}}, ...}

What the compiled code depends on besides the model is recorded per package
and served only where it holds (the executor refuses a package otherwise):
- cpu_capability (CPU packages): the vector ISA torch dispatches to here
  (torch.backends.cpu.get_cpu_capability()), with "+avx512_bf16" and "+amx"
  where the CPU has them. Inductor picks its vector code, and oneDNN its
  prepacked weight layouts, for this CPU.
- threads (CPU packages): Inductor writes the OpenMP thread count into the
  code it generates (cpp.threads), so a package runs with that many threads
  whatever the executor's intra-op count is; serve's model.threads must
  equal it.
- inductor: the Inductor options it was compiled with. freezing folds the
  weights into constants (the bfloat16 casts of an autocast export once, at
  compile time) and, with cpp.weight_prepack (on by default), rewrites the
  linear layers into oneDNN ones with prepacked weights.

A package's precision is fixed here: a bfloat16/float16 target runs the
module under torch.autocast while it is exported (matmuls in the low
precision, what autocast keeps in float32 stays there); the output is cast
to float32 as the contract wants. The executor applies no autocast to a
package.

Compiling takes long (a minute for MiniLM on two cores), so packages are
cached under ${QINFER_AOTI_CACHE:-~/.cache/qinfer/aoti}, keyed by the sha256
of the module's state_dict bytes, the exported graph's code, the torch
version, the device kind, the dtype and the bounds: a second export of the
same module copies the cached package ("aoti: cache hit KEY") instead of
compiling ("aoti: compiled KEY in N s").
"""

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import time

import torch

DTYPES = {"float32": None, "bfloat16": torch.bfloat16, "float16": torch.float16}
DEVICES = ("cpu", "cuda")


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """What the export compiles with besides the module (see the module's doc)."""

    threads: int = 0         # OpenMP threads of the CPU packages; 0: torch.get_num_threads()
    freezing: bool = True    # Inductor freezing (constant weights, prepacked oneDNN linears)

    def resolved_threads(self) -> int:
        return self.threads if self.threads > 0 else torch.get_num_threads()

    def inductor_configs(self, device: str) -> dict:
        configs = {"freezing": self.freezing}
        if device == "cpu":
            configs["cpp.threads"] = self.resolved_threads()
        return configs


def cpu_flags() -> set[str]:
    """The CPU's flags as the kernel lists them (/proc/cpuinfo's first "flags" line): what the executor
    reads too (torch 2.11 has no torch._C._cpu._is_avx512_bf16_supported, nor its C++ counterpart)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_capability() -> str:
    """This CPU as the executor names it (TorchModelRunner checks a CPU package's against it)."""
    name = torch.backends.cpu.get_cpu_capability()
    flags = cpu_flags()
    if "avx512_bf16" in flags:
        name += "+avx512_bf16"
    if "amx_tile" in flags:
        name += "+amx"
    return name


class _Precision(torch.nn.Module):
    """Runs `inner` under autocast to `dtype` on `device`, with a float32 output."""

    def __init__(self, inner: torch.nn.Module, device: str, dtype: torch.dtype):
        super().__init__()
        self.inner = inner
        self.device_type = device
        self.dtype = dtype

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        with torch.autocast(self.device_type, dtype=self.dtype):
            out = self.inner(input_ids, attention_mask)
        return out.float()


class _Precision3(_Precision):
    """_Precision of a model that takes token_type_ids as a third input (a pair model)."""

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> torch.Tensor:
        with torch.autocast(self.device_type, dtype=self.dtype):
            out = self.inner(input_ids, attention_mask, token_type_ids)
        return out.float()


def input_names(module: torch.nn.Module) -> list[str]:
    """forward's argument names: input_ids, attention_mask[, token_type_ids]."""
    import inspect

    names = list(inspect.signature(module.forward).parameters)
    if names not in (["input_ids", "attention_mask"], ["input_ids", "attention_mask", "token_type_ids"]):
        raise ValueError(f"forward({', '.join(names)}): expected forward(input_ids, attention_mask"
                         "[, token_type_ids])")
    return names


def add_export_arguments(ap) -> None:
    """The options both export scripts take: the format, the aoti targets and the precision floor."""
    ap.add_argument("--format", choices=("torchscript", "aoti"), default="torchscript",
                    help="torchscript (default): OUT/model.pt; aoti: AOTInductor packages "
                         "OUT/model-<device>-<dtype>.pt2, model.path being model-cpu-float32.pt2 "
                         "(model/aoti_export.py; compiled packages are cached)")
    ap.add_argument("--max-batch", type=int, default=1024, metavar="N",
                    help="aoti: the largest batch the packages take (default 1024)")
    ap.add_argument("--devices", default="cpu",
                    help="aoti: device kinds, comma-separated: cpu, cuda (cuda needs a CUDA device here; "
                         "default cpu)")
    ap.add_argument("--dtypes", default="float32",
                    help="aoti: precisions, comma-separated: float32, bfloat16, float16 (default float32); "
                         "cpu/float32 is always exported")
    ap.add_argument("--threads", type=int, default=0, metavar="N",
                    help="aoti: the OpenMP threads the CPU packages are compiled for; serve's model.threads "
                         "must be the same (default: torch's intra-op threads here, the number of cores)")
    ap.add_argument("--freezing", action=argparse.BooleanOptionalAction, default=True,
                    help="aoti: compile with Inductor freezing (default; --no-freezing: without): weights "
                         "become constants (an autocast package's bfloat16 casts are done once) and linear "
                         "layers use oneDNN with prepacked weights; measured 1.11-1.20x the unfrozen bfloat16 "
                         "package on MiniLM (bench/real_models/results/minilm-levers-freezing-executor.json)")
    ap.add_argument("--min-cosine", type=float, default=0.999,
                    help="the floor of the reduced-precision checks: bf16/fp16 outputs whose cosine to "
                         "float32 falls below it are recorded as refused in the manifest (torchscript: "
                         "autocast), or fail the export (aoti: a bfloat16/float16 package) (default 0.999)")


def export_argv(a) -> list[str]:
    """add_export_arguments' options of `a` as a command line (a script that runs another one's main)."""
    argv = ["--format", a.format, "--max-batch", str(a.max_batch), "--devices", a.devices, "--dtypes", a.dtypes,
            "--threads", str(a.threads), "--min-cosine", repr(a.min_cosine)]
    return argv + (["--freezing"] if a.freezing else ["--no-freezing"])


def check_export_arguments(ap, a) -> None:
    """Refuses (ap.error) values of add_export_arguments' options that cannot be exported."""
    if a.max_batch < 1:
        ap.error(f"--max-batch {a.max_batch}: must be at least 1")
    if a.threads < 0:
        ap.error(f"--threads {a.threads}: must be at least 1 (or 0: torch's intra-op threads)")
    if not 0 < a.min_cosine <= 1:
        ap.error(f"--min-cosine {a.min_cosine}: must be in (0, 1]")


def cache_dir() -> str:
    return os.environ.get("QINFER_AOTI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "qinfer", "aoti")


def _state_digest(module: torch.nn.Module) -> str:
    h = hashlib.sha256()
    for name, t in sorted(module.state_dict().items()):
        h.update(name.encode())
        h.update(str(t.dtype).encode())
        h.update(str(tuple(t.shape)).encode())
        h.update(t.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def check_targets(targets: list[tuple[str, str]]) -> None:
    """Raises ValueError for a device or dtype the export cannot make here."""
    for device, dtype in targets:
        if device not in DEVICES:
            raise ValueError(f"device '{device}': expected one of {', '.join(DEVICES)}")
        if dtype not in DTYPES:
            raise ValueError(f"dtype '{dtype}': expected one of {', '.join(DTYPES)}")
        if device == "cuda" and not torch.cuda.is_available():
            raise ValueError("device 'cuda': this machine (or this torch build) has no CUDA device to compile for")


def _export(module: torch.nn.Module, device: str, dtype: str, max_batch: int, max_positions: int):
    from torch.export import Dim

    names = input_names(module)
    inner = module.to(device)
    if DTYPES[dtype] is not None:
        inner = (_Precision3 if len(names) == 3 else _Precision)(inner, device, DTYPES[dtype])
    batch = Dim("batch", min=1, max=max_batch)
    tokens = Dim("tokens", min=1, max=max_positions)
    # The example must not be 1 on a dynamic dimension (export would
    # specialise it); 2 x 8 stays inside every bound above 1.
    b, t = min(2, max_batch), min(8, max_positions)
    ids = torch.ones(b, t, dtype=torch.int64, device=device)
    mask = torch.ones(b, t, dtype=torch.int64, device=device)
    types = torch.zeros(b, t, dtype=torch.int64, device=device)
    dims = {0: batch if max_batch > 1 else None, 1: tokens if max_positions > 1 else None}
    shapes = {name: dims for name in names}
    with torch.no_grad():
        return torch.export.export(inner.eval(), (ids, mask, types)[:len(names)], dynamic_shapes=shapes)


def compile_options(a) -> CompileOptions:
    """The CompileOptions of add_export_arguments' options."""
    return CompileOptions(threads=a.threads, freezing=a.freezing)


def _compiled_for(device: str, options: CompileOptions) -> dict:
    """A package's manifest fields that say what its compiled code depends on."""
    fields = {}
    if device == "cpu":
        fields = {"cpu_capability": cpu_capability(), "threads": options.resolved_threads()}
    fields["inductor"] = {"freezing": options.freezing}
    return fields


def package_key(state: str, graph_code: str, device: str, dtype: str, max_batch: int, max_positions: int,
                compiled_for: dict) -> str:
    """The cache key of a package: everything its compiled code depends on."""
    return hashlib.sha256("\n".join([
        state, graph_code, torch.__version__, device, dtype, str(max_batch), str(max_positions),
        json.dumps(compiled_for, sort_keys=True),
    ]).encode()).hexdigest()[:32]


def export_packages(module: torch.nn.Module, out_dir: str, max_batch: int, max_positions: int,
                    targets: list[tuple[str, str]], options: CompileOptions = CompileOptions(),
                    log=print) -> dict:
    """Writes one package per (device, dtype) target into out_dir; returns the `packages` object."""
    check_targets(targets)
    module = module.eval()
    state = _state_digest(module)
    entries = {}
    for device, dtype in targets:
        ep = _export(module, device, dtype, max_batch, max_positions)
        compiled_for = _compiled_for(device, options)
        key = package_key(state, ep.graph_module.code, device, dtype, max_batch, max_positions, compiled_for)
        cached = os.path.join(cache_dir(), f"{key}.pt2")
        name = f"model-{device}-{dtype}.pt2"
        dest = os.path.join(out_dir, name)
        if os.path.isfile(cached):
            log(f"aoti: cache hit {key} ({device}/{dtype})")
        else:
            start = time.monotonic()
            os.makedirs(cache_dir(), exist_ok=True)
            tmp = f"{cached}.{os.getpid()}.tmp.pt2"
            # Inductor freezes only a graph compiled without grad.
            with torch.no_grad():
                torch._inductor.aoti_compile_and_package(ep, package_path=tmp,
                                                         inductor_configs=options.inductor_configs(device))
            os.replace(tmp, cached)  # concurrent exports never see half a package
            log(f"aoti: compiled {key} ({device}/{dtype}) in {time.monotonic() - start:.1f} s")
        shutil.copyfile(cached, dest + ".tmp")
        os.replace(dest + ".tmp", dest)
        entries[f"{device}/{dtype}"] = {"file": name, "digest": sha256_file(dest), **compiled_for}
    module.to("cpu")
    return entries


def parse_targets(devices: str, dtypes: str) -> list[tuple[str, str]]:
    """"cpu,cuda" x "float32,bfloat16" -> every pair, cpu/float32 always first (model.path names it)."""
    pairs = [("cpu", "float32")]
    for device in [d for d in devices.split(",") if d]:
        for dtype in [t for t in dtypes.split(",") if t]:
            if (device, dtype) not in pairs:
                pairs.append((device, dtype))
    return pairs


def load_package(path: str, device: str = "cpu"):
    """The package as a callable (input_ids, attention_mask[, ...]) -> output, like a TorchScript module."""
    runner = torch._inductor.aoti_load_package(path, device_index=0 if device == "cuda" else -1)

    def call(*tensors: torch.Tensor) -> torch.Tensor:
        return runner(*(t.to(device) for t in tensors)).cpu()

    return call
