#!/usr/bin/env python3
"""Collects one bench/real_models/run.sh run into a JSON summary, a Markdown report
and a PNG chart, and says which systems ran.

    .venv/bin/python bench/real_models/report.py --results DIR --json OUT.json --markdown OUT.md \
        --chart OUT.png [--command "bench/real_models/run.sh ..."] [--check]
        [--title all-MiniLM-L6-v2] [--model-config CONFIG.json] [--default-texts 250]

DIR holds what run.sh wrote: texts/profiles.json and texts/P.texts.jsonl,
gemm.json, runs/ (one JSON per system, or per system and profile;
SYSTEM.notrun holds why a system did not run) and emb/ (each system's
embeddings: .npy in text order from peers.py, JSONL {"id", "output"} from
qinfer). Per system and profile: embeddings/s, tokens/s, the fraction of the
relevant GEMM peak (bf16 for bf16 systems, else fp32) and the minimum cosine
against float32 encode() (st-torch-fp32) on the same texts. FLOPs per text,
from its real token count: 2 per weight of the layers' matrix products per
token, plus 4 x the attention width x layers x length per token (QK^T and
AV): for all-MiniLM-L6-v2 21.2 MFLOP per token plus 9.2 kFLOP x length;
--model-config (the model's config.json) gives another model's. --check exits 1, naming what is missing, unless every
system ran every text and every field is written; the AOTI rows, and the
peers that --no-peer-setup left out, may be "not run".
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from stamp import commit, machine  # noqa: E402  (bench/common/stamp.py: the same stamp)

PROFILES = ["short", "paragraphs", "long"]
# FLOPs per token, and per token and length in attention: all-MiniLM-L6-v2's unless --model-config.
COSTS = {"token": 21.2e6, "attention": 9.2e3}
GATED_MLP = {"qwen3", "qwen2", "llama", "mistral"}  # three MLP matrices (gate, up, down), not two
REFERENCE = "st-torch-fp32"
# run.sh's default --texts (--default-texts: another family's)
SETTINGS = {"default_texts": 250}
# (name, label, precision; None: the system's report says)
SYSTEMS = [
    ("qinfer-serve-fp32", "qinfer serve end to end, float32", "fp32"),
    ("qinfer-serve-bf16", "qinfer serve end to end, model.autocast bf16", "bf16"),
    ("qinfer-executor-fp32", "qinfer executor only (policy_bench), float32", "fp32"),
    ("qinfer-executor-bf16", "qinfer executor only (policy_bench), autocast bf16", "bf16"),
    ("qinfer-serve-aoti-fp32", "qinfer serve end to end, AOTI, float32", "fp32"),
    ("qinfer-serve-aoti-bf16", "qinfer serve end to end, AOTI, autocast bf16", "bf16"),
    ("qinfer-executor-aoti-fp32", "qinfer executor only, AOTI, float32", "fp32"),
    ("qinfer-executor-aoti-bf16", "qinfer executor only, AOTI, autocast bf16", "bf16"),
    ("st-torch-fp32", "SentenceTransformer.encode(batch_size=32), torch, float32", "fp32"),
    ("st-torch-bf16", "SentenceTransformer.encode(batch_size=32), torch, model in bf16", "bf16"),
    ("st-onnx", "sentence-transformers, ONNX Runtime backend", "fp32"),
    ("st-onnx-O2", "sentence-transformers, ONNX Runtime backend, O2", "fp32"),
    ("st-onnx-O3", "sentence-transformers, ONNX Runtime backend, O3", "fp32"),
    ("st-openvino", "sentence-transformers, OpenVINO backend, default precision", None),
    ("st-openvino-f32", "sentence-transformers, OpenVINO backend, f32", "fp32"),
    ("torchserve-b8", "real TorchServe 0.12, batch 8", "fp32"),
]
OPTIONAL = {"qinfer-serve-aoti-fp32", "qinfer-serve-aoti-bf16", "qinfer-executor-aoti-fp32",
            "qinfer-executor-aoti-bf16"}
PEERS = ["st-torch-fp32", "st-torch-bf16", "st-onnx", "st-onnx-O2", "st-onnx-O3", "st-openvino", "st-openvino-f32"]
# The reason of a peer that --no-peer-setup left out (run.sh writes it); --check
# lets it pass, as it does the AOTI rows.
NOT_SET_UP = "the venv did not set up: not set up (--no-peer-setup"
# The rows a smoke leaves out (run.sh --smoke runs one configuration and one
# peer); --check lets them pass too.
SMOKE_SKIP = "smoke: "
NO_COSINE = {"torchserve-b8": "its handler returns one number per job, not the embedding"}
FIELDS = ["embeddings_per_s", "real_tokens_per_s", "texts", "ok", "lost", "fraction_of_peak", "min_cosine"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_texts(results, profile):
    with open(os.path.join(results, "texts", f"{profile}.texts.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def flops(tokens):
    return sum(COSTS["token"] * n + COSTS["attention"] * n * n for n in tokens)


def costs_of(config: dict) -> dict:
    """COSTS of a transformers config.json: the layers' weights (grouped-query attention and a gated MLP
    counted as they are) and the attention width; embeddings and pooling are left out."""
    h, layers, ffn = config["hidden_size"], config["num_hidden_layers"], config["intermediate_size"]
    heads = config["num_attention_heads"]
    head_dim = config.get("head_dim") or h // heads
    kv_heads = config.get("num_key_value_heads") or heads
    attention_weights = 2 * h * heads * head_dim + 2 * h * kv_heads * head_dim
    mlp_weights = (3 if config.get("model_type") in GATED_MLP else 2) * h * ffn
    return {"token": 2.0 * layers * (attention_weights + mlp_weights), "attention": 4.0 * heads * head_dim * layers}


def run_figures(results, name, profile):
    """{embeddings_per_s, real_tokens_per_s, ok, texts, lost} of one system on one profile, or None."""
    runs = os.path.join(results, "runs")
    if name.startswith("qinfer-serve"):
        r = load(os.path.join(runs, f"{name}-{profile}.json"))
        out = r and {"embeddings_per_s": r["jobs_per_s"], "real_tokens_per_s": r["real_tokens_per_s"],
                     "ok": r["ok"], "texts": r["jobs"], "lost": r["lost"], "p50_ms": r["p50_ms"]}
        if out and r.get("cold"):  # its first pass, a fresh process (bench/common/e2e.py --warm-rounds)
            out["cold_embeddings_per_s"] = r["cold"]["jobs_per_s"]
        return out
    if name.startswith("qinfer-executor"):
        r = load(os.path.join(runs, f"{name}-{profile}.json"))
        m = r and r["policies"]["qinfer"]["median"]
        return m and {"embeddings_per_s": m["jobs_per_s"], "real_tokens_per_s": m["real_tokens_per_s"],
                      "ok": int(m["ok"]), "texts": r["jobs"], "lost": int(m["lost_max"]), "p50_ms": m["p50_ms"]}
    if name.startswith("torchserve"):
        r = load(os.path.join(runs, f"{name}-{profile}.json"))
        return r and {"embeddings_per_s": r["jobs_per_s"], "real_tokens_per_s": r["real_tokens_per_s"],
                      "ok": r["ok"] // max(1, r["rounds"]), "texts": r["jobs_per_round"], "lost": r["lost"],
                      "p50_ms": r["p50_ms"]}
    r = load(os.path.join(runs, f"{name}.json"))
    p = r and r["profiles"].get(profile)
    return p and {"embeddings_per_s": p["embeddings_per_s"], "real_tokens_per_s": p["real_tokens_per_s"],
                  "ok": p["ok"], "texts": p["texts"], "lost": p["texts"] - p["ok"]}


def embeddings(results, name, profile, ids):
    """The system's embeddings in `ids` order (numpy [N, D]), or None."""
    import numpy as np

    npy = os.path.join(results, "emb", f"{name}-{profile}.npy")
    if os.path.exists(npy):
        return np.load(npy)
    path = os.path.join(results, "emb", f"{name}-{profile}.jsonl")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        by_id = {r["id"]: r["output"] for r in (json.loads(line) for line in f if line.strip())}
    if any(i not in by_id for i in ids):
        return None
    return np.asarray([by_id[i] for i in ids], dtype=np.float64)


def min_cosine(a, b):
    import numpy as np

    if a is None or b is None or a.shape != b.shape:
        return None
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return float((a * b).sum(axis=1).min())


def system_entry(results, name, label, prec, gemm, texts, reference):
    notrun = os.path.join(results, "runs", f"{name}.notrun")
    if os.path.exists(notrun):
        with open(notrun) as f:
            return {"label": label, "ran": False, "reason": f.read().strip()}
    report = load(os.path.join(results, "runs", f"{name}.json")) or {}
    prec = prec or report.get("precision", "f32")
    prec = "bf16" if prec == "bf16" else "fp32"
    peak = (gemm or {}).get(f"{prec}_gflops")
    entry = {"label": label, "ran": True, "precision": prec, "profiles": {}}
    for profile in PROFILES:
        fig = run_figures(results, name, profile)
        if fig is None:
            entry["profiles"][profile] = None
            continue
        rows = texts[profile]
        per_text = flops([r["tokens"] for r in rows]) / len(rows)
        fig["gflop_per_embedding"] = per_text / 1e9
        fig["fraction_of_peak"] = fig["embeddings_per_s"] * per_text / (peak * 1e9) if peak else None
        emb = embeddings(results, name, profile, [r["id"] for r in rows])
        fig["min_cosine"] = min_cosine(emb, reference.get(profile)) if name not in NO_COSINE else None
        if name in NO_COSINE:
            fig["cosine_not_measured"] = NO_COSINE[name]
        entry["profiles"][profile] = fig
    if report.get("versions"):
        entry["versions"] = report["versions"]
    return entry


def ratio(a, b):
    return a / b if a is not None and b else None


def eps(entry, profile, key="embeddings_per_s"):
    if not entry or not entry.get("ran") or not entry["profiles"].get(profile):
        return None
    return entry["profiles"][profile].get(key)


def ratios(systems):
    out = {}
    for profile in PROFILES:
        r = {}
        for tag in ("fp32", "bf16", "aoti-fp32", "aoti-bf16"):
            r[f"serve_over_executor_{tag}"] = ratio(eps(systems.get(f"qinfer-serve-{tag}"), profile),
                                                    eps(systems.get(f"qinfer-executor-{tag}"), profile))
            r[f"cold_serve_over_executor_{tag}"] = ratio(
                eps(systems.get(f"qinfer-serve-{tag}"), profile, "cold_embeddings_per_s"),
                eps(systems.get(f"qinfer-executor-{tag}"), profile))
        peers = [(eps(systems.get(p), profile), p) for p in PEERS]
        peers = [p for p in peers if p[0] is not None]
        best_peer = max(peers) if peers else (None, None)
        serve = [eps(systems.get(f"qinfer-serve-{t}"), profile) for t in ("fp32", "bf16", "aoti-fp32", "aoti-bf16")]
        serve = [s for s in serve if s is not None]
        r["fastest_peer"] = best_peer[1]
        r["best_serve_over_fastest_peer"] = ratio(max(serve) if serve else None, best_peer[0])
        r["best_serve_over_torchserve_b8"] = ratio(max(serve) if serve else None,
                                                   eps(systems.get("torchserve-b8"), profile))
        out[profile] = r
    return out


def collect(results):
    import datetime

    profiles = load(os.path.join(results, "texts", "profiles.json")) or {}
    gemm = load(os.path.join(results, "gemm.json"))
    texts = {p: read_texts(results, p) for p in PROFILES}
    ids = {p: [r["id"] for r in texts[p]] for p in PROFILES}
    reference = {p: embeddings(results, REFERENCE, p, ids[p]) for p in PROFILES}
    systems = {name: system_entry(results, name, label, prec, gemm, texts, reference)
               for name, label, prec in SYSTEMS}
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit(), "machine": machine(), "profiles": profiles.get("profiles"),
            "texts_source": profiles.get("source"), "gemm": gemm, "systems": systems,
            "ratios": ratios(systems)}


def check(summary):
    problems = [f"no {k}" for k in ("profiles", "gemm") if not summary.get(k)]
    for name, entry in summary["systems"].items():
        if not entry["ran"]:
            if name not in OPTIONAL and not entry["reason"].startswith((NOT_SET_UP, SMOKE_SKIP)):
                problems.append(f"{name} did not run: {entry['reason'].splitlines()[0]}")
            continue
        for profile in PROFILES:
            fig = entry["profiles"].get(profile)
            if fig is None:
                problems.append(f"{name}/{profile}: no figures")
                continue
            missing = [f for f in FIELDS if fig.get(f) is None and not (f == "min_cosine" and name in NO_COSINE)]
            problems += [f"{name}/{profile}: no {f}" for f in missing]
            if fig["ok"] != fig["texts"] or fig["lost"] != 0 or fig["texts"] != summary["profiles"][profile]["texts"]:
                problems.append(f"{name}/{profile}: {fig['ok']} of {fig['texts']} texts ok, {fig['lost']} lost")
    return problems


def fmt(value, digits=1):
    return "—" if value is None else f"{value:,.{digits}f}"


def pct(value):
    return "—" if value is None else f"{100 * value:.0f}%"


def system_rows(summary):
    lines = ["| system | precision | " + " | ".join(f"{p} emb/s" for p in PROFILES) + " | "
             + " | ".join(f"{p} % of peak" for p in PROFILES) + " | min cosine |",
             "|---|---|" + "---|" * (2 * len(PROFILES) + 1)]
    for name, entry in summary["systems"].items():
        if not entry["ran"]:
            continue
        figs = [entry["profiles"].get(p) or {} for p in PROFILES]
        cos = [f.get("min_cosine") for f in figs if f.get("min_cosine") is not None]
        lines.append(f"| {entry['label']} | {entry['precision']} | "
                     + " | ".join(fmt(f.get("embeddings_per_s")) for f in figs) + " | "
                     + " | ".join(pct(f.get("fraction_of_peak")) for f in figs) + " | "
                     + (f"{min(cos):.5f}" if cos else "— (" + NO_COSINE.get(name, "no embeddings") + ")") + " |")
    return lines


def version_lines(summary):
    """One line per venv: the versions each group of peers ran with."""
    seen, lines = set(), []
    for name, entry in summary["systems"].items():
        v = entry.get("versions")
        key = json.dumps(v, sort_keys=True) if v else None
        if key and key not in seen:
            seen.add(key)
            lines.append(f"- `{name}` and the peers of its venv: " + ", ".join(f"{k} {x}" for k, x in v.items()))
    return ["Versions:", ""] + lines if lines else []


def ratio_rows(summary):
    keys = [("serve_over_executor_fp32", "serve ÷ executor, float32"),
            ("serve_over_executor_bf16", "serve ÷ executor, bf16"),
            ("serve_over_executor_aoti-fp32", "serve ÷ executor, AOTI float32"),
            ("serve_over_executor_aoti-bf16", "serve ÷ executor, AOTI bf16"),
            ("cold_serve_over_executor_fp32", "serve's first pass (a fresh process) ÷ executor, float32"),
            ("cold_serve_over_executor_bf16", "serve's first pass ÷ executor, bf16"),
            ("cold_serve_over_executor_aoti-fp32", "serve's first pass ÷ executor, AOTI float32"),
            ("cold_serve_over_executor_aoti-bf16", "serve's first pass ÷ executor, AOTI bf16"),
            ("best_serve_over_fastest_peer", "best qinfer serve ÷ fastest in-process peer"),
            ("best_serve_over_torchserve_b8", "best qinfer serve ÷ TorchServe b8")]
    r = summary["ratios"]
    lines = ["| ratio (embeddings/s) | " + " | ".join(PROFILES) + " |", "|---|" + "---|" * len(PROFILES)]
    for key, label in keys:
        lines.append(f"| {label} | " + " | ".join(fmt(r[p].get(key), 2) for p in PROFILES) + " |")
    lines.append("| fastest in-process peer | " + " | ".join(r[p]["fastest_peer"] or "—" for p in PROFILES) + " |")
    return lines


def markdown(summary, command, chart_name, title):
    s, m, g = summary, summary["machine"], summary["gemm"] or {}
    lines = [f"# Benchmarks: {title} on real text", "",
             f"Made by `{command}` on {s['date']} at commit `{s['commit']}`, on {m['cpu']} ({m['cores']} cores, "
             f"{m['memory_gib']} GiB, {m['os']}).",
             "", f"Texts: {s['texts_source']}, tokenized by the model's tokenizer ([CLS] and [SEP] counted). "
             "qinfer serve gets them as text jobs and tokenizes them inside its timing, as the peers do inside "
             "`encode()`; qinfer's executor-only rows get the token ids (the executor runs no tokenizer).", "",
             "| profile | texts | tokens | min | p50 | p90 | max |", "|---|---|---|---|---|---|---|"]
    counts = [st["texts"] for st in (s["profiles"] or {}).values()]
    if counts and min(counts) < SETTINGS["default_texts"]:
        lines[4:4] = [f"**A small run ({min(counts)} texts per profile): it shows that every part runs, its figures "
                      f"are not the benchmark's.** The benchmark is the default run, {SETTINGS['default_texts']} texts per "
                      "profile and 3 rounds, on a quiet machine.", ""]
    for p, st in (s["profiles"] or {}).items():
        lines.append(f"| {p} | {st['texts']} | {st['tokens']:,} | {st['min']} | {st['p50']} | {st['p90']} | "
                     f"{st['max']} |")
    lines += ["", f"GEMM peak measured in the same run (the best of torch.matmul and oneDNN's linear, "
              f"{g.get('threads')} threads; bench/real_models/gemm.py): "
              f"{fmt(g.get('fp32_gflops'), 0)} GFLOP/s float32, {fmt(g.get('bf16_gflops'), 0)} GFLOP/s bf16. "
              f"% of peak: FLOPs of the real tokens ({COSTS['token'] / 1e6:.1f} MFLOP per token + "
              f"{COSTS['attention'] / 1e3:.1f} kFLOP × length per token) per "
              "second over the peak of the system's precision.", "", "## Embeddings per second", ""]
    lines += system_rows(summary) + [""] + version_lines(summary)
    lines += ["", "## Ratios", ""] + ratio_rows(summary) + [""]
    skipped = [(n, e) for n, e in s["systems"].items() if not e["ran"]]
    if skipped:
        lines += ["## Not run", ""]
        lines += [f"- **{e['label']}** (`{n}`): " + e["reason"].replace("\n", " ")[:600] for n, e in skipped]
        lines.append("")
    lines += [f"![embeddings/s per profile]({chart_name})", ""]
    return "\n".join(lines)


def chart(summary, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ran = [(n, e) for n, e in summary["systems"].items() if e["ran"]]
    fig, axes = plt.subplots(1, len(PROFILES), figsize=(15, 0.35 * len(ran) + 2), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, profile in zip(axes, PROFILES):
        values = [eps(e, profile) or 0 for _, e in ran]
        colors = ["tab:blue" if n.startswith("qinfer") else "tab:gray" for n, _ in ran]
        ax.barh(range(len(ran)), values, color=colors)
        ax.set_title(f"{profile} (p50 {(summary['profiles'] or {}).get(profile, {}).get('p50')} tokens)")
        ax.set_xlabel("embeddings/s (higher is better)")
    axes[0].set_yticks(range(len(ran)))
    axes[0].set_yticklabels([n for n, _ in ran])
    axes[0].invert_yaxis()
    fig.suptitle(f"{title} — {summary['machine']['cores']} cores, {summary['date']}, "
                 f"commit {summary['commit']}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def say_which_ran(summary):
    for name, entry in summary["systems"].items():
        if entry["ran"]:
            figs = ", ".join(f"{p} {fmt(eps(entry, p))}" for p in PROFILES)
            print(f"ran:     {name:26s} embeddings/s {figs}")
        else:
            print(f"NOT RUN: {name:26s} {entry['reason'].splitlines()[0][:200]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--markdown", help="the report as Markdown (the site renders it from the JSON)")
    ap.add_argument("--chart", required=True)
    ap.add_argument("--command", default="bench/real_models/run.sh")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--title", default="all-MiniLM-L6-v2", help="the model's name in the report's title")
    ap.add_argument("--model-config", help="the model's config.json: its FLOPs per token (default: MiniLM's)")
    ap.add_argument("--profiles", default=",".join(PROFILES),
                    help="the profiles the run measured (a smoke runs one; default every one)")
    ap.add_argument("--default-texts", type=int, default=SETTINGS["default_texts"],
                    help="the texts per profile of the benchmark's default run (fewer: a small run)")
    a = ap.parse_args()
    SETTINGS["default_texts"] = a.default_texts
    PROFILES[:] = a.profiles.split(",")
    if a.model_config:
        with open(a.model_config) as f:
            COSTS.update(costs_of(json.load(f)))
    summary = collect(a.results)
    summary["title"], summary["costs"], summary["command"] = a.title, dict(COSTS), a.command
    with open(a.json, "w") as f:
        json.dump(summary, f, indent=2)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(summary, a.command, os.path.basename(a.chart), a.title))
    chart(summary, a.chart, a.title)
    say_which_ran(summary)
    print(f"report.py: wrote {a.json}, {a.markdown or 'no Markdown'}, {a.chart}")
    if a.check:
        problems = check(summary)
        if problems:
            print("report.py --check: FAILED\n  " + "\n  ".join(problems), file=sys.stderr)
            sys.exit(1)
        print("report.py --check: ok: every system that ran ran every text; every field is written")


if __name__ == "__main__":
    main()
