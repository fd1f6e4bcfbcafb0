"""CLIP: a text tower (causal, pooled at each row's first end token, projected) and an image tower (a ViT
pooled at its class token, projected) whose features share one space. The package's forward is
get_text_features, encode_image get_image_features. The text tower builds its causal and padding masks
from the 2-D mask; qinfer pads on the right, so a real position never sees the padding, and the padding
holds an id that is not the end token, so that the first end token is the row's own. Zero-shot labels
as the pipeline computes them: texts padded to the longest, a softmax over the labels."""
from . import TASKS_TOWERS, Family, Towers


def text_fill(text_config, tokenizer) -> int:
    """Not the end token (the library pools at the first one) and not above it (older configs, end token
    id 2, pool at the largest id). The causal mask keeps the padding out of every real position."""
    return 0 if text_config.eos_token_id != 0 else 1


FAMILIES = [Family("clip", mask="2d", tasks=TASKS_TOWERS, inputs=("text", "image"),
                   towers=Towers(text_padding="longest", text_max_length=0, activation="softmax",
                                 features_dim=lambda config: config.projection_dim, text_fill=text_fill),
                   note="text tower (causal, pooled at the first end token) and image tower, projected")]
