"""DistilBERT: BERT without token types."""
from . import Family

FAMILIES = [Family("distilbert", positions_after_padding=False, note="BERT without token types")]
