"""BERT (MiniLM is one): absolute positions from 0, token types, a ready 4-D mask."""
from . import Family

FAMILIES = [Family("bert", positions_after_padding=False,
                   note="absolute positions; token types for pairs (`[CLS] A [SEP] B [SEP]`)")]
