"""DeiT: a ViT with a class token and a distillation token. DeiTForImageClassificationWithTeacher (the
distilled checkpoints) averages its two heads' logits; AutoModelForImageClassification picks that class
from config.architectures, as the pipeline does, and the exporter traces the class it picks."""
from . import Family

FAMILIES = [Family("deit", inputs=("image",), tasks=("classify",),
                   note="class and distillation tokens; the distilled variant's two heads averaged")]
