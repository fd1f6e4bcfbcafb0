#!/usr/bin/env bash
# Can the consumer thread tokenize as fast as the executor embeds? One run,
# side by side: the model's tokenizer (qinfer::tokenizer, bench/tokenizer_bench)
# and the executor (bench/policy_bench, policy qinfer) on the same texts with
# all-MiniLM-L6-v2 (build/minilm, exported by the build), float32, on this CPU.
#
#   bench/tokenizer/text_rate.sh [OUT.json]     default bench/tokenizer/results/text_rate.json
#
# Texts: 1,000 paragraphs of the standard library's docstrings
# (model/make_texts.py, seed 1) of at most 256 tokens, the same set as the
# Python client's reference test. Writes tokens/s of both and their ratio.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
case ${1:-} in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "text_rate.sh: unknown option $1 (--help)" >&2; exit 2 ;;
esac
out=${1:-bench/tokenizer/results/text_rate.json}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[[ -f build/minilm/tokenizer.json ]] || { echo "text_rate.sh: no build/minilm (run deploy/setup.sh)" >&2; exit 1; }
HF_HUB_OFFLINE=1 .venv/bin/python - "$work" <<'PY'
import json, sys
sys.path.insert(0, "model")
import make_texts
from tokenizers import Tokenizer
tok = Tokenizer.from_file("build/minilm/tokenizer.json"); tok.no_truncation(); tok.no_padding()
texts = [t for t in make_texts.make_texts(3000, seed=1) if len(tok.encode(t).ids) <= 256][:1000]
with open(f"{sys.argv[1]}/texts.jsonl", "w") as f, open(f"{sys.argv[1]}/jobs.jsonl", "w") as g:
    for i, t in enumerate(texts):
        f.write(json.dumps({"id": f"t{i}", "text": t}) + "\n")
        g.write(json.dumps({"id": f"t{i}", "input_ids": tok.encode(t).ids}) + "\n")
PY
build/bench/tokenizer_bench --tokenizer build/minilm/tokenizer.json --texts "$work/texts.jsonl" \
  --rounds 5 --passes 10 --out "$work/tokenizer.json" >/dev/null
build/bench/policy_bench --model build/minilm --jobs "$work/jobs.jsonl" --workload text --out "$work/executor.json" \
  --device cpu-budget:1GiB --policies qinfer --rounds 3 --max-batch-size 32 >"$work/executor.log" 2>&1
.venv/bin/python - "$work" "$out" <<'PY'
import json, statistics, sys, re
work, out = sys.argv[1], sys.argv[2]
tok = json.load(open(f"{work}/tokenizer.json"))
rounds = [float(m) for m in re.findall(r"qinfer\s+(\d+) tok/s", open(f"{work}/executor.log").read())]
executor = statistics.median(rounds)
report = {
    "what": "tokens/s of the model's tokenizer (one thread, as on the consumer thread) beside the executor's "
            "(all-MiniLM-L6-v2, float32, policy qinfer, cpu-budget:1GiB) on the same 1,000 texts",
    "tokenizer_tokens_per_second": round(tok["tokens_per_second"]),
    "executor_tokens_per_second_rounds": rounds,
    "executor_tokens_per_second": executor,
    "ratio": round(tok["tokens_per_second"] / executor, 1),
    "consumer_share_at_executor_speed": round(executor / tok["tokens_per_second"], 4),
}
json.dump(report, open(out, "w"), indent=1)
print(json.dumps(report, indent=1))
PY
