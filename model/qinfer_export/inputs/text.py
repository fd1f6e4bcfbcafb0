"""Text: token ids from the checkpoint's tokenizer (tokenizer.json, as qinfer tokenizes), the texts and
pairs the checks run, and the library's reference call for each task on them (a two-tower model's text
tower: get_text_features, or a sentence-transformers directory's encode)."""

import os

import torch
import torch.nn.functional as F
from torch import Tensor

from qinfer_model import ContractError, check_contract, check_precision

from .. import CheckFailed, Refused
from ..checkpoint import Plan
from ..checks import ATOL, MIN_COSINE, excess, rows_difference, scores_from_logits, within_text
from ..manifest import copy_into
from ..wrappers import Wrapper
from . import InputKind

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


def padded_batch(plan: Plan, lengths: list[int], seed: int) -> tuple:
    """Random rows of the given lengths, right-padded (pad id in the padding), as forward's arguments."""
    gen = torch.Generator().manual_seed(seed)
    width = max(lengths)
    config = plan.text_config
    ids = torch.full((len(lengths), width), config.pad_token_id or 0, dtype=torch.int64)
    mask = torch.zeros_like(ids)
    types = torch.zeros_like(ids)
    for i, n in enumerate(lengths):
        ids[i, :n] = torch.randint(0, config.vocab_size, (n,), generator=gen)
        mask[i, :n] = 1
        types[i, n // 2:n] = 1
    return (ids, mask, types) if plan.type_ids else (ids, mask)


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


def check_text_features(plan: Plan, model, tokenizer) -> dict:
    """A two-tower model's text tower: forward == get_text_features of the texts as the zero-shot pipeline
    tokenizes them (padded to the longest, or to max_length for SigLIP, cut at max_tokens), cosine >=
    MIN_COSINE and within ATOL at the features' scale; for a sentence-transformers directory,
    SentenceTransformer.encode of the texts (its Normalize, if any, included)."""
    texts = SENTENCES + [LONG]
    towers = plan.towers
    if plan.st:
        from sentence_transformers import SentenceTransformer

        st = SentenceTransformer(plan.checkpoint, device="cpu")
        want = torch.as_tensor(st.encode(texts, batch_size=len(texts), convert_to_numpy=True))
        reference = "SentenceTransformer.encode"
    else:
        from transformers import AutoModel

        library = AutoModel.from_pretrained(plan.model_dir, dtype=torch.float32).eval()
        padding = {"padding": "max_length", "max_length": towers.text_max_length} \
            if towers.text_padding == "max_length" else {"padding": "longest", "max_length": plan.max_tokens}
        enc = tokenizer(texts, truncation=True, return_tensors="pt", **padding)
        with torch.inference_mode():
            want = library.get_text_features(**{k: v for k, v in enc.items() if k in ("input_ids", "attention_mask")}
                                             ).pooler_output
        reference = f"{type(library).__name__}.get_text_features (padding {towers.text_padding})"
    with torch.inference_mode():
        got = model(*tokenize(tokenizer, texts, plan.max_tokens, False))
    cos = F.cosine_similarity(got, want, dim=1)
    ratio = excess(got, want)
    if cos.min().item() < MIN_COSINE or ratio > 1:
        raise CheckFailed(f"text features differ from {reference}: min cosine {cos.min().item():.6f} (floor "
                          f"{MIN_COSINE}), {within_text(ratio)}")
    return {"reference": reference, "inputs": len(texts), "min_cosine": round(cos.min().item(), 6),
            "max_abs_diff": float(f"{(got - want).abs().max().item():.3g}")}


LIBRARY_CHECKS = {"embed": check_embed, "classify": check_classify, "rerank": check_rerank, "tokens": check_tokens,
                  "sparse": check_sparse, "token_embed": check_token_embed,
                  "zero_shot": check_text_features}


class TwoInputs(Wrapper):
    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        return self.run(input_ids, attention_mask, None)


class ThreeInputs(Wrapper):
    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Tensor:
        return self.run(input_ids, attention_mask, token_type_ids)


class TextInputs(InputKind):
    """Token ids: forward(input_ids, attention_mask[, token_type_ids]), rows padded on the right, made by the
    checkpoint's tokenizer (checked to be what tokenizer.json alone gives, as qinfer tokenizes)."""

    name = "text"
    tokenizer = None
    end_token_id: int | None = None

    def prepare(self) -> None:
        from transformers import AutoTokenizer

        plan = self.plan
        tokenizer = AutoTokenizer.from_pretrained(plan.model_dir)
        if not getattr(tokenizer, "is_fast", False):
            raise Refused(f"{plan.model_dir}: the tokenizer is not a fast (tokenizers) one")
        if len(tokenizer) > plan.text_config.vocab_size:
            raise Refused(f"the tokenizer has {len(tokenizer)} tokens, the model's embedding table "
                          f"{plan.text_config.vocab_size} rows")
        self.end_token_id = check_tokenizer_json(plan, tokenizer)
        self.tokenizer = tokenizer

    def wrapper_class(self, base: type | None) -> type:
        return ThreeInputs if self.plan.type_ids else TwoInputs

    def trace_example(self) -> tuple:
        n = min(16, self.plan.max_positions)
        return padded_batch(self.plan, [n, max(1, n // 2), max(1, n - 3)], seed=7)

    def trace_batches(self) -> list[tuple[str, tuple]]:
        """Batch sizes and lengths unlike the example's; with a sliding window (ModernBERT's local layers, a
        decoder's sliding_window), rows just inside and past it."""
        plan, p = self.plan, self.plan.max_positions
        shapes = [[1], [min(5, p), 1], [min(23, p), min(9, p), 2, 1], [p, min(40, p)], [min(3, p)] * 3]
        window = getattr(plan.config, "local_attention", None) or getattr(plan.config, "sliding_window", None)
        if isinstance(window, int) and 2 < window < p:
            shapes.append([min(p, window + 3), window - 1, window, min(p, window + 1)])
        return [(f"rows of {lengths} tokens", padded_batch(plan, lengths, seed=100 + k))
                for k, lengths in enumerate(shapes)]

    def real_positions(self, args: tuple) -> Tensor:
        return args[1].bool()

    def samples(self) -> tuple:
        return self.tokenize(SENTENCES + PAIRS if self.plan.pairs else SENTENCES)

    def tokenize(self, items: list) -> tuple:
        return tokenize(self.tokenizer, items, self.plan.max_tokens, self.plan.type_ids)

    def check_contract(self, model) -> str:
        plan = self.plan
        try:
            checked = check_contract(model, plan.text_config.vocab_size, plan.max_positions, dim=plan.dim,
                                     lengths=[1, 7, 33, plan.max_tokens, plan.max_positions],
                                     output=plan.output, inputs=plan.inputs)
        except ContractError as e:
            raise CheckFailed(str(e)) from None
        return (f"inputs {plan.inputs}, lengths {checked['lengths']} padded to {checked['width']}, max padding "
                f"diff {checked['max_padding_diff']:.2e}")

    def check_library(self, model) -> dict:
        check = check_text_features if self.plan.towers else LIBRARY_CHECKS[self.plan.task]
        return check(self.plan, model, self.tokenizer)

    def check_precision(self, model, min_cosine: float) -> dict:
        ids, mask, *types = self.tokenize(SENTENCES)
        return check_precision(model, ids, mask, min_cosine, *types)

    def manifest_fields(self) -> dict:
        plan = self.plan
        fields = {"inputs": plan.inputs, "pairs": plan.pairs, "vocab_size": plan.text_config.vocab_size,
                  "max_tokens": plan.max_tokens, "max_positions": plan.max_positions, "tokenizer": "tokenizer.json"}
        if self.end_token_id is not None:
            fields["end_token_id"] = self.end_token_id
        fields["tokenizer_source"] = os.path.abspath(plan.model_dir)
        if plan.st:
            fields["prompts"] = plan.st.prompts
            fields["default_prompt_name"] = plan.st.default_prompt_name
            if not plan.st.include_prompt:
                fields["include_prompt"] = False
                fields["prompt_lengths"] = prompt_lengths(plan, self.tokenizer)
        return fields

    def copy_files(self, out: str) -> None:
        for name in ("tokenizer.json", "tokenizer_config.json"):
            if os.path.isfile(os.path.join(self.plan.model_dir, name)):
                copy_into(os.path.join(self.plan.model_dir, name), out)

