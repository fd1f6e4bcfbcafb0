#!/usr/bin/env bash
# Checks the deployment artefacts under deploy/ and exits non-zero on any
# problem, saying what it checked.
#
#   deploy/check-deploy.sh [--scrape FILE] [--qinfer BIN]
#
#   1. yamllint --strict (deploy/.yamllint) on every YAML file under
#      deploy/k8s and deploy/prometheus
#   2. promtool check rules deploy/prometheus/alerts.yaml
#   3. promtool check config deploy/prometheus/prometheus.yaml
#   4. jq parses deploy/grafana/qinfer.json; its panels have queries, unique
#      ids; every query is valid PromQL (promtool check rules on a copy of the
#      queries with Grafana's variables replaced by plain values)
#   5. deploy/k8s: kustomization lists every manifest; the ConfigMap's
#      qinfer.yaml uses only keys of app/src/config_keys.cc; http.listen, ports,
#      probes, scrape annotations, grace period > drain timeout, one GPU,
#      volumes, PDB selector and the KEDA trigger agree with each other
#   6. with --qinfer BIN (default: build/qinfer when it exists): that binary
#      loads the ConfigMap's qinfer.yaml (`qinfer serve --print-config`)
#   7. with --scrape FILE (one /metrics scrape, Prometheus text format):
#      promtool check metrics parses it, and every metric name the alert
#      rules and the dashboard's queries use is in it; each missing name is
#      named (histogram series by family name: _bucket/_sum/_count dropped)
#
# Tools: promtool (Debian: prometheus), yamllint, jq, python3 with PyYAML
# (python3-yaml, a yamllint dependency):
#   apt-get install -y prometheus yamllint jq
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Paths below are relative to the repository root, so the report reads short.
DEPLOY=deploy
HELPER=$DEPLOY/check_deploy.py
ALERTS=$DEPLOY/prometheus/alerts.yaml
PROM_CONFIG=$DEPLOY/prometheus/prometheus.yaml
DASHBOARD=$DEPLOY/grafana/qinfer.json
K8S=$DEPLOY/k8s
YAMLLINT_CONFIG=$DEPLOY/.yamllint
CONFIG_CC=app/src/config_keys.cc

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

scrape=
qinfer=
qinfer_explicit=0
while (($#)); do
  case $1 in
    --scrape) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; scrape=$2; shift 2 ;;
    --scrape=*) scrape=${1#--scrape=}; shift ;;
    --qinfer) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; qinfer=$2; qinfer_explicit=1; shift 2 ;;
    --qinfer=*) qinfer=${1#--qinfer=}; qinfer_explicit=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "check-deploy.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [[ -n $scrape && ! -r $scrape ]]; then
  echo "check-deploy.sh: --scrape $scrape: no such readable file" >&2
  exit 2
fi
if ((qinfer_explicit)) && [[ ! -x $qinfer ]]; then
  echo "check-deploy.sh: --qinfer $qinfer: not an executable" >&2
  exit 2
fi
# Arguments are taken relative to where the script was started; from here on
# everything runs from the repository root.
[[ -z $scrape || $scrape == /* ]] || scrape=$PWD/$scrape
[[ -z $qinfer || $qinfer == /* ]] || qinfer=$PWD/$qinfer
cd "$REPO"
if [[ -z $qinfer && -x build/qinfer ]]; then qinfer=$REPO/build/qinfer; fi

failures=0
checks=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

section() { printf '\n== %s\n' "$*"; }
pass() { checks=$((checks + 1)); printf 'ok   %s\n' "$*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); printf 'FAIL %s\n' "$*"; }
indent() { sed 's/^/     /'; }
rel() { printf '%s' "${1#"$REPO"/}"; }

# Runs a command; its output is shown indented; pass/fail by exit status.
run_check() {
  local what=$1; shift
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if ((rc == 0)); then
    pass "$what"
    [[ -z $out ]] || printf '%s\n' "$out" | indent
  else
    fail "$what (exit $rc)"
    [[ -z $out ]] || printf '%s\n' "$out" | indent
  fi
}

# A helper whose lines already start with "ok   " / "FAIL ": count them.
run_helper() {
  local out rc=0 line
  out=$(python3 "$HELPER" "$@" 2>&1) || rc=$?
  while IFS= read -r line; do
    case $line in
      "ok   "*) checks=$((checks + 1)); printf '%s\n' "$line" ;;
      "FAIL "*) checks=$((checks + 1)); failures=$((failures + 1)); printf '%s\n' "$line" ;;
      *) printf '%s\n' "$line" ;;
    esac
  done <<<"$out"
  if ((rc != 0)) && ! grep -q '^FAIL ' <<<"$out"; then
    fail "check_deploy.py $1 exited $rc"
  fi
}

# ------------------------------------------------------------------ tools
section "tools"
missing=()
for tool in promtool yamllint jq python3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]} == 0)) && ! python3 -c 'import yaml' 2>/dev/null; then
  missing+=("python3-yaml")
fi
if ((${#missing[@]})); then
  fail "missing: ${missing[*]} (apt-get install -y prometheus yamllint jq python3-yaml)"
  printf '\ncheck-deploy: cannot run without them\n'
  exit 1
fi
pass "$(promtool --version 2>&1 | head -1 | cut -d' ' -f1-3), $(yamllint --version), $(jq --version)"

# ------------------------------------------------------------------ yaml
section "yamllint --strict -c $(rel "$YAMLLINT_CONFIG")"
mapfile -t yaml_files < <(find "$K8S" "$DEPLOY/prometheus" -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)
if ((${#yaml_files[@]} == 0)); then
  fail "no YAML files under $(rel "$K8S") or $(rel "$DEPLOY/prometheus")"
fi
for f in "${yaml_files[@]}"; do
  run_check "yamllint $(rel "$f")" yamllint --strict -c "$YAMLLINT_CONFIG" "$f"
done

# ------------------------------------------------------------------ prometheus
section "prometheus"
run_check "promtool check rules $(rel "$ALERTS")" promtool check rules "$ALERTS"
config_out=$(promtool check config "$PROM_CONFIG" 2>&1) && config_rc=0 || config_rc=$?
if ((config_rc == 0)); then
  pass "promtool check config $(rel "$PROM_CONFIG")"
  printf '%s\n' "$config_out" | indent
elif grep -q 'field kubernetes_sd_configs not found' <<<"$config_out"; then
  # Debian builds promtool without Kubernetes service discovery: check the
  # same file with kubernetes_sd_configs swapped for a static target.
  mkdir -p "$TMP/prom"
  cp "$ALERTS" "$TMP/prom/"
  python3 "$HELPER" promtool-compat "$PROM_CONFIG" "$TMP/prom/prometheus.yaml"
  run_check "promtool check config $(rel "$PROM_CONFIG") (this promtool has no kubernetes_sd_configs;
     checked with a static target in its place, everything else as written)" \
    promtool check config "$TMP/prom/prometheus.yaml"
else
  fail "promtool check config $(rel "$PROM_CONFIG") (exit $config_rc)"
  printf '%s\n' "$config_out" | indent
fi

# ------------------------------------------------------------------ grafana
section "grafana"
if jq_out=$(jq -e '.panels | length' "$DASHBOARD" 2>&1); then
  pass "jq parses $(rel "$DASHBOARD") ($jq_out top-level panels)"
  run_helper dashboard "$DASHBOARD"
  n=$(python3 "$HELPER" dashboard-rules "$DASHBOARD" "$TMP/dashboard-rules.yaml")
  run_check "the dashboard's $n queries are valid PromQL (promtool check rules)" \
    promtool check rules "$TMP/dashboard-rules.yaml"
else
  fail "jq cannot parse $(rel "$DASHBOARD")"
  printf '%s\n' "$jq_out" | indent
fi

# ------------------------------------------------------------------ k8s
section "kubernetes manifests ($(rel "$K8S"))"
run_helper k8s "$K8S" "$CONFIG_CC"
if [[ -n $qinfer ]]; then
  python3 "$HELPER" configmap-config "$K8S" "$TMP/qinfer.yaml"
  # shellcheck disable=SC2016  # $1 and $2 are the inner shell's arguments
  run_check "$(rel "$qinfer") serve --print-config loads the ConfigMap's qinfer.yaml" \
    bash -c '"$1" serve --config "$2" --print-config >/dev/null' _ "$qinfer" "$TMP/qinfer.yaml"
else
  printf 'skip the ConfigMap was not loaded by a qinfer binary (no build/qinfer; --qinfer BIN)\n'
fi

# ------------------------------------------------------------------ scrape
if [[ -n $scrape ]]; then
  section "metric names against the scrape $scrape"
  lint=$(promtool check metrics <"$scrape" 2>&1) && lint_rc=0 || lint_rc=$?
  if ((lint_rc == 0)); then
    pass "promtool check metrics parses $scrape (no lint findings)"
  elif grep -q 'error while linting\|parsing error' <<<"$lint"; then
    fail "promtool check metrics cannot parse $scrape"
    printf '%s\n' "$lint" | indent
  else
    pass "promtool check metrics parses $scrape ($(wc -l <<<"$lint") lint findings, not failures:)"
    printf '%s\n' "$lint" | head -20 | indent
  fi
  run_helper scrape "$ALERTS" "$DASHBOARD" "$scrape"
else
  printf '\nskip metric names were not compared with a scrape (--scrape FILE)\n'
fi

printf '\ncheck-deploy: %d checks, %d failed\n' "$checks" "$failures"
((failures == 0))
