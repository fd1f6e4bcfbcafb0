#!/usr/bin/env python3
"""Export a no-op model for measuring qinfer's own pipeline (bench/pipeline/).

    .venv/bin/python model/export_noop.py --out build/noop-model [--vocab 4096 --max-tokens 8 --dim 8]
                                          [--tokenizer TOKENIZER_JSON]

Writes
  OUT/model.pt       TorchScript (torch.jit.script) of
                     forward(input_ids int64 [B, L], attention_mask int64 [B, L])
                       -> float32 [B, dim]
  OUT/manifest.json  name "qinfer-noop", shapes, digest, torch version
  OUT/tokenizer.json with --tokenizer: a copy of that tokenizer, named by the
                     manifest, so the service takes `text` jobs and tokenizes
                     them (the vocabulary is then the tokenizer's, and its
                     end token the manifest's end_token_id): what measures
                     the tokenizer pool with the model out of the way

It keeps qinfer's model contract (model/qinfer_model.py checks it after
saving) without any real compute: row b's output is the mean of its real ids
(attention_mask == 1) divided by vocab, times (d + 1) / dim in column d. The
values are ordinary non-round floats, so the results cost what a real
model's do to format and store; the forward itself is a handful of element-wise
ops on a [B, L] tensor, so what a run measures is the service around it:
consumer, scheduler, executor loop, store, replies.

A separate script rather than a flag of export_model.py: that file's source
lines are part of the plain test model's bytes (and digest).
"""

import argparse
import os
import shutil
import sys

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # Same as export_model.py: a fixed hash seed makes model.pt reproducible.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import torch  # noqa: E402
from torch import Tensor, nn  # noqa: E402

from qinfer_model import ContractError, check_contract, write_manifest  # noqa: E402

NAME = "qinfer-noop"


class NoopModel(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.register_buffer("scale", torch.arange(1, dim + 1, dtype=torch.float32) / (dim * vocab))

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        mask = attention_mask.to(torch.float32)
        count = mask.sum(dim=1, keepdim=True).clamp(min=1.0)
        mean = (input_ids.to(torch.float32) * mask).sum(dim=1, keepdim=True) / count
        return mean * self.scale.unsqueeze(0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--dim", type=int, default=8)
    ap.add_argument("--tokenizer", help="a tokenizer.json the service tokenizes `text` jobs with")
    a = ap.parse_args()
    end_token = None
    if a.tokenizer:
        from tokenizers import Tokenizer  # noqa: E402

        tok = Tokenizer.from_file(a.tokenizer)
        tok.no_padding()
        tok.no_truncation()
        a.vocab = tok.get_vocab_size(with_added_tokens=True)
        ends = [i for i in tok.encode("x").ids[1:] if i in tok.get_added_tokens_decoder()]
        end_token = ends[-1] if ends else None
    if a.vocab < 2 or a.max_tokens < 1 or a.dim < 1:
        ap.error("need vocab >= 2, max-tokens >= 1 and dim >= 1")

    model = NoopModel(a.vocab, a.dim).eval()
    scripted = torch.jit.script(model)
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "model.pt")
    scripted.save(path + ".tmp")
    os.replace(path + ".tmp", path)

    loaded = torch.jit.load(path, map_location="cpu").eval()
    try:
        checked = check_contract(loaded, a.vocab, a.max_tokens, dim=a.dim)
    except ContractError as e:
        print(f"export_noop.py: SELF-CHECK FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    manifest = write_manifest(a.out, path, {
        "name": NAME,
        "format": "torchscript",
        "vocab_size": a.vocab,
        "max_tokens": a.max_tokens,
        "max_positions": a.max_tokens,
        "output": "pooled",
        "dim": a.dim,
        **({"tokenizer": "tokenizer.json"} if a.tokenizer else {}),
        **({"end_token_id": end_token} if end_token is not None else {}),
    })
    if a.tokenizer:
        shutil.copyfile(a.tokenizer, os.path.join(a.out, "tokenizer.json"))
    print(f"wrote {path} and manifest.json (dim {checked['dim']}); digest {manifest['digest']}")


if __name__ == "__main__":
    main()
