"""Input kinds: what makes a model's inputs, beside the families (what the library does not tell the
exporter of a model) and the tasks (what the outputs are). The stages (trace.py, checks.py, manifest.py,
export.py) ask each InputKind for example inputs to trace, for the checks against the library on real
samples, and for the manifest's fields; text (inputs/text.py: token ids from tokenizer.json) and image
(inputs/image.py: pixel values from the checkpoint's image processor) are the kinds there are. A model
takes one kind (its forward), or text and images (a two-tower model: forward takes the text, the image
kind adds encode_image). A new kind is one module here implementing InputKind, named in kinds_of."""

import abc

from torch import Tensor

from ..checkpoint import Plan


class InputKind(abc.ABC):
    """One export's input kind (self.plan is its plan). prepare() is called first, once; the others after."""

    name: str = ""  # the family's name of the kind ("text", "image")

    def __init__(self, plan: Plan, method: str = "forward"):
        self.plan = plan
        self.method = method  # the package's method that takes this kind's inputs

    @abc.abstractmethod
    def prepare(self) -> None:
        """Loads the checkpoint's preprocessor and checks that it runs as qinfer will run it; raises Refused
        or CheckFailed."""

    @abc.abstractmethod
    def wrapper_class(self, base: type | None) -> type:
        """The wrappers.Wrapper subclass whose self.method takes this kind's inputs; base is the class the
        kinds before this one made (None for the first kind: its method is forward)."""

    @abc.abstractmethod
    def trace_example(self) -> tuple:
        """The method's arguments torch.jit.trace_module runs the wrapper on (text: padded, so the padded path
        is traced)."""

    @abc.abstractmethod
    def trace_batches(self) -> list[tuple[str, tuple]]:
        """Batches unlike the example that the trace must agree with the module on: (what their rows are,
        the method's arguments)."""

    @abc.abstractmethod
    def real_positions(self, args: tuple) -> Tensor:
        """[B, L] bool, True at each real (not padding) position of these arguments: where a per-position
        output is compared."""

    @abc.abstractmethod
    def samples(self) -> tuple:
        """The check samples as the method's arguments, one batch (the AOTI packages are compared on it)."""

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
        """The manifest's fields of this kind: forward's `inputs` (the first kind), the lengths, the
        preprocessor's file."""

    @abc.abstractmethod
    def copy_files(self, out: str) -> None:
        """Copies the preprocessor's files the service reads into the package directory `out`."""


def kinds_of(plan: Plan) -> list[InputKind]:
    """The plan's input kinds (plan.input_kinds), not yet prepared: the first takes forward's arguments,
    an image kind after text takes encode_image's."""
    # Imported here: the kinds import the stages, which import this module.
    from .image import ImageInputs
    from .text import TextInputs

    classes = {"text": TextInputs, "image": ImageInputs}
    return [classes[name](plan, "forward" if i == 0 else f"encode_{name}")
            for i, name in enumerate(plan.input_kinds)]
