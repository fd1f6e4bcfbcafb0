"""DINOv2: a ViT with layer scale; Dinov2Model's pooled output is the class token after the final layer
norm (pipeline("image-feature-extraction", pool=True)); Dinov2ForImageClassification's head reads the
class token and the mean of the patch tokens. The checkpoint's processor (BitImageProcessor: shortest
edge, then a centre crop) gives every image one size, so the position embeddings are not interpolated."""
from . import TASKS_IMAGE, Family

FAMILIES = [Family("dinov2", inputs=("image",), tasks=TASKS_IMAGE,
                   note="class token after the layer norm for embed; class and mean patch token for classify")]
