"""RoBERTa and XLM-RoBERTa: positions numbered from pad_token_id + 1, no token types."""
from . import TASKS_SPARSE, Family

FAMILIES = [Family(name, positions_after_padding=True, tasks=TASKS_SPARSE,
                   note="positions after the padding index; pairs `<s> A </s></s> B </s>`")
            for name in ("roberta", "xlm-roberta")]
