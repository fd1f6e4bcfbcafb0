"""Images end to end: a checkpoint made here, exported, served from raw kcat messages on the real broker,
and equal to the model's own library on photos made here with Pillow.

The checkpoints are tests/python/test_export_vision.py's (transformers' config classes at tiny sizes, their
image processors varied: CLIP's shortest edge + centre crop + bicubic, SigLIP's and ViT's fixed size +
bilinear), exported by model/export_hf.py. The photos are files of every format the service decodes (JPEG
baseline and progressive, CMYK JPEG, PNG with alpha, palette and 16-bit grey, WebP, GIF, BMP, TIFF), EXIF
orientations, 1 x 1 and 400 x 3; jobs carry them inline (base64, a data: URI) or as file:// URLs under
inputs.image_roots. The library sees the same files through transformers.image_utils.load_image and the
checkpoint's PIL-backend processor:

  embed      cosine >= 0.999 to get_image_features / get_text_features (CLIP: one space for both)
  zero_shot  top label equal (a near tie aside), scores within 5e-3 of
             pipeline("zero-shot-image-classification"), default template and a job's own
  classify   top label equal, scores within 5e-3 of pipeline("image-classification", top_k=None)

Bad inputs on the same partition (not base64, bytes that are no image, a truncated file, a path outside
the roots, empty candidate_labels, a text to a vision-only model) each get a record naming the field, an
image over limits.max_image_pixels is too_large and comes back served once replayed with --policy resize,
and the jobs after them get their results; serve exits 0.
"""

import base64
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import _require_env
from test_tasks import PYTHON, REPO, docs_route, run_jobs, script, serve, stop

SCORE_TOL = 5e-3
MIN_COSINE = 0.999
LABELS = ["a photo of a dog", "red", "a cat", "the market in Lisbon at sunset"]


def vision_tests():
    """tests/python/test_export_vision.py: its checkpoint makers."""
    import sys
    sys.path.insert(0, os.path.join(REPO, "model"))
    return script("tests/python/test_export_vision.py")


def photos(folder):
    """{name: path} of files made here, one of each format and awkward kind."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(63)

    def picture(w, h):
        y, x = np.mgrid[0:h, 0:w]
        base = np.stack([(x * 5 + y * 2) % 256, (y * 9) % 256, (x * y // 3) % 256], axis=-1)
        return Image.fromarray(((base + rng.integers(0, 30, (h, w, 3))) % 256).astype(np.uint8), "RGB")

    def exif(orientation):
        e = Image.Exif()
        e[0x0112] = orientation
        return e

    made = {
        "baseline.jpg": (picture(120, 90), {"format": "JPEG", "quality": 90}),
        "progressive.jpg": (picture(97, 131), {"format": "JPEG", "progressive": True}),
        "cmyk.jpg": (picture(40, 56).convert("CMYK"), {"format": "JPEG"}),
        "exif6.jpg": (picture(80, 30), {"format": "JPEG", "exif": exif(6)}),
        "alpha.png": (picture(64, 48).convert("RGBA"), {"format": "PNG"}),
        "palette.png": (picture(50, 70).quantize(16), {"format": "PNG"}),
        "grey16.png": (Image.fromarray((np.arange(48 * 30).reshape(30, 48) * 40).astype(np.uint16)),
                       {"format": "PNG"}),
        "one.png": (picture(1, 1), {"format": "PNG"}),
        "strip.png": (picture(400, 3), {"format": "PNG"}),
        "lossy.webp": (picture(66, 44), {"format": "WEBP", "quality": 80}),
        "first.gif": (picture(45, 45).quantize(32), {"format": "GIF"}),
        "plain.bmp": (picture(33, 21), {"format": "BMP"}),
        "deflate.tiff": (picture(52, 38), {"format": "TIFF", "compression": "tiff_adobe_deflate"}),
    }
    paths = {}
    for name, (image, args) in made.items():
        paths[name] = folder / name
        image.save(paths[name], **args)
    return paths


def b64(path):
    return base64.b64encode(path.read_bytes()).decode()


def library_pixels(ckpt, paths):
    from transformers import AutoImageProcessor
    from transformers.image_utils import load_image

    processor = AutoImageProcessor.from_pretrained(str(ckpt), backend="pil")
    return processor([load_image(str(p)) for p in paths], return_tensors="pt")["pixel_values"]


def cosine(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def assert_scores(result, expected, what):
    """result: a served zero-shot or classify result; expected: the pipeline's [{label, score}]."""
    got = {s["label"]: s["score"] for s in result.scores}
    want = {e["label"]: e["score"] for e in expected}
    assert set(got) == set(want), (what, got, want)
    assert max(abs(got[k] - want[k]) for k in want) < SCORE_TOL, (what, got, want)
    top = sorted(want.values(), reverse=True)
    if len(top) < 2 or top[0] - top[1] > 2 * SCORE_TOL:  # a near tie may fall either way
        assert result.label == expected[0]["label"], (what, result.scores, expected)


def peak_rss(svc):
    """The serve process's peak resident set (VmHWM), in bytes."""
    with open(f"/proc/{svc.proc.pid}/status") as f:
        return next(int(line.split()[1]) << 10 for line in f if line.startswith("VmHWM:"))


def image_config(roots, extra=""):
    return f"""inputs:
  image_roots: [{roots}]
limits:
  max_image_pixels: 60000
{extra}"""


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("images")
    vt = vision_tests()
    return tmp, vt, photos(tmp / "photos")


def test_clip_serves_image_and_text_embeddings_and_zero_shot_labels_equal_to_its_library(made):
    import torch
    from transformers import AutoModel, pipeline

    tmp, vt, paths = made
    ckpt = vt.make_clip(tmp / "ckpt-clip")
    pkg = tmp / "pkg-clip"
    vt.export_hf.main([str(ckpt), "--out", str(pkg)])
    assert json.loads((pkg / "manifest.json").read_text())["task"] == "zero_shot"
    names = sorted(paths)
    jobs = []
    for i, name in enumerate(names):  # inline, as a data: URI, or a file under the roots, in turn
        source = ({"image": b64(paths[name])} if i % 3 == 0 else
                  {"image": f"data:image/{name.rsplit('.', 1)[1]};base64,{b64(paths[name])}"} if i % 3 == 1 else
                  {"image_url": f"file://{paths[name]}"})
        jobs.append({"id": f"e-{name}", **source, "meta": {"file": name}})
    zero_shot = [{"id": f"z-{name}", "image_url": f"file://{paths[name]}", "candidate_labels": LABELS}
                 for name in names[:6]]
    zero_shot.append({"id": "z-own-template", "image": b64(paths["baseline.jpg"]), "candidate_labels": LABELS,
                      "hypothesis_template": "a picture of {}"})
    texts = [{"id": f"t{i}", "text": t} for i, t in enumerate(LABELS)]
    from PIL import Image
    big = tmp / "photos" / "big.png"
    Image.new("RGB", (400, 300), (10, 200, 30)).save(big)  # 120,000 pixels: over max_image_pixels 60,000
    # A decompression bomb: a PNG whose header claims 30,000 x 30,000 pixels (its data is a few bytes), and a
    # real 100-megapixel JPEG by URL: both too_large on their headers, neither decoded.
    import struct
    import zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    # 2.7 GB of pixels in 3 KB: the first rows' zeros, deflated.
    bomb = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(3_000_000), 9)) + chunk(b"IEND", b""))
    huge = tmp / "photos" / "huge.jpg"
    Image.new("L", (10000, 10000), 128).save(huge, quality=50)
    bad = [{"id": "bad-b64", "image": "this is not base64!"},
           {"id": "bad-bytes", "image": base64.b64encode(b"GIF89a but nothing after it").decode()},
           {"id": "bad-truncated", "image": base64.b64encode(paths["baseline.jpg"].read_bytes()[:700]).decode()},
           {"id": "bad-outside", "image_url": f"file://{tmp / 'ckpt-clip' / 'config.json'}"},
           {"id": "bad-labels", "image": b64(paths["one.png"]), "candidate_labels": []},
           {"id": "big", "image": b64(big)},
           {"id": "bomb", "image": base64.b64encode(bomb).decode()},
           {"id": "huge", "image_url": f"file://{huge}"}]
    after = {"id": "after-bad", "image": b64(paths["alpha.png"])}

    svc = serve(tmp, pkg, image_config(tmp / "photos"), chunk_overlap=8)
    ready_rss = peak_rss(svc)
    try:
        got = run_jobs(svc, bad + jobs + zero_shot + texts + [after])
        for job in bad[:-3]:
            r = got[job["id"]]
            assert r.reason == "invalid", (job["id"], r)
        assert got["bomb"].reason == "too_large" and "30000x30000" in got["bomb"].error, got["bomb"]
        assert got["huge"].reason == "too_large" and "10000x10000" in got["huge"].error, got["huge"]
        grew = peak_rss(svc) - ready_rss
        assert grew < 256 << 20, f"serve's peak RSS grew by {grew} bytes over the bomb and the 100-megapixel image"
        assert "`image` is not base64" in got["bad-b64"].error
        assert "`image_url`" in got["bad-outside"].error and "outside inputs.image_roots" in got["bad-outside"].error
        assert "`candidate_labels`" in got["bad-labels"].error
        assert got["big"].reason == "too_large" and "--policy resize" in got["big"].error, got["big"]
        assert getattr(got["after-bad"], "reason", None) is None, got["after-bad"]

        model = AutoModel.from_pretrained(str(ckpt), dtype=torch.float32).eval()
        with torch.no_grad():
            want = model.get_image_features(pixel_values=library_pixels(ckpt, [paths[n] for n in names]))
        for name, vector in zip(names, want.pooler_output if hasattr(want, "pooler_output") else want):
            r = got[f"e-{name}"]
            assert getattr(r, "reason", None) is None, (name, r)
            assert r.record.get("meta") == {"file": name}
            assert cosine(r.output, vector.numpy()) >= MIN_COSINE, name
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained(str(ckpt))
        with torch.no_grad():
            text_want = model.get_text_features(**tok(LABELS, padding=True, return_tensors="pt"))
        for i, vector in enumerate(text_want.pooler_output if hasattr(text_want, "pooler_output") else text_want):
            assert cosine(got[f"t{i}"].output, vector.numpy()) >= MIN_COSINE, LABELS[i]

        pipe = pipeline("zero-shot-image-classification", model=str(ckpt), image_processor=vt.pil_processor(ckpt))
        for job in zero_shot:
            name = job["id"][2:] if job["id"] != "z-own-template" else "baseline.jpg"
            kwargs = {"hypothesis_template": job["hypothesis_template"]} if "hypothesis_template" in job else {}
            expected = pipe(str(paths[name]), candidate_labels=LABELS, **kwargs)
            assert_scores(got[job["id"]], expected, job["id"])

        # The too-large image, replayed with --policy resize: decoded and scaled down to the bound.
        from qinfer_client import replay
        c = svc.client(progress=False)
        c._remember_start_offsets()
        replay(store=svc.store, brokers=svc.brokers, topic=svc.jobs_topic, reasons=["too_large"], ids=["big"],
               policy="resize")
        resized = {r.id: r for r in c.results(["big"], timeout=120, on_failure="yield")}["big"]
        c.close()
        assert getattr(resized, "reason", None) is None, resized
        assert resized.record.get("policy") == "resize", resized.record
    finally:
        stop(svc)


@pytest.mark.parametrize("family", ["siglip"])
def test_siglip_zero_shot_labels_equal_the_pipeline(made, family):
    from transformers import pipeline

    tmp, vt, paths = made
    ckpt = vt.make_siglip(tmp / f"ckpt-{family}")
    pkg = tmp / f"pkg-{family}"
    vt.export_hf.main([str(ckpt), "--out", str(pkg)])
    names = sorted(paths)[:5]
    jobs = [{"id": f"z-{n}", "image": b64(paths[n]), "candidate_labels": LABELS} for n in names]
    svc = serve(tmp, pkg, image_config(tmp / "photos"))
    try:
        got = run_jobs(svc, jobs)
    finally:
        stop(svc)
    pipe = pipeline("zero-shot-image-classification", model=str(ckpt), image_processor=vt.pil_processor(ckpt))
    for n in names:
        assert_scores(got[f"z-{n}"], pipe(str(paths[n]), candidate_labels=LABELS), n)


def test_vit_classify_equals_the_image_classification_pipeline_and_refuses_text(made):
    from transformers import pipeline

    tmp, vt, paths = made
    ckpt = vt.make_image_model("vit", True, tmp / "ckpt-vit")
    pkg = tmp / "pkg-vit"
    vt.export_hf.main([str(ckpt), "--out", str(pkg)])
    names = sorted(paths)
    jobs = [{"id": f"c-{n}", "image_url": f"file://{paths[n]}"} for n in names]
    text = {"id": "a-text", "text": "a photo of a cat"}
    # The budgeted CPU device: the memory plan calibrates the image bucket with synthetic images.
    svc = serve(tmp, pkg, image_config(tmp / "photos"), device="cpu-budget:256MiB")
    try:
        got = run_jobs(svc, [text] + jobs)
        # The Python client's submit_images: a file inline, one by URL, the bytes of one.
        c = svc.client(progress=False)
        ids = c.submit_images([paths["baseline.jpg"], str(paths["palette.png"])], ids=["py-inline", "py-url"])
        ids += c.submit_images([paths["exif6.jpg"]], as_url=True, ids=["py-exif-url"])
        ids += c.submit_images([paths["plain.bmp"].read_bytes()], ids=["py-bytes"])
        by_client = {r.id: r for r in c.results(ids, timeout=120, on_failure="yield")}
        c.close()
    finally:
        stop(svc)
    for job_id, name in [("py-inline", "baseline.jpg"), ("py-url", "palette.png"), ("py-exif-url", "exif6.jpg"),
                         ("py-bytes", "plain.bmp")]:
        assert by_client[job_id].scores == got[f"c-{name}"].scores, job_id
    assert got["a-text"].reason == "invalid" and "`text`" in got["a-text"].error, got["a-text"]
    with open(svc.log_path) as f:
        log = f.read()
    assert "event=calibrating device=cpu-budget:256MiB" in log, log[-3000:]
    assert "event=bucket bound=17 cap=" in log, "the image bucket (ViT's 16 patches and its class token)"
    pipe = pipeline("image-classification", model=str(ckpt), image_processor=vt.pil_processor(ckpt), top_k=None)
    for n in names:
        assert_scores(got[f"c-{n}"], pipe(str(paths[n])), n)


def run_image_route(tmp, heading, vt):
    """The route under `heading` of docs/guide/images.md as printed, in `tmp` (my-clip made there, photos/
    the photos), with only the venv's python, the exporter, the binary and the configuration replaced."""
    _require_env()
    if shutil.which("jq") is None:
        pytest.skip("jq is needed (deploy/setup.sh installs it)")
    if not (tmp / "my-clip").exists():
        vt.make_clip(tmp / "my-clip")
        photos(tmp / "photos")
    brokers, run = os.environ["QINFER_TEST_BROKERS"], os.urandom(4).hex()
    config = tmp / f"route-{run}.yaml"
    config.write_text(f"""model:
  path: unused.pt
kafka:
  brokers: {brokers}
  group_id: route-{run}
  jobs_topic: jobs-route-{run}
  reply_topic: results-route-{run}
  dead_letter_topic: failed-route-{run}
  create_topics: true
""")
    lines = docs_route("guide/images.md", heading)
    replaced = [(".venv/bin/python model/export_hf.py", f"{PYTHON} {REPO}/model/export_hf.py"),
                ("build/qinfer", os.environ["QINFER_BINARY"]),
                ("--config deploy/quickstart.yaml", f"--config {config}")]
    for printed, _ in replaced:
        assert any(printed in line for line in lines), f"the route no longer has {printed!r}"
    # submit before serve creates the topic: create it first, as the quickstart's broker auto-creates it.
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": brokers})  # kept while its futures run
    for f in admin.create_topics([NewTopic(f"jobs-route-{run}", 1, 1)]).values():
        f.result(30)
    outputs = []
    for line in lines:
        for printed, ours in replaced:
            line = line.replace(printed, ours)
        if line.startswith(".venv/bin/python "):
            line = PYTHON + line[len(".venv/bin/python"):]
        done = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=tmp, capture_output=True, text=True,
                              timeout=300, env=dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1"))
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        outputs.append(done.stdout)
    return outputs


def test_the_docs_photos_to_parquet_route_runs_as_printed(made):
    import pyarrow.parquet as pq
    import torch
    from transformers import AutoModel

    tmp, vt, _ = made
    route = tmp / "route"
    route.mkdir(exist_ok=True)
    outputs = run_image_route(route, "Photos to Parquet", vt)
    paths = {p.name: p for p in sorted((route / "photos").iterdir())}
    table = {r["id"]: r for r in pq.read_table(route / "photos.parquet").to_pylist()}
    assert set(table) == set(paths), (sorted(table), sorted(paths))
    assert all(r["status"] == "ok" for r in table.values()), table
    assert f"('{sorted(paths)[0]}', 'ok', 24)" in outputs[-1], outputs[-1]
    names = sorted(paths)
    model = AutoModel.from_pretrained(str(route / "my-clip"), dtype=torch.float32).eval()
    with torch.no_grad():
        want = model.get_image_features(pixel_values=library_pixels(route / "my-clip", [paths[n] for n in names]))
    want = want.pooler_output if hasattr(want, "pooler_output") else want
    for name, vector in zip(names, want):
        assert cosine(table[name]["output"], vector.numpy()) >= MIN_COSINE, name


def test_the_docs_zero_shot_route_runs_as_printed(made):
    from transformers import pipeline

    tmp, vt, _ = made
    route = tmp / "route"
    route.mkdir(exist_ok=True)
    outputs = run_image_route(route, "Zero-shot labels", vt)
    labels = ["a cat", "a dog", "a harbour at dusk"]
    got = {}
    for line in outputs[-1].splitlines():
        r = json.loads(line)
        got[r["id"]] = r
    paths = {p.name: p for p in sorted((route / "photos").iterdir())}
    assert set(got) == set(paths)
    pipe = pipeline("zero-shot-image-classification", model=str(route / "my-clip"),
                    image_processor=vt.pil_processor(route / "my-clip"))
    for name, path in paths.items():
        expected = pipe(str(path), candidate_labels=labels)

        class Served:
            label = got[name]["label"]
            scores = got[name]["scores"]
        assert_scores(Served, expected, name)
