"""SigLIP: a text tower (bidirectional, pooled at the last position, which the library pads to: the
zero-shot pipeline pads every text to max_length 64, with the mask, as the model was trained) and an image
tower (a ViT pooled by its attention head) in one space. The package's forward pads each row to those 64
positions with the tokenizer's pad token itself (whatever the service's padding held), so a row's features
are the library's for that padding and depend on the row alone. Zero-shot scores: a sigmoid per label of
logit_scale x cosine + logit_bias."""
from . import TASKS_TOWERS, Family, Towers

# transformers' ZeroShotImageClassificationPipeline.preprocess: padding="max_length", max_length=64,
# truncation=True for every model_type containing "siglip".
PIPELINE_MAX_LENGTH = 64

FAMILIES = [Family("siglip", mask="2d", tasks=TASKS_TOWERS, inputs=("text", "image"),
                   towers=Towers(text_padding="max_length", text_max_length=PIPELINE_MAX_LENGTH,
                                 activation="sigmoid",
                                 features_dim=lambda config: config.text_config.projection_size,
                                 text_fill=lambda text_config, tokenizer: tokenizer.pad_token_id),
                   note="text tower padded to 64 (pooled at the last position) and image tower (attention "
                        "pooling); sigmoid scores with logit_bias")]
