#!/usr/bin/env python3
"""Check your own TorchScript model or AOTInductor package against qinfer's model contract and write its manifest.

    .venv/bin/python model/check_model.py MODEL.pt|MODEL.pt2 [--out DIR] [--name NAME]
        [--vocab-size N] [--max-positions N] [--max-tokens N] [--max-batch N] [--probe-limit N]

The contract (model/qinfer_model.py, README "Bring your own model"):

  forward(input_ids: int64 [B, T], attention_mask: int64 [B, T]) -> float32 [B, D]

one pooled vector per row, independent of the other rows of the batch;
padded positions (attention_mask == 0, whatever ids they hold) change no
row's output, the ids under attention_mask == 1 do; finite outputs for
valid inputs.

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
     same search on lengths up to --probe-limit, default 2048; a model that
     takes them all gets max_positions = the limit, said so in the output);
  3. runs the contract checks: rows of 1, 7, 33, max_tokens and max_positions
     tokens in one padded batch (random ids, garbage ids in the padding)
     against each row alone, output rank, shape, dtype, finiteness; rows of
     one length in one batch against each row alone (batch independence);
     other ids in the padding (no change) and two rows of different ids
     (different outputs: the mask masks, in forward's argument order);
  4. writes DIR/manifest.json (name, vocab_size, max_tokens, max_positions,
     output "pooled", dim, the sha256 digest of the model file, torch
     version, and what was measured) and, when DIR is not MODEL.pt's own
     directory, copies the model there as DIR/model.pt, so that
     `model.path: DIR/model.pt` finds its manifest beside it. For a .pt2:
     format "aoti", max_batch, and `packages` with the one cpu/float32
     package (copied as DIR/model-cpu-float32.pt2, what model.path names).

max_tokens (the longest input qinfer serves in its buckets; longer ones
follow admission.too_long) defaults to max_positions. A model that breaks
the contract is refused: the exit status is 1 and the message names the
problem; nothing is written. Exit status 2: bad arguments or an unreadable
file.
"""

import argparse
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qinfer_model import ContractError, check_contract, check_signature, sha256_file, write_manifest  # noqa: E402

AOTI_FILE = "model-cpu-float32.pt2"  # an aoti export's model.path


def _accepts(model, ids: torch.Tensor) -> bool:
    try:
        with torch.inference_mode():
            model(ids, torch.ones_like(ids))
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


def measure_vocab(model, limit: int = 1 << 24) -> int:
    """vocab_size: one more than the largest token id the model accepts."""
    top = largest_passing(lambda t: _accepts(model, torch.tensor([[0, t]], dtype=torch.int64)), 1, limit)
    if top < 1:
        raise ContractError("forward fails on input_ids [[0, 1]]: cannot measure the vocabulary "
                            "(pass --vocab-size if ids must be larger)")
    if top == limit:
        raise ContractError(f"every token id up to {limit} is accepted: cannot measure the vocabulary; "
                            "pass --vocab-size")
    return top + 1


def measure_positions(model, limit: int) -> int:
    """max_positions: the longest input the model accepts, up to limit."""
    longest = largest_passing(lambda n: _accepts(model, torch.ones(1, n, dtype=torch.int64)), 1, limit)
    if longest < 1:
        raise ContractError("forward fails on a one-token input: input_ids [[1]], attention_mask [[1]]")
    return longest


def refuse(msg: str) -> None:
    print(f"check_model.py: REFUSED: {msg}", file=sys.stderr)
    sys.exit(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", metavar="MODEL.pt", help="TorchScript model file")
    ap.add_argument("--out", metavar="DIR", help="where manifest.json goes (default: beside MODEL.pt)")
    ap.add_argument("--name", help="the manifest's name (default: MODEL.pt's directory name)")
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
    try:
        if not aoti:
            check_signature(model)
        vocab = a.vocab_size
        if vocab is None:
            vocab = measure_vocab(model)
            measured["vocab_size"] = "smallest refused token id"
        positions = a.max_positions
        if positions is None:
            positions = measure_positions(model, a.probe_limit)
            measured["max_positions"] = ("longest accepted input" if positions < a.probe_limit else
                                         f"every length up to the probe limit {a.probe_limit} accepted")
        max_tokens = a.max_tokens or positions
        if max_tokens > positions:
            raise ContractError(f"--max-tokens {max_tokens} is more than the {positions} positions "
                                "the model accepts")
        checked = check_contract(model, vocab, positions, lengths=[1, 7, 33, max_tokens, positions])
    except ContractError as e:
        refuse(str(e))

    out = a.out or os.path.dirname(os.path.abspath(a.model))
    os.makedirs(out, exist_ok=True)
    path = os.path.abspath(a.model)
    if os.path.abspath(out) != os.path.dirname(path) or (aoti and os.path.basename(path) != AOTI_FILE):
        dest = os.path.join(out, AOTI_FILE if aoti else "model.pt")
        shutil.copyfile(path, dest + ".tmp")
        os.replace(dest + ".tmp", dest)
        path = dest
    name = a.name or os.path.basename(os.path.dirname(os.path.abspath(a.model))) or "model"
    fields = {
        "name": name,
        "format": "aoti" if aoti else "torchscript",
        "vocab_size": vocab,
        "max_tokens": max_tokens,
        "max_positions": positions,
        "output": "pooled",
        "dim": checked["dim"],
        "measured": measured,
    }
    if aoti:
        fields["max_batch"] = a.max_batch
        fields["packages"] = {"cpu/float32": {"file": AOTI_FILE, "digest": "sha256:" + sha256_file(path)}}
    manifest = write_manifest(out, path, fields)
    print(f"contract ok: forward(input_ids, attention_mask) -> float32 [B, {checked['dim']}]; rows of "
          f"{checked['lengths']} padded to {checked['width']}: max padding diff "
          f"{checked['max_padding_diff']:.2e}")
    print(f"vocab_size {vocab}, max_positions {positions}, max_tokens {max_tokens}"
          + (f" (measured: {', '.join(f'{k}: {v}' for k, v in measured.items())})" if measured else ""))
    print(f"wrote {os.path.join(out, 'manifest.json')} for {path}; digest {manifest['digest']}")


if __name__ == "__main__":
    main()
