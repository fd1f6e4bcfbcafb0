"""qinfer's model contract, checked on a saved TorchScript file.

One module for every script that produces or admits a model
(model/export_model.py, model/export_minilm.py, model/export_hf.py,
model/check_model.py), so the checks the executor relies on are written once:

  forward(input_ids: int64 [B, L], attention_mask: int64 [B, L]
          [, token_type_ids: int64 [B, L]]) -> float32 output

  output (the manifest's `output`, from its task):
    "pooled"        [B, D]     embed: one pooled vector per row (sparse: D = the vocabulary)
    "logits"        [B, C]     classify, rerank: one logit per label (C = 1 for rerank)
    "token_logits"  [B, L, C]  tokens: one logit per label per token
    "token_embeddings" [B, L, D]  token_embed: one vector per token
  token_type_ids (the manifest's `inputs` names it): only models that take
  pairs and use token types (BERT-like classify/rerank); 0 for the first
  text's tokens, 1 for the second's.

  - any B >= 1 and 1 <= L <= max_positions, ids in [0, vocab_size);
  - one output row per input (per token for token_logits), the same width
    for every batch;
  - rows are independent: a row's output does not depend on the other rows
    of its batch (a row run alone equals the same row among others of its
    length);
  - padding (attention_mask == 0, whatever ids and token types it holds)
    changes no row's output (no real token's output for token_logits): a row
    run alone equals the same row inside a padded batch;
  - the mask masks, in that argument order: the ids where attention_mask is
    0 change nothing, the ids where it is 1 change the row's output (and so
    do the token types where it is 1, for a 3-input model);
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

# The manifest's `output` for each value of its `task`.
TASK_OUTPUT = {"embed": "pooled", "classify": "logits", "rerank": "logits", "tokens": "token_logits",
               "sparse": "pooled", "token_embed": "token_embeddings"}
OUTPUTS = ("pooled", "logits", "token_logits", "token_embeddings")
PER_TOKEN = ("token_logits", "token_embeddings")
INPUTS_2 = ["input_ids", "attention_mask"]
INPUTS_3 = ["input_ids", "attention_mask", "token_type_ids"]


class ContractError(Exception):
    """The model breaks qinfer's model contract; the message says how."""


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_signature(model: torch.jit.ScriptModule, inputs: list[str] | None = None) -> None:
    """forward takes exactly the tensors `inputs` (default input_ids, attention_mask) and returns one tensor."""
    inputs = inputs or INPUTS_2
    want = f"forward({', '.join(inputs)})"
    try:
        schema = model.forward.schema
    except AttributeError as e:
        raise ContractError(f"the model has no TorchScript forward method ({e})") from None
    args = [a for a in schema.arguments if a.name != "self"]
    if len(args) != len(inputs):
        raise ContractError(
            f"forward takes {len(args)} arguments ({', '.join(a.name for a in args)}); "
            f"the contract is {want}")
    for a in args:
        if str(a.type) not in ("Tensor", "Optional[Tensor]"):
            raise ContractError(f"forward argument '{a.name}' is {a.type}, not a Tensor")
    if len(schema.returns) != 1 or str(schema.returns[0].type) != "Tensor":
        raise ContractError(
            f"forward returns {', '.join(str(r.type) for r in schema.returns) or 'nothing'}; "
            "the contract is one float tensor")


def _run(model, ids: torch.Tensor, mask: torch.Tensor, types: torch.Tensor | None, what: str) -> torch.Tensor:
    args = (ids, mask) if types is None else (ids, mask, types)
    names = "input_ids/attention_mask" + ("" if types is None else "/token_type_ids")
    try:
        out = model(*args)
    except Exception as e:  # noqa: BLE001  (any failure of forward breaks the contract)
        first = str(e).strip().splitlines()
        raise ContractError(f"forward fails on {what} int64 {names} "
                            f"{tuple(ids.shape)}: {first[-1] if first else type(e).__name__}") from None
    if not isinstance(out, torch.Tensor):
        raise ContractError(f"forward returns {type(out).__name__}, not a tensor")
    return out


def segments(n: int) -> torch.Tensor:
    """token_type_ids of a pair row of n tokens: 0 for the first half, 1 for the rest."""
    types = torch.zeros(n, dtype=torch.int64)
    types[n // 2:] = 1
    return types


class _Rows:
    """Random rows of token ids (and their segments) for the checks, never holding an avoided id."""

    def __init__(self, vocab_size: int, avoid: set[int], seed: int, pairs: bool):
        self.vocab_size = vocab_size
        self.avoid = avoid
        self.free = next(t for t in range(vocab_size - 1, -1, -1) if t not in avoid)
        self.gen = torch.Generator().manual_seed(seed + 1)
        self.pairs = pairs

    def ids(self, n: int) -> torch.Tensor:
        r = torch.randint(0, self.vocab_size, (n,), generator=self.gen)
        for m in self.avoid:
            r[r == m] = self.free
        return r

    def types(self, n: int) -> torch.Tensor | None:
        return segments(n) if self.pairs else None


def _check_shape(out: torch.Tensor, rows: int, width: int, output: str, dim: int | None) -> None:
    if output in PER_TOKEN:
        if out.dim() != 3:
            raise ContractError(
                f"output has rank {out.dim()} (shape {tuple(out.shape)}); the contract of output "
                f"{output} is one vector per token, shape [B, L, C] = [{rows}, {width}, C]")
        if out.shape[1] != width:
            raise ContractError(f"output has {out.shape[1]} positions for inputs of {width} tokens")
    elif out.dim() != 2:
        what = "one pooled vector" if output == "pooled" else "one logit vector"
        raise ContractError(
            f"output has rank {out.dim()} (shape {tuple(out.shape)}); the contract is "
            f"{what} per row, shape [B, D] = [{rows}, D]")
    if out.shape[0] != rows:
        raise ContractError(f"output has {out.shape[0]} rows for a batch of {rows}")
    if dim is not None and out.shape[-1] != dim:
        raise ContractError(f"output width is {out.shape[-1]}, want {dim}")
    if out.dtype != torch.float32:
        raise ContractError(f"output dtype is {out.dtype}, want torch.float32")
    if not torch.isfinite(out).all():
        raise ContractError("output has non-finite values (NaN or Inf) for valid inputs")


def check_contract(model, vocab_size: int, max_positions: int, seed: int = 0,
                   dim: int | None = None, lengths: list[int] | None = None,
                   avoid_ids: set[int] | None = None, atol: float = 1e-4,
                   output: str = "pooled", inputs: list[str] | None = None, rtol: float = 1e-5) -> dict:
    """Runs the model on padded batches and checks the contract.

    lengths: row lengths to try (default: 1, 7, 33, max_positions, clipped to
    max_positions); the batch is padded to the longest. avoid_ids: token ids
    the random rows (and the padding) must not contain. dim: the expected
    output width (D or C), when known. output: "pooled", "logits" (both
    [B, D]) or "token_logits" ([B, L, C]: only real tokens are compared).
    inputs: the forward arguments, INPUTS_2 (default) or INPUTS_3 (rows are
    then pairs: token types 0, then 1). Two outputs are equal when every
    value is within atol + rtol x the scale of its output vector (the
    largest |value| of its row, or of its token's logits) of the other
    (allclose's rule, at the output's scale), so a model whose outputs are
    in the hundreds (a classifier's logits) is held to its own scale. Returns {"dim", "lengths", "width",
    "max_padding_diff"}. Raises ContractError.
    """
    def differs(got: torch.Tensor, want: torch.Tensor) -> str | None:
        """None when equal as above; else the largest difference and the tolerance, for the message."""
        diff = (got - want).abs()
        # The scale of a value is its row's (its output vector's) largest: float32's error in a logit
        # that cancels to near 0 is that of the terms it was summed from.
        allowed = atol + rtol * want.abs().amax(dim=-1, keepdim=True)
        if not bool((diff > allowed).any()):
            return None
        return (f"{diff.max().item():.3g} (> {atol} + {rtol} x the output's largest |value|: "
                f"{allowed.max().item():.3g} at most)")

    if output not in OUTPUTS:
        raise ValueError(f"output {output!r}: expected one of {OUTPUTS}")
    inputs = inputs or INPUTS_2
    if inputs not in (INPUTS_2, INPUTS_3):
        raise ValueError(f"inputs {inputs!r}: expected {INPUTS_2} or {INPUTS_3}")
    per_token = output in PER_TOKEN
    gen = _Rows(vocab_size, avoid_ids or set(), seed, pairs=inputs == INPUTS_3)
    if lengths is None:
        lengths = [1, 7, 33, max_positions]
    lengths = sorted({min(max(1, n), max_positions) for n in lengths}, reverse=True)
    rows = [gen.ids(n) for n in lengths]
    width = max(lengths)
    ids = torch.full((len(rows), width), gen.free, dtype=torch.int64)  # garbage in the padding...
    mask = torch.zeros(len(rows), width, dtype=torch.int64)
    types = None if not gen.pairs else torch.ones(len(rows), width, dtype=torch.int64)  # ...and in its types
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
        if types is not None:
            types[i, : len(r)] = gen.types(len(r))

    def real(out: torch.Tensor, n: int) -> torch.Tensor:
        """A row's output without its padded positions."""
        return out[:n] if per_token else out

    with torch.inference_mode():
        batched = _run(model, ids, mask, types, "a padded batch of")
        _check_shape(batched, len(rows), width, output, dim)

        def alone(r: torch.Tensor) -> torch.Tensor:
            t = gen.types(len(r))
            out = _run(model, r.unsqueeze(0), torch.ones(1, len(r), dtype=torch.int64),
                       None if t is None else t.unsqueeze(0), "a single row of")
            want = (1, len(r), batched.shape[-1]) if per_token else (1, batched.shape[1])
            if tuple(out.shape) != want:
                raise ContractError(f"output for one row of length {len(r)} has shape "
                                    f"{tuple(out.shape)}, want {want}")
            return out[0]

        # Rows of one length, no padding: qinfer batches rows of a bucket
        # together, so a row must not see its batch-mates.
        n = min(7, max_positions)
        same = torch.stack([gen.ids(n) for _ in range(3)])
        same_types = None if not gen.pairs else gen.types(n).expand(3, n).contiguous()
        together = _run(model, same, torch.ones_like(same), same_types, "a batch of equal-length rows,")
        for i in range(len(same)):
            diff = differs(together[i], alone(same[i]))
            if diff:
                raise ContractError(
                    f"rows depend on each other: in a batch of {len(same)} rows of {n} tokens (no padding), "
                    f"row {i}'s output differs from the same row run alone by {diff}; each "
                    "row's output must depend on that row only (no normalisation, attention or pooling "
                    "across the batch dimension, no reordering of rows that is undone wrongly)")

        worst = 0.0
        for i, r in enumerate(rows):
            single, padded = real(alone(r), len(r)), real(batched[i], len(r))
            worst = max(worst, (single - padded).abs().max().item())
            diff = differs(padded, single)
            if diff:
                what = "a token's output" if per_token else "a row"
                raise ContractError(
                    f"padding changes results: {what} run alone and the same in a batch padded to {width} "
                    f"differ by {diff} (a row of {len(r)} tokens); padded positions must be masked "
                    "in attention" + ("" if per_token else " and left out of the pooling"))

        # The mask masks: other ids under attention_mask == 0 change nothing...
        other = ids.clone()
        other[mask == 0] = gen.ids(int((mask == 0).sum().item()))
        changed_out = _run(model, other, mask, types, "a padded batch of")
        keep = mask.bool() if per_token else slice(None)
        diff = differs(changed_out[keep], batched[keep])
        if diff:
            raise ContractError(
                f"the ids at masked positions (attention_mask == 0) change the output by {diff}: the model "
                "must ignore them")
        # ...and other ids under attention_mask == 1 change the row.
        changed = gen.ids(n)
        for _ in range(10):  # a vocabulary of one usable id has no other row
            if not torch.equal(changed, same[0]):
                break
            changed = gen.ids(n)
        if not torch.equal(changed, same[0]) and torch.equal(alone(changed), alone(same[0])):
            raise ContractError(
                f"two rows of {n} tokens with different input_ids (attention_mask all 1) give the same "
                "output: the model does not read input_ids where the mask is 1; forward's arguments "
                f"must come in the order ({', '.join(inputs)})")
        if gen.pairs:
            _check_token_types(model, same[0], atol)
        # A constant model would pass the padding check trivially (for token
        # logits: compare the rows' first tokens).
        first = batched[:, 0] if per_token else batched
        if len(rows) > 1 and (first - first[0]).abs().max().item() < 1e-3:
            raise ContractError("rows with different inputs give the same output")
    return {"dim": int(batched.shape[-1]), "lengths": lengths, "width": width,
            "max_padding_diff": worst}


def _check_token_types(model, row: torch.Tensor, atol: float) -> None:
    """A 3-input model reads token_type_ids where the mask is 1 (the third argument)."""
    n = len(row)
    if n < 2:
        return
    mask = torch.ones(1, n, dtype=torch.int64)
    pair = _run(model, row.unsqueeze(0), mask, segments(n).unsqueeze(0), "a pair row of")
    single = _run(model, row.unsqueeze(0), mask, torch.zeros(1, n, dtype=torch.int64), "a single-segment row of")
    if (pair - single).abs().max().item() <= atol:
        raise ContractError(
            f"a row of {n} tokens gives the same output with token_type_ids all 0 and with 0s then 1s: "
            "the model does not read its third argument; forward's arguments must come in the order "
            f"({', '.join(INPUTS_3)})")


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


def check_precision(model, ids: torch.Tensor, mask: torch.Tensor, min_cosine: float,
                    token_type_ids: torch.Tensor | None = None) -> dict:
    """The model under CPU autocast (bfloat16, float16) against float32 on one batch.

    Returns {dtype: {"min_cosine", "max_abs_diff", "inputs", "floor", "refused"}}:
    the smallest cosine similarity of a row's reduced-precision output to its
    float32 output (a row with NaN/Inf counts as 0), the largest absolute
    difference, and whether the cosine is below the floor `min_cosine`. A
    rank-3 output ([B, L, C], per token) is compared per real token. A dtype
    that CPU autocast cannot run gets "error" instead (and is refused).
    """
    args = (ids, mask) if token_type_ids is None else (ids, mask, token_type_ids)

    def rows(out: torch.Tensor) -> torch.Tensor:
        return out[mask.bool()] if out.dim() == 3 else out

    with torch.inference_mode():
        want = rows(model(*args).float())
        report = {}
        for name, dtype in PRECISIONS.items():
            try:
                with torch.autocast("cpu", dtype=dtype):
                    got = rows(model(*args).float())
            except Exception as e:  # noqa: BLE001  (recorded, not fatal: float32 is what is exported)
                lines = str(e).strip().splitlines()
                report[name] = {"error": lines[-1] if lines else type(e).__name__, "inputs": len(ids),
                                "floor": min_cosine, "refused": True}
                continue
            cos = torch.nn.functional.cosine_similarity(got, want, dim=1)
            finite = torch.isfinite(got).all(dim=1)
            cos = torch.where(finite, cos, torch.zeros_like(cos))
            worst = min(1.0, cos.min().item())
            diff = (got - want).abs()[finite].max().item() if finite.any() else float("inf")
            report[name] = {"min_cosine": round(worst, 6), "max_abs_diff": float(f"{diff:.3g}"),
                            "inputs": len(ids), "floor": min_cosine, "refused": worst < min_cosine}
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
