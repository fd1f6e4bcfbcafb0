#!/usr/bin/env python3
"""Export qinfer's test model: a small, deterministic BERT-style encoder.

    .venv/bin/python model/export_model.py --out models/tiny \
        [--vocab 4096 --max-tokens 512 --max-positions 512 --dim 128 --layers 2 ...]

Writes
  OUT/model.pt       TorchScript (torch.jit.script), loadable with torch::jit::load
  OUT/manifest.json  name, shapes, sha256 digest of model.pt, torch version

Model contract (what the C++ executor relies on):
  forward(input_ids: int64 [B, L], attention_mask: int64 [B, L]) -> float32 [B, dim]
  the mean of the last hidden states over positions where attention_mask == 1.
  Any B >= 1 and 1 <= L <= max_positions (default max_tokens); ids in [0, vocab).
  Padded positions are computed like real ones (padding costs real compute, as
  in BERT) but cannot change a row's output: the mask is an additive bias on the
  attention keys and the pooling ignores them. A row with no valid token: zeros.

The encoder layers are written out by hand on purpose: nn.TransformerEncoder's
inference fast path turns padded batches into nested tensors and skips the
padding, which would hide exactly the cost the scheduler has to plan for.

After saving, the script reloads model.pt with torch.jit.load and checks that
a padded batch (with a row past max_tokens when max_positions allows) gives
each row the same output as that row run alone; it exits non-zero if not.
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # TorchScript writes a module's constants in set order, which follows
    # Python's per-process string hashing. A fixed hash seed makes model.pt
    # byte-for-byte reproducible: same arguments, same digest.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import torch  # noqa: E402  (after the re-exec above, to not import it twice)
import torch.nn.functional as F  # noqa: E402
from torch import Tensor, nn  # noqa: E402

NAME = "qinfer-tiny-encoder"
# Added to the attention scores of masked keys. Finite (unlike -inf) so that a
# row without any valid token gives no NaN; small enough in magnitude for
# fp16/bf16 (|x| < 65504), large enough that exp() of it is exactly 0.
MASK_BIAS = -10000.0


class EncoderLayer(nn.Module):
    """Post-LayerNorm transformer layer (as in BERT): self-attention, then FFN."""

    def __init__(self, dim: int, heads: int, ff_dim: int):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_out = nn.Linear(dim, dim)
        self.attn_norm = nn.LayerNorm(dim)
        self.ff_in = nn.Linear(dim, ff_dim)
        self.ff_out = nn.Linear(ff_dim, dim)
        self.ff_norm = nn.LayerNorm(dim)

    def forward(self, x: Tensor, key_bias: Tensor) -> Tensor:
        # x: [B, L, D]; key_bias: [B, 1, 1, L], 0 for real keys, MASK_BIAS for padding.
        b, l, d = x.shape
        qkv = self.qkv(x).view(b, l, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # each [B, H, L, Dh]
        # Explicit scores (not scaled_dot_product_attention): the [B, H, L, L]
        # tensor is materialized on every backend, so peak memory grows with
        # L^2 the same way everywhere and the memory plan measures it.
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        scores = scores + key_bias.to(scores.dtype)
        attn = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(attn, v).transpose(1, 2).reshape(b, l, d)
        x = self.attn_norm(x + self.attn_out(ctx))
        x = self.ff_norm(x + self.ff_out(F.gelu(self.ff_in(x))))
        return x


class TinyEncoder(nn.Module):
    def __init__(self, vocab: int, max_tokens: int, max_positions: int, dim: int, layers: int, heads: int):
        super().__init__()
        self.max_tokens = max_tokens
        self.mask_bias = MASK_BIAS  # TorchScript cannot read module globals
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_positions, dim)
        self.emb_norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList([EncoderLayer(dim, heads, 4 * dim) for _ in range(layers)])
        # BERT-like initialization: small embeddings, so that no single
        # position dominates after the first LayerNorm.
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        l = input_ids.size(1)
        positions = torch.arange(l, device=input_ids.device)
        x = self.tok(input_ids) + self.pos(positions).unsqueeze(0)
        x = self.emb_norm(x)
        mask = attention_mask.to(x.dtype)  # [B, L], 1 = real token
        key_bias = ((1.0 - mask) * self.mask_bias).view(mask.size(0), 1, 1, l)
        for layer in self.layers:
            x = layer(x, key_bias)
        # Mean over real tokens; clamp keeps an all-padding row at 0, not NaN.
        summed = (x * mask.unsqueeze(-1)).sum(dim=1)
        count = mask.sum(dim=1, keepdim=True).clamp(min=1.0)
        return (summed / count).float()


# Fault-injection variants, for tests of the service's robustness: the same
# weights, wrapped (see --help for the options). They are documented here, not
# in the module docstring, on purpose: the saved model records the source line
# numbers of the classes above, so a longer docstring would change the plain
# model's bytes, and its digest is relied on. Without the options, model.pt is
# byte-for-byte the plain model.
#   --nan-marker ID    a row whose real tokens (attention_mask == 1) include ID
#                      gets an all-NaN output; the other rows are unchanged.
#   --abort-marker ID  forward first calls torch.ops.qinfer_test.abort_if(
#                      input_ids, ID), which aborts the whole process (SIGABRT)
#                      when any element of input_ids, padding included, equals
#                      ID: a poison input. The op lives in a shared library
#                      (tests/testops, target qinfer_test_ops) passed with
#                      --op-library; whoever loads model.pt must load it first
#                      (torch.ops.load_library, or RunnerOptions::op_libraries
#                      in the executor).
#   --bf16-drift       the output goes through a layer that reduced precision
#                      destroys (DriftUnderReducedPrecision): float32 keeps the
#                      outputs to about 1e-6, bf16 autocast leaves a cosine to
#                      float32 far below 0.999 (fp16 too, less far): a model
#                      for the precision checks (the export's and qinfer
#                      serve's start-up probe) to refuse. The manifest says
#                      "bf16_drift": true.
#   --bf16-drift-from N  with --bf16-drift: only rows of N real tokens or more
#                      drift; shorter rows give the plain model's output (a
#                      probe that looked at its first, short rows only would
#                      pass it). The manifest says "bf16_drift_from": N.
# The self-check also runs rows of its lengths under CPU autocast (bfloat16,
# float16) and records the smallest cosine to float32 per dtype in the
# manifest's "precision_check"; below --min-cosine (default 0.999) a dtype is
# recorded and printed as refused, and the export still succeeds.
# The manifest names the markers that are set under "fault_markers". The
# self-check's inputs never contain a marker; with --nan-marker it also checks
# that a marked row gives NaN without touching its batch mates.


class NanOnMarker(nn.Module):
    """Fault injection: rows whose real tokens include `marker` output NaN."""

    def __init__(self, encoder: nn.Module, marker: int):
        super().__init__()
        self.encoder = encoder
        self.marker = marker

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        out = self.encoder(input_ids, attention_mask)
        # Padding never triggers it, so a row's fate depends on that row alone.
        hit = ((input_ids == self.marker) & (attention_mask != 0)).any(dim=1, keepdim=True)
        return torch.where(hit, torch.full_like(out, float("nan")), out)


class AbortOnMarker(nn.Module):
    """Fault injection: a batch holding `marker` aborts the process (custom op)."""

    def __init__(self, encoder: nn.Module, marker: int):
        super().__init__()
        self.encoder = encoder
        self.marker = marker

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        # The encoder consumes the op's result, so no graph pass can drop the call.
        checked = torch.ops.qinfer_test.abort_if(input_ids, self.marker)
        return self.encoder(checked, attention_mask)


class DriftUnderReducedPrecision(nn.Module):
    """Test model for precision checks: out @ (W + E) - out @ W, i.e. out @ E.

    W is large and E small: in float32 the difference of the two nearly
    equal products is out @ E to a relative 1e-6 or so; in bfloat16 (8
    significant bits) the rounding of W + E and W is of E's own size, so the
    result is mostly rounding noise. Linear in the pooled output, so the
    contract (padding, row independence, zeros for an all-padding row) holds.
    With min_length > 0 only rows of at least min_length real tokens go
    through it; shorter rows give the encoder's output as it is.
    """

    def __init__(self, encoder: nn.Module, dim: int, seed: int, min_length: int = 0):
        super().__init__()
        self.encoder = encoder
        self.min_length = min_length
        gen = torch.Generator().manual_seed(seed + 7)
        base = torch.randn(dim, dim, generator=gen)
        self.register_buffer("base", base)
        self.register_buffer("shifted", base + 0.005 * torch.randn(dim, dim, generator=gen))

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        out = self.encoder(input_ids, attention_mask)
        drift = (torch.matmul(out, self.shifted) - torch.matmul(out, self.base)).float()
        if self.min_length <= 0:
            return drift
        long_rows = attention_mask.sum(dim=1, keepdim=True) >= self.min_length
        return torch.where(long_rows, drift, out.float())


# The contract checks shared with export_minilm.py and check_model.py; imported
# here, below the model classes, so that their source lines (and so the plain
# model's bytes and digest) stay as they were.
from aoti_export import (add_export_arguments, check_export_arguments, compile_options, export_packages,  # noqa: E402
                         load_package, parse_targets)
from qinfer_model import (ContractError, check_contract, check_precision, format_precision,  # noqa: E402
                          pad_rows, write_manifest)


def self_check(path: str, vocab: int, max_tokens: int, max_positions: int, dim: int, seed: int,
               nan_marker: int | None = None, abort_marker: int | None = None,
               min_cosine: float = 0.999) -> dict:
    """Reload the saved file and check the contract, plus what this model promises beyond it.

    Returns the precision check (check_precision) of rows of the contract's
    lengths up to max_tokens.
    """
    model = torch.jit.load(path, map_location="cpu").eval()
    markers = {m for m in (nan_marker, abort_marker) if m is not None}
    free = next(t for t in range(vocab - 1, -1, -1) if t not in markers)
    # Short, medium, single-token, a full-length row and, when the positions
    # reach past max_tokens, a row of max_positions; padded to max_positions
    # so the last position embedding is exercised too.
    lengths = [1, min(7, max_tokens), min(33, max_tokens), max_tokens, max_positions]
    try:
        checked = check_contract(model, vocab, max_positions, seed=seed, dim=dim, lengths=lengths,
                                 avoid_ids=markers)
    except ContractError as e:
        fail(str(e))
    with torch.inference_mode():
        # All-padding row: zeros, not NaN.
        n = min(4, max_tokens)
        empty = model(torch.zeros(1, n, dtype=torch.int64), torch.zeros(1, n, dtype=torch.int64))
        if not torch.equal(empty, torch.zeros(1, dim)):
            fail("an all-padding row does not give zeros")
        if nan_marker is not None:
            ids = torch.full((2, 8), free, dtype=torch.int64)
            mask = torch.ones(2, 8, dtype=torch.int64)
            mask[1, 1:] = 0
            clean = model(ids, mask)
            marked = ids.clone()
            marked[1, 0] = nan_marker  # a single-token row
            faulty = model(marked, mask)
            if not torch.isnan(faulty[1]).all():
                fail(f"a row holding the NaN marker {nan_marker} does not give NaN")
            if not torch.equal(faulty[0], clean[0]):
                fail("the NaN marker in one row changes the other rows")
    print(f"self-check ok: lengths {checked['lengths']} padded to {checked['width']}, "
          f"max diff {checked['max_padding_diff']:.2e}")
    gen = torch.Generator().manual_seed(seed + 2)
    rows = [torch.randint(0, vocab, (n,), generator=gen) for n in sorted({*lengths[:-1], max_tokens})]
    for r in rows:
        for m in markers:
            r[r == m] = free
    precision = check_precision(model, *pad_rows(rows, free), min_cosine)
    print(format_precision(precision))
    return precision


def fail(msg: str) -> None:
    print(f"export_model.py: SELF-CHECK FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def export_aoti(model: nn.Module, a, ap) -> tuple[str, dict]:
    """AOTInductor packages of `model` in a.out; returns model.path and the manifest's aoti fields."""
    try:
        entries = export_packages(model, a.out, a.max_batch, a.max_positions, parse_targets(a.devices, a.dtypes),
                                  compile_options(a))
    except ValueError as e:
        ap.error(f"--devices/--dtypes: {e}")
    path = os.path.join(a.out, entries["cpu/float32"]["file"])
    package = load_package(path)
    lengths = [1, min(7, a.max_tokens), min(33, a.max_tokens), a.max_tokens, a.max_positions]
    try:
        checked = check_contract(package, a.vocab, a.max_positions, seed=a.seed, dim=a.dim, lengths=lengths)
    except ContractError as e:
        fail(f"{path}: {e}")
    with torch.inference_mode():
        ids = torch.randint(0, a.vocab, (3, 40), generator=torch.Generator().manual_seed(a.seed))
        mask = torch.ones_like(ids)
        mask[1, 17:] = 0
        diff = (package(ids, mask) - model(ids, mask)).abs().max().item()
    if diff > 1e-5:
        fail(f"{path} differs from the eager model by {diff:.3g} (> 1e-5)")
    print(f"self-check ok: {path}: lengths {checked['lengths']} padded to {checked['width']}, "
          f"max padding diff {checked['max_padding_diff']:.2e}, max diff vs eager {diff:.2e}")
    for key, entry in entries.items():
        if key.startswith("cpu/") and key != "cpu/float32":
            with torch.inference_mode():
                reduced = load_package(os.path.join(a.out, entry["file"]))(ids, mask).float()
                cos = torch.nn.functional.cosine_similarity(reduced, package(ids, mask), dim=1)
            worst = cos.min().item()
            if worst < a.min_cosine:
                fail(f"package {key}: cosine vs. cpu/float32 {worst:.6f} < --min-cosine {a.min_cosine}")
            print(f"self-check ok: package {key}: min cosine vs. cpu/float32 {worst:.6f}")
    return path, {"max_batch": a.max_batch, "packages": entries}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--max-positions", type=int, metavar="N",
                    help="rows of the learned position embedding: the longest input the model "
                         "accepts, for a long lane above max-tokens (default: max-tokens)")
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--nan-marker", type=int, metavar="ID",
                    help="fault injection: rows holding token ID output NaN")
    ap.add_argument("--abort-marker", type=int, metavar="ID",
                    help="fault injection: a batch holding token ID aborts the process "
                         "(needs --op-library)")
    ap.add_argument("--bf16-drift", action="store_true",
                    help="test model: outputs that bf16 autocast destroys (float32 keeps them)")
    ap.add_argument("--bf16-drift-from", type=int, metavar="N", default=0,
                    help="with --bf16-drift: only rows of at least N real tokens drift")
    ap.add_argument("--op-library", metavar="PATH",
                    help="shared library registering torch.ops.qinfer_test.abort_if "
                         "(target qinfer_test_ops)")
    add_export_arguments(ap)
    a = ap.parse_args()
    if a.vocab < 2 or a.max_tokens < 1 or a.layers < 1 or a.heads < 1 or a.dim % a.heads:
        ap.error("need vocab >= 2, max-tokens >= 1, layers >= 1, and dim divisible by heads")
    if a.max_positions is None:
        a.max_positions = a.max_tokens
    if a.max_positions < a.max_tokens:
        ap.error(f"--max-positions {a.max_positions}: must be at least --max-tokens {a.max_tokens}")
    for flag, marker in (("--nan-marker", a.nan_marker), ("--abort-marker", a.abort_marker)):
        if marker is not None and not 0 <= marker < a.vocab:
            ap.error(f"{flag} {marker}: must be a token id in [0, {a.vocab})")
    if (a.abort_marker is None) != (a.op_library is None):
        ap.error("--abort-marker and --op-library go together")
    if a.bf16_drift_from and (not a.bf16_drift or a.bf16_drift_from < 1):
        ap.error(f"--bf16-drift-from {a.bf16_drift_from}: needs --bf16-drift and a length of at least 1")
    check_export_arguments(ap, a)
    if a.format == "aoti" and (a.nan_marker is not None or a.abort_marker is not None):
        ap.error("--format aoti exports the plain model only (no fault markers)")
    if a.op_library is not None:
        # Registers the op before scripting, so that the compiler can resolve it.
        torch.ops.load_library(a.op_library)

    t0 = time.monotonic()
    torch.manual_seed(a.seed)
    model = TinyEncoder(a.vocab, a.max_tokens, a.max_positions, a.dim, a.layers, a.heads).eval()
    # Wrappers only when asked: the plain model's file (and digest) stay as they are.
    if a.nan_marker is not None:
        model = NanOnMarker(model, a.nan_marker).eval()
    if a.abort_marker is not None:
        model = AbortOnMarker(model, a.abort_marker).eval()
    if a.bf16_drift:
        model = DriftUnderReducedPrecision(model, a.dim, a.seed, a.bf16_drift_from).eval()
    os.makedirs(a.out, exist_ok=True)
    if a.format == "aoti":
        path, extra = export_aoti(model, a, ap)
    else:
        scripted = torch.jit.script(model)
        path = os.path.join(a.out, "model.pt")
        tmp = path + ".tmp"
        scripted.save(tmp)
        os.replace(tmp, path)  # readers never see a half-written model
        extra = {"precision_check": self_check(path, a.vocab, a.max_tokens, a.max_positions, a.dim, a.seed,
                                               a.nan_marker, a.abort_marker, a.min_cosine)}

    fields = {
        "name": NAME,
        "format": a.format,
        "vocab_size": a.vocab,
        "max_tokens": a.max_tokens,
        "max_positions": a.max_positions,
        "output": "pooled",
        "dim": a.dim,
        "layers": a.layers,
        "heads": a.heads,
        "seed": a.seed,
        **extra,
    }
    fault_markers = {k: v for k, v in (("nan", a.nan_marker), ("abort", a.abort_marker)) if v is not None}
    if fault_markers:
        fields["fault_markers"] = fault_markers
    if a.bf16_drift:
        fields["bf16_drift"] = True
    if a.bf16_drift_from:
        fields["bf16_drift_from"] = a.bf16_drift_from
    manifest = write_manifest(a.out, path, fields)
    mpath = os.path.join(a.out, "manifest.json")
    n_params = sum(p.numel() for p in model.parameters())
    print(f"wrote {path} ({n_params} parameters, {os.path.getsize(path)} bytes) and {mpath}"
          f" in {time.monotonic() - t0:.1f} s; digest {manifest['digest']}")


if __name__ == "__main__":
    main()
