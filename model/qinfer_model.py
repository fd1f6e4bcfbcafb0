"""qinfer's model contract, checked on a saved TorchScript file.

One module for every script that produces or admits a model
(model/export_model.py, model/export_minilm.py, model/check_model.py), so the
checks the executor relies on are written once:

  forward(input_ids: int64 [B, L], attention_mask: int64 [B, L]) -> float32 [B, D]

  - any B >= 1 and 1 <= L <= max_positions, ids in [0, vocab_size);
  - one row per input, D the same for every batch (a pooled output);
  - rows are independent: a row's output does not depend on the other rows
    of its batch (a row run alone equals the same row among others of its
    length);
  - padding (attention_mask == 0, whatever ids it holds) changes no row's
    output: a row run alone equals the same row inside a padded batch;
  - the mask masks, in that argument order: the ids where attention_mask is
    0 change nothing, the ids where it is 1 change the row's output;
  - finite outputs for valid inputs.

check_contract() raises ContractError with a message naming the broken rule;
check_precision() measures how far the outputs under CPU autocast (bfloat16,
float16) drift from float32; write_manifest() writes manifest.json atomically
with the file's digest.
"""

import hashlib
import json
import os

import torch


class ContractError(Exception):
    """The model breaks qinfer's model contract; the message says how."""


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_signature(model: torch.jit.ScriptModule) -> None:
    """forward takes exactly two tensors (input_ids, attention_mask) and returns one tensor."""
    try:
        schema = model.forward.schema
    except AttributeError as e:
        raise ContractError(f"the model has no TorchScript forward method ({e})") from None
    args = [a for a in schema.arguments if a.name != "self"]
    if len(args) != 2:
        raise ContractError(
            f"forward takes {len(args)} arguments ({', '.join(a.name for a in args)}); "
            "the contract is forward(input_ids, attention_mask)")
    for a in args:
        if str(a.type) not in ("Tensor", "Optional[Tensor]"):
            raise ContractError(f"forward argument '{a.name}' is {a.type}, not a Tensor")
    if len(schema.returns) != 1 or str(schema.returns[0].type) != "Tensor":
        raise ContractError(
            f"forward returns {', '.join(str(r.type) for r in schema.returns) or 'nothing'}; "
            "the contract is one float tensor [B, D]")


def _run(model, ids: torch.Tensor, mask: torch.Tensor, what: str) -> torch.Tensor:
    try:
        out = model(ids, mask)
    except Exception as e:  # noqa: BLE001  (any failure of forward breaks the contract)
        first = str(e).strip().splitlines()
        raise ContractError(f"forward fails on {what} int64 input_ids/attention_mask "
                            f"{tuple(ids.shape)}: {first[-1] if first else type(e).__name__}") from None
    if not isinstance(out, torch.Tensor):
        raise ContractError(f"forward returns {type(out).__name__}, not a tensor")
    return out


def check_contract(model, vocab_size: int, max_positions: int, seed: int = 0,
                   dim: int | None = None, lengths: list[int] | None = None,
                   avoid_ids: set[int] | None = None, atol: float = 1e-4) -> dict:
    """Runs the model on padded batches and checks the contract.

    lengths: row lengths to try (default: 1, 7, 33, max_positions, clipped to
    max_positions); the batch is padded to the longest. avoid_ids: token ids
    the random rows (and the padding) must not contain. dim: the expected
    output width, when known. Returns {"dim", "lengths", "width",
    "max_padding_diff"}. Raises ContractError.
    """
    avoid = avoid_ids or set()
    free = next(t for t in range(vocab_size - 1, -1, -1) if t not in avoid)
    gen = torch.Generator().manual_seed(seed + 1)
    if lengths is None:
        lengths = [1, 7, 33, max_positions]
    lengths = sorted({min(max(1, n), max_positions) for n in lengths}, reverse=True)
    rows = [torch.randint(0, vocab_size, (n,), generator=gen) for n in lengths]
    for r in rows:
        for m in avoid:
            r[r == m] = free
    width = max(lengths)
    ids = torch.zeros(len(rows), width, dtype=torch.int64)
    mask = torch.zeros(len(rows), width, dtype=torch.int64)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
    # Garbage in the padding must not matter either.
    ids[mask == 0] = free

    with torch.inference_mode():
        batched = _run(model, ids, mask, "a padded batch of")
        if batched.dim() != 2:
            raise ContractError(
                f"output has rank {batched.dim()} (shape {tuple(batched.shape)}); the contract is "
                f"one pooled vector per row, shape [B, D] = [{len(rows)}, D]")
        if batched.shape[0] != len(rows):
            raise ContractError(f"output has {batched.shape[0]} rows for a batch of {len(rows)}")
        if dim is not None and batched.shape[1] != dim:
            raise ContractError(f"output width is {batched.shape[1]}, want {dim}")
        if batched.dtype != torch.float32:
            raise ContractError(f"output dtype is {batched.dtype}, want torch.float32")
        if not torch.isfinite(batched).all():
            raise ContractError("output has non-finite values (NaN or Inf) for valid inputs")
        def alone(r: torch.Tensor) -> torch.Tensor:
            out = _run(model, r.unsqueeze(0), torch.ones(1, len(r), dtype=torch.int64), "a single row of")
            if out.shape != (1, batched.shape[1]):
                raise ContractError(f"output for one row of length {len(r)} has shape "
                                    f"{tuple(out.shape)}, want (1, {batched.shape[1]})")
            return out[0]

        def random_row(n: int) -> torch.Tensor:
            r = torch.randint(0, vocab_size, (n,), generator=gen)
            for m in avoid:
                r[r == m] = free
            return r

        # Rows of one length, no padding: qinfer batches rows of a bucket
        # together, so a row must not see its batch-mates.
        n = min(7, max_positions)
        same = torch.stack([random_row(n) for _ in range(3)])
        together = _run(model, same, torch.ones_like(same), "a batch of equal-length rows,")
        for i in range(len(same)):
            diff = (alone(same[i]) - together[i]).abs().max().item()
            if diff > atol:
                raise ContractError(
                    f"rows depend on each other: in a batch of {len(same)} rows of {n} tokens (no padding), "
                    f"row {i}'s output differs from the same row run alone by {diff:.3g} (> {atol}); each "
                    "row's output must depend on that row only (no normalisation, attention or pooling "
                    "across the batch dimension, no reordering of rows that is undone wrongly)")

        worst = 0.0
        for i, r in enumerate(rows):
            worst = max(worst, (alone(r) - batched[i]).abs().max().item())
        if worst > atol:
            raise ContractError(
                f"padding changes results: a row run alone and the same row in a batch padded to "
                f"{width} differ by up to {worst:.3g} (> {atol}); padded positions must be masked "
                "in attention and left out of the pooling")

        # The mask masks: other ids under attention_mask == 0 change nothing...
        other = ids.clone()
        other[mask == 0] = random_row(int((mask == 0).sum().item()))
        diff = (_run(model, other, mask, "a padded batch of") - batched).abs().max().item()
        if diff > atol:
            raise ContractError(
                f"the ids at masked positions (attention_mask == 0) change the output by {diff:.3g} "
                f"(> {atol}): the model must ignore them")
        # ...and other ids under attention_mask == 1 change the row.
        changed = random_row(n)
        for _ in range(10):  # a vocabulary of one usable id has no other row
            if not torch.equal(changed, same[0]):
                break
            changed = random_row(n)
        if not torch.equal(changed, same[0]) and torch.equal(alone(changed), alone(same[0])):
            raise ContractError(
                f"two rows of {n} tokens with different input_ids (attention_mask all 1) give the same "
                "output: the model does not read input_ids where the mask is 1; forward's arguments "
                "must come in the order (input_ids, attention_mask)")
        # A constant model would pass the padding check trivially.
        if len(rows) > 1 and (batched[0] - batched[-1]).abs().max().item() < 1e-3:
            raise ContractError("rows with different inputs give the same output")
    return {"dim": int(batched.shape[1]), "lengths": lengths, "width": width,
            "max_padding_diff": worst}


def pad_rows(rows: list[torch.Tensor], pad_id: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Pads 1-D int64 rows into (input_ids, attention_mask) [len(rows), longest]."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.int64)
    mask = torch.zeros(len(rows), width, dtype=torch.int64)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
    return ids, mask


PRECISIONS = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def check_precision(model, ids: torch.Tensor, mask: torch.Tensor, min_cosine: float) -> dict:
    """The model under CPU autocast (bfloat16, float16) against float32 on one batch.

    Returns {dtype: {"min_cosine", "inputs", "floor", "refused"}}: the smallest
    cosine similarity of a row's reduced-precision output to its float32
    output (a row with NaN/Inf counts as 0), and whether that is below the
    floor `min_cosine`. A dtype that CPU autocast cannot run gets "error"
    instead (and is refused).
    """
    with torch.inference_mode():
        want = model(ids, mask).float()
        report = {}
        for name, dtype in PRECISIONS.items():
            try:
                with torch.autocast("cpu", dtype=dtype):
                    got = model(ids, mask).float()
            except Exception as e:  # noqa: BLE001  (recorded, not fatal: float32 is what is exported)
                lines = str(e).strip().splitlines()
                report[name] = {"error": lines[-1] if lines else type(e).__name__, "inputs": len(ids),
                                "floor": min_cosine, "refused": True}
                continue
            cos = torch.nn.functional.cosine_similarity(got, want, dim=1)
            cos = torch.where(torch.isfinite(got).all(dim=1), cos, torch.zeros_like(cos))
            worst = min(1.0, cos.min().item())
            report[name] = {"min_cosine": round(worst, 6), "inputs": len(ids), "floor": min_cosine,
                            "refused": worst < min_cosine}
    return report


def format_precision(report: dict) -> str:
    """One line per dtype of check_precision()'s report."""
    lines = []
    for name, r in report.items():
        what = f"error {r['error']}" if "error" in r else f"min cosine {r['min_cosine']:.6f}"
        verdict = "REFUSED (below the floor)" if r["refused"] else "ok"
        lines.append(f"precision check: {name} autocast vs. float32 on {r['inputs']} inputs: {what} "
                     f"(floor {r['floor']}): {verdict}")
    return "\n".join(lines)


def write_manifest(out_dir: str, model_path: str, fields: dict) -> dict:
    """Writes OUT/manifest.json (atomically): fields plus format, digest, torch version."""
    manifest = dict(fields)
    manifest.setdefault("format", "torchscript")
    manifest["digest"] = "sha256:" + sha256_file(model_path)
    manifest["torch_version"] = torch.__version__
    path = os.path.join(out_dir, "manifest.json")
    with open(path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return manifest
