"""Reading the checkpoint directory: the task (as the model's library would run it, or an explicit one
checked against it), the family, its input kinds (text, images, both), labels, activation, inputs and
lengths, into a Plan."""

import os
from dataclasses import dataclass, field

from families import FAMILIES, Family, family_of
from qinfer_model import INPUTS_2, INPUTS_3, TASK_OUTPUT

from . import Refused, read_json
from .st_dir import SparseDir, StDir, TokenDir, read_sparse_dir, read_st_dir, read_token_dir, read_towers_st_dir

TASKS = ("embed", "classify", "rerank", "tokens", "sparse", "token_embed", "zero_shot")
# The manifest's `output` of each task: zero_shot's forward and encode_image give each tower's features.
OUTPUTS = {**TASK_OUTPUT, "zero_shot": "pooled"}
# The files an image model's processor is read from (the second: the image_processor object nested in it,
# where transformers 5 and sentence-transformers 6 save a processor).
PROCESSOR_FILES = ("preprocessor_config.json", "processor_config.json")
# tokenizer_config.json's "no limit" (transformers' VERY_LARGE_INTEGER is 1e30).
UNBOUNDED = 10**9


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
    def input_kinds(self) -> tuple:
        """What makes the model's inputs (inputs.kinds_of), in the order of the package's methods."""
        return self.family.inputs

    @property
    def towers(self):
        """A text tower and an image tower (families.Towers), or None."""
        return self.family.towers

    @property
    def text_config(self):
        """The config of the model's text (its text tower's, for a two-tower model)."""
        return getattr(self.config, "text_config", None) or self.config

    @property
    def output(self) -> str:
        return OUTPUTS[self.task]

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
        if self.task != "embed" or self.input_kinds != ("text",):
            return None  # an image model's, or a tower's, features are the library's own pooling
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
        if self.towers:
            return self.towers.features_dim(self.config)
        return self.config.hidden_size if self.task == "embed" else self.config.num_labels


def head_kind(config) -> tuple[str, str]:
    """("sequence" | "token" | "image" | "encoder", the architecture's name) from config.architectures."""
    for arch in config.architectures or []:
        if arch.endswith("ForSequenceClassification"):
            return "sequence", arch
        if arch.endswith("ForTokenClassification"):
            return "token", arch
        if arch.endswith("ForImageClassification") or arch.endswith("ForImageClassificationWithTeacher"):
            return "image", arch
    return "encoder", (config.architectures or [type(config).__name__.replace("Config", "Model")])[0]


def label_names(config) -> list[str]:
    return [str(config.id2label[i]) for i in range(config.num_labels)]


def auto_task(config, st: StDir | None, sparse: SparseDir | None = None) -> str:
    """The task the model's library would run the checkpoint as."""
    if sparse:
        return "sparse"
    if st:
        return "embed"
    family = family_of(config.model_type)
    if family and family.towers:
        return "zero_shot"
    kind, _ = head_kind(config)
    if kind == "image":
        return "classify"
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
    family = family_of(config.model_type)
    kind, arch = head_kind(config)
    if task == "zero_shot" and family is not None:
        if not family.towers:
            tower = "without a text tower" if "image" in family.inputs else "without an image tower"
            raise Refused(f"zero_shot needs a text tower and an image tower in one space (CLIP, SigLIP); this "
                          f"checkpoint is {arch}, {tower}: use --task {auto_task(config, None)}")
        if st:
            raise Refused("zero_shot: this is a sentence-transformers directory (an embedding model): use --task "
                          "embed, or export its transformers directory for zero_shot")
        return
    if task in ("embed", "zero_shot"):
        return
    if family and "image" in family.inputs:
        if task == "classify" and kind != "image":
            what = "a text tower and an image tower" if family.towers else "without a classification head"
            raise Refused(f"classify needs a *ForImageClassification (an image classifier); this checkpoint is "
                          f"{arch}, {what}: use --task {auto_task(config, st)}")
        return  # a task the family has no head for: checked_family names it
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
    family = family_of(config.model_type)
    if task == "zero_shot":
        return family.towers.activation
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
    if family and "image" in family.inputs and config.num_labels == 1:
        return "sigmoid"  # pipeline("image-classification")'s rule for one label
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
    st = None if sparse or token else read_towers_st_dir(checkpoint) or read_st_dir(checkpoint)
    model_dir = token.model_dir if token else sparse.model_dir if sparse else st.model_dir if st else checkpoint
    if not os.path.isfile(os.path.join(model_dir, "config.json")):
        raise Refused(f"{os.path.join(model_dir, 'config.json')} is missing (not a save_pretrained directory)")
    config = AutoConfig.from_pretrained(model_dir)
    family = family_of(config.model_type)
    kinds = family.inputs if family else ("text",)
    if "text" in kinds and not os.path.isfile(os.path.join(model_dir, "tokenizer.json")):
        raise Refused(f"{os.path.join(model_dir, 'tokenizer.json')} is missing (qinfer tokenizes with the "
                      "`tokenizers` library from tokenizer.json: save a fast tokenizer with save_pretrained)")
    if "image" in kinds and not any(os.path.isfile(os.path.join(model_dir, n)) for n in PROCESSOR_FILES):
        raise Refused(f"{model_dir} has no image processor ({' or '.join(PROCESSOR_FILES)}): save the "
                      "checkpoint's image processor beside it with save_pretrained")
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
    checked_family(config, task)
    if "text" not in kinds:
        if max_tokens is not None:
            raise Refused(f"--max-tokens {max_tokens}: a {config.model_type} model takes images, not tokens")
        return plan
    plan.max_positions = family.usable_positions(plan.text_config)
    plan.type_ids = plan.pairs and getattr(config, "type_vocab_size", 0) > 1
    plan.max_tokens = model_length(plan)
    padded_to = family.towers.text_max_length if family.towers else 0
    if padded_to:
        if plan.max_positions < padded_to:
            raise Refused(f"the zero-shot pipeline pads a {family.name} model's texts to {padded_to} tokens; "
                          f"its text tower has {plan.max_positions} positions")
        # ... and cuts them there; the package pads to it, so no row may be longer.
        plan.max_tokens = min(plan.max_tokens, padded_to)
        plan.max_positions = padded_to
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
