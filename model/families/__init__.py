"""The model families model/export_hf.py exports: one small module each.

A family says what the exporter must know of a config.model_type that
transformers' own modules do not tell it: where positions start, which
attention mask the model takes (a ready 4-D one, or the 2-D one it builds its
own masks from: a sliding window, a causal mask), which attention
implementations it has, whether it is a decoder (causal; a bare model embeds
with `lasttoken` pooling, a sequence classifier pools the last non-padding
token), and which tasks it has heads for. Everything else (relative position
biases, rotary positions, sliding windows, the classifier heads) stays
transformers' own: the exporter traces the library's modules.

The next family is one module here, registered in FAMILIES, plus its case in
tests/tasks/make_checkpoint.py and tests/python/test_export_hf.py.
"""

from dataclasses import dataclass
from typing import Callable, ContextManager

TASKS_ENCODER = ("embed", "classify", "rerank", "tokens")
TASKS_DECODER = ("embed", "classify", "rerank")
# A masked-language-model head pooled as SPLADE (sentence-transformers' SparseEncoder), and the token
# embeddings (encode(output_value="token_embeddings")): the families checked against those in tests
# (tests/python/test_export_hf.py, clients/python/tests/test_tasks.py).
TASKS_SPARSE = TASKS_ENCODER + ("sparse", "token_embed")


@dataclass(frozen=True)
class Family:
    name: str                         # the manifest's family: the config's model_type
    positions_after_padding: bool     # RoBERTa-like: position ids start at pad_token_id + 1
    mask: str = "4d"                  # "4d": a ready [B, 1, 1, L] mask; "2d": the model builds its own
    attention: tuple = ("sdpa", "eager")  # implementations to try, in order
    tasks: tuple = TASKS_ENCODER
    decoder: bool = False             # causal; bare models embed with lasttoken pooling
    # For a family transformers implements with eager attention only: a context manager under which the
    # library's eager modules run their attention through torch's sdpa ("sdpa" in `attention` then loads
    # the eager model and traces it under this; the trace is checked against the eager library).
    sdpa_swap: Callable[[], ContextManager] | None = None
    note: str = ""                    # what docs/guide/tasks.md's families table says of it

    def usable_positions(self, config) -> int:
        """Positions a row can use: the table, less pad_token_id + 1 where positions start after it."""
        n = config.max_position_embeddings
        return n - config.pad_token_id - 1 if self.positions_after_padding else n


from . import bert, deberta_v2, decoders, distilbert, modernbert, mpnet, roberta  # noqa: E402

FAMILIES = {f.name: f for module in (bert, distilbert, roberta, mpnet, modernbert, deberta_v2, decoders)
            for f in module.FAMILIES}


def family_of(model_type: str) -> Family | None:
    return FAMILIES.get(model_type)
