#!/usr/bin/env python3
"""Helpers for deploy/check-deploy.sh; run that script, not this file.

Subcommands (each prints what it checked; exit status 1 on any problem):
  k8s DIR CONFIG_CC           consistency of the Kubernetes manifests, and the
                              ConfigMap's qinfer.yaml keys against config.cc
  configmap-config DIR OUT    write the ConfigMap's qinfer.yaml to OUT
  promtool-compat CONFIG OUT  copy of a Prometheus config without
                              kubernetes_sd_configs (for a promtool built
                              without Kubernetes discovery, as Debian's is)
  dashboard-rules JSON OUT    the dashboard's queries as a rules file, for
                              `promtool check rules` (Grafana variables
                              replaced by plain values)
  dashboard JSON              structure of the Grafana dashboard
  names ALERTS JSON           the metric names the alert rules and the
                              dashboard's queries use
  scrape ALERTS JSON FILE     fail naming every metric name used that the
                              scrape FILE (Prometheus text format) lacks

Needs python3 with PyYAML (Debian: python3-yaml, which yamllint pulls in).
"""

import json
import os
import re
import sys

import yaml

# ----------------------------------------------------------------- PromQL

# Words that are PromQL syntax, never metric names, when not followed by "(".
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "bool", "inf", "nan", "atan2"}
# Aggregation operators: `sum by (le) (...)` puts the clause before "(".
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
                "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio"}
# Keywords whose parenthesised list holds label names.
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
# Series that Prometheus makes itself, not qinfer.
PROMETHEUS_MADE = {"up", "scrape_duration_seconds", "scrape_samples_scraped",
                   "scrape_samples_post_metric_relabeling", "scrape_series_added",
                   "ALERTS", "ALERTS_FOR_STATE"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")

TOKEN = re.compile(r"""
    (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<var>\$\{[^}]*\}|\$\w+|\[\[\w+\]\])
  | (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[a-zA-Z0-9]*)
  | (?P<ident>[a-zA-Z_:][a-zA-Z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=,(){}\[\]@])
  | (?P<space>\s+|\#[^\n]*)
  | (?P<other>.)
""", re.VERBOSE)


def tokens(expr):
    return [(m.lastgroup, m.group()) for m in TOKEN.finditer(expr)
            if m.lastgroup != "space"]


def metric_names(expr):
    """The metric names a PromQL expression selects (functions, keywords and
    label names left out)."""
    toks = tokens(expr)
    names = []
    brace = bracket = 0
    i = 0
    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else None
        if text == "{":
            brace += 1
        elif text == "}":
            brace = max(0, brace - 1)
        elif text == "[":
            bracket += 1
        elif text == "]":
            bracket = max(0, bracket - 1)
        elif kind == "ident" and brace:
            # A label matcher; {__name__="x"} names a metric.
            if text == "__name__" and nxt == "=" and i + 2 < len(toks) \
                    and toks[i + 2][0] == "string":
                names.append(toks[i + 2][1][1:-1])
        elif kind == "ident" and not bracket:
            if text in GROUPING and nxt == "(":
                depth = 0
                while i < len(toks):  # skip the label list
                    if toks[i][1] == "(":
                        depth += 1
                    elif toks[i][1] == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    i += 1
            elif nxt == "(" or nxt in ("by", "without") or text in KEYWORDS | AGGREGATIONS:
                pass  # a function or aggregation, or syntax
            else:
                names.append(text)
        i += 1
    return names


def grafana_query_names(query):
    """Metric names in a Grafana templating query (label_values(metric, label),
    query_result(expr)) or a plain PromQL query."""
    if isinstance(query, dict):
        query = query.get("query", "")
    if not isinstance(query, str) or not query.strip():
        return []
    m = re.match(r"\s*label_values\((.*)\)\s*$", query, re.S)
    if m:
        args = m.group(1)
        # label_values(label) names no metric; label_values(selector, label) does.
        if "," not in args:
            return []
        return metric_names(args.rsplit(",", 1)[0])
    m = re.match(r"\s*query_result\((.*)\)\s*$", query, re.S)
    if m:
        return metric_names(m.group(1))
    if re.match(r"\s*(label_names|metrics)\(", query):
        return []
    return metric_names(query)


def dashboard_panels(dashboard):
    """Every panel, rows' nested panels included."""
    out = []
    for p in dashboard.get("panels", []):
        out.append(p)
        out.extend(p.get("panels", []) or [])
    return out


def dashboard_queries(dashboard):
    """(where, expr) for every query target of every panel."""
    out = []
    for p in dashboard_panels(dashboard):
        for t in p.get("targets", []) or []:
            if "expr" in t:
                out.append((f"panel {p.get('id')} \"{p.get('title', '')}\"", t["expr"]))
    return out


def alert_exprs(alerts_path):
    with open(alerts_path) as f:
        doc = yaml.safe_load(f)
    out = []
    for group in doc.get("groups", []):
        for rule in group.get("rules", []):
            where = rule.get("alert") or rule.get("record") or "?"
            out.append((f"rule {where}", str(rule.get("expr", ""))))
    return out


def used_names(alerts_path, dashboard_path):
    """{name: [where used]} over the alert rules and the dashboard."""
    with open(dashboard_path) as f:
        dashboard = json.load(f)
    used = {}
    for where, expr in alert_exprs(alerts_path):
        for n in metric_names(expr):
            used.setdefault(n, []).append("alerts.yaml " + where)
    for where, expr in dashboard_queries(dashboard):
        for n in metric_names(expr):
            used.setdefault(n, []).append("dashboard " + where)
    for v in dashboard.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            for n in grafana_query_names(v.get("query", "")):
                used.setdefault(n, []).append(f"dashboard variable ${v.get('name')}")
    return used


def family(name, families):
    """The family a sample name belongs to: foo_bucket/_sum/_count -> foo
    when foo is a histogram or summary (or nothing else claims the name)."""
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            if families.get(base) in ("histogram", "summary") or name not in families:
                return base
    return name


def parse_scrape(path):
    families, samples = {}, set()
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            m = re.match(r"#\s*TYPE\s+(\S+)\s+(\S+)", line)
            if m:
                families[m.group(1)] = m.group(2)
                continue
            m = re.match(r"#\s*HELP\s+(\S+)", line)
            if m:
                families.setdefault(m.group(1), "untyped")
                continue
            if line.startswith("#"):
                continue
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{ \t]", line)
            if m:
                samples.add(m.group(1))
    return families, samples


# ----------------------------------------------------------------- commands

def cmd_names(alerts_path, dashboard_path):
    used = used_names(alerts_path, dashboard_path)
    for n in sorted({family(n, {}) for n in used}):
        print(n)
    return 0


def cmd_scrape(alerts_path, dashboard_path, scrape_path):
    used = used_names(alerts_path, dashboard_path)
    families, samples = parse_scrape(scrape_path)
    if not families and not samples:
        print(f"FAIL {scrape_path}: no metrics in it (is it a /metrics scrape?)")
        return 1
    missing, empty, checked, skipped = [], [], set(), set()
    for name, where in sorted(used.items()):
        if name in PROMETHEUS_MADE:
            skipped.add(name)
            continue
        base = family(name, families)
        checked.add(base)
        present = (name in samples or name in families
                   or (base != name and (families.get(base) in ("histogram", "summary")
                                         or f"{base}_bucket" in samples or f"{base}_count" in samples))
                   or (name.endswith("_total") and families.get(name[:-6]) == "counter"))
        if not present:
            missing.append((base, name, where))
        elif name not in samples and not (base != name and (f"{base}_bucket" in samples
                                                           or f"{base}_count" in samples)):
            empty.append(base)
    print(f"     {len(checked)} metric names used by the alert rules and the dashboard "
          f"(histograms by family name):")
    line = "       "
    for n in sorted(checked):
        if len(line) + len(n) > 100:
            print(line.rstrip())
            line = "       "
        line += n + " "
    print(line.rstrip())
    if skipped:
        print(f"     not looked for (Prometheus makes them, not qinfer): {', '.join(sorted(skipped))}")
    for n in sorted(set(empty)):
        print(f"     note: {n} is declared in the scrape but has no samples yet")
    if missing:
        for base, name, where in sorted(missing):
            shown = base if base == name else f"{base} (used as {name})"
            print(f"FAIL {shown} is not in {scrape_path}; used by: {'; '.join(sorted(set(where)))}")
        print(f"     => {len({m[0] for m in missing})} of {len(checked)} metric names missing "
              f"from {scrape_path}")
        return 1
    print(f"ok   all {len(checked)} metric names are in {scrape_path}")
    return 0


def cmd_dashboard(path):
    with open(path) as f:
        d = json.load(f)
    problems = []
    for key in ("title", "uid", "panels", "schemaVersion"):
        if key not in d:
            problems.append(f"no top-level \"{key}\"")
    ids = [p.get("id") for p in dashboard_panels(d)]
    dup = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    if dup:
        problems.append(f"panel ids used more than once: {dup}")
    n_queries = 0
    for p in dashboard_panels(d):
        if p.get("type") == "row":
            continue
        ts = p.get("targets") or []
        if not ts:
            problems.append(f"panel {p.get('id')} \"{p.get('title')}\" has no queries")
        for t in ts:
            n_queries += 1
            if not str(t.get("expr", "")).strip():
                problems.append(f"panel {p.get('id')} \"{p.get('title')}\" "
                                f"query {t.get('refId')} has no expr")
        if "gridPos" not in p:
            problems.append(f"panel {p.get('id')} \"{p.get('title')}\" has no gridPos")
    for pr in problems:
        print(f"FAIL {path}: {pr}")
    if not problems:
        panels = [p for p in dashboard_panels(d) if p.get("type") != "row"]
        print(f"ok   {path}: {len(panels)} panels, {n_queries} queries, unique panel ids")
    return 1 if problems else 0


def grafana_to_promql(expr):
    expr = re.sub(r"\$__rate_interval|\$__interval|\$__range|\$\{__(rate_)?interval\}", "5m", expr)
    expr = re.sub(r"\$\{[^}]*\}|\$\w+|\[\[\w+\]\]", ".*", expr)
    return expr


def cmd_dashboard_rules(path, out):
    with open(path) as f:
        d = json.load(f)
    rules = []
    for p in dashboard_panels(d):
        for t in p.get("targets", []) or []:
            if "expr" in t:
                rules.append({"record": f"dashboard_panel_{p.get('id')}_{t.get('refId', 'X')}",
                              "expr": grafana_to_promql(t["expr"])})
    with open(out, "w") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard-queries", "rules": rules}]}, f)
    print(len(rules))
    return 0


def cmd_promtool_compat(config_path, out):
    with open(config_path) as f:
        doc = yaml.safe_load(f)
    for sc in doc.get("scrape_configs", []) or []:
        if "kubernetes_sd_configs" in sc:
            del sc["kubernetes_sd_configs"]
            sc["static_configs"] = [{"targets": ["placeholder.invalid:9400"]}]
    with open(out, "w") as f:
        yaml.safe_dump(doc, f)
    return 0


def load_manifests(directory):
    docs = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith((".yaml", ".yml")):
            continue
        with open(os.path.join(directory, name)) as f:
            docs[name] = [d for d in yaml.safe_load_all(f) if d]
    return docs


def configmap_config(docs):
    for name, ds in docs.items():
        for d in ds:
            if d.get("kind") == "ConfigMap" and "qinfer.yaml" in (d.get("data") or {}):
                return d, yaml.safe_load(d["data"]["qinfer.yaml"]) or {}
    return None, None


def cmd_configmap_config(directory, out):
    cm, _ = configmap_config(load_manifests(directory))
    if cm is None:
        print(f"no ConfigMap with a qinfer.yaml in {directory}", file=sys.stderr)
        return 1
    with open(out, "w") as f:
        f.write(cm["data"]["qinfer.yaml"])
    return 0


def flatten(node, prefix, out):
    """As app/src/config.cc's Flatten: nested maps become dotted keys."""
    if isinstance(node, dict):
        for k, v in node.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if key in ("kafka.consumer", "kafka.producer") and isinstance(v, dict):
                for pk, pv in v.items():
                    out[f"{key}.{pk}"] = pv
            else:
                flatten(v, key, out)
    else:
        out[prefix] = node
    return out


def config_cc_keys(path):
    with open(path) as f:
        text = f.read()
    # The key table: Kind<&Config::Section::field>("section.key", ...).
    return set(re.findall(r'>\("([a-z_]+\.[a-z_0-9]+)"', text))


def cmd_k8s(directory, config_cc):
    docs = load_manifests(directory)
    problems, oks = [], []

    def expect(cond, ok, fail):
        (oks if cond else problems).append(ok if cond else fail)

    # kustomization.yaml lists every manifest, and only files that exist.
    kust = docs.get("kustomization.yaml")
    manifests = {n for n in docs if n != "kustomization.yaml"}
    if not kust:
        problems.append("no kustomization.yaml")
    else:
        listed = set(kust[0].get("resources", []) or [])
        expect(listed == manifests, f"kustomization.yaml lists all {len(manifests)} manifests",
               f"kustomization.yaml resources {sorted(listed)} differ from the manifests "
               f"{sorted(manifests)}")

    by_kind = {}
    for name, ds in docs.items():
        for d in ds:
            if name == "kustomization.yaml":
                continue
            for key in ("apiVersion", "kind"):
                if key not in d:
                    problems.append(f"{name}: a document without {key}")
            if not (d.get("metadata") or {}).get("name"):
                problems.append(f"{name}: a {d.get('kind')} without metadata.name")
            by_kind.setdefault(d.get("kind"), []).append(d)
    for kind in ("Deployment", "ConfigMap", "PodDisruptionBudget", "ScaledObject"):
        expect(len(by_kind.get(kind, [])) == 1, f"one {kind}",
               f"expected exactly one {kind}, found {len(by_kind.get(kind, []))}")
    if any(len(by_kind.get(k, [])) != 1
           for k in ("Deployment", "ConfigMap", "PodDisruptionBudget", "ScaledObject")):
        for p in problems:
            print(f"FAIL {directory}: {p}")
        return 1

    dep = by_kind["Deployment"][0]
    cm, cfg = configmap_config(docs)
    pdb = by_kind["PodDisruptionBudget"][0]
    so = by_kind["ScaledObject"][0]
    if cfg is None:
        print(f"FAIL {directory}: the ConfigMap holds no qinfer.yaml")
        return 1
    flat = flatten(cfg, "", {})

    # The configuration's keys are keys qinfer knows.
    if config_cc and os.path.exists(config_cc):
        known = config_cc_keys(config_cc)
        unknown = [k for k in flat if k not in known
                   and not k.startswith(("kafka.consumer.", "kafka.producer."))]
        expect(not unknown and known,
               f"ConfigMap qinfer.yaml: all {len(flat)} keys are known to {config_cc}",
               f"ConfigMap qinfer.yaml: keys not in {config_cc}: {', '.join(sorted(unknown))}")
    else:
        oks.append(f"(config.cc not found at {config_cc}: ConfigMap keys not checked)")
    expect(bool(flat.get("model.path")), "model.path is set", "model.path is not set")

    spec = dep["spec"]["template"]["spec"]
    pod_meta = dep["spec"]["template"].get("metadata", {})
    containers = spec.get("containers", [])
    c = next((x for x in containers if x.get("name") == "qinfer"), containers[0] if containers else {})

    # http.listen reachable from outside the pod, on the port probes and
    # Prometheus use.
    listen = str(flat.get("http.listen", "127.0.0.1:9400"))
    host, _, port = listen.rpartition(":")
    expect(host in ("0.0.0.0", "", "[::]", "::"), f"http.listen {listen} listens on all interfaces",
           f"http.listen is {listen}: the kubelet and Prometheus cannot reach it; use 0.0.0.0:{port}")
    ports = {str(p.get("containerPort")): p.get("name") for p in c.get("ports", [])}
    expect(port in ports, f"containerPort {port} matches http.listen",
           f"no containerPort {port} (http.listen {listen}); ports: {sorted(ports)}")
    ann = pod_meta.get("annotations", {}) or {}
    expect(str(ann.get("prometheus.io/scrape")) == "true" and str(ann.get("prometheus.io/port")) == port,
           f"prometheus.io/scrape and prometheus.io/port={port} annotations",
           f"pod annotations prometheus.io/scrape=\"true\" and prometheus.io/port=\"{port}\" expected, "
           f"found {ann}")

    def probe_ok(probe_name, path):
        pr = c.get(probe_name) or {}
        get = pr.get("httpGet") or {}
        pport = str(get.get("port"))
        port_ok = pport == port or ports.get(port) == pport
        expect(get.get("path") == path and port_ok, f"{probe_name} on {path}:{port}",
               f"{probe_name} should GET {path} on port {port} (found {get})")
    probe_ok("livenessProbe", "/healthz")
    probe_ok("readinessProbe", "/readyz")

    # Graceful shutdown outlasts the drain.
    drain = int(flat.get("shutdown.drain_timeout_s", 30))
    grace = int(spec.get("terminationGracePeriodSeconds", 30))
    expect(grace > drain, f"terminationGracePeriodSeconds {grace} > shutdown.drain_timeout_s {drain}",
           f"terminationGracePeriodSeconds {grace} must exceed shutdown.drain_timeout_s {drain}")

    gpus = str(((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu", ""))
    expect(gpus == "1", "one GPU per pod (nvidia.com/gpu: 1)",
           f"limits nvidia.com/gpu should be 1, found '{gpus}'")

    # The config file the container reads is the ConfigMap's qinfer.yaml.
    args = [str(a) for a in (c.get("args") or []) + (c.get("command") or [])]
    cfg_path = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--config"), None)
    mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    cm_name = cm["metadata"]["name"]
    cm_mounts = [mounts[n] for n, v in volumes.items()
                 if (v.get("configMap") or {}).get("name") == cm_name and n in mounts]
    expect(cfg_path is not None and any(cfg_path == os.path.join(m, "qinfer.yaml") for m in cm_mounts),
           f"--config {cfg_path} is the mounted ConfigMap {cm_name}",
           f"--config {cfg_path} is not qinfer.yaml in a mount of ConfigMap {cm_name} "
           f"(mounted at {cm_mounts})")

    def under_mount(key):
        path = str(flat.get(key, ""))
        hit = [m for m in mounts.values() if path.startswith(m.rstrip("/") + "/")]
        expect(bool(hit), f"{key} {path} is on a volume ({hit[0] if hit else ''})",
               f"{key} {path} is not under any volumeMount ({sorted(mounts.values())})")
    under_mount("model.path")
    under_mount("storage.path")

    # The PDB and KEDA point at this Deployment and its consumer group.
    pod_labels = pod_meta.get("labels", {}) or {}
    sel = ((pdb.get("spec") or {}).get("selector") or {}).get("matchLabels", {}) or {}
    expect(sel and all(pod_labels.get(k) == v for k, v in sel.items()),
           "PodDisruptionBudget selects the Deployment's pods",
           f"PodDisruptionBudget selector {sel} does not match pod labels {pod_labels}")
    so_spec = so.get("spec") or {}
    target = (so_spec.get("scaleTargetRef") or {}).get("name")
    expect(target == dep["metadata"]["name"], f"ScaledObject scales Deployment {target}",
           f"ScaledObject scaleTargetRef {target} is not the Deployment {dep['metadata']['name']}")
    kafka = [t for t in so_spec.get("triggers", []) if t.get("type") == "kafka"]
    expect(len(kafka) == 1, "ScaledObject has a kafka trigger", "ScaledObject needs one kafka trigger")
    if kafka:
        md = kafka[0].get("metadata") or {}
        for field, key, default in (("consumerGroup", "kafka.group_id", "qinfer"),
                                    ("topic", "kafka.jobs_topic", "jobs"),
                                    ("bootstrapServers", "kafka.brokers", "127.0.0.1:9092")):
            want = str(flat.get(key, default))
            expect(str(md.get(field)) == want, f"kafka trigger {field} = {key} ({want})",
                   f"kafka trigger {field} '{md.get(field)}' differs from {key} '{want}'")
        lag = str(md.get("lagThreshold", ""))
        expect(lag.isdigit() and int(lag) > 0, f"kafka trigger lagThreshold {lag}",
               f"kafka trigger lagThreshold '{lag}' should be a positive integer (as a string)")
    max_r = int(so_spec.get("maxReplicaCount", 100))
    min_r = int(so_spec.get("minReplicaCount", 0))
    parts = int(flat.get("kafka.topic_partitions", 1))
    expect(min_r <= max_r <= parts,
           f"replicas {min_r}..{max_r} within the jobs topic's {parts} partitions (kafka.topic_partitions)",
           f"maxReplicaCount {max_r} must be >= minReplicaCount {min_r} and <= the jobs topic's "
           f"partition count ({parts}, kafka.topic_partitions in the ConfigMap)")

    for o in oks:
        print(f"ok   {o}")
    for p in problems:
        print(f"FAIL {p}")
    return 1 if problems else 0


def main(argv):
    commands = {"k8s": (cmd_k8s, 2), "configmap-config": (cmd_configmap_config, 2),
                "promtool-compat": (cmd_promtool_compat, 2),
                "dashboard-rules": (cmd_dashboard_rules, 2), "dashboard": (cmd_dashboard, 1),
                "names": (cmd_names, 2), "scrape": (cmd_scrape, 3)}
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 != commands[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    fn, _ = commands[argv[1]]
    return fn(*argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
