"""BERT (MiniLM is one): absolute positions from 0, token types, a ready 4-D mask."""
from . import TASKS_SPARSE, Family

FAMILIES = [Family("bert", positions_after_padding=False, tasks=TASKS_SPARSE,
                   note="absolute positions; token types for pairs (`[CLS] A [SEP] B [SEP]`)")]
