#!/usr/bin/env python3
"""Collects one bench/policies/run.sh run into a JSON summary, a Markdown report and a
PNG chart.

    .venv/bin/python bench/policies/report.py --results DIR --json OUT.json [--markdown OUT.md] --chart OUT.png \
        [--command "bench/policies/run.sh ..."] [--check]

DIR holds what bench/policies/run.sh wrote: workloads.json, policy-<workload>.json
(policy_bench), e2e-<workload>.json (bench/common/e2e.py),
torchserve-<workload>-b<N>.json (bench/torchserve/run.py) and pipeline.json
(bench/pipeline/run.sh). --check exits 1, naming what is missing, unless
every policy processed every job and every file has every field (the CI smoke
run uses it).
"""

import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from stamp import commit, machine  # noqa: E402  (bench/common/stamp.py: the machine and commit every bench stamps)

POLICIES = ["arrival8", "shared", "qinfer", "ideal", "qinfer_arrival", "sorted64"]
POLICY_LABELS = {
    "arrival8": "(a) TorchServe-style: arrival order, batch 8",
    "shared": "(b) buckets sharing one batch size",
    "qinfer": "(c) qinfer",
    "ideal": "(d) ideal: no padding, plan sizes",
    "qinfer_arrival": "ablation: (c) in arrival order",
    "sorted64": "whole set sorted by length, batch 64 (Ray Data-style, compute only)",
}
FIELDS = ["real_tokens_per_s", "jobs_per_s", "padding_efficiency", "peak_over_budget", "oom_events", "lost",
          "p50_ms", "p99_ms"]
MINILM_LINK = ("Real models (all-MiniLM-L6-v2, MPNet and Qwen3 on real text, beside sentence-transformers' torch, "
               "ONNX Runtime and OpenVINO backends and real TorchServe) have a study of their own, "
               "`bench/real_models/run.sh`: [Real models](real-models.md).")
SERVICE_FIELDS = ["real_tokens_per_s", "jobs_per_s", "padding_efficiency", "lost", "p50_ms", "p99_ms"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def collect(results):
    workloads = (load(os.path.join(results, "workloads.json")) or {}).get("workloads", {})
    out = {"workloads": {}, "pipeline": load(os.path.join(results, "pipeline.json"))}
    for name, shape in workloads.items():
        entry = {"shape": shape, "policy": load(os.path.join(results, f"policy-{name}.json")),
                 "e2e": load(os.path.join(results, f"e2e-{name}.json")), "torchserve": {}}
        for batch in (8, 32):
            ts = load(os.path.join(results, f"torchserve-{name}-b{batch}.json"))
            if ts is not None:
                entry["torchserve"][str(batch)] = ts
        out["workloads"][name] = entry
    return out


def median(policy_report, name, field):
    try:
        return policy_report["policies"][name]["median"][field]
    except (KeyError, TypeError):
        return None


def ratio(a, b):
    return a / b if a is not None and b else None


def ratios(entry):
    p = entry["policy"]
    c = median(p, "qinfer", "real_tokens_per_s")
    r = {"qinfer_over_arrival8": ratio(c, median(p, "arrival8", "real_tokens_per_s")),
         "qinfer_over_shared": ratio(c, median(p, "shared", "real_tokens_per_s")),
         "qinfer_over_ideal": ratio(c, median(p, "ideal", "real_tokens_per_s")),
         "qinfer_over_sorted64": ratio(c, median(p, "sorted64", "real_tokens_per_s")),
         "e2e_over_executor": ratio((entry["e2e"] or {}).get("real_tokens_per_s"), c)}
    for batch, ts in entry["torchserve"].items():
        service = (entry["e2e"] or {}).get("real_tokens_per_s")
        r[f"qinfer_over_torchserve_b{batch}"] = ratio(c, ts.get("real_tokens_per_s"))
        r[f"e2e_over_torchserve_b{batch}"] = ratio(service, ts.get("real_tokens_per_s"))
    return r


def check(summary, torchserve_batches=("8", "32")):
    problems = []
    if not summary["workloads"]:
        problems.append("no workloads.json")
    for name, entry in summary["workloads"].items():
        jobs = entry["shape"].get("jobs")
        p = entry["policy"]
        if p is None:
            problems.append(f"{name}: no policy report")
        else:
            for policy in POLICIES:
                m = (p.get("policies", {}).get(policy) or {}).get("median")
                if m is None:
                    problems.append(f"{name}: policy {policy} did not run")
                    continue
                problems += [f"{name}/{policy}: no {f}" for f in FIELDS if f not in m]
                if m.get("ok") != jobs or m.get("lost_max", 1) != 0:
                    problems.append(f"{name}/{policy}: {m.get('ok')} of {jobs} jobs ok, "
                                    f"{m.get('lost_max')} lost")
        for label, report in [("e2e", entry["e2e"])] + [(f"torchserve b{b}", t)
                                                       for b, t in entry["torchserve"].items()]:
            if report is None:
                problems.append(f"{name}: no {label} report")
                continue
            problems += [f"{name}/{label}: no {f}" for f in SERVICE_FIELDS if f not in report]
            if report.get("ok") != report.get("jobs") or report.get("jobs_per_round", jobs) != jobs \
                    or report.get("lost") != 0:
                problems.append(f"{name}/{label}: {report.get('ok')} of {jobs} jobs ok, {report.get('lost')} lost")
        if sorted(entry["torchserve"]) != sorted(torchserve_batches):
            problems.append(f"{name}: TorchServe ran at batch {sorted(entry['torchserve'])}, "
                            f"not {' and '.join(torchserve_batches)}")
    if summary["pipeline"] is None:
        problems.append("no pipeline.json")
    return problems


def times(value):
    return "—" if value is None else f"{value:.2f}×"


def fmt(value, digits=0, suffix=""):
    if value is None:
        return "—"
    if isinstance(value, float) and digits == 0:
        return f"{value:,.0f}{suffix}"
    return f"{value:,.{digits}f}{suffix}"


def markdown(summary, command, chart_name="policies.png"):
    s = summary
    lines = [
        "# Benchmarks",
        "",
        f"Made by `{command}` on {s['date']} at commit `{s['commit']}`, on {s['machine']['cpu']} "
        f"({s['machine']['cores']} cores, {s['machine']['memory_gib']} GiB, {s['machine']['os']}). "
        "Regenerate with the same command.",
        "",
        "All systems run the same TorchScript model (`model/export_model.py --vocab 30522`: 2 layers, dim 128) "
        "with the same torch and 2 intra-op threads, on the same jobs. Executor policies run on the budgeted "
        "CPU device (`cpu-budget`, whose allocations really fail past the budget) with the calibrated memory "
        "plan; the policies alternate round by round and each figure is the median of the rounds.",
        "",
        MINILM_LINK,
        "",
    ]
    any_policy = next((e["policy"] for e in s["workloads"].values() if e["policy"]), None)
    if any_policy:
        plan = ", ".join(f"{e['bound']}: {e['batch_size']}" for e in any_policy["plan"])
        lines += [f"Device `{any_policy['device']}`, {any_policy['rounds']} rounds, max_batch_delay "
                  f"{any_policy['max_batch_delay_ms']} ms, max_padding {any_policy.get('max_padding')}"
                  + (f", extra_padding_tokens {any_policy['extra_padding_tokens']}"
                     if "extra_padding_tokens" in any_policy else "") + "; "
                  f"memory plan (bucket: batch) {plan}.", ""]
    lines += ["## Workloads", "", "| workload | jobs | tokens | p50 | p90 | max length |", "|---|---|---|---|---|---|"]
    for name, e in s["workloads"].items():
        sh = e["shape"]
        lines.append(f"| {name} | {sh['jobs']} | {sh['tokens']:,} | {sh['p50']} | {sh['p90']} | {sh['max']} |")
    lines += ["", "## Ratios (real tokens/s)", "",
              "| workload | (c) ÷ TorchServe b8 | (c) ÷ TorchServe b32 | service ÷ TorchServe b8 | (c) ÷ (a) | "
              "(c) ÷ (b) | (c) ÷ (d) | (c) ÷ sorted64 | service ÷ (c) |", "|---|---|---|---|---|---|---|---|---|"]
    for name, e in s["workloads"].items():
        r = e["ratios"]
        lines.append(f"| {name} | {times(r.get('qinfer_over_torchserve_b8'))} | "
                     f"{times(r.get('qinfer_over_torchserve_b32'))} | {times(r.get('e2e_over_torchserve_b8'))} | "
                     f"{times(r['qinfer_over_arrival8'])} | {times(r['qinfer_over_shared'])} | "
                     f"{fmt(r['qinfer_over_ideal'], 2)} | {times(r['qinfer_over_sorted64'])} | "
                     f"{fmt(r['e2e_over_executor'], 2)} |")
    lines += ["", "(c) is qinfer's executor policy alone; \"service\" is `qinfer serve` end to end (Kafka, "
              "RocksDB) on the same jobs.", ""]
    for name, e in s["workloads"].items():
        lines += [f"## {name}", "",
                  "| system | real tokens/s | jobs/s | padding efficiency | peak ÷ budget | OOMs | lost | p50 ms | p99 ms |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for batch, ts in sorted(e["torchserve"].items(), key=lambda kv: int(kv[0])):
            lines.append(f"| real TorchServe 0.12, batch {batch} | {fmt(ts.get('real_tokens_per_s'))} | "
                         f"{fmt(ts.get('jobs_per_s'), 1)} | {fmt(ts.get('padding_efficiency'), 3)} | — | — | "
                         f"{ts.get('lost')} | {fmt(ts.get('p50_ms'))} | {fmt(ts.get('p99_ms'))} |")
        ran = list(((e["policy"] or {}).get("policies") or {}))
        for policy in POLICIES + sorted(p for p in ran if p not in POLICIES):
            m = (((e["policy"] or {}).get("policies") or {}).get(policy) or {}).get("median")
            if m is None:
                continue
            label = POLICY_LABELS.get(policy) or (f"(c) with scheduler.max_padding {policy.split(':')[1]}"
                                                  if policy.startswith("qinfer:") else policy)
            lines.append(f"| {label} | {fmt(m['real_tokens_per_s'])} | {fmt(m['jobs_per_s'], 1)} | "
                         f"{fmt(m['padding_efficiency'], 3)} | {fmt(m['peak_over_budget'], 2)} | "
                         f"{m['oom_events_max']} | {m['lost_max']} | {fmt(m['p50_ms'])} | {fmt(m['p99_ms'])} |")
        if e["e2e"]:
            x = e["e2e"]
            lines.append(f"| qinfer serve, end to end | {fmt(x['real_tokens_per_s'])} | {fmt(x['jobs_per_s'], 1)} | "
                         f"{fmt(x['padding_efficiency'], 3)} | — | — | {x['lost']} | {fmt(x['p50_ms'])} | "
                         f"{fmt(x['p99_ms'])} |")
        lines.append("")
    p = s["pipeline"]
    if p:
        lines += ["## Pipeline ceiling (no-op model)", "", "```", json.dumps(p, indent=2), "```", ""]
    lines += ["## Latency", "",
              "The executor policies count latency from a job's admission to the scheduler to the end of its batch, "
              "with the whole workload arriving at once (an offline backlog), so p50 is about half the run. "
              "TorchServe's is request to reply with the client keeping batches full; the service's is a record's "
              "queue plus run time.", ""]
    if s.get("targets"):
        lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
        for t in s["targets"]:
            lines.append(f"| {t['target']} | {t['measured']} | {'yes' if t['met'] else 'no'} |")
        lines.append("")
    lines += [f"![real tokens/s per workload]({chart_name})", ""]
    return "\n".join(lines)


def targets(summary):
    out = []
    ws = summary["workloads"]

    def worst(values):
        values = [v for v in values if v is not None]
        return min(values) if values else None

    ts8 = worst(e["ratios"].get("qinfer_over_torchserve_b8") for e in ws.values())
    out.append({"target": "(c) ≥ 3× real TorchServe at batch 8, every workload",
                "measured": f"lowest {fmt(ts8, 2)}×", "met": ts8 is not None and ts8 >= 3})
    pad = worst(median(e["policy"], "qinfer", "padding_efficiency") for e in ws.values())
    out.append({"target": "padding efficiency of (c) ≥ 0.92", "measured": f"lowest {fmt(pad, 3)}",
                "met": pad is not None and pad >= 0.92})
    cd = worst(e["ratios"]["qinfer_over_ideal"] for e in ws.values())
    out.append({"target": "(c) ÷ (d) ≥ 0.9", "measured": f"lowest {fmt(cd, 2)}", "met": cd is not None and cd >= 0.9})
    peak = max((median(e["policy"], "qinfer", "peak_over_budget") or 0) for e in ws.values()) if ws else None
    ooms = sum(median(e["policy"], "qinfer", "oom_events_max") or 0 for e in ws.values())
    out.append({"target": "peak ≤ budget, 0 OOM after calibration",
                "measured": f"peak ÷ budget ≤ {fmt(peak, 2)}, {ooms} OOMs", "met": peak is not None and peak <= 1
                and ooms == 0})
    sorted64 = worst(e["ratios"]["qinfer_over_sorted64"] for e in ws.values())
    out.append({"target": "ahead of a length-sorted batch framework in compute (sorted64), every workload",
                "measured": f"lowest {fmt(sorted64, 2)}×", "met": sorted64 is not None and sorted64 > 1})
    e2e = worst(e["ratios"]["e2e_over_executor"] for e in ws.values())
    out.append({"target": "end to end ÷ executor-only ≥ 0.95", "measured": f"lowest {fmt(e2e, 2)}",
                "met": e2e is not None and e2e >= 0.95})
    p = summary["pipeline"] or {}
    noop = p.get("storage_only_jobs_per_s")
    out.append({"target": "no-op pipeline ≥ 100,000 jobs/s", "measured": fmt(noop, 0, " jobs/s"),
                "met": noop is not None and noop >= 100000})
    return out


def chart(summary, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary["workloads"])
    series = [("TorchServe b8", lambda e: (e["torchserve"].get("8") or {}).get("real_tokens_per_s")),
              ("TorchServe b32", lambda e: (e["torchserve"].get("32") or {}).get("real_tokens_per_s"))]
    series += [(POLICY_LABELS[p].split(":")[0], (lambda p: lambda e: median(e["policy"], p, "real_tokens_per_s"))(p))
               for p in ["arrival8", "shared", "qinfer", "ideal"]]
    series.append(("qinfer serve", lambda e: (e["e2e"] or {}).get("real_tokens_per_s")))
    fig, ax = plt.subplots(figsize=(11, 5))
    width = 0.8 / len(series)
    for i, (label, get) in enumerate(series):
        values = [get(summary["workloads"][n]) or 0 for n in names]
        ax.bar([x + i * width for x in range(len(names))], values, width, label=label)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))])
    ax.set_xticklabels(names)
    ax.set_ylabel("real tokens/s (higher is better)")
    ax.set_title(f"qinfer vs TorchServe and executor policies — {summary['machine']['cores']} cores, "
                 f"commit {summary['commit']}, {summary['date']}")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--markdown", help="the report as Markdown (the site renders it from the JSON)")
    ap.add_argument("--chart", required=True)
    ap.add_argument("--command", default="bench/policies/run.sh")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--torchserve-batches", default="8,32", help="--check: the batch sizes TorchServe ran at")
    a = ap.parse_args()
    summary = collect(a.results)
    summary["machine"] = machine()
    summary["commit"] = commit()
    summary["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    summary["command"] = a.command
    for entry in summary["workloads"].values():
        entry["ratios"] = ratios(entry)
    summary["targets"] = targets(summary)
    with open(a.json, "w") as f:
        json.dump(summary, f, indent=2)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(summary, a.command, os.path.basename(a.chart)))
    chart(summary, a.chart)
    print(f"report.py: wrote {a.json}, {a.markdown or 'no Markdown'}, {a.chart}", file=sys.stderr)
    if a.check:
        problems = check(summary, tuple(a.torchserve_batches.split(",")))
        for p in problems:
            print(f"report.py: check: {p}", file=sys.stderr)
        if problems:
            sys.exit(1)
        print("report.py: check: every policy processed every job; every report has every field", file=sys.stderr)


if __name__ == "__main__":
    main()
