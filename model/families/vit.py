"""ViT: patches and a class token; ViTModel's pooled output (a dense layer and tanh on the class token:
what pipeline("image-feature-extraction", pool=True) returns), ViTForImageClassification's logits (from
the class token). Fixed size: every image is the processor's height x width."""
from . import TASKS_IMAGE, Family

FAMILIES = [Family("vit", inputs=("image",), tasks=TASKS_IMAGE,
                   note="class token; pooler (dense, tanh) for embed")]
