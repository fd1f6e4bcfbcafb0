"""Input kinds: what makes a model's forward inputs, beside the families (what the library does not tell the
exporter of a model) and the tasks (what the outputs are). The stages (trace.py, checks.py, manifest.py,
export.py) ask an InputKind for example inputs to trace, for the checks against the library on real
samples, and for the manifest's inputs section; text (inputs/text.py: token ids from tokenizer.json) is
the one kind there is. A new kind is one module here implementing InputKind, named in kind_of."""

import abc

from torch import Tensor

from ..checkpoint import Plan


class InputKind(abc.ABC):
    """One export's input kind (self.plan is its plan). prepare() is called first, once; the others after."""

    def __init__(self, plan: Plan):
        self.plan = plan

    @abc.abstractmethod
    def prepare(self) -> None:
        """Loads the checkpoint's preprocessor and checks that it runs as qinfer will run it; raises Refused
        or CheckFailed."""

    @abc.abstractmethod
    def wrapper_class(self) -> type:
        """The wrappers.Wrapper subclass whose forward takes this kind's inputs (the manifest's `inputs`)."""

    @abc.abstractmethod
    def trace_example(self) -> tuple:
        """The forward arguments torch.jit.trace runs the wrapper on (padded, so the padded path is traced)."""

    @abc.abstractmethod
    def trace_batches(self) -> list[tuple[str, tuple]]:
        """Batches unlike the example that the trace must agree with the module on: (what their rows are,
        the forward arguments)."""

    @abc.abstractmethod
    def real_positions(self, args: tuple) -> Tensor:
        """[B, L] bool, True at each real (not padding) position of these forward arguments: where a
        per-position output is compared."""

    @abc.abstractmethod
    def samples(self) -> tuple:
        """The check samples as forward arguments, one padded batch (the AOTI packages are compared on it)."""

    @abc.abstractmethod
    def check_contract(self, model) -> str:
        """qinfer's model contract on the saved model; returns what was checked, raises CheckFailed."""

    @abc.abstractmethod
    def check_library(self, model) -> dict:
        """The saved model against the library's own call on the samples, for plan.task: the manifest's
        library_check; raises CheckFailed."""

    @abc.abstractmethod
    def check_precision(self, model, min_cosine: float) -> dict:
        """The outputs under CPU autocast (bfloat16, float16) against float32 on the samples: the manifest's
        precision_check (qinfer_model.check_precision)."""

    @abc.abstractmethod
    def manifest_fields(self) -> dict:
        """The manifest's fields of this kind: the forward's `inputs`, the lengths, the preprocessor's file."""

    @abc.abstractmethod
    def copy_files(self, out: str) -> None:
        """Copies the preprocessor's files the service reads into the package directory `out`."""


def kind_of(plan: Plan) -> InputKind:
    """The plan's input kind (plan.input_kind), not yet prepared."""
    from .text import TextInputs  # imported here: the kinds import the stages, which import this module

    return {"text": TextInputs}[plan.input_kind](plan)
