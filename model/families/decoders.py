"""Decoders that transformers implements natively (no remote code): Qwen3 (Qwen3-Embedding and its
rerankers), Qwen2, Llama, Mistral. Causal attention (without a sliding window: sdpa's causal kernel and
no mask, qinfer_export/patches.py's causal_only; with one, the mask the model builds from the 2-D mask),
rotary positions counted from each row's first token (qinfer pads on the right). A bare model embeds
with sentence-transformers' `lasttoken` pooling; *ForSequenceClassification pools, as the library does,
the rightmost token that is not pad_token_id (the exporter writes pad_token_id into the padding so that
this is each row's own last token)."""
from . import TASKS_DECODER, Family

FAMILIES = [Family(name, positions_after_padding=False, mask="2d", tasks=TASKS_DECODER, decoder=True,
                   note="decoder: causal, rotary; lasttoken pooling; last non-pad token for classifiers")
            for name in ("qwen3", "qwen2", "llama", "mistral")]
