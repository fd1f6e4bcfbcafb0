#!/usr/bin/env python3
"""Check your own TorchScript model or AOTInductor package against qinfer's model contract and write its manifest.

    .venv/bin/python model/check_model.py MODEL.pt|MODEL.pt2 [--out DIR] [--name NAME]
        [--manifest PATH] [--vocab-size N] [--max-positions N] [--max-tokens N] [--max-batch N]
        [--probe-limit N]

The contract (model/qinfer_model.py, docs/guide/models.md):

  forward(input_ids: int64 [B, T], attention_mask: int64 [B, T]) -> float32 [B, D]

one pooled vector per row, independent of the other rows of the batch;
padded positions (attention_mask == 0, whatever ids they hold) change no
row's output, the ids under attention_mask == 1 do; finite outputs for
valid inputs.

A model of another task is checked against the contract its manifest names
(--manifest PATH, by default the manifest.json beside MODEL when there is
one, as model/export_hf.py writes it): `task` (embed, classify, rerank,
tokens, sparse, token_embed), `output` ("pooled" [B, D], "logits" [B, C],
"token_logits" and "token_embeddings" [B, T, C]: per token, padding changes
no real token's row) and `inputs`
([input_ids, attention_mask] or with token_type_ids as a third argument,
only for classify and rerank; the checks then run pairs, token types 0
then 1, and the token types must change the output). `labels` sets the
width C. Without a manifest the contract is the one above. A manifest whose
task, output and inputs do not fit together is refused (exit 2).

What it does:
  1. loads MODEL.pt with torch.jit.load (CPU) and checks forward's signature,
     or loads MODEL.pt2, an AOTInductor package compiled for the CPU in
     float32, with torch._inductor.aoti_load_package (a package has no
     signature to read: the checks below run it as forward(input_ids,
     attention_mask)); --max-batch, the batch bound it was exported with,
     is required for it (a package runs larger batches without complaint,
     so the bound cannot be measured);
  2. measures the limits it does not get as options: vocab_size, the
     smallest token id the model refuses (doubling, then bisection, on
     [1, 2] inputs), and max_positions, the longest input it accepts (the
     same search on rows of token id 0 of lengths up to --probe-limit,
     default 2048; a model that
     takes them all gets max_positions = the limit, said so in the output);
  3. runs the contract checks: rows of 1, 7, 33, max_tokens and max_positions
     tokens in one padded batch (random ids, garbage ids in the padding)
     against each row alone, output rank, shape, dtype, finiteness; rows of
     one length in one batch against each row alone (batch independence);
     other ids in the padding (no change) and two rows of different ids
     (different outputs: the mask masks, in forward's argument order);
     a model refused by 2. or 3. whose first argument takes ids past any
     vocabulary while its second fails on them (and its ids change the
     output) is refused as one whose first two arguments look swapped;
  4. writes DIR/manifest.json (name, vocab_size, max_tokens, max_positions,
     output, dim, the sha256 digest of the model file, torch version, and
     what was measured; from a manifest it read: its task fields (task,
     labels, activation, pairs, inputs, family, problem_type), normalized,
     pooling, tokenizer and end_token_id, the tokenizer's files being copied
     into DIR too) and, when DIR is not MODEL.pt's own
     directory, copies the model there as DIR/model.pt, so that
     `model.path: DIR/model.pt` finds its manifest beside it. For a .pt2:
     format "aoti", max_batch, and `packages` with the one cpu/float32
     package (copied as DIR/model-cpu-float32.pt2, what model.path names;
     the CPU capability, threads and Inductor options it was compiled for
     come from the manifest read when that names the same package, and are
     otherwise left out: the executor then cannot check them).
     A package does not refuse inputs longer than it was exported for, so
     its manifest's max_positions, when there is one, bounds the search.

max_tokens (the longest input qinfer serves in its buckets; longer ones
follow admission.too_long) defaults to max_positions (to the manifest's
max_tokens, when it read one and that is smaller). A model that breaks
the contract is refused: the exit status is 1 and the message names the
problem; nothing is written. Exit status 2: bad arguments or an unreadable
file.
"""

import argparse
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qinfer_model import (INPUTS_2, INPUTS_3, TASK_OUTPUT, ContractError, check_contract,  # noqa: E402
                          check_signature, sha256_file, write_manifest)

AOTI_FILE = "model-cpu-float32.pt2"  # an aoti export's model.path
# What a manifest that was read passes on to the one written.
CARRIED = ("task", "labels", "activation", "pairs", "inputs", "family", "problem_type", "normalized", "pooling",
           "tokenizer", "end_token_id")
TOKENIZER_FILES = ("tokenizer_config.json",)  # copied beside the manifest's tokenizer when present


class BadManifest(Exception):
    """The manifest read for the contract does not name one (exit 2)."""


def contract_of(manifest: dict, where: str) -> dict:
    """{"task", "output", "inputs", "dim"} from a manifest's task fields; raises BadManifest."""
    task = manifest.get("task", "embed")
    if task not in TASK_OUTPUT:
        raise BadManifest(f"{where}: task '{task}' is not one of {', '.join(TASK_OUTPUT)}")
    output = manifest.get("output", TASK_OUTPUT[task])
    if output != TASK_OUTPUT[task]:
        raise BadManifest(f"{where}: output '{output}' does not fit task {task} (expected '{TASK_OUTPUT[task]}')")
    inputs = manifest.get("inputs", INPUTS_2)
    if inputs not in (INPUTS_2, INPUTS_3):
        raise BadManifest(f"{where}: inputs must be {INPUTS_2} or {INPUTS_3} (forward's arguments, in order)")
    if inputs == INPUTS_3 and task not in ("classify", "rerank"):
        raise BadManifest(f"{where}: inputs: token_type_ids is an input only of a model that takes pairs "
                          f"(classify, rerank), not of task {task}")
    labels = manifest.get("labels")
    dim = 1 if task == "rerank" else (len(labels) if task in ("classify", "tokens") and labels else None)
    return {"task": task, "output": output, "inputs": inputs, "dim": dim}


def read_manifest(a) -> tuple[dict | None, str | None]:
    """The manifest named by --manifest, else the one beside MODEL (None when there is none)."""
    path = a.manifest or os.path.join(os.path.dirname(os.path.abspath(a.model)), "manifest.json")
    if not os.path.isfile(path):
        if a.manifest:
            raise BadManifest(f"--manifest {a.manifest}: no such file")
        return None, None
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise BadManifest(f"cannot read {path}: {e}") from None
    if not isinstance(manifest, dict):
        raise BadManifest(f"{path} is not a JSON object")
    return manifest, path


def _accepts(model, ids: torch.Tensor, n_inputs: int = 2) -> bool:
    args = (ids, torch.ones_like(ids), torch.zeros_like(ids))[:n_inputs]
    try:
        with torch.inference_mode():
            model(*args)
        return True
    except Exception:  # noqa: BLE001  (any refusal of this input is what is being measured)
        return False


def largest_passing(ok, start: int, limit: int) -> int:
    """The largest n in [start, limit] with ok(n), for ok true up to some n and false above.

    Returns start - 1 when ok(start) is false.
    """
    if not ok(start):
        return start - 1
    lo, hi = start, start * 2
    while hi <= limit and ok(hi):
        lo, hi = hi, hi * 2
    if hi > limit:
        if ok(limit):
            return limit
        hi = limit
    while hi - lo > 1:  # ok(lo), not ok(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def measure_vocab(model, limit: int = 1 << 24, n_inputs: int = 2) -> int:
    """vocab_size: one more than the largest token id the model accepts."""
    top = largest_passing(lambda t: _accepts(model, torch.tensor([[0, t]], dtype=torch.int64), n_inputs), 1, limit)
    if top < 1:
        raise ContractError("forward fails on input_ids [[0, 1]]: cannot measure the vocabulary "
                            "(pass --vocab-size if ids must be larger)")
    if top == limit:
        raise ContractError(f"every token id up to {limit} is accepted: cannot measure the vocabulary; "
                            "pass --vocab-size")
    return top + 1


def measure_positions(model, limit: int, n_inputs: int = 2) -> int:
    """max_positions: the longest input the model accepts, up to limit.

    The rows hold token id 0: not a padding id of RoBERTa-like models (1),
    whose position ids count the non-padding tokens only.
    """
    longest = largest_passing(lambda n: _accepts(model, torch.zeros(1, n, dtype=torch.int64), n_inputs), 1, limit)
    if longest < 1:
        raise ContractError("forward fails on a one-token input: input_ids [[0]], attention_mask [[1]]")
    return longest


def _runs(model, args: tuple) -> torch.Tensor | None:
    """forward's output for args, or None when it fails."""
    try:
        with torch.inference_mode():
            out = model(*args)
    except Exception:  # noqa: BLE001  (a refusal is what is being probed)
        return None
    return out if isinstance(out, torch.Tensor) else None


def swapped_arguments(model, inputs: list[str], big: int = 1 << 24) -> str | None:
    """Why forward looks like it takes its first two arguments the other way round, or None.

    Probed on a model the checks refused: its first argument accepts a token
    id (big) past any vocabulary, as a mask does, while its second accepts
    ids 0 and 1 but fails on big, as an embedding lookup does; and with all
    ones in the first argument, the second one's ids (1 to 4, one order and
    the other) change the output. A model taking the arguments in the
    contract's order fails on big in its first argument.
    """
    n_inputs = len(inputs)

    def call(first: list[int], second: list[int]) -> torch.Tensor | None:
        a = torch.tensor([first], dtype=torch.int64)
        b = torch.tensor([second], dtype=torch.int64)
        return _runs(model, (a, b, torch.zeros_like(a))[:n_inputs])

    ones = [1, 1]
    if call([0, big], ones) is None or call(ones, [0, 1]) is None or call(ones, [0, big]) is not None:
        return None
    forth, back = call([1] * 4, [1, 2, 3, 4]), call([1] * 4, [4, 3, 2, 1])
    if forth is None or back is None or forth.shape != back.shape or torch.allclose(forth, back):
        return None
    order = ", ".join([inputs[1], inputs[0]] + inputs[2:])
    return (f"forward({', '.join(inputs)}) looks swapped: it accepts ids past the vocabulary in the first "
            f"argument but fails on them in the second (token id {big}), whose ids change the output: it "
            f"behaves as forward({order}); export it with its arguments in the order ({', '.join(inputs)})")


def refuse(msg: str) -> None:
    print(f"check_model.py: REFUSED: {msg}", file=sys.stderr)
    sys.exit(1)


def copy_tokenizer(manifest_path: str, manifest: dict, out: str) -> None:
    """The manifest's tokenizer file (and tokenizer_config.json) into out, when out is another directory."""
    src_dir = os.path.dirname(os.path.abspath(manifest_path))
    name = manifest.get("tokenizer")
    if not name or os.path.isabs(name) or os.path.abspath(out) == src_dir:
        return
    for file in (name,) + TOKENIZER_FILES:
        src = os.path.join(src_dir, file)
        if os.path.isfile(src):
            dest = os.path.join(out, file)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(src, dest + ".tmp")
            os.replace(dest + ".tmp", dest)


def probe_limit(a, aoti: bool, source: dict | None) -> tuple[int, str]:
    """The longest input tried when measuring max_positions, and what it is.

    A package runs inputs longer than it was exported for without an error
    (it reads past its position table), so the manifest's max_positions
    bounds the search for a .pt2.
    """
    known = (source or {}).get("max_positions")
    if aoti and isinstance(known, int) and 0 < known < a.probe_limit:
        return known, "the manifest's max_positions"
    return a.probe_limit, "the probe limit"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", metavar="MODEL.pt", help="TorchScript model file")
    ap.add_argument("--out", metavar="DIR", help="where manifest.json goes (default: beside MODEL.pt)")
    ap.add_argument("--name", help="the manifest's name (default: the read manifest's, else MODEL.pt's "
                                   "directory name)")
    ap.add_argument("--manifest", metavar="PATH",
                    help="the manifest whose task, output and inputs name the contract (default: manifest.json "
                         "beside MODEL when there is one; without one: embed, pooled, 2 inputs)")
    ap.add_argument("--vocab-size", type=int, help="do not measure: the model's vocabulary size")
    ap.add_argument("--max-positions", type=int, help="do not measure: the longest input the model takes")
    ap.add_argument("--max-tokens", type=int, help="the longest input qinfer serves (default: max-positions)")
    ap.add_argument("--max-batch", type=int,
                    help=".pt2 (required): the batch bound the package was exported with (torch.export's Dim max)")
    ap.add_argument("--probe-limit", type=int, default=2048,
                    help="longest input tried when measuring max-positions (default 2048)")
    a = ap.parse_args()
    for flag in ("vocab_size", "max_positions", "max_tokens", "max_batch", "probe_limit"):
        v = getattr(a, flag)
        if v is not None and v < 1:
            ap.error(f"--{flag.replace('_', '-')} {v}: must be at least 1")

    aoti = a.model.endswith(".pt2")
    if aoti and a.max_batch is None:
        ap.error("an AOTInductor package needs --max-batch: the batch bound it was exported with")
    try:
        source, source_path = read_manifest(a)
        contract = contract_of(source or {}, source_path or "")
    except BadManifest as e:
        print(f"check_model.py: {e}", file=sys.stderr)
        sys.exit(2)
    try:
        if aoti:
            from aoti_export import load_package
            model = load_package(a.model)
        else:
            model = torch.jit.load(a.model, map_location="cpu").eval()
    except Exception as e:  # noqa: BLE001
        kind = "an AOTInductor package (CPU)" if aoti else "TorchScript"
        print(f"check_model.py: cannot load {a.model} as {kind}: {str(e).strip().splitlines()[0]}",
              file=sys.stderr)
        sys.exit(2)

    measured = {}
    n_inputs = len(contract["inputs"])
    if not aoti:
        try:
            check_signature(model, contract["inputs"])
        except ContractError as e:
            refuse(str(e))
    try:
        vocab = a.vocab_size
        if vocab is None:
            vocab = measure_vocab(model, n_inputs=n_inputs)
            measured["vocab_size"] = "smallest refused token id"
        positions = a.max_positions
        if positions is None:
            limit, what = probe_limit(a, aoti, source)
            positions = measure_positions(model, limit, n_inputs)
            measured["max_positions"] = ("longest accepted input" if positions < limit else
                                         f"every length up to {what} {limit} accepted")
        max_tokens = a.max_tokens or min(positions, (source or {}).get("max_tokens") or positions)
        if max_tokens > positions:
            raise ContractError(f"--max-tokens {max_tokens} is more than the {positions} positions "
                                "the model accepts")
        checked = check_contract(model, vocab, positions, lengths=[1, 7, 33, max_tokens, positions],
                                 dim=contract["dim"], output=contract["output"], inputs=contract["inputs"])
    except ContractError as e:
        # A refusal of a model that takes (attention_mask, input_ids) names whatever check broke first (the
        # vocabulary it cannot measure, padding, ids that change nothing); say what is wrong instead.
        swapped = swapped_arguments(model, contract["inputs"])
        refuse(f"{swapped} (the check that failed: {e})" if swapped else str(e))

    out = a.out or os.path.dirname(os.path.abspath(a.model))
    os.makedirs(out, exist_ok=True)
    path = os.path.abspath(a.model)
    if os.path.abspath(out) != os.path.dirname(path) or (aoti and os.path.basename(path) != AOTI_FILE):
        dest = os.path.join(out, AOTI_FILE if aoti else "model.pt")
        shutil.copyfile(path, dest + ".tmp")
        os.replace(dest + ".tmp", dest)
        path = dest
    if source:
        copy_tokenizer(source_path, source, out)
    name = a.name or (source or {}).get("name") or os.path.basename(os.path.dirname(os.path.abspath(a.model))) \
        or "model"
    fields = {
        "name": name,
        "format": "aoti" if aoti else "torchscript",
        "vocab_size": vocab,
        "max_tokens": max_tokens,
        "max_positions": positions,
        "output": contract["output"],
        "dim": checked["dim"],
        "measured": measured,
    }
    fields.update({key: source[key] for key in CARRIED if source and key in source})
    if aoti:
        fields["max_batch"] = a.max_batch
        entry = {"file": AOTI_FILE, "digest": "sha256:" + sha256_file(path)}
        # What the compiled code was made for (the executor checks it) is
        # known only from the manifest of the export that made this package.
        known = ((source or {}).get("packages") or {}).get("cpu/float32") or {}
        if known.get("digest") == entry["digest"]:
            entry.update({k: known[k] for k in ("cpu_capability", "threads", "inductor") if k in known})
        fields["packages"] = {"cpu/float32": entry}
    manifest = write_manifest(out, path, fields)
    shape = "[B, T, " if contract["output"] == "token_logits" else "[B, "
    print(f"contract ok: forward({', '.join(contract['inputs'])}) -> float32 {shape}{checked['dim']}] "
          f"({contract['task']}, {contract['output']}); rows of {checked['lengths']} padded to "
          f"{checked['width']}: max padding diff {checked['max_padding_diff']:.2e}")
    print(f"vocab_size {vocab}, max_positions {positions}, max_tokens {max_tokens}"
          + (f" (measured: {', '.join(f'{k}: {v}' for k, v in measured.items())})" if measured else ""))
    print(f"wrote {os.path.join(out, 'manifest.json')} for {path}; digest {manifest['digest']}")


if __name__ == "__main__":
    main()
