"""DeBERTa-v2 and -v3: disentangled relative attention (content-to-position and position-to-content),
built by the model from the 2-D mask; token types where type_vocab_size > 0 (v3 has none); eager only."""
from . import Family

FAMILIES = [Family("deberta-v2", positions_after_padding=False, mask="2d", attention=("eager",),
                   note="relative (disentangled) attention from the 2-D mask; eager attention")]
