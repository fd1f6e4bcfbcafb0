"""model/export_hf.py on image models: every vision family x task exported from a tiny checkpoint equals its
library on images made here with Pillow.

Checkpoints are made in tmp from transformers' config classes at tiny sizes (32 x 32 images, patches of 8,
hidden 32, 2 layers), the image processor saved beside them with its configuration varied (CLIP's shortest
edge, centre crop and bicubic; a fixed size and bilinear for SigLIP and ViT; DINOv2's shortest edge 40 and
crop 32; DeiT's fixed size and crop; ConvNeXt's crop_pct), and, where a text tower needs one, a tokenizer
trained here; nothing is fetched from a model hub. Each family is exported once (module-scoped fixtures),
in this process (the libraries are imported once); the package is loaded with torch.jit.load, its images
prepared from the package's own preprocessor_config.json (the PIL backend, after load_image), and compared
with the library's own call on the same images by this file's code (images and labels unlike the
exporter's): embeddings cosine >= 0.999, classification and zero-shot scores within 5e-3 with the same top
label. The refusals run the command line in this process and read its exit status and message.
"""

import hashlib
import io
import json
import os
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "model"))
sys.path.insert(0, os.path.join(REPO, "tests", "tasks"))
import export_hf  # noqa: E402
from make_checkpoint import CORPUS  # noqa: E402

export_hf.quiet_libraries()

MIN_COSINE = 0.999
SCORE_TOL = 5e-3
VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, image_size=32,
              patch_size=8, initializer_range=0.1)
LABELS = ["a photo of a dog", "red", "a cat", "the market in Lisbon at sunset"]
TEMPLATE = "This is a photo of {}."  # pipeline("zero-shot-image-classification")'s default in transformers 5


# ------------------------------------------------------------------ images

def images():
    """(name, PIL image opened from its encoded bytes): sizes from 2 x 2 to 300 x 12, RGB, grey, palette,
    RGBA, CMYK JPEG, 16-bit grey, and JPEGs with EXIF orientations 3 and 8."""
    from PIL import Image

    rng = np.random.default_rng(2026)

    def reopened(image, fmt, **kwargs):
        buf = io.BytesIO()
        image.save(buf, format=fmt, **kwargs)
        return Image.open(io.BytesIO(buf.getvalue()))

    def picture(w, h):
        y, x = np.mgrid[0:h, 0:w]
        base = np.stack([(x * 7 + y * 3) % 256, (y * 11) % 256, (x * y) % 256], axis=-1)
        return Image.fromarray(((base + rng.integers(0, 40, (h, w, 3))) % 256).astype(np.uint8), "RGB")

    def exif(orientation):
        e = Image.Exif()
        e[0x0112] = orientation
        return e

    grey16 = Image.fromarray((np.arange(48 * 30).reshape(30, 48) * 40).astype(np.uint16))
    return [("rgb 80x60", reopened(picture(80, 60), "PNG")),
            ("rgb 300x12", reopened(picture(300, 12), "PNG")),
            ("rgb 2x2", reopened(picture(2, 2), "PNG")),
            ("grey 33x47", reopened(picture(33, 47).convert("L"), "PNG")),
            ("palette 64x40", reopened(picture(64, 40).quantize(8), "PNG")),
            ("rgba 50x50", reopened(picture(50, 50).convert("RGBA"), "PNG")),
            ("cmyk 40x56 jpeg", reopened(picture(40, 56).convert("CMYK"), "JPEG")),
            ("grey16 48x30", reopened(grey16, "PNG")),
            ("exif 3 jpeg", reopened(picture(70, 30), "JPEG", exif=exif(3))),
            ("exif 8 jpeg", reopened(picture(30, 70), "JPEG", exif=exif(8)))]


def package_pixels(out, imgs):
    """The images as the service must prepare them: load_image, then the package's own processor file."""
    from transformers import AutoImageProcessor
    from transformers.image_utils import load_image

    processor = AutoImageProcessor.from_pretrained(str(out), backend="pil")
    return processor([load_image(image) for _, image in imgs], return_tensors="pt")["pixel_values"]


# ------------------------------------------------------------------ checkpoints

def clip_tokenizer():
    """CLIP's byte-level BPE with end-of-word suffixes, trained on CORPUS, in CLIPTokenizer."""
    from tokenizers import pre_tokenizers, trainers
    from transformers import CLIPTokenizer

    backend = CLIPTokenizer().backend_tokenizer
    trainer = trainers.BpeTrainer(vocab_size=400, min_frequency=1, show_progress=False, end_of_word_suffix="</w>",
                                  special_tokens=["<|startoftext|>", "<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(CORPUS, trainer)
    model = json.loads(backend.to_str())["model"]
    return CLIPTokenizer(vocab=model["vocab"], merges=[tuple(m) for m in model["merges"]], model_max_length=32)


def siglip_tokenizer():
    """SigLIP's kind: a Unigram with Metaspace, </s> at the end of each text and its pad token, as a fast
    tokenizer (SiglipTokenizer itself needs sentencepiece; qinfer needs tokenizer.json)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train_from_iterator(CORPUS, trainers.UnigramTrainer(vocab_size=300, special_tokens=["<pad>", "</s>", "<unk>"],
                                                            unk_token="<unk>", show_progress=False))
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", eos)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="</s>", eos_token="</s>", unk_token="<unk>",
                                   model_max_length=64, model_input_names=["input_ids", "attention_mask"])


def text_config(tokenizer, positions):
    return dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                num_attention_heads=2, max_position_embeddings=positions, pad_token_id=tokenizer.pad_token_id,
                eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id)


def saved(model, processor, out, tokenizer=None):
    torch.manual_seed(0)
    model.eval().save_pretrained(str(out))
    processor.save_pretrained(str(out))
    if tokenizer is not None:
        tokenizer.save_pretrained(str(out))
    return out


def make_clip(out):
    """CLIP: shortest edge 32, centre crop 32, bicubic; logit_scale as trained CLIPs have it (100)."""
    from transformers import CLIPConfig, CLIPImageProcessorPil, CLIPModel

    tokenizer = clip_tokenizer()
    torch.manual_seed(1)
    model = CLIPModel(CLIPConfig(text_config=text_config(tokenizer, 32), vision_config=VISION, projection_dim=24))
    with torch.no_grad():
        model.logit_scale.fill_(np.log(100.0))
    return saved(model, CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32},
                                              resample=3), out, tokenizer)


def make_siglip(out):
    """SigLIP: a fixed 32 x 32, bilinear, mean and std 0.5; logit_scale 10 and logit_bias -3."""
    from transformers import SiglipConfig, SiglipImageProcessorPil, SiglipModel

    tokenizer = siglip_tokenizer()
    torch.manual_seed(2)
    vision = {k: v for k, v in VISION.items() if k != "initializer_range"}
    model = SiglipModel(SiglipConfig(text_config=text_config(tokenizer, 64) | {"bos_token_id": None},
                                     vision_config=vision))
    with torch.no_grad():
        model.logit_scale.fill_(np.log(10.0))
        model.logit_bias.fill_(-3.0)
    return saved(model, SiglipImageProcessorPil(size={"height": 32, "width": 32}, resample=2), out, tokenizer)


def make_clip_st(clip_dir, out):
    """A sentence-transformers directory of the CLIP checkpoint: its CLIPModel module, then Normalize."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import CLIPModel, Normalize

    SentenceTransformer(modules=[CLIPModel(str(clip_dir)), Normalize()], device="cpu").save(str(out))
    return out


def labelled(n):
    return {"id2label": {i: f"label_{chr(97 + i)}" for i in range(n)},
            "label2id": {f"label_{chr(97 + i)}": i for i in range(n)}}


def make_image_model(family, head, out):
    """ViT (fixed 32, bilinear), DINOv2 (shortest edge 40, crop 32, bicubic), DeiT with its teacher head
    (fixed 40, crop 32), ConvNeXt multi-label (shortest edge 32 under crop_pct 0.875): with or without a
    classification head."""
    import transformers as tf

    torch.manual_seed(3)
    if family == "vit":
        config = tf.ViTConfig(**VISION, **labelled(5))
        processor = tf.ViTImageProcessorPil(size={"height": 32, "width": 32}, resample=2)
        model = (tf.ViTForImageClassification if head else tf.ViTModel)(config)
    elif family == "dinov2":
        config = tf.Dinov2Config(**{k: v for k, v in VISION.items() if k != "intermediate_size"}, mlp_ratio=2,
                                 **labelled(4))
        processor = tf.BitImageProcessorPil(size={"shortest_edge": 40}, crop_size={"height": 32, "width": 32},
                                            resample=3)
        model = (tf.Dinov2ForImageClassification if head else tf.Dinov2Model)(config)
    elif family == "deit":
        config = tf.DeiTConfig(**VISION, **labelled(3))
        processor = tf.DeiTImageProcessorPil(size={"height": 40, "width": 40}, crop_size={"height": 32, "width": 32})
        model = tf.DeiTForImageClassificationWithTeacher(config)
    else:
        config = tf.ConvNextConfig(hidden_sizes=[8, 16, 24, 32], depths=[1, 1, 1, 1], image_size=32,
                                   problem_type="multi_label_classification", **labelled(4))
        processor = tf.ConvNextImageProcessorPil(size={"shortest_edge": 32}, crop_pct=0.875)
        model = tf.ConvNextForImageClassification(config)
    return saved(model, processor, out)


def export(ckpt, out, *extra):
    export_hf.main([str(ckpt), "--out", str(out), *extra])
    manifest = json.loads((out / "manifest.json").read_text())
    return torch.jit.load(str(out / "model.pt"), map_location="cpu").eval(), manifest


def pil_processor(ckpt):
    from transformers import AutoImageProcessor

    return AutoImageProcessor.from_pretrained(str(ckpt), backend="pil")


def library_model(ckpt):
    from transformers import AutoModel

    return AutoModel.from_pretrained(str(ckpt), dtype=torch.float32).eval()


def check_image_block(m, ckpt, out, method, length):
    """The manifest's image block, and the processor file: the checkpoint's processor as the PIL backend
    loads it (the same pixels)."""
    import transformers

    processor = pil_processor(ckpt)
    name = type(processor).__name__
    assert name.endswith("Pil")
    assert m["image"] == {"processor": "preprocessor_config.json", "processor_class": name, "height": 32,
                          "width": 32, "method": method, "length": length,
                          "checked_against": f"transformers {transformers.__version__} {name} after "
                                             "transformers.image_utils.load_image"}
    saved_dict = json.loads((out / "preprocessor_config.json").read_text())
    assert saved_dict == json.loads(processor.to_json_string())
    assert m["digest"] == "sha256:" + hashlib.sha256((out / "model.pt").read_bytes()).hexdigest()
    assert set(m["precision_check"]) == ({"bfloat16", "float16"} if method == "forward" else {"text", "image"})


def service_text_batch(out, texts, max_tokens):
    """texts tokenized by the package's tokenizer.json alone (as qinfer tokenizes), cut at max_tokens,
    right-padded with garbage ids in the padding."""
    from tokenizers import Tokenizer

    raw = Tokenizer.from_file(str(out / "tokenizer.json"))
    raw.no_padding()
    raw.enable_truncation(max_tokens)
    rows = [raw.encode(t).ids for t in texts]
    ids = torch.full((len(rows), max(map(len, rows)) + 2), 7, dtype=torch.int64)
    mask = torch.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, :len(row)], mask[i, :len(row)] = torch.tensor(row), 1
    return ids, mask


def assert_scores(got: dict, want: dict, what):
    assert set(got) == set(want), what
    assert max(got, key=got.get) == max(want, key=want.get), (what, got, want)
    assert max(abs(got[k] - want[k]) for k in want) <= SCORE_TOL, (what, got, want)


# ------------------------------------------------------------------ two towers: zero_shot and embed

@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("vision")


@pytest.fixture(scope="module")
def towers(tmp):
    """CLIP and SigLIP checkpoints, each exported as --task auto picks (zero_shot)."""
    made = {}
    for family, make in (("clip", make_clip), ("siglip", make_siglip)):
        ckpt = make(tmp / family)
        made[family] = (ckpt, tmp / f"{family}-auto", *export(ckpt, tmp / f"{family}-auto"))
    return made


@pytest.mark.parametrize("family", ["clip", "siglip"])
def test_zero_shot_equals_the_zero_shot_pipeline(towers, family):
    """The two methods' features, normalised, logit_scale x cosine + logit_bias, the activation: the
    pipeline's scores for every image x label, its default template and another."""
    import inspect

    from transformers import pipeline
    from transformers.pipelines.zero_shot_image_classification import ZeroShotImageClassificationPipeline

    ckpt, out, model, m = towers[family]
    library = library_model(ckpt)
    dim = 24 if family == "clip" else 32  # CLIP's projection_dim; SigLIP's text projection_size (its hidden)
    assert (m["task"], m["output"], m["family"], m["dim"]) == ("zero_shot", "pooled", family, dim)
    assert m["inputs"] == ["input_ids", "attention_mask"] and m["tokenizer"] == "tokenizer.json"
    check_image_block(m, ckpt, out, "encode_image", 17 if family == "clip" else 16)  # + CLIP's class token
    default = inspect.signature(ZeroShotImageClassificationPipeline.preprocess).parameters["hypothesis_template"]
    assert default.default == TEMPLATE
    zs = m["zero_shot"]
    assert zs == {"logit_scale": pytest.approx(library.logit_scale.exp().item()),
                  "logit_bias": pytest.approx(library.logit_bias.item() if family == "siglip" else 0.0),
                  "activation": "softmax" if family == "clip" else "sigmoid", "hypothesis_template": TEMPLATE,
                  "text_padding": "longest" if family == "clip" else "max_length",
                  "text_max_length": 0 if family == "clip" else 64}
    assert zs["logit_scale"] == pytest.approx(100.0 if family == "clip" else 10.0, rel=1e-5)
    if family == "siglip":
        assert (m["max_tokens"], m["max_positions"], zs["logit_bias"]) == (64, 64, pytest.approx(-3.0))

    imgs = images()
    pipe = pipeline("zero-shot-image-classification", model=str(ckpt), image_processor=pil_processor(ckpt),
                    device="cpu")
    with torch.inference_mode():
        pictures = F.normalize(model.encode_image(package_pixels(out, imgs)), dim=-1)
    for template in (TEMPLATE, "a picture of {}"):
        with torch.inference_mode():
            texts = F.normalize(model(*service_text_batch(out, [template.format(x) for x in LABELS],
                                                          m["max_tokens"])), dim=-1)
        logits = zs["logit_scale"] * pictures @ texts.T + zs["logit_bias"]
        scores = logits.softmax(dim=-1) if zs["activation"] == "softmax" else logits.sigmoid()
        for (what, image), row in zip(imgs, scores):
            kwargs = {} if template == TEMPLATE else {"hypothesis_template": template}
            want = {r["label"]: r["score"] for r in pipe(image, candidate_labels=LABELS, **kwargs)}
            assert_scores(dict(zip(LABELS, row.tolist())), want, (what, template))


@pytest.mark.parametrize("family", ["clip", "siglip"])
def test_each_method_is_its_towers_features(towers, family):
    """forward == get_text_features of the texts as the pipeline pads them, encode_image ==
    get_image_features; a row's features do not depend on the padding the service adds."""
    from transformers import AutoTokenizer

    ckpt, out, model, m = towers[family]
    library = library_model(ckpt)
    tokenizer = AutoTokenizer.from_pretrained(str(ckpt))
    texts = ["a photo of a dog", "Zürich at night, 42 lanterns", "x"]
    padding = {"padding": "max_length", "max_length": 64} if family == "siglip" else {"padding": True}
    imgs = images()
    with torch.inference_mode():
        want_text = library.get_text_features(**tokenizer(texts, return_tensors="pt", truncation=True,
                                                          **padding)).pooler_output
        want_image = library.get_image_features(pixel_values=pil_processor(ckpt)(
            [image.convert("RGB") for _, image in imgs[:3]], return_tensors="pt")["pixel_values"]).pooler_output
        ids, mask = service_text_batch(out, texts, m["max_tokens"])
        got_text = model(ids, mask)
        alone = model(ids[2:, :mask[2].sum()], mask[2:, :mask[2].sum()])
        got_image = model.encode_image(package_pixels(out, imgs[:3]))
    assert F.cosine_similarity(got_text, want_text, dim=1).min().item() >= MIN_COSINE
    assert F.cosine_similarity(got_image, want_image, dim=1).min().item() >= MIN_COSINE
    assert torch.allclose(alone[0], got_text[2], atol=1e-5)
    assert got_text.dtype == got_image.dtype == torch.float32


def test_two_towers_embed_is_the_features_without_zero_shot(towers, tmp):
    """--task embed on CLIP: the same two methods, task embed, no zero_shot block."""
    ckpt, _, auto_model, auto = towers["clip"]
    model, m = export(ckpt, tmp / "clip-embed", "--task", "embed")
    assert (m["task"], m["output"], m["activation"], m["normalized"]) == ("embed", "pooled", "none", False)
    assert "zero_shot" not in m and "pooling" not in m
    check_image_block(m, ckpt, tmp / "clip-embed", "encode_image", 17)
    ids, mask = service_text_batch(tmp / "clip-embed", ["a red car"], m["max_tokens"])
    pixels = package_pixels(tmp / "clip-embed", images()[:2])
    with torch.inference_mode():
        assert torch.allclose(model(ids, mask), auto_model(ids, mask), atol=1e-6)
        assert torch.allclose(model.encode_image(pixels), auto_model.encode_image(pixels), atol=1e-6)


def test_a_sentence_transformers_clip_directory_equals_encode(towers, tmp):
    """CLIPModel then Normalize: both methods unit vectors equal to SentenceTransformer.encode of texts and
    of PIL images (encode reads a PIL image as it is: the plain RGB ones as given, the others after
    load_image, as the service decodes them)."""
    from sentence_transformers import SentenceTransformer
    from transformers.image_utils import load_image

    st_dir = make_clip_st(towers["clip"][0], tmp / "clip-st")
    model, m = export(st_dir, tmp / "clip-st-out")
    assert (m["task"], m["normalized"], m["dim"]) == ("embed", True, 24)
    assert "zero_shot" not in m
    check_image_block(m, st_dir, tmp / "clip-st-out", "encode_image", 17)
    st = SentenceTransformer(str(st_dir), device="cpu")
    texts = ["Maria walked to the market in Lisbon.", "a"]
    imgs = images()
    plain = [image for what, image in imgs if what.startswith("rgb")]
    loaded = [load_image(image) for what, image in imgs if not what.startswith("rgb")]
    with torch.inference_mode():
        got_text = model(*service_text_batch(tmp / "clip-st-out", texts, m["max_tokens"]))
        got_image = model.encode_image(package_pixels(tmp / "clip-st-out", imgs))
    want_text = torch.as_tensor(st.encode(texts, convert_to_numpy=True))
    want_image = torch.as_tensor(st.encode(plain + loaded, convert_to_numpy=True))
    order = [i for i, (what, _) in enumerate(imgs) if what.startswith("rgb")] + \
        [i for i, (what, _) in enumerate(imgs) if not what.startswith("rgb")]
    assert F.cosine_similarity(got_text, want_text, dim=1).min().item() >= MIN_COSINE
    assert F.cosine_similarity(got_image[order], want_image, dim=1).min().item() >= MIN_COSINE
    assert torch.allclose(got_image.norm(dim=1), torch.ones(len(imgs)), atol=1e-5)


# ------------------------------------------------------------------ image models: embed and classify

@pytest.fixture(scope="module")
def vision(tmp):
    """Each image family x task, made and exported once, on first use: (checkpoint, out, model, manifest)."""
    made = {}

    def get(family, task):
        if (family, task) not in made:
            ckpt = make_image_model(family, task == "classify", tmp / f"{family}-{task}")
            made[family, task] = (ckpt, tmp / f"{family}-{task}-out", *export(ckpt, tmp / f"{family}-{task}-out"))
        return made[family, task]
    return get


@pytest.mark.parametrize("family", ["vit", "dinov2"])
def test_image_embed_equals_the_feature_extraction_pipeline(vision, family):
    from transformers import pipeline

    ckpt, out, model, m = vision(family, "embed")
    assert (m["task"], m["output"], m["dim"], m["family"], m["normalized"]) == ("embed", "pooled", 32, family, False)
    assert m["inputs"] == ["pixel_values"]
    for text_key in ("vocab_size", "max_tokens", "max_positions", "tokenizer", "pairs", "zero_shot"):
        assert text_key not in m
    check_image_block(m, ckpt, out, "forward", 17)  # 16 patches and the class token
    imgs = images()
    pipe = pipeline("image-feature-extraction", model=str(ckpt), image_processor=pil_processor(ckpt), device="cpu")
    want = torch.cat([pipe(image, pool=True, return_tensors=True) for _, image in imgs])
    with torch.inference_mode():
        got = model(package_pixels(out, imgs))
    assert got.shape == want.shape
    assert F.cosine_similarity(got, want, dim=1).min().item() >= MIN_COSINE


@pytest.mark.parametrize("family,labels,activation,length", [
    ("vit", 5, "softmax", 17), ("deit", 3, "softmax", 18),  # the class and the distillation token
    ("convnext", 4, "sigmoid", 1), ("dinov2", 4, "softmax", 17)])
def test_classify_equals_the_image_classification_pipeline(vision, family, labels, activation, length):
    from transformers import pipeline

    ckpt, out, model, m = vision(family, "classify")
    config = json.loads((ckpt / "config.json").read_text())
    assert (m["task"], m["output"], m["dim"], m["activation"]) == ("classify", "logits", labels, activation)
    assert m["labels"] == [config["id2label"][str(i)] for i in range(labels)]
    assert m["inputs"] == ["pixel_values"] and "tokenizer" not in m
    if family == "convnext":
        # Its config's layers are its stages; a convolutional network has no heads.
        assert m["problem_type"] == "multi_label_classification" and "heads" not in m
    check_image_block(m, ckpt, out, "forward", length)
    imgs = images()
    pipe = pipeline("image-classification", model=str(ckpt), image_processor=pil_processor(ckpt), device="cpu")
    if family == "deit":
        assert type(pipe.model).__name__ == "DeiTForImageClassificationWithTeacher"
    with torch.inference_mode():
        logits = model(package_pixels(out, imgs))
    scores = logits.sigmoid() if activation == "sigmoid" else logits.softmax(dim=-1)
    for (what, image), row in zip(imgs, scores):
        want = {r["label"]: r["score"] for r in pipe(image, top_k=None)}
        assert_scores(dict(zip(m["labels"], row.tolist())), want, what)


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("source,args,message", [
    (("vit", "embed"), ["--task", "zero_shot"], "REFUSED: zero_shot needs a text tower and an image tower"),
    (("dinov2", "embed"), ["--task", "classify"], "REFUSED: classify needs a *ForImageClassification"),
    (("vit", "classify"), ["--task", "embed"], "REFUSED: embed: ViTModel (what the library runs embed with) "
                                               "has weights the checkpoint lacks (pooler.dense.bias"),
    (("vit", "embed"), ["--format", "aoti"], "REFUSED: --format aoti: vit takes images"),
    (("vit", "embed"), ["--task", "rerank"], "REFUSED: task rerank: family vit has heads for embed, classify"),
    ("clip", ["--task", "classify"], "REFUSED: classify needs a *ForImageClassification (an image classifier); "
                                     "this checkpoint is CLIPModel, a text tower and an image tower"),
])
def test_what_an_image_model_cannot_be_is_refused_by_name(vision, towers, tmp, capsys, source, args, message):
    ckpt = towers[source][0] if isinstance(source, str) else vision(*source)[0]
    out = tmp / "refused"
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        export_hf.main([str(ckpt), "--out", str(out), *args])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not (out / "manifest.json").exists()
