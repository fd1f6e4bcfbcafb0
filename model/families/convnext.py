"""ConvNeXt: a convolutional network (no attention: "eager" is its only implementation); the classifier
pools its last stage's positions by their mean. Its processor resizes by crop_pct below 384 pixels, then
crops."""
from . import Family

FAMILIES = [Family("convnext", inputs=("image",), tasks=("classify",), attention=("eager",),
                   note="convolutional; last stage mean-pooled")]
