"""Images: pixel values from the checkpoint's own image processor (transformers' PIL backend, after
transformers.image_utils.load_image, as the library's pipelines prepare an image), the images the checks
run (made here with Pillow: sizes, aspect ratios, modes, an EXIF orientation), and the library's reference
call for each task on them: pipeline("image-feature-extraction", pool=True) for embed,
pipeline("image-classification", top_k=None) for classify; for a two-tower model (CLIP, SigLIP)
get_image_features (or a sentence-transformers directory's encode), and for zero_shot the two towers'
features combined as the service combines them against pipeline("zero-shot-image-classification").

An image model's package is forward(pixel_values float32 [B, 3, H, W]) -> float32 [B, D]; a two-tower
model's is the text kind's forward plus encode_image(pixel_values) -> [B, D]. Every image becomes one
H x W (a processor whose output size depends on the image is refused), so an image's length (the
sequence the image tower runs) is one number: the manifest's image.length."""

import io
import json
import os

import torch
import torch.nn.functional as F
from torch import Tensor

from qinfer_model import check_precision

from .. import CheckFailed, Refused
from ..checks import ATOL, MIN_COSINE, excess, scores_from_logits, within_text
from ..wrappers import Wrapper
from . import InputKind
from .text import TwoInputs

# pipeline("zero-shot-image-classification")'s labels in the check: short and long, one word and a phrase.
LABELS = ["cat", "a red sports car", "two dogs playing in the snow", "x"]
PROCESSOR_FILE = "preprocessor_config.json"


def sample_images() -> list[tuple[str, object]]:
    """(what it is, a PIL image opened from its encoded bytes, as a job's file is): RGB of several sizes and
    aspect ratios (larger and smaller than any tiny model's input, 3 x 5 pixels too), grey, palette with a
    transparent colour, RGBA, and a JPEG whose EXIF orientation (6: rotated) load_image applies."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(63)

    def encoded(image, fmt: str, **kwargs):
        buf = io.BytesIO()
        image.save(buf, format=fmt, **kwargs)
        return Image.open(io.BytesIO(buf.getvalue()))

    def rgb(w: int, h: int):
        y, x = np.mgrid[0:h, 0:w]
        smooth = np.stack([x * 255 // max(1, w - 1), y * 255 // max(1, h - 1), (x + y) * 127 // max(1, w + h - 2)],
                          axis=-1)
        noise = rng.integers(0, 64, (h, w, 3))
        return Image.fromarray(np.clip(smooth + noise, 0, 255).astype(np.uint8), "RGB")

    palette = rgb(50, 30).quantize(16)
    palette.info["transparency"] = 0
    exif = Image.Exif()
    exif[0x0112] = 6
    return [("RGB 64x48 PNG", encoded(rgb(64, 48), "PNG")),
            ("RGB 37x53 PNG", encoded(rgb(37, 53), "PNG")),
            ("RGB 200x20 PNG (wide)", encoded(rgb(200, 20), "PNG")),
            ("RGB 15x90 PNG (tall)", encoded(rgb(15, 90), "PNG")),
            ("RGB 3x5 PNG", encoded(rgb(3, 5), "PNG")),
            ("grey 40x40 PNG", encoded(rgb(40, 40).convert("L"), "PNG")),
            ("palette 50x30 PNG, a transparent colour", encoded(palette, "PNG")),
            ("RGBA 45x45 PNG", encoded(rgb(45, 45).convert("RGBA"), "PNG")),
            ("RGB 60x40 JPEG, EXIF orientation 6", encoded(rgb(60, 40), "JPEG", quality=90, exif=exif))]


class ImageOnly(Wrapper):
    def forward(self, pixel_values: Tensor) -> Tensor:
        return self.image(pixel_values)


class TextAndImage(TwoInputs):
    """A two-tower model: forward(input_ids, attention_mask) is the text tower, encode_image the image tower."""

    def encode_image(self, pixel_values: Tensor) -> Tensor:
        return self.image(pixel_values)


class ImageInputs(InputKind):
    """Pixel values [B, 3, H, W] float32, made from a decoded image by the checkpoint's image processor (its
    PIL backend) after load_image (EXIF orientation applied, converted to RGB)."""

    name = "image"
    processor = None
    height = width = 0
    length = 0        # the image tower's sequence length: set by check_library, from the library's model
    zero_shot: dict | None = None  # the manifest's zero_shot block: set by check_library (zero_shot only)

    def prepare(self) -> None:
        """Loads the PIL-backend image processor and finds the one size every image becomes."""
        from PIL import Image
        from transformers import AutoImageProcessor

        plan = self.plan
        try:
            processor = AutoImageProcessor.from_pretrained(plan.model_dir, backend="pil")
        except (OSError, ValueError) as e:
            raise Refused(f"{plan.model_dir}: no image processor transformers can load: {e}") from None
        name = type(processor).__name__
        if not name.endswith("Pil"):
            raise Refused(f"{plan.model_dir}: the image processor {name} has no PIL backend; qinfer prepares "
                          "images as transformers' PIL backend does, and checks them against it")
        shapes = {}
        for w, h in ((96, 24), (24, 96), (7, 7)):
            pixels = processor(Image.new("RGB", (w, h), (90, 120, 150)), return_tensors="pt")["pixel_values"]
            shapes[f"{w}x{h}"] = tuple(pixels.shape)
        if len(set(shapes.values())) != 1 or len(next(iter(shapes.values()))) != 4:
            raise Refused(f"{name} gives pixel_values of shapes {shapes} by image size; qinfer serves an image "
                          "model at one size (a processor that resizes to a fixed height and width, or crops)")
        _, channels, self.height, self.width = next(iter(shapes.values()))
        if channels != 3:
            raise Refused(f"{name} gives {channels} channels; qinfer serves RGB images (3)")
        self.processor = processor

    def wrapper_class(self, base: type | None) -> type:
        if base is None:
            return ImageOnly
        if base is not TwoInputs:
            raise Refused(f"an image tower beside a text forward of {base.__name__}: export_hf.py exports a "
                          "two-tower model whose text forward takes (input_ids, attention_mask)")
        return TextAndImage

    def pixels(self, images: list) -> Tensor:
        """The images as the library prepares them: load_image (EXIF orientation, RGB), then the processor."""
        from transformers.image_utils import load_image

        return self.processor([load_image(image) for image in images], return_tensors="pt")["pixel_values"]

    def random_pixels(self, n: int, seed: int) -> Tensor:
        return torch.randn(n, 3, self.height, self.width, generator=torch.Generator().manual_seed(seed))

    def trace_example(self) -> tuple:
        return (self.random_pixels(2, seed=7),)

    def trace_batches(self) -> list[tuple[str, tuple]]:
        return [(f"{n} images", (self.random_pixels(n, seed=100 + n),)) for n in (1, 3)]

    def real_positions(self, args: tuple) -> Tensor:
        return torch.ones(args[0].shape[0], 1, dtype=torch.bool)

    def samples(self) -> tuple:
        return (self.pixels([image for _, image in sample_images()]),)

    def check_contract(self, model) -> str:
        """[B, dim] float32 and finite; each image's row the same alone as in the batch (within the
        tolerance at the row's scale); two different images give different rows."""
        method = getattr(model, self.method)
        (pixels,) = self.samples()
        with torch.inference_mode():
            batch = method(pixels)
            if batch.dtype != torch.float32 or tuple(batch.shape) != (len(pixels), self.plan.dim):
                raise CheckFailed(f"{self.method}(pixel_values [{len(pixels)}, 3, {self.height}, {self.width}]) "
                                  f"gives {batch.dtype} {tuple(batch.shape)}; the contract is float32 "
                                  f"[{len(pixels)}, {self.plan.dim}]")
            if not torch.isfinite(batch).all():
                raise CheckFailed(f"{self.method} gives non-finite values")
            worst = max(excess(method(pixels[i:i + 1]), batch[i:i + 1]) for i in range(len(pixels)))
        if worst > 1:
            raise CheckFailed(f"rows depend on each other: an image run alone and the same image in a batch of "
                              f"{len(pixels)} differ {within_text(worst)}")
        if torch.allclose(batch[0], batch[1]):
            raise CheckFailed(f"two different images give the same {self.method} output: the model does not "
                              "read pixel_values")
        return f"{self.method}: {len(pixels)} images, each alone and in a batch, up to {worst:.3g} x the tolerance"

    def check_library(self, model) -> dict:
        """The method's outputs against the library's call on the sample images; sets self.length (and
        self.zero_shot)."""
        plan = self.plan
        images = sample_images()
        with torch.inference_mode():
            got = getattr(model, self.method)(self.pixels([image for _, image in images]))
        if plan.towers:
            report, library = self.check_tower(got, images)
        elif plan.task == "embed":
            report, library = self.check_features(got, images)
        else:
            report, library = self.check_classify(got, images)
        self.length = tower_length(library, self.samples()[0][:1], plan.towers is not None)
        if plan.task == "zero_shot":
            report["zero_shot"] = self.check_zero_shot(model, images)
        return report

    def check_features(self, got: Tensor, images: list) -> tuple[dict, object]:
        from transformers import pipeline

        pipe = pipeline("image-feature-extraction", model=self.plan.model_dir, image_processor=self.processor,
                        device="cpu")
        want = torch.cat([pipe(image, pool=True, return_tensors=True) for _, image in images])
        report = compare_features(got, want, images, "pipeline('image-feature-extraction', pool=True)")
        return report | {"preprocessing": self.checked_against()}, pipe.model

    def check_classify(self, got: Tensor, images: list) -> tuple[dict, object]:
        """Scores (the manifest's activation of the logits) within ATOL of pipeline("image-classification",
        top_k=None)'s, label by label, and the same top label."""
        from transformers import pipeline

        plan = self.plan
        pipe = pipeline("image-classification", model=plan.model_dir, image_processor=self.processor,
                        device="cpu")
        scores = scores_from_logits(got, plan.activation)
        worst = 0.0
        for (what, image), row in zip(images, scores):
            want = {r["label"]: r["score"] for r in pipe(image, top_k=None)}
            mine = dict(zip(plan.labels, row.tolist()))
            if set(want) != set(mine):
                raise CheckFailed(f"the pipeline's labels {sorted(want)} are not the manifest's {plan.labels}")
            worst = max(worst, max(abs(mine[k] - want[k]) for k in want))
            if worst > ATOL:
                raise CheckFailed(f"scores differ from pipeline('image-classification') by up to {worst:.3g} "
                                  f"(> {ATOL}) on the {what} image")
        return ({"reference": "pipeline('image-classification', top_k=None)", "inputs": len(images),
                 "max_abs_diff": float(f"{worst:.3g}"), "preprocessing": self.checked_against()}, pipe.model)

    def check_tower(self, got: Tensor, images: list) -> tuple[dict, object]:
        """get_image_features of the same pixels; for a sentence-transformers directory, its encode of the
        images as load_image gives them (encode takes a PIL image as it is: no EXIF orientation, no RGB)."""
        from transformers import AutoModel
        from transformers.image_utils import load_image

        plan = self.plan
        library = AutoModel.from_pretrained(plan.model_dir, dtype=torch.float32).eval()
        if plan.st:
            from sentence_transformers import SentenceTransformer

            st = SentenceTransformer(plan.checkpoint, device="cpu")
            want = torch.as_tensor(st.encode([load_image(image) for _, image in images], batch_size=len(images),
                                             convert_to_numpy=True))
            reference = "SentenceTransformer.encode (images after load_image)"
        else:
            with torch.inference_mode():
                want = library.get_image_features(pixel_values=self.pixels([image for _, image in images])
                                                  ).pooler_output
            reference = f"{type(library).__name__}.get_image_features"
        return compare_features(got, want, images, reference) | {"preprocessing": self.checked_against()}, library

    def check_zero_shot(self, model, images: list) -> dict:
        """pipeline("zero-shot-image-classification") against the package as the service runs it: the
        labels in the pipeline's default hypothesis template, tokenized by tokenizer.json alone (cut at
        max_tokens, right-padded with garbage in the padding), forward's and encode_image's features
        normalised, logit_scale x cosine + logit_bias, the activation; every score within ATOL and the same
        top label. Sets self.zero_shot (the manifest's block)."""
        import inspect

        from tokenizers import Tokenizer
        from transformers import pipeline
        from transformers.pipelines.zero_shot_image_classification import ZeroShotImageClassificationPipeline

        plan = self.plan
        towers = plan.towers
        template = inspect.signature(ZeroShotImageClassificationPipeline.preprocess).parameters[
            "hypothesis_template"].default
        pipe = pipeline("zero-shot-image-classification", model=plan.model_dir, image_processor=self.processor,
                        device="cpu")
        scale = pipe.model.logit_scale.exp().item()
        bias = pipe.model.logit_bias.item() if hasattr(pipe.model, "logit_bias") else 0.0
        self.zero_shot = {"logit_scale": scale, "logit_bias": bias, "activation": towers.activation,
                          "hypothesis_template": template, "text_padding": towers.text_padding,
                          "text_max_length": towers.text_max_length}
        raw = Tokenizer.from_file(os.path.join(plan.model_dir, "tokenizer.json"))
        raw.no_padding()
        raw.enable_truncation(plan.max_tokens)
        encs = [raw.encode(template.format(label)).ids for label in LABELS]
        ids = torch.full((len(encs), max(map(len, encs)) + 3), plan.text_config.vocab_size - 1, dtype=torch.int64)
        mask = torch.zeros_like(ids)
        for i, row in enumerate(encs):
            ids[i, :len(row)], mask[i, :len(row)] = torch.tensor(row), 1
        with torch.inference_mode():
            texts = F.normalize(model(ids, mask), dim=-1)
            pictures = F.normalize(getattr(model, self.method)(self.pixels([image for _, image in images])), dim=-1)
        scores = scores_from_logits(scale * pictures @ texts.T + bias, towers.activation)
        worst = 0.0
        for (what, image), row in zip(images, scores):
            want = {r["label"]: r["score"] for r in pipe(image, candidate_labels=LABELS)}
            worst = max(worst, max(abs(s - want[label]) for label, s in zip(LABELS, row.tolist())))
            if worst > ATOL:
                raise CheckFailed(f"zero-shot scores differ from pipeline('zero-shot-image-classification') by up to "
                                  f"{worst:.3g} (> {ATOL}) on the {what} image")
        return {"reference": "pipeline('zero-shot-image-classification')", "images": len(images),
                "labels": len(LABELS), "max_abs_diff": float(f"{worst:.3g}")}

    def checked_against(self) -> str:
        import transformers

        return (f"transformers {transformers.__version__} {type(self.processor).__name__} after "
                "transformers.image_utils.load_image")

    def check_precision(self, model, min_cosine: float) -> dict:
        (pixels,) = self.samples()
        method = getattr(model, self.method)
        # qinfer_model.check_precision runs model(ids, mask) and compares rows; here the "ids" are the
        # pixels and the mask a column of ones (read only for a per-token output, which this is not).
        return check_precision(lambda images, _mask: method(images), pixels, torch.ones(len(pixels), 1),
                               min_cosine)

    def manifest_fields(self) -> dict:
        if not self.length:
            raise RuntimeError("manifest_fields before check_library: the image tower's length is not known")
        fields = {"inputs": ["pixel_values"]} if self.method == "forward" else {}
        fields["image"] = {"processor": PROCESSOR_FILE, "processor_class": type(self.processor).__name__,
                           "height": self.height, "width": self.width, "method": self.method,
                           "length": self.length, "checked_against": self.checked_against()}
        if self.zero_shot is not None:
            fields["zero_shot"] = self.zero_shot
        return fields

    def copy_files(self, out: str) -> None:
        """preprocessor_config.json: the processor's dict as save_pretrained writes it (the checkpoint's own
        preprocessor_config.json, or the image_processor object of its processor_config.json, as loaded)."""
        path = os.path.join(out, PROCESSOR_FILE)
        text = self.processor.to_json_string()
        json.loads(text)  # what the service parses
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)


def compare_features(got: Tensor, want: Tensor, images: list, reference: str) -> dict:
    """got == want row by row: cosine >= MIN_COSINE and within the tolerance at each row's scale."""
    cos = F.cosine_similarity(got, want.float(), dim=1)
    ratio = excess(got, want.float())
    if cos.min().item() < MIN_COSINE or ratio > 1:
        worst = images[int(cos.argmin())][0]
        raise CheckFailed(f"image features differ from {reference}: min cosine {cos.min().item():.6f} (floor "
                          f"{MIN_COSINE}, the {worst} image), {within_text(ratio)}")
    return {"reference": reference, "inputs": len(images), "min_cosine": round(cos.min().item(), 6),
            "max_abs_diff": float(f"{(got - want).abs().max().item():.3g}")}


def tower_length(library, pixels: Tensor, towers: bool) -> int:
    """The sequence length the library's image tower runs for one image of this size: its last hidden
    state's positions (patches and class, distillation or register tokens), or a convolutional network's
    last stage's positions (height x width)."""
    with torch.inference_mode():
        if towers:
            out = library.get_image_features(pixel_values=pixels)
        else:
            base = getattr(library, library.base_model_prefix, library)
            out = base(pixel_values=pixels, output_hidden_states=True)
    hidden = getattr(out, "last_hidden_state", None)
    if hidden is None:
        hidden = out.hidden_states[-1]
    return int(hidden.shape[1]) if hidden.dim() == 3 else int(hidden.shape[2] * hidden.shape[3])
