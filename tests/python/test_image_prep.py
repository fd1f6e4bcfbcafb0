"""The image module (image/) against Pillow and transformers' PIL backend.

Images are made here with Pillow (and a few by hand where Pillow cannot
write the kind: a 16-bit RGB PNG), in every mode and format the module
decodes, at sizes from 1x1 to 3000 px a side and extreme aspect ratios,
with EXIF orientations 2-8. qinfer_image_prep_tool ($QINFER_IMAGE_PREP_TOOL,
tests/image/image_prep_tool.cc) decodes them and runs them through each
processor configuration; the results are compared with
transformers.image_utils.load_image and the processor's PIL class:

- decoded RGB: equal, byte for byte, to load_image's, for every file here
  (the same libjpeg-turbo algorithms, zlib/libpng, libwebp and libtiff
  decode to the same samples; the conversions are Pillow's own formulas);
- pixel_values: within 2 levels of 255 in pixel space
  (|diff| * std <= 2/255 + 1e-6): libtorch's antialiased uint8 resize is a
  port of Pillow-SIMD's, whose 16-bit weights round differently from
  Pillow's 22-bit ones; everything after the resize is the same float32
  arithmetic, so an image the processor does not resize is equal exactly.
"""

import io
import json
import os
import struct
import subprocess
import zlib

import numpy as np
import pytest
from PIL import Image

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

TOOL = os.environ.get("QINFER_IMAGE_PREP_TOOL", "")
pytestmark = pytest.mark.skipif(not (TOOL and os.access(TOOL, os.X_OK)),
                                reason="QINFER_IMAGE_PREP_TOOL is not set to the built qinfer_image_prep_tool")

transformers = pytest.importorskip("transformers")
from transformers.image_utils import load_image  # noqa: E402

RNG = np.random.default_rng(20260)


def photo(width, height, seed=0):
    """A smooth image with some texture (a photo's statistics, roughly)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    base = np.stack([
        127 + 100 * np.sin(x / max(width, 1) * 6.3 + seed),
        127 + 100 * np.cos(y / max(height, 1) * 4.1),
        127 + 100 * np.sin((x + y) / max(width + height, 1) * 9.0),
    ], axis=-1)
    noise = rng.normal(0, 18, size=(height, width, 3))
    return Image.fromarray(np.clip(base + noise, 0, 255).astype(np.uint8), "RGB")


def exif_with_orientation(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()


def png16(width, height, channels, seed=0):
    """A 16-bit RGB (or grey) PNG, written by hand: Pillow writes 16-bit grey only."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 65536, size=(height, width * channels), dtype=np.uint16).astype(">u2")
    raw = b"".join(b"\0" + row.tobytes() for row in data)
    color_type = {1: 0, 3: 2, 4: 6}[channels]

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, color_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def make_images(folder):
    """{name: path} of every kind of image the module must decode as Pillow does."""
    made = {}

    def save(name, image, **options):
        path = os.path.join(folder, name)
        image.save(path, **options)
        made[name] = path

    def write(name, data):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(data)
        made[name] = path

    p = photo(640, 480, 1)
    # JPEG: 4:2:0, 4:4:4, progressive, grey, CMYK (Pillow writes Adobe's inverted CMYK), sizes and shapes.
    save("rgb420.jpg", p, quality=90)
    save("rgb444.jpg", p, quality=95, subsampling=0)
    save("progressive.jpg", p, quality=85, progressive=True)
    save("grey.jpg", p.convert("L"), quality=90)
    save("cmyk.jpg", p.convert("CMYK"), quality=90)
    save("large_3000x2000.jpg", photo(3000, 2000, 2), quality=85)
    save("tall_4x3000.jpg", photo(4, 3000, 3), quality=90)
    save("wide_3000x4.jpg", photo(3000, 4, 4), quality=90)
    save("tiny_1x1.jpg", photo(1, 1, 5), quality=90)
    save("odd_333x517.jpg", photo(333, 517, 6), quality=75)
    for orientation in range(2, 9):
        save(f"orient{orientation}.jpg", photo(96, 64, orientation), quality=90,
             exif=exif_with_orientation(orientation))
    save("xmp_orient6.jpg", photo(96, 64, 9), quality=90,
         xmp=b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description tiff:Orientation="6"/></x:xmpmeta>')
    # PNG: every mode, palettes with and without transparency, 16 bits, orientation.
    save("rgb.png", p)
    half = p.convert("RGBA")
    half.putalpha(128)
    save("rgba.png", half)
    rgba = p.convert("RGBA")
    rgba.putalpha(Image.linear_gradient("L").resize(p.size))
    save("rgba_gradient.png", rgba)
    save("la.png", rgba.convert("LA"))
    save("l.png", p.convert("L"))
    save("one_bit.png", p.convert("1"))
    pal = p.quantize(colors=200)
    save("p.png", pal)
    pal_t = p.quantize(colors=64)
    pal_t.info["transparency"] = 3
    save("p_transparent.png", pal_t, transparency=3)
    save("p_4bit.png", p.quantize(colors=16), bits=4)
    grey16 = Image.fromarray(RNG.integers(0, 600, size=(50, 70), dtype=np.uint16))
    assert grey16.mode == "I;16"
    save("grey16.png", grey16)
    write("rgb16.png", png16(70, 50, 3, 1))
    write("rgba16.png", png16(70, 50, 4, 2))
    save("orient6.png", photo(90, 60, 12), exif=exif_with_orientation(6))
    save("png_1x1.png", photo(1, 1, 13))
    save("png_1x700.png", photo(1, 700, 14))
    # WebP: lossy, lossless, both with alpha, EXIF orientation, an animation's first frame.
    save("lossy.webp", p, quality=80)
    save("lossless.webp", p, lossless=True)
    save("lossy_alpha.webp", rgba, quality=80)
    save("lossless_alpha.webp", rgba, lossless=True)
    save("orient8.webp", photo(90, 60, 15), quality=80, exif=exif_with_orientation(8))
    frames = [photo(120, 80, 16), photo(120, 80, 17)]
    save("animated.webp", frames[0], save_all=True, append_images=frames[1:], quality=80)
    # GIF: palette (Pillow's palette handling), transparency, grey, an animation's first frame.
    save("p.gif", pal)
    save("p_transparent.gif", pal_t, transparency=3)
    save("l.gif", p.convert("L"))
    save("animated.gif", frames[0].quantize(64), save_all=True, append_images=[frames[1].quantize(64)])
    # BMP: 24-bit, 32-bit with alpha, 8-bit palette, 1-bit, grey.
    save("rgb.bmp", p)
    save("rgba.bmp", rgba)
    save("p.bmp", pal)
    save("one_bit.bmp", p.convert("1"))
    save("l.bmp", p.convert("L"))
    # TIFF: RGB uncompressed, LZW, deflate, JPEG, PackBits; grey; 1-bit G4; palette; CMYK; RGBA; 16-bit grey.
    save("rgb.tif", p)
    save("rgb_lzw.tif", p, compression="tiff_lzw")
    save("rgb_deflate.tif", p, compression="tiff_adobe_deflate")
    save("rgb_jpeg.tif", p, compression="jpeg")
    save("rgb_packbits.tif", p, compression="packbits")
    save("l.tif", p.convert("L"), compression="tiff_lzw")
    save("one_bit_g4.tif", p.convert("1"), compression="group4")
    save("p.tif", pal)
    save("cmyk.tif", p.convert("CMYK"))
    save("rgba.tif", rgba, compression="tiff_lzw")
    save("grey16.tif", grey16)
    return made


def run_tool(folder, files, processor=None, extra=()):
    out = os.path.join(folder, "out")
    os.makedirs(out, exist_ok=True)
    command = [TOOL, "--out", out, *extra]
    if processor is not None:
        path = os.path.join(folder, "preprocessor_config.json")
        with open(path, "w") as f:
            f.write(processor.to_json_string())
        command += ["--processor", path]
    subprocess.run(command + list(files), check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    folder = tmp_path_factory.mktemp("images")
    return folder, make_images(str(folder))


@pytest.fixture(scope="module")
def decoded(images):
    folder, made = images
    out = run_tool(str(folder), made.values())
    return out


def test_decodes_every_kind_exactly_as_load_image(images, decoded):
    _, made = images
    mismatched = []
    for name, path in sorted(made.items()):
        expected = np.asarray(load_image(path))
        error = os.path.join(decoded, name + ".error.txt")
        assert not os.path.exists(error), f"{name}: {open(error).read()}"
        got = np.load(os.path.join(decoded, name + ".rgb.npy"))
        if got.shape != expected.shape:
            mismatched.append(f"{name}: shape {got.shape} != {expected.shape}")
            continue
        diff = np.abs(got.astype(int) - expected)
        if diff.max() != 0:
            mismatched.append(f"{name}: max diff {diff.max()} at {int((diff > 0).sum())} samples")
    assert not mismatched, "\n".join(mismatched)


def processors():
    """The processor classes with varied configurations (the library's own classes, saved to JSON)."""
    from transformers import (BitImageProcessorPil, CLIPImageProcessorPil, ConvNextImageProcessorPil,
                              SiglipImageProcessorPil, ViTImageProcessorPil)
    imagenet = dict(image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225])
    return {
        "clip_default": CLIPImageProcessorPil(),
        "clip_336_bilinear": CLIPImageProcessorPil(size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336},
                                                   resample=2),
        "clip_edges_no_crop": CLIPImageProcessorPil(size={"shortest_edge": 200, "longest_edge": 300},
                                                    do_center_crop=False),
        "siglip_bilinear": SiglipImageProcessorPil(resample=2),
        "siglip_bicubic_256": SiglipImageProcessorPil(size={"height": 256, "width": 256}),
        "vit_384": ViTImageProcessorPil(size={"height": 384, "width": 384}),
        "dinov2": BitImageProcessorPil(size={"shortest_edge": 256}, crop_size={"height": 224, "width": 224},
                                       **imagenet),
        "convnext_224": ConvNextImageProcessorPil(size={"shortest_edge": 224}),
        "convnext_384": ConvNextImageProcessorPil(size={"shortest_edge": 384}),
        "vit_max_hw": ViTImageProcessorPil(size={"max_height": 200, "max_width": 300}),
    }


# Every configuration takes the small and odd-sized images. The extreme
# aspect ratios go through the fixed-size ones and one shortest-edge one
# (a shortest-edge resize takes a 4x3000 image to 224x168000 before the crop,
# as the library does: seconds in Python for each configuration), and the
# 6-megapixel photo through three.
PROCESSED = ["rgb420.jpg", "tiny_1x1.jpg", "odd_333x517.jpg", "orient6.jpg", "p.gif", "lossless_alpha.webp"]
EXTREME = ["tall_4x3000.jpg", "wide_3000x4.jpg", "png_1x700.png"]
WITH_EXTREME = {"clip_default", "siglip_bilinear", "siglip_bicubic_256", "vit_384", "convnext_384",
                "clip_edges_no_crop", "vit_max_hw"}
LARGE = {"clip_default", "siglip_bilinear", "dinov2"}


@pytest.mark.parametrize("config", sorted(processors()))
def test_pixel_values_within_two_levels_of_the_pil_processor(images, config):
    folder, made = images
    processor = processors()[config]
    names = PROCESSED + (EXTREME if config in WITH_EXTREME else []) + (["large_3000x2000.jpg"] if config in LARGE else [])
    sub = os.path.join(str(folder), config)
    os.makedirs(sub, exist_ok=True)
    out = run_tool(sub, [made[n] for n in names], processor)
    std = np.array(processor.image_std, dtype=np.float64).reshape(3, 1, 1)
    worst = {}
    for name in names:
        try:
            expected = processor(images=load_image(made[name]), return_tensors="np")["pixel_values"][0]
        except ValueError as e:  # e.g. a 3000x4 image resized to a height of 0
            with open(os.path.join(out, name + ".error.txt")) as f:
                code, _, message = f.read().split("\t", 2)
            assert code == "INVALID_ARGUMENT", f"{config} {name}: the library raised {e}; the tool: {message}"
            worst[name] = "refused"
            continue
        got = np.load(os.path.join(out, name + ".pv.npy"))
        assert got.shape == expected.shape, f"{config} {name}: {got.shape} != {expected.shape}"
        levels = np.abs(got.astype(np.float64) - expected) * std * 255
        worst[name] = round(float(levels.max()), 3)
        assert levels.max() <= 2 + 255e-6, f"{config} {name}: {levels.max():.3f} levels off"
    print(config, json.dumps(worst))


def test_an_image_the_processor_does_not_resize_is_equal_exactly(images):
    from transformers import SiglipImageProcessorPil
    folder, made = images
    processor = SiglipImageProcessorPil(size={"height": 480, "width": 640})  # rgb.png is 640x480
    sub = os.path.join(str(folder), "same_size")
    os.makedirs(sub, exist_ok=True)
    out = run_tool(sub, [made["rgb.png"]], processor)
    expected = processor(images=load_image(made["rgb.png"]), return_tensors="np")["pixel_values"][0]
    assert np.array_equal(np.load(os.path.join(out, "rgb.png.pv.npy")), expected)


def bad_inputs(folder, made):
    with open(made["rgb420.jpg"], "rb") as f:
        jpeg = f.read()
    with open(made["rgb.png"], "rb") as f:
        png = f.read()
    cases = {
        "truncated.jpg": (jpeg[: len(jpeg) // 2], "DATA_LOSS", "corrupt"),
        "truncated.png": (png[: len(png) // 2], "DATA_LOSS", "corrupt"),
        "text.jpg": (b"this is not an image at all", "UNIMPLEMENTED", "unsupported_format"),
        "doc.pdf": (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "UNIMPLEMENTED", "unsupported_format"),
        "icon.ico": (None, "UNIMPLEMENTED", "unsupported_format"),
    }
    paths = {}
    for name, (data, _, _) in cases.items():
        path = os.path.join(folder, name)
        if data is None:
            photo(16, 16).save(path)
        else:
            with open(path, "wb") as f:
                f.write(data)
        paths[name] = path
    return cases, paths


def test_bad_inputs_fail_with_their_class_where_pil_fails_too(images):
    folder, made = images
    sub = os.path.join(str(folder), "bad")
    os.makedirs(sub, exist_ok=True)
    cases, paths = bad_inputs(sub, made)
    out = run_tool(sub, paths.values())
    for name, (_, code, label) in cases.items():
        with open(os.path.join(out, name + ".error.txt")) as f:
            got_code, got_label, message = f.read().split("\t", 2)
        assert (got_code, got_label) == (code, label), f"{name}: {message}"
        if code == "DATA_LOSS":
            with pytest.raises(OSError):  # Pillow refuses it too ("image file is truncated")
                load_image(paths[name])


def test_corrupt_jpeg_data_decodes_as_pil_recovers_it(images):
    """libjpeg warns of corrupt data and recovers; Pillow ignores the warning, and so does the module."""
    folder, made = images
    with open(made["rgb420.jpg"], "rb") as f:
        jpeg = bytearray(f.read())
    eoi = len(jpeg) - 2
    jpeg[eoi:eoi] = b"\x00\x01\x02"  # extraneous bytes before the EOI marker
    sub = os.path.join(str(folder), "corrupt_data")
    os.makedirs(sub, exist_ok=True)
    path = os.path.join(sub, "extraneous.jpg")
    with open(path, "wb") as f:
        f.write(bytes(jpeg))
    out = run_tool(sub, [path])
    assert np.array_equal(np.load(os.path.join(out, "extraneous.jpg.rgb.npy")), np.asarray(load_image(path)))


def test_downscale_to_bound_keeps_the_aspect_ratio(images):
    folder, made = images
    sub = os.path.join(str(folder), "downscale")
    os.makedirs(sub, exist_ok=True)
    names = ["large_3000x2000.jpg", "rgb.png", "lossless.webp"]
    out = run_tool(sub, [made[n] for n in names], extra=["--max-pixels", "100000", "--downscale"])
    for name in names:
        got = np.load(os.path.join(out, name + ".rgb.npy"))
        h, w, _ = got.shape
        assert h * w <= 100000
        assert h * w >= 95000
        with Image.open(made[name]) as original:
            assert abs(w / h - original.width / original.height) < 0.01 * original.width / original.height
