"""The tolerances every check holds (the trace vs. the module, the export vs. the library), and the checks
between the AOTI packages; the input kind (inputs/) runs the contract and the library on its samples."""

import os

import torch
import torch.nn.functional as F
from torch import Tensor

from aoti_export import load_package

from . import CheckFailed
from .inputs import InputKind

MIN_COSINE = 0.9999  # embed vs. SentenceTransformer.encode
# Logits vs. the library, and the trace vs. the module: |got - want| <= ATOL + RTOL * the output vector's
# largest |value| (allclose's rule at the output's scale), so that a model whose logits are in the hundreds
# is held to its own scale. Scores (softmax, sigmoid) are in [0, 1]: ATOL alone.
ATOL = 1e-4
RTOL = 1e-5


def excess(got: Tensor, want: Tensor) -> float:
    """max |got - want| / (ATOL + RTOL * scale), the scale being the largest |value| of each output vector
    (a row's logits, a token's): at most 1 where the two are equal at the output's scale."""
    scale = want.abs().amax(dim=-1, keepdim=True)
    return ((got - want).abs() / (ATOL + RTOL * scale)).max().item()


def within_text(ratio: float) -> str:
    return (f"by up to {ratio:.3g} times the tolerance (|difference| <= {ATOL} + {RTOL} x the output's largest "
            "|value|)")


def scores_from_logits(logits: Tensor, activation: str) -> Tensor:
    return torch.sigmoid(logits) if activation == "sigmoid" else torch.softmax(logits, dim=-1)


def rows_difference(got: Tensor, wants: list[Tensor]) -> tuple[float, float]:
    """The largest |difference| of each text's first rows of `got` from its library rows in `wants`, and the largest
    excess over the tolerance at each row's scale (see excess)."""
    worst = ratio = 0.0
    for i, want in enumerate(wants):
        rows = got[i, : want.shape[0]]
        worst = max(worst, (rows - want).abs().max().item())
        ratio = max(ratio, excess(rows, want))
    return worst, ratio


def check_packages(packages: dict, reference, kind: InputKind, a) -> None:
    """Each package's outputs vs. the cpu/float32 package's on the input kind's samples: cosine >= --min-cosine
    per row (per real position)."""
    args = kind.samples()
    real = kind.real_positions(args)
    with torch.inference_mode():
        want = reference(*args)
        for key, entry in packages.items():
            got = load_package(os.path.join(a.out, entry["file"]), key.split("/")[0])(*args)
            rows = (lambda t: t[real]) if got.dim() == 3 else (lambda t: t)
            cos = F.cosine_similarity(rows(got), rows(want), dim=1).min().item()
            if cos < a.min_cosine:
                raise CheckFailed(f"package {key}: cosine vs. the cpu/float32 package {cos:.6f} < --min-cosine "
                                  f"{a.min_cosine}")
            print(f"self-check ok: package {key}: min cosine vs. cpu/float32 {cos:.6f}")
