#!/usr/bin/env python3
"""Which AOTInductor CPU packages load here: a diagnosis of torch 2.11's segfault in
aoti_load_package (bench/gpu/results/aoti-cpu-package-load-segfault.log).

    python bench/gpu/aoti_probe.py --out DIR [--deadline EPOCH]

Compiles small CPU packages in variants (a bare Linear; export_model.py's tiny
encoder with and without freezing, with cpp.threads set or left to Inductor)
and loads and runs each in a fresh process, plainly and with CUDA hidden
(CUDA_VISIBLE_DEVICES=""), under gdb when the machine has it (a native backtrace
of the crash). Writes DIR/aoti_probe.json and DIR/aoti_probe.log. Exit status 0
whatever the packages do (the report says); 1 on a bad argument.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "model"))

LOAD = """
import sys, torch
path, device = sys.argv[1], sys.argv[2]
runner = torch._inductor.aoti_load_package(path, device_index=0 if device == "cuda" else -1)
print("loaded", flush=True)
ids = torch.randint(1, 100, (3, 40)).to(device)
mask = torch.ones_like(ids)
args = (torch.ones(3, 8, device=device),) if sys.argv[3] == "linear" else (ids, mask)
print("ran", tuple(runner(*args).shape), flush=True)
"""


def compile_variant(name: str, module, example, dynamic, configs: dict, out: str, log) -> str:
    import torch

    path = os.path.join(out, f"{name}.pt2")
    t0 = time.monotonic()
    with torch.no_grad():
        ep = torch.export.export(module.eval(), example, dynamic_shapes=dynamic)
        torch._inductor.aoti_compile_and_package(ep, package_path=path, inductor_configs=dict(configs))
    log(f"{name}: compiled in {time.monotonic() - t0:.1f} s ({configs})")
    return path


def load(path: str, device: str, kind: str, env_extra: dict, timeout: float) -> dict:
    env = {**os.environ, **env_extra}
    cmd = [sys.executable, "-X", "faulthandler", "-c", LOAD, path, device, kind]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        result = {"rc": p.returncode, "tail": (p.stdout + p.stderr)[-1500:]}
    except subprocess.TimeoutExpired:
        return {"rc": "timeout"}
    if (p.returncode < 0 or p.returncode > 128) and shutil.which("gdb") and timeout > 20:
        g = subprocess.run(["gdb", "-batch", "-ex", "run", "-ex", "bt 25", "--args"] + cmd, env=env,
                           capture_output=True, text=True, timeout=timeout)
        result["gdb"] = "\n".join(l for l in g.stdout.splitlines() if l.startswith("#"))[-4000:]
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=time.time() + 240)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    work = os.path.join(a.out, "aoti-probe-packages")
    os.makedirs(work, exist_ok=True)
    lines = []

    def log(msg):
        print(f"aoti_probe: {msg}", flush=True)
        lines.append(msg)

    import torch
    from torch.export import Dim

    from export_model import TinyEncoder

    log(f"torch {torch.__version__}, cuda {torch.cuda.is_available()}, "
        f"cpu capability {torch.backends.cpu.get_cpu_capability()}, threads {torch.get_num_threads()}")
    batch, tokens = Dim("batch", min=1, max=64), Dim("tokens", min=1, max=128)
    tiny = TinyEncoder(4096, 128, 128, 128, 2, 4)
    ids = torch.ones(2, 8, dtype=torch.int64)
    enc = ((ids, ids.clone()), {"input_ids": {0: batch, 1: tokens}, "attention_mask": {0: batch, 1: tokens}})
    lin = ((torch.ones(2, 8),), {"input": {0: batch}})
    variants = [
        ("linear", torch.nn.Linear(8, 4), lin, {}, "linear"),
        ("tiny-plain", tiny, enc, {}, "encoder"),
        ("tiny-frozen", tiny, enc, {"freezing": True}, "encoder"),
        ("tiny-threads", tiny, enc, {"cpp.threads": torch.get_num_threads()}, "encoder"),
        ("tiny-frozen-threads", tiny, enc, {"freezing": True, "cpp.threads": torch.get_num_threads()}, "encoder"),
        # The package that crashed: MiniLM's shape (bench.py's "minilm"), as export_model.py compiles it.
        ("minilm-frozen-threads", TinyEncoder(30522, 512, 512, 384, 6, 12), enc,
         {"freezing": True, "cpp.threads": torch.get_num_threads()}, "encoder"),
    ]
    report = {"torch": torch.__version__, "cuda": torch.cuda.is_available(), "variants": []}
    for name, module, (example, dynamic), configs, kind in variants:
        left = a.deadline - time.time()
        if left < (150 if name.startswith("minilm") else 30):
            log(f"{name}: not run ({left:.0f} s left)")
            break
        entry = {"name": name, "configs": configs}
        try:
            path = compile_variant(name, module, example, dynamic, configs, work, log)
        except Exception as e:  # the report says what failed; the next variant still runs
            entry["compile_error"] = f"{type(e).__name__}: {e}"[-1500:]
            log(f"{name}: compile failed: {entry['compile_error'][:300]}")
            report["variants"].append(entry)
            continue
        for label, env_extra in (("plain", {}), ("cuda-hidden", {"CUDA_VISIBLE_DEVICES": ""})):
            r = load(path, "cpu", kind, env_extra, max(10.0, min(90.0, a.deadline - time.time() - 5)))
            entry[label] = r
            log(f"{name} load {label}: rc {r['rc']}" + (f"\n{r.get('gdb', '')}" if r.get("gdb") else ""))
        report["variants"].append(entry)
    with open(os.path.join(a.out, "aoti_probe.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(a.out, "aoti_probe.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
