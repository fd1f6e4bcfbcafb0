"""The nn.Module around transformers' model: qinfer's signature (forward(input_ids, attention_mask
[, token_type_ids]) -> float32; forward(pixel_values) for an image model; a two-tower model's text tower in
forward and its image tower in encode_image(pixel_values)) and each task's output (pooled, logits, token
logits, SPLADE weights, token vectors, a tower's features), as the library's heads, Pooling, Normalize,
SpladePooling and get_*_features compute them."""

import inspect

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from . import Refused
from .checkpoint import Plan
from .inputs import InputKind
from .patches import causal_only, swapped


class Wrapper(nn.Module):
    """transformers' model with qinfer's signature and output; forward (and encode_image) are the input
    kinds' subclass's (InputKind.wrapper_class: inputs/text.py's TwoInputs and ThreeInputs, inputs/image.py's
    ImageOnly and TextAndImage)."""

    def __init__(self, model: nn.Module, task: str, pooling: str | None, normalize: bool, bool_mask: bool,
                 takes_types: bool, mask: str = "4d", pad_id: int | None = None, exclude_prompt: bool = False,
                 splade: tuple[str, str] | None = None, token_modules: list | None = None, towers: bool = False,
                 text_length: int = 0, text_mask: bool = True):
        super().__init__()
        # A text tower and an image tower (CLIP, SigLIP): texts through get_text_features, with pad_id written
        # into the padding and, where the library pads every text to text_length (SigLIP), the rows padded
        # to it here; text_mask false: the library's tokenizer gives no attention mask, so the model gets none.
        self.towers = towers
        self.text_length = text_length
        self.text_mask = text_mask
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
        self.mask = mask      # "4d" (a ready mask), "2d" (the model builds its own) or "causal" (see trace.py)
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
        if self.towers:
            return self.text_features(input_ids, attention_mask)
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

    def text_features(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        """get_text_features' pooled output, each row read as the library reads it: the padding holds pad_id
        whatever the service wrote there, and where the library pads every text to text_length, the row is
        padded to it here (a right pad of text_length, then the first text_length positions: no shape
        arithmetic for the trace to freeze)."""
        input_ids = input_ids.masked_fill(attention_mask == 0, self.pad_id)
        if self.text_length:
            input_ids = F.pad(input_ids, (0, self.text_length), value=self.pad_id)[:, : self.text_length]
            attention_mask = F.pad(attention_mask, (0, self.text_length))[:, : self.text_length]
        out = self.model.get_text_features(input_ids=input_ids,
                                           attention_mask=attention_mask if self.text_mask else None)
        return self.normalized(out.pooler_output.float())

    def image(self, pixel_values: Tensor) -> Tensor:
        """An image model's output for the task (embed: the pooled output, classify: the logits), or a
        two-tower model's get_image_features; [B, D] float32."""
        if self.towers:
            return self.normalized(self.model.get_image_features(pixel_values=pixel_values).pooler_output.float())
        out = self.model(pixel_values=pixel_values)
        return self.normalized((out.pooler_output if self.task == "embed" else out.logits).float())

    def normalized(self, features: Tensor) -> Tensor:
        return F.normalize(features, p=2.0, dim=1) if self.normalize else features

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


def load_library_model(plan: Plan, attn: str) -> nn.Module:
    """The class the library runs the task with (an image model's as its pipeline loads it). An image
    model missing weights the checkpoint does not have (a ViT classifier's pooler, for embed) is refused:
    the library would run them as initialised at random."""
    import transformers as tf

    if plan.input_kinds == ("text",):
        cls = {"embed": tf.AutoModel, "token_embed": tf.AutoModel, "tokens": tf.AutoModelForTokenClassification,
               "sparse": tf.AutoModelForMaskedLM}.get(plan.task, tf.AutoModelForSequenceClassification)
        return cls.from_pretrained(plan.model_dir, attn_implementation=attn, dtype=torch.float32).eval()
    cls = tf.AutoModelForImageClassification if plan.task == "classify" else tf.AutoModel
    model, info = cls.from_pretrained(plan.model_dir, attn_implementation=attn, dtype=torch.float32,
                                      output_loading_info=True)
    if info["missing_keys"]:
        missing = sorted(info["missing_keys"])
        raise Refused(f"{plan.task}: {type(model).__name__} (what the library runs {plan.task} with) has weights "
                      f"the checkpoint lacks ({', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''}): "
                      "the library would initialise them at random; export the checkpoint's own task "
                      f"(--task {'classify' if plan.task == 'embed' else 'embed'}?) or a checkpoint that has them")
    return model.eval()


def make_wrapper(plan: Plan, kinds: list[InputKind], attn: str) -> Wrapper:
    """The library's model for `attn` in the input kinds' Wrapper class, with the task's output."""
    model = load_library_model(plan, "eager" if swapped(plan, attn) else attn)
    takes_types = "token_type_ids" in inspect.signature(model.forward).parameters
    cls = None
    for kind in kinds:
        cls = kind.wrapper_class(cls)
    family = plan.family
    pad_id = plan.config.pad_token_id if family.decoder and plan.task != "embed" else None
    towers = plan.towers is not None
    if towers:
        pad_id = plan.towers.text_fill(plan.text_config, kinds[0].tokenizer)
    exclude_prompt = bool(plan.st and not plan.st.include_prompt)
    splade = (plan.sparse.pooling_strategy, plan.sparse.activation) if plan.sparse else None
    token_modules = [TokenDense(m) if name == "dense" else TokenNormalize()
                     for name, m in (plan.token.modules if plan.token else [])]
    mask = "causal" if causal_only(plan, attn) else family.mask
    bool_mask = attn == "sdpa" and not swapped(plan, attn)  # the swapped eager model adds a float mask
    text_mask = not towers or "attention_mask" in kinds[0].tokenizer.model_input_names
    return cls(model, plan.task, plan.pooling, plan.normalized, bool_mask, takes_types, mask,
               pad_id, exclude_prompt, splade, token_modules, towers=towers,
               text_length=plan.towers.text_max_length if towers else 0, text_mask=text_mask).eval()
