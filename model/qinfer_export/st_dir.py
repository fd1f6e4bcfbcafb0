"""sentence-transformers directories: what modules.json and its modules' configs add to the transformer
(Pooling and Normalize for embed, SpladePooling for sparse, the token modules for token_embed, Normalize
after a text and image model's CLIPModel), prompts and max_seq_length, each read as the library reads it
and refused by name where qinfer does otherwise."""

import os
from dataclasses import dataclass, field

from . import Refused, read_json

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


def read_towers_st_dir(checkpoint: str) -> StDir | None:
    """A sentence-transformers directory whose first module encodes texts and images by the model's own
    get_text_features and get_image_features: sentence-transformers' CLIPModel (saved by any version:
    `sentence_transformers.models.CLIPModel` or its later path), or its multimodal Transformer whose
    modality_config says so, then an optional Normalize. None when the first module is neither (a text
    directory: read_st_dir); another module after it is refused by name."""
    path = os.path.join(checkpoint, "modules.json")
    if not os.path.isfile(path):
        return None
    entries = read_json(path)
    names = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in entries]
    if not names:
        return None
    model_dir = os.path.join(checkpoint, entries[0].get("path", ""))
    config = {}
    for name in ST_CONFIG_FILES:
        if os.path.isfile(os.path.join(model_dir, name)):
            config = read_json(os.path.join(model_dir, name))
            break
    modalities = config.get("modality_config") or {}
    methods = {key: (modalities.get(key) or {}).get("method") for key in ("text", "image")}
    towers = names[0] == "CLIPModel" or (names[0] == "Transformer" and "image" in modalities)
    if not towers:
        return None
    if names[0] == "Transformer" and methods != {"text": "get_text_features", "image": "get_image_features"}:
        raise Refused(f"{model_dir}: modality_config {modalities}; export_hf.py exports a multimodal Transformer "
                      "whose texts and images run get_text_features and get_image_features")
    if names[1:] not in ([], ["Normalize"]):
        raise Refused(f"{path}: modules {names}; export_hf.py exports a {names[0]} (texts and images) and an "
                      "optional Normalize, in that order")
    prompts, default = st_prompts(checkpoint)
    if any(prompts.values()) or default:
        raise Refused(f"{checkpoint}: prompts; export_hf.py exports a text and image model without prompts")
    return StDir(model_dir=model_dir, pooling="", normalize=len(names) == 2,
                 max_seq_length=config.get("max_seq_length"), prompts=prompts, default_prompt_name=default)


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
