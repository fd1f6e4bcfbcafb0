"""MkDocs hook (mkdocs.yml `hooks:`): the benchmark pages' figures, read from the studies' results JSON
when the site is built, so that no figure on docs/benchmarks/ is copied by hand.

A page under docs/benchmarks/ may hold three kinds of blocks; every path is from the repository root.

A whole report, rendered by the study's own report script from the JSON it wrote (the same Markdown
that script writes beside a run; its title dropped and its headings one level down):

    ```bench-report
    report: bench/policies/report.py        # or bench/real_models/report.py
    json: bench/policies/results/benchmarks.json
    command: bench/policies/run.sh          # the command that made the JSON, when the JSON does not say
    chart: policies.png                     # the chart beside the page
    default_texts: 250                      # real_models: the texts per profile of the family's default run
    ```

A table, one row per member of a JSON object (or list), or per named path:

    ```bench-table
    json: bench/encodings/results/encodings.json
    rows: encodings                         # a path to an object or a list
    columns:                                # header: path within the row | format
      - encoding: $key                      # $key: the member's name
      - store value bytes: value_bytes_per_record |,.0f
      - ÷ float: value_ratio_to_float |.3f
    ```

    rows may also be a list of `label: path`: from the JSON's root, or a whole file (`label:
    bench/soak/results/soak.json`), or a path in one (`FILE.json#after`); then `json:` may be left
    out. `$label` is then the label.

A `bench/real_models/levers.py` run (one configuration a row: per profile the executor's
embeddings/s, its ratio to the first configuration, and serve's ratio to its executor when
`--serve` ran):

    ```bench-levers
    json: bench/real_models/results/minilm-levers-char-offsets.json
    ```

One value inline: {{ bench/tasks/results/tasks.json: by_format.aoti.embed.serve_texts_per_s |,.1f }}.

Paths are dotted; a member whose name holds a dot or a colon goes in brackets (workloads[lognormal-0.5]),
a list index too ([0]). A format is Python's format spec, or `~` (from 1,000 up whole with separators,
below to 3 significant digits); a cell whose path ends in `?` is "—" when the
member is absent. Anything else that is absent, or a file that does not exist, fails the build with the
page, the block and the path named.
"""

import importlib.util
import json
import os
import re
import sys

import yaml
from mkdocs.exceptions import PluginError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOCK = re.compile(r"^```(bench-report|bench-table|bench-levers)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
INLINE = re.compile(r"\{\{\s*(bench/[^:}\s]+\.json)\s*:\s*([^|}]+?)\s*(?:\|\s*([^}]*?))?\s*\}\}")
_MISSING = object()


class Missing(KeyError):
    pass


def load_json(path):
    full = os.path.join(REPO, path)
    try:
        with open(full) as f:
            return json.load(f)
    except OSError as e:
        raise PluginError(f"bench figures: {path}: {e.strerror}") from None
    except ValueError as e:
        raise PluginError(f"bench figures: {path}: not JSON: {e}") from None


def segments(path):
    out = []
    for m in re.finditer(r"([^.\[\]]+)|\[([^\]]+)\]", path.strip()):
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
    return out


def lookup(value, path):
    for seg in segments(path):
        if isinstance(value, list):
            try:
                value = value[int(seg)]
                continue
            except (ValueError, IndexError):
                raise Missing(path) from None
        if not isinstance(value, dict) or seg not in value:
            raise Missing(path)
        value = value[seg]
    return value


def fmt(value, spec):
    spec = (spec or "").strip()
    if value is None:
        return "—"
    if spec == "~" and isinstance(value, (int, float)):  # thousands whole, smaller to 3 significant digits
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:#.3g}".rstrip(".")
    if not spec or isinstance(value, str):
        return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) and not spec else str(value)
    return format(value, spec)


def cell(row, key, label, spec_text):
    path, _, spec = spec_text.partition("|")
    path = path.strip()
    if path == "$key":
        return str(key)
    if path == "$label":
        return str(label)
    optional = path.endswith("?")
    try:
        return fmt(lookup(row, path.rstrip("?")), spec)
    except Missing:
        if optional:
            return "—"
        raise


def row_of(data, path):
    """A row: a path in the block's JSON, a whole file (FILE.json) or a path in one (FILE.json#path)."""
    file, _, inner = path.partition("#")
    if file.endswith(".json"):
        return lookup(load_json(file), inner) if inner else load_json(file)
    return lookup(data, path)


def table(spec):
    data = load_json(spec["json"]) if "json" in spec else None
    columns = [next(iter(c.items())) for c in spec["columns"]]
    rows = spec["rows"]
    if isinstance(rows, str):
        members = lookup(data, rows)
        items = list(members.items()) if isinstance(members, dict) else list(enumerate(members))
        items = [(k, k, v) for k, v in items]
    else:
        items = [(label, label, row_of(data, path)) for label, path in (next(iter(r.items())) for r in rows)]
    lines = ["| " + " | ".join(str(h) for h, _ in columns) + " |", "|" + "---|" * len(columns)]
    for key, label, row in items:
        lines.append("| " + " | ".join(cell(row, key, label, str(s)) for _, s in columns) + " |")
    return "\n".join(lines)


def levers(spec):
    data = load_json(spec["json"])
    results, configs = data["results"], [c["tag"] for c in data["configs"]]
    profiles = list(results[configs[0]])
    serve = any("serve" in results[c][p] for c in configs for p in profiles)
    header = ["configuration"]
    for p in profiles:
        header += [f"{p} emb/s", f"{p} ÷ {data['baseline']}"] + ([f"{p} serve ÷ executor"] if serve else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for c in configs:
        row = [f"`{c}`"]
        for p in profiles:
            r = results[c].get(p)
            if r is None:
                row += ["—"] * (3 if serve else 2)
                continue
            row += [fmt(r["median"]["jobs_per_s"], ",.1f"), fmt(r["over_baseline"], ".2f")]
            if serve:
                row.append(fmt((r.get("serve") or {}).get("over_executor"), ".2f"))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + f"\n\n({data['rounds']} rounds, alternating; `{spec['json']}`)"


def load_module(path):
    name = "bench_report_" + re.sub(r"\W", "_", path)
    if name not in sys.modules:
        common = os.path.join(REPO, "bench", "common")
        if common not in sys.path:
            sys.path.insert(0, common)
        spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, path))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


def report(spec):
    module = load_module(spec["report"])
    summary = load_json(spec["json"])
    command = summary.get("command") or spec.get("command")
    if not command:
        raise PluginError(f"bench figures: {spec['json']} names no command, and the block gives none")
    if hasattr(module, "SETTINGS"):  # bench/real_models/report.py: a family's costs and default run
        module.COSTS.update(summary.get("costs") or {})
        module.SETTINGS["default_texts"] = int(spec.get("default_texts", 250))
        text = module.markdown(summary, command, spec["chart"], summary.get("title") or spec.get("title", ""))
    else:
        text = module.markdown(summary, command, chart_name=spec["chart"])
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join("#" + line if line.startswith("#") else line for line in lines).strip()


def on_page_markdown(markdown, page, config, files, **kwargs):
    if not page.file.src_uri.startswith("benchmarks/"):
        return markdown

    def block(m):
        try:
            spec = yaml.safe_load(m.group(2))
            return {"bench-report": report, "bench-table": table, "bench-levers": levers}[m.group(1)](spec)
        except Missing as e:
            raise PluginError(f"{page.file.src_uri}: {m.group(1)} block: no {e.args[0]!r} in its JSON") from None
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise PluginError(f"{page.file.src_uri}: {m.group(1)} block: {type(e).__name__}: {e}\n{m.group(2)}") \
                from None

    def inline(m):
        try:
            return fmt(lookup(load_json(m.group(1)), m.group(2)), m.group(3))
        except Missing:
            raise PluginError(f"{page.file.src_uri}: {{{{ {m.group(1)}: {m.group(2)} }}}}: no such member") from None
        except (TypeError, ValueError) as e:
            raise PluginError(f"{page.file.src_uri}: {{{{ {m.group(1)}: {m.group(2)} }}}}: {e}") from None

    return INLINE.sub(inline, BLOCK.sub(block, markdown))
