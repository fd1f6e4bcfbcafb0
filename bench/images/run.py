#!/usr/bin/env python3
"""Decode + preprocess per image: qinfer's image module against PIL + transformers' processor.

    .venv/bin/python bench/images/run.py --tool build/tests/image/qinfer_image_prep_tool \
        [--repeat 7] [--out bench/images/results/prep.json]

Two JPEGs made here (a 12-megapixel 4000x3000 photo-like image and a 640x480
one, quality 90), CLIP's processor (shortest edge 224, bicubic, crop 224).
Both sides single-threaded (OMP_NUM_THREADS=1, torch.set_num_threads(1)), in
one process each: qinfer_image_prep_tool --repeat N prints the median of its
Decode and Process; Python times load_image (open, exif_transpose,
convert("RGB")) and the processor's __call__ (return_tensors="np"). Medians
of N runs after one warm-up; the figures go to --out as JSON.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np  # noqa: E402
import PIL  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from PIL import Image  # noqa: E402
from transformers import CLIPImageProcessorPil  # noqa: E402
from transformers.image_utils import load_image  # noqa: E402


def photo(width, height):
    rng = np.random.default_rng(0)
    small = rng.integers(0, 256, (height // 16 + 1, width // 16 + 1, 3), dtype=np.uint8)
    image = Image.fromarray(small).resize((width, height), Image.BICUBIC)
    noise = rng.normal(0, 8, (height, width, 3))
    return Image.fromarray(np.clip(np.asarray(image) + noise, 0, 255).astype(np.uint8))


def median_seconds(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "prep.json"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    processor = CLIPImageProcessorPil()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, "preprocessor_config.json")
        processor.to_json_file(config)
        files = {}
        for name, (w, h) in {"12mp_4000x3000.jpg": (4000, 3000), "vga_640x480.jpg": (640, 480)}.items():
            files[name] = os.path.join(folder, name)
            photo(w, h).save(files[name], quality=90)
        out = subprocess.run([args.tool, "--out", folder, "--processor", config, "--repeat", str(args.repeat),
                              *files.values()], check=True, capture_output=True, text=True,
                             env={**os.environ, "OMP_NUM_THREADS": "1"}).stdout
        qinfer = {json.loads(line)["file"]: json.loads(line) for line in out.splitlines() if line.startswith("{")}
        for name, path in files.items():
            loaded = load_image(path)
            pil_load = median_seconds(lambda: load_image(path), args.repeat)
            pil_process = median_seconds(lambda: processor(images=loaded, return_tensors="np"), args.repeat)
            q = qinfer[name]
            results[name] = {
                "qinfer_decode_s": round(q["decode_s"], 5),
                "qinfer_process_s": round(q["process_s"], 5),
                "qinfer_total_s": round(q["decode_s"] + q["process_s"], 5),
                "pil_load_image_s": round(pil_load, 5),
                "pil_processor_s": round(pil_process, 5),
                "pil_total_s": round(pil_load + pil_process, 5),
                "speedup": round((pil_load + pil_process) / (q["decode_s"] + q["process_s"]), 2),
            }
    report = {
        "what": "decode + preprocess of one image, single-threaded, median of runs (bench/images/run.py)",
        "processor": "CLIPImageProcessorPil() (shortest_edge 224, bicubic, center crop 224)",
        "repeat": args.repeat,
        "cpu": cpu_name(),
        "versions": {"pillow": PIL.__version__, "transformers": transformers.__version__, "torch": torch.__version__},
        "images": results,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
