"""The model families model/export_hf.py exports: one small module each.

A family says what the exporter must know of a config.model_type that
transformers' own modules do not tell it: which input kinds the model takes
(text, images, or both: a text tower and an image tower in one space),
where positions start, which attention mask the model takes (a ready 4-D one,
or the 2-D one it builds its own masks from: a sliding window, a causal
mask), which attention implementations it has, whether it is a decoder
(causal; a bare model embeds with `lasttoken` pooling, a sequence classifier
pools the last non-padding token), what the zero-shot pipeline does with a
two-tower model's texts, and which tasks it has heads for. Everything else
(relative position biases, rotary positions, sliding windows, the classifier
heads, the image towers) stays transformers' own: the exporter traces the
library's modules.

The next family is one module here, registered in FAMILIES, plus its case in
tests/tasks/make_checkpoint.py and tests/python/test_export_hf.py (text), or
tests/python/test_export_vision.py (images).
"""

from dataclasses import dataclass
from typing import Callable, ContextManager

TASKS_ENCODER = ("embed", "classify", "rerank", "tokens")
TASKS_DECODER = ("embed", "classify", "rerank")
# A masked-language-model head pooled as SPLADE (sentence-transformers' SparseEncoder), and the token
# embeddings (encode(output_value="token_embeddings")): the families checked against those in tests
# (tests/python/test_export_hf.py, clients/python/tests/test_tasks.py).
TASKS_SPARSE = TASKS_ENCODER + ("sparse", "token_embed")
# Image models: the pooled features (pipeline("image-feature-extraction", pool=True)) and the classifier;
# a text tower and an image tower: their features, and zero-shot labels from the two.
TASKS_IMAGE = ("embed", "classify")
TASKS_TOWERS = ("embed", "zero_shot")


@dataclass(frozen=True)
class Towers:
    """A text tower and an image tower whose features share one space (CLIP, SigLIP): what the library
    does with them that their config does not say."""
    # pipeline("zero-shot-image-classification"): how the candidate texts are padded ("longest", or
    # "max_length" to text_max_length tokens, cut there), and how the logits become scores ("softmax" over
    # the labels, or "sigmoid" per label).
    text_padding: str
    text_max_length: int
    activation: str
    # The width of get_text_features and get_image_features (the one space).
    features_dim: Callable[[object], int]
    # The id the exporter writes into a text's padding, of (the text tower's config, the tokenizer): one
    # with which the library's pooling (the first end token for CLIP, the last position for SigLIP) reads
    # what it reads of the row in the library, whatever the service's padding held.
    text_fill: Callable[[object, object], int]


@dataclass(frozen=True)
class Family:
    name: str                         # the manifest's family: the config's model_type
    positions_after_padding: bool = False  # RoBERTa-like: position ids start at pad_token_id + 1
    mask: str = "4d"                  # "4d": a ready [B, 1, 1, L] mask; "2d": the model builds its own
    attention: tuple = ("sdpa", "eager")  # implementations to try, in order
    tasks: tuple = TASKS_ENCODER
    decoder: bool = False             # causal; bare models embed with lasttoken pooling
    # For a family transformers implements with eager attention only: a context manager under which the
    # library's eager modules run their attention through torch's sdpa ("sdpa" in `attention` then loads
    # the eager model and traces it under this; the trace is checked against the eager library).
    sdpa_swap: Callable[[], ContextManager] | None = None
    note: str = ""                    # what docs/guide/tasks.md's families table says of it
    # The input kinds (qinfer_export/inputs/) in the order of the package's methods: ("text",), ("image",),
    # or ("text", "image") for a model with both towers (forward is the text tower, encode_image the other).
    inputs: tuple = ("text",)
    towers: Towers | None = None      # both towers: see Towers

    def usable_positions(self, config) -> int:
        """Positions a row can use: the table, less pad_token_id + 1 where positions start after it."""
        n = config.max_position_embeddings
        return n - config.pad_token_id - 1 if self.positions_after_padding else n


from . import (bert, clip, convnext, deberta_v2, decoders, deit, dinov2, distilbert, modernbert,  # noqa: E402
               mpnet, roberta, siglip, vit)

FAMILIES = {f.name: f for module in (bert, distilbert, roberta, mpnet, modernbert, deberta_v2, decoders, clip,
                                     siglip, vit, deit, dinov2, convnext)
            for f in module.FAMILIES}


def family_of(model_type: str) -> Family | None:
    return FAMILIES.get(model_type)
