"""MPNet (all-mpnet-base-v2): positions after the padding index as RoBERTa, a relative position bias
computed from them in every layer, no token types. transformers has eager attention only for it; the
additive 4-D mask is the one its attention adds to the scores."""
from . import Family

FAMILIES = [Family("mpnet", positions_after_padding=True, attention=("eager",),
                   note="relative position bias; positions after the padding index; eager attention")]
