#!/usr/bin/env python3
"""Writes the image decoder fuzzer's seed corpus (tests/fuzz/image_corpus/):
one small file (a few hundred bytes to a few KiB) of each kind the decoder
reads, made with Pillow, so that libFuzzer starts from every codec's paths.

    .venv/bin/python tests/fuzz/make_image_corpus.py [DIR]

Deterministic (a seeded image); rerun it and commit the result when the
kinds change.
"""
import io
import os
import sys

import numpy as np
from PIL import Image

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "image_corpus")


def main():
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:24, 0:32]
    base = np.stack([x * 8, y * 10, (x + y) * 4], axis=-1) + rng.integers(0, 24, (24, 32, 3))
    rgb = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")
    rgba = rgb.convert("RGBA")
    rgba.putalpha(Image.linear_gradient("L").resize(rgb.size))
    exif = Image.Exif()
    exif[0x0112] = 6
    pal = rgb.quantize(16)
    kinds = {
        "baseline.jpg": (rgb, dict(quality=80)),
        "progressive.jpg": (rgb, dict(quality=80, progressive=True)),
        "grey.jpg": (rgb.convert("L"), dict(quality=80)),
        "cmyk.jpg": (rgb.convert("CMYK"), dict(quality=80)),
        "exif6.jpg": (rgb, dict(quality=80, exif=exif.tobytes())),
        "rgb.png": (rgb, {}),
        "rgba.png": (rgba, {}),
        "palette_trns.png": (pal, dict(transparency=2)),
        "one_bit.png": (rgb.convert("1"), {}),
        "grey16.png": (Image.fromarray((np.arange(24 * 32).reshape(24, 32) * 80).astype(np.uint16)), {}),
        "exif6.png": (rgb, dict(exif=exif.tobytes())),
        "lossy.webp": (rgb, dict(quality=70)),
        "lossless_alpha.webp": (rgba, dict(lossless=True)),
        "palette.gif": (pal, {}),
        "rgb.bmp": (rgb, {}),
        "palette.bmp": (pal, {}),
        "rgb_lzw.tif": (rgb, dict(compression="tiff_lzw")),
        "cmyk.tif": (rgb.convert("CMYK"), {}),
        "one_bit_g4.tif": (rgb.convert("1"), dict(compression="group4")),
        "rgb_jpeg.tif": (rgb, dict(compression="jpeg")),
    }
    os.makedirs(OUT, exist_ok=True)
    for name, (image, options) in kinds.items():
        buffer = io.BytesIO()
        image.save(buffer, format=os.path.splitext(name)[1].lstrip(".").replace("jpg", "jpeg").replace("tif", "tiff"),
                   **options)
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(buffer.getvalue())
    # An animated WebP and GIF: two frames.
    for name in ("animated.webp", "animated.gif"):
        buffer = io.BytesIO()
        frames = [rgb.quantize(8) if name.endswith("gif") else rgb, rgb.rotate(90).quantize(8) if name.endswith("gif")
                  else rgb.rotate(90)]
        frames[0].save(buffer, format=name.split(".")[1], save_all=True, append_images=frames[1:])
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(buffer.getvalue())


if __name__ == "__main__":
    main()
