#!/usr/bin/env python3
"""Image jobs served end to end against the libraries, side by side in one run: CLIP ViT-B/32.

    .venv/bin/python bench/images/serve_bench.py [--quick] [--vga 200] [--big 20] [--rounds 2] \
        [--backlog 10] [--port 19192] [--qinfer build/qinfer] [--work DIR] \
        [--out bench/images/results/serve.json]

The model: transformers' CLIPConfig defaults (vision: 224 x 224, patches of 32, hidden 768, 12 layers;
text: hidden 512, 12 layers; projection 512), random weights (speed does not depend on their values), a
CLIPImageProcessorPil (shortest edge 224, centre crop 224, bicubic) saved beside it and a CLIP tokenizer
trained here on a few sentences (tests/python/test_export_vision.py's clip_tokenizer), exported with
`model/export_hf.py CKPT --out PKG --task embed`.

The images: --vga JPEGs of 640 x 480 and --big of 4000 x 3000 (12 megapixels), photo-like (a coarse random
picture upsampled bicubic, plus noise of sigma 8, as bench/images/run.py makes them), quality 90.

Three arms over the same files, each set timed on its own, images per second:

  serve         `qinfer serve` (device cpu, inputs.image_roots, scheduler.max_batch_size 32, every other
                setting its default) on a local broker (deploy/kafka-local.sh, --port): each pass publishes
                a folder with `qinfer submit --images DIR --images-as url` (and, for the 640 x 480 set,
                `--images-as inline`), timed from the moment `submit` is started to the last stored result
                (the records' completed_at_ms, read from the store once serve has stopped). One serve
                process for the whole run, a warm-up pass first (64 images of 640 x 480, not reported);
                every pass's files are hard links to the same files under names of its own (a job's id is
                its file name, and every pass needs new ids).
  st_encode     SentenceTransformer(modules=[CLIPModel(ckpt)]).encode(images, batch_size=32), the images
                opened with PIL.Image.open + load inside the timed region.
  transformers  per batch of 32: transformers.image_utils.load_image, the checkpoint's PIL-backend processor
                (AutoImageProcessor(backend="pil")), CLIPModel.get_image_features under inference_mode; its
                load, processor and forward seconds timed apart.

The library arms run in this process with torch's threads set to the machine's cores, while serve waits
idle between passes. --rounds rounds, each: serve's passes, then both libraries (their order swapped every
round); the median per arm and set. Then, unless --backlog 0, one more serve pass of the 12-megapixel
files each published --backlog times (a backlog of big images) for serve's peak RSS. Serve's peak RSS is
its VmHWM, reset (/proc/PID/clear_refs 5) before each pass of big images; its counters from /metrics
(qinfer_image_decode_seconds_total, qinfer_inference_seconds, batches) are read before and after every
pass, to say where the time went.

Writes --out (JSON) and prints a table. --quick: 40 + 4 images, 1 round, a backlog of 2 (about 90 s).
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench", "common"))
sys.path.insert(0, os.path.join(REPO, "tests", "tasks"))

import numpy as np  # noqa: E402
import stamp  # noqa: E402

BATCH = 32
WARM_IMAGES = 64
SETS = ("vga", "12mp")
SIZES = {"vga": (640, 480), "12mp": (4000, 3000)}


def log(msg):
    print(f"bench/images/serve: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- model and images

def clip_tokenizer():
    """tests/python/test_export_vision.py's clip_tokenizer(): CLIP's byte-level BPE with end-of-word
    suffixes, trained here on a few sentences."""
    from make_checkpoint import CORPUS
    from tokenizers import pre_tokenizers, trainers
    from transformers import CLIPTokenizer

    backend = CLIPTokenizer().backend_tokenizer
    trainer = trainers.BpeTrainer(vocab_size=400, min_frequency=1, show_progress=False, end_of_word_suffix="</w>",
                                  special_tokens=["<|startoftext|>", "<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(CORPUS, trainer)
    model = json.loads(backend.to_str())["model"]
    return CLIPTokenizer(vocab=model["vocab"], merges=[tuple(m) for m in model["merges"]], model_max_length=77)


def make_checkpoint(out):
    """CLIPConfig's defaults (ViT-B/32's shapes), random weights; the text tower's vocabulary is the tokenizer's."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessorPil, CLIPModel

    tokenizer = clip_tokenizer()
    config = CLIPConfig(text_config=dict(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id,
                                         eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id))
    torch.manual_seed(0)
    model = CLIPModel(config).eval()
    model.save_pretrained(out)
    CLIPImageProcessorPil(size={"shortest_edge": 224}, crop_size={"height": 224, "width": 224},
                          resample=3).save_pretrained(out)
    tokenizer.save_pretrained(out)
    v, t = config.vision_config, config.text_config
    return {"vision": f"{v.image_size} x {v.image_size}, patch {v.patch_size}, hidden {v.hidden_size}, "
                      f"{v.num_hidden_layers} layers",
            "text": f"hidden {t.hidden_size}, {t.num_hidden_layers} layers", "projection": config.projection_dim,
            "parameters_m": round(sum(p.numel() for p in model.parameters()) / 1e6, 1)}


def make_images(folder, name, count, size, seed):
    """`count` photo-like JPEGs of `size` (bench/images/run.py's recipe); the noise field is made once per
    size and shifted per image."""
    from PIL import Image

    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    w, h = size
    noise = rng.normal(0, 8, (h, w, 3)).astype(np.float32)
    paths = []
    for i in range(count):
        small = rng.integers(0, 256, (h // 16 + 1, w // 16 + 1, 3), dtype=np.uint8)
        picture = np.asarray(Image.fromarray(small).resize((w, h), Image.BICUBIC), dtype=np.float32)
        shifted = np.roll(noise, (int(rng.integers(h)), int(rng.integers(w))), axis=(0, 1))
        path = os.path.join(folder, f"{name}-{i:03d}.jpg")
        Image.fromarray(np.clip(picture + shifted, 0, 255).astype(np.uint8)).save(path, quality=90)
        paths.append(path)
    return paths


def pass_folder(root, tag, files, copies=1):
    """A folder of hard links to `files`, named after the pass (ids of their own)."""
    folder = os.path.join(root, tag)
    os.makedirs(folder)
    for k in range(copies):
        for f in files:
            suffix = f"-c{k}" if copies > 1 else ""
            os.link(f, os.path.join(folder, f"{tag}{suffix}-{os.path.basename(f)}"))
    return folder


# ---------------------------------------------------------------- serve

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return r.read().decode()


def metrics(port):
    """/metrics as {name: value}, every label of a name summed."""
    out = {}
    for line in http_get(port, "/metrics").splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, _, value = line.rpartition(" ")
        name = name_labels.split("{", 1)[0]
        try:
            out[name] = out.get(name, 0.0) + float(value)
        except ValueError:
            pass
    return out


def machine_busy_s():
    """CPU seconds the whole machine has spent busy (every core; /proc/stat), for what others took."""
    with open("/proc/stat") as f:
        user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in f.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def own_cpu_s():
    """This process's CPU seconds and its waited-for children's (submit, results)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pid_cpu_s(pid):
    """CPU seconds of process `pid` (user + system, /proc/PID/stat), 0 when it is gone or unknown."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return 0.0


def proc_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class RssSampler(threading.Thread):
    """serve's VmRSS every 50 ms; the peak per label (the pass running)."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.label, self.peaks, self.stop = pid, "start", {}, threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                rss = proc_kib(self.pid, "VmRSS")
            except OSError:
                return
            self.peaks[self.label] = max(self.peaks.get(self.label, 0), rss)
            time.sleep(0.05)


class Serve:
    def __init__(self, qinfer, config, log_path, broker_pid):
        self.qinfer, self.config, self.broker_pid = qinfer, config, broker_pid
        self.port = int(config["http"]["listen"].rsplit(":", 1)[1])
        self.log = open(log_path, "w")
        self.log_path = log_path
        self.proc = subprocess.Popen([qinfer, "serve", "-c", config["_path"]], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        self.rss = RssSampler(self.proc.pid)
        self.stored = 0

    def wait_ready(self, timeout=300):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"qinfer serve exited {self.proc.returncode}:\n{self.tail()}")
            try:
                if http_get(self.port, "/readyz") is not None:
                    self.rss.start()
                    return
            except OSError:
                pass
            time.sleep(0.5)
        sys.exit(f"qinfer serve not ready after {timeout} s:\n{self.tail()}")

    def tail(self, n=30):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-n:])

    def records(self):
        try:
            return sum(json.loads(http_get(self.port, "/status"))["records"].values())
        except (OSError, ValueError, KeyError):
            return None

    def run_pass(self, tag, folder, count, images_as, brokers, topic, reset_peak=False, timeout=900):
        """Publishes `folder` and waits for its `count` records; returns the pass's figures but its end,
        which comes from the store's records after serve has stopped."""
        if reset_peak:
            with open(f"/proc/{self.proc.pid}/clear_refs", "w") as f:
                f.write("5")  # VmHWM := VmRSS
        before = metrics(self.port)
        self.rss.label = tag
        busy0, own0, broker0 = machine_busy_s(), own_cpu_s(), pid_cpu_s(self.broker_pid)
        start = time.time()
        submit = subprocess.run([self.qinfer, "submit", "--no-progress", "--brokers", brokers, "--topic", topic,
                                 "--images", folder, "--images-as", images_as], capture_output=True, text=True)
        submitted = time.time()
        if submit.returncode != 0 or "skipped" in submit.stderr:
            sys.exit(f"qinfer submit: exit {submit.returncode}: {submit.stderr}")
        target = self.stored + count
        deadline = time.monotonic() + timeout
        while (self.records() or 0) < target:
            if self.proc.poll() is not None:
                sys.exit(f"qinfer serve exited {self.proc.returncode}:\n{self.tail()}")
            if time.monotonic() > deadline:
                sys.exit(f"{tag}: {count} records not stored in {timeout} s:\n{self.tail()}")
            time.sleep(0.25)  # four polls a second (bench/common/e2e.py: twenty cost 1.2% of 2 cores)
        self.stored = target
        busy1, own1, broker1 = machine_busy_s(), own_cpu_s(), pid_cpu_s(self.broker_pid)
        after = metrics(self.port)
        self.rss.label = "idle"
        delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
        figures = {
            "tag": tag, "images": count, "images_as": images_as, "start_s": start,
            "submit_s": round(submitted - start, 3),
            "image_decode_s": delta.get("qinfer_image_decode_seconds_total", 0.0),
            "decode_busy_s": delta.get("qinfer_decode_busy_seconds_total", 0.0),
            "inference_s": delta.get("qinfer_inference_seconds_sum", 0.0),
            "batches": delta.get("qinfer_executor_batches_total", 0.0),
            "process_cpu_s": delta.get("process_cpu_seconds_total", 0.0),
        }
        # CPU the rest of the machine took meanwhile (other work on a shared machine); process_cpu_seconds is
        # in whole hundredths, the busy time is read a moment before /metrics.
        figures["broker_cpu_s"] = broker1 - broker0
        figures["other_cpu_s"] = max(0.0, busy1 - busy0 - (own1 - own0) - figures["process_cpu_s"] -
                                     figures["broker_cpu_s"])
        if reset_peak:
            figures["peak_rss_mib"] = proc_kib(self.proc.pid, "VmHWM") / 1024
        return figures

    def stop(self):
        self.rss.stop.set()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def summary_lines(log_path):
    """serve's summary lines at exit (event=decode_summary, stage_summary, thread_cpu_summary) as dicts."""
    out = {}
    with open(log_path) as f:
        for line in f:
            for event in ("decode_summary", "stage_summary", "thread_cpu_summary", "tokenizer_pool", "torch_threads"):
                if f"event={event} " in line or line.rstrip().endswith(f"event={event}"):
                    fields = {}
                    for part in line.split(f"event={event}", 1)[1].split():
                        k, _, v = part.partition("=")
                        if v:
                            try:
                                fields[k] = float(v)
                            except ValueError:
                                fields[k] = v
                    out[event] = fields
    return out


def stored(qinfer, store):
    export = subprocess.run([qinfer, "results", "--store", store, "--export", "-"], check=True, capture_output=True,
                            text=True).stdout
    return [json.loads(line) for line in export.splitlines() if line.strip()]


# ---------------------------------------------------------------- libraries

def load_pil(path):
    from PIL import Image
    image = Image.open(path)
    image.load()
    return image


class Libraries:
    def __init__(self, ckpt, threads):
        import torch
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.modules import CLIPModel as STCLIPModel
        from transformers import AutoImageProcessor, CLIPModel

        torch.set_num_threads(threads)
        self.torch = torch
        self.st = SentenceTransformer(modules=[STCLIPModel(ckpt)], device="cpu")
        self.model = CLIPModel.from_pretrained(ckpt, dtype=torch.float32).eval()
        self.processor = AutoImageProcessor.from_pretrained(ckpt, backend="pil")
        st_processor = getattr(self.st[0].processor, "image_processor", self.st[0].processor)
        self.about = {
            "st_encode": f"SentenceTransformer(modules=[CLIPModel(ckpt)]).encode(PIL images, batch_size={BATCH}) "
                         f"(its processor: {type(st_processor).__name__}); Image.open + load inside the timing",
            "transformers": f"load_image + {type(self.processor).__name__} + CLIPModel.get_image_features, "
                            f"batches of {BATCH}, inference_mode",
        }

    def run(self, arm, paths):
        busy0, own0 = machine_busy_s(), own_cpu_s()
        figures = getattr(self, arm)(paths)
        figures["own_cpu_s"] = own_cpu_s() - own0
        figures["other_cpu_s"] = max(0.0, machine_busy_s() - busy0 - figures["own_cpu_s"])
        figures["images_per_s"] = len(paths) / figures["seconds"]
        return figures

    def st_encode(self, paths):
        start = time.perf_counter()
        images = [load_pil(p) for p in paths]
        self.st.encode(images, batch_size=BATCH, show_progress_bar=False)
        return {"seconds": time.perf_counter() - start}

    def transformers(self, paths):
        from transformers.image_utils import load_image

        load = prep = forward = 0.0
        start = time.perf_counter()
        for i in range(0, len(paths), BATCH):
            t0 = time.perf_counter()
            images = [load_image(p) for p in paths[i:i + BATCH]]
            t1 = time.perf_counter()
            pixels = self.processor(images=images, return_tensors="pt")["pixel_values"]
            t2 = time.perf_counter()
            with self.torch.inference_mode():
                self.model.get_image_features(pixel_values=pixels)
            t3 = time.perf_counter()
            load, prep, forward = load + t1 - t0, prep + t2 - t1, forward + t3 - t2
        return {"seconds": time.perf_counter() - start, "load_s": load, "processor_s": prep, "forward_s": forward}


# ---------------------------------------------------------------- main

def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return stamp.machine()["cpu"]


def median_of(rounds, key="images_per_s"):
    return statistics.median(r[key] for r in rounds)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="40 + 4 images, 1 round, a backlog of 2")
    ap.add_argument("--vga", type=int, default=200, help="JPEGs of 640 x 480")
    ap.add_argument("--big", type=int, default=20, help="JPEGs of 4000 x 3000")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--backlog", type=int, default=10,
                    help="a last serve pass publishes every 12-megapixel file this many times (0: none)")
    ap.add_argument("--port", type=int, default=19192, help="the local broker's port (the controller: PORT+1)")
    ap.add_argument("--qinfer", default=os.path.join(REPO, "build", "qinfer"))
    ap.add_argument("--work", help="working directory (default: a temporary one, removed)")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "images", "results", "serve.json"))
    a = ap.parse_args()
    if a.quick:
        a.vga, a.big, a.rounds, a.backlog = 40, 4, 1, 2
    if not os.access(a.qinfer, os.X_OK):
        sys.exit(f"no qinfer binary at {a.qinfer} (build it: deploy/build.sh)")
    started = time.monotonic()
    tmp = None if a.work else tempfile.TemporaryDirectory(prefix="qinfer-bench-images-")
    work = os.path.abspath(a.work or tmp.name)
    os.makedirs(work, exist_ok=True)
    cores = os.cpu_count()
    # A copy of the binary: another build relinking build/qinfer mid-run would change the arm under test.
    qinfer = os.path.join(work, "qinfer")
    shutil.copy2(a.qinfer, qinfer)
    subprocess.run([qinfer, "--help"], check=True, stdout=subprocess.DEVNULL)  # a whole binary, not one mid-link
    with open(qinfer, "rb") as f:
        binary = {"sha256": hashlib.sha256(f.read()).hexdigest()[:16],
                  "mtime_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.path.getmtime(a.qinfer)))}

    ckpt, pkg = os.path.join(work, "ckpt"), os.path.join(work, "pkg")
    model_about = make_checkpoint(ckpt)
    t = time.monotonic()
    subprocess.run([sys.executable, os.path.join(REPO, "model", "export_hf.py"), ckpt, "--out", pkg, "--task", "embed"],
                   check=True, stdout=subprocess.DEVNULL)
    log(f"checkpoint made and exported in {time.monotonic() - t:.0f} s")
    t = time.monotonic()
    files = {"vga": make_images(os.path.join(work, "images", "vga"), "vga", a.vga, SIZES["vga"], 1),
             "12mp": make_images(os.path.join(work, "images", "12mp"), "big", a.big, SIZES["12mp"], 2)}
    log(f"{a.vga} + {a.big} JPEGs made in {time.monotonic() - t:.0f} s")
    passes_root = os.path.join(work, "passes")
    os.makedirs(passes_root)

    kafka = os.path.join(work, "kafka")
    kafka_sh = os.path.join(REPO, "deploy", "kafka-local.sh")
    brokers = subprocess.run([kafka_sh, "start", kafka, str(a.port)], check=True, capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
    topic = "images"
    subprocess.run([kafka_sh, "create-topic", kafka, topic, "1"], check=True, stdout=subprocess.DEVNULL)
    config_path = os.path.join(work, "serve.yaml")
    http_port = free_port()
    with open(config_path, "w") as f:
        f.write(f"""model:
  path: {pkg}/model.pt
  device: cpu
kafka:
  brokers: {brokers}
  jobs_topic: {topic}
  group_id: bench-images
storage:
  path: {work}/store
http:
  listen: 127.0.0.1:{http_port}
inputs:
  image_roots: [{passes_root}]
scheduler:
  max_batch_size: {BATCH}
""")
    import yaml
    effective = yaml.safe_load(subprocess.run([qinfer, "serve", "-c", config_path, "--print-config"], check=True,
                                              capture_output=True, text=True).stdout)
    effective["_path"] = config_path

    serve = None
    passes = []
    library_runs = {"st_encode": {s: [] for s in SETS}, "transformers": {s: [] for s in SETS}}
    try:
        with open(os.path.join(kafka, "broker.pid")) as f:
            broker_pid = int(f.read().split()[0])
        serve = Serve(qinfer, effective, os.path.join(work, "serve.log"), broker_pid)
        serve.wait_ready()
        rss_ready = proc_kib(serve.proc.pid, "VmRSS") / 1024
        warm = files["vga"][:WARM_IMAGES]
        serve.run_pass("warm", pass_folder(passes_root, "warm", warm), len(warm), "url", brokers, topic)
        log("serve: warm-up pass done")
        libs = Libraries(ckpt, cores)
        libs.st_encode(warm[:BATCH])  # warm-up calls
        libs.transformers(warm[:BATCH])
        log("libraries loaded and warmed up")
        for r in range(a.rounds):
            for name, set_name, images_as in (("vga-url", "vga", "url"), ("vga-inline", "vga", "inline"),
                                              ("12mp-url", "12mp", "url")):
                tag = f"r{r + 1}-{name}"
                p = serve.run_pass(tag, pass_folder(passes_root, tag, files[set_name]), len(files[set_name]),
                                   images_as, brokers, topic, reset_peak=set_name == "12mp")
                p.update(round=r + 1, set=set_name)
                passes.append(p)
                log(f"round {r + 1}: serve {name} published")
            order = ("st_encode", "transformers") if r % 2 == 0 else ("transformers", "st_encode")
            for arm in order:
                for set_name in SETS:
                    run = libs.run(arm, files[set_name])
                    library_runs[arm][set_name].append(run)
                    log(f"round {r + 1}: {arm} {set_name}: {run['images_per_s']:.2f} images/s")
        rss_idle = proc_kib(serve.proc.pid, "VmRSS") / 1024
        if a.backlog > 0:
            tag = "backlog-12mp"
            p = serve.run_pass(tag, pass_folder(passes_root, tag, files["12mp"], a.backlog),
                               a.backlog * len(files["12mp"]), "url", brokers, topic, reset_peak=True)
            p.update(round=0, set="12mp")
            passes.append(p)
            log(f"serve: backlog of {a.backlog * len(files['12mp'])} 12-megapixel jobs done")
        rc = serve.stop()
        if rc != 0:
            sys.exit(f"qinfer serve exited {rc}:\n{serve.tail()}")
        peak_whole = max(serve.rss.peaks.values()) / 1024  # VmHWM was reset: the sampler's peak
        rss_by_pass = {k: v / 1024 for k, v in serve.rss.peaks.items()}
    finally:
        if serve is not None and serve.proc.poll() is None:
            serve.stop()
        subprocess.run([kafka_sh, "stop", kafka], capture_output=True)

    records = stored(qinfer, os.path.join(work, "store"))
    summary = summary_lines(serve.log_path)
    for p in passes:
        prefix = p["tag"] + "-"
        mine = [rec for rec in records if rec["id"].startswith(prefix)]
        ok = [rec for rec in mine if rec.get("status") == "ok"]
        if len(ok) != p["images"]:
            sys.exit(f"{p['tag']}: {len(ok)} of {p['images']} results ok: "
                     f"{[rec for rec in mine if rec.get('status') != 'ok'][:3]}")
        end = max(rec["completed_at_ms"] for rec in ok) / 1000.0
        p["wall_s"] = end - p["start_s"]
        p["images_per_s"] = p["images"] / p["wall_s"]
        p["mean_batch"] = p["images"] / p["batches"] if p["batches"] else None
        p["decode_s_per_image"] = p["image_decode_s"] / p["images"]
        p["inference_s_per_image"] = p["inference_s"] / p["images"]
        p["dims"] = len(ok[0]["output"])
        del p["start_s"]

    def serve_runs(name):
        return [p for p in passes if p["tag"].endswith(name) and p["round"] > 0]

    sets = {}
    for set_name in SETS:
        w, h = SIZES[set_name]
        url = serve_runs(f"{set_name}-url")
        st, tf = library_runs["st_encode"][set_name], library_runs["transformers"][set_name]
        row = {
            "images": len(files[set_name]), "size": f"{w} x {h}",
            "mean_file_kib": statistics.mean(os.path.getsize(f) for f in files[set_name]) / 1024,
            "serve_url_images_per_s": median_of(url),
            "st_encode_images_per_s": median_of(st),
            "transformers_images_per_s": median_of(tf),
        }
        row["serve_over_st_encode"] = row["serve_url_images_per_s"] / row["st_encode_images_per_s"]
        row["serve_over_transformers"] = row["serve_url_images_per_s"] / row["transformers_images_per_s"]
        inline = serve_runs(f"{set_name}-inline")
        if inline:
            row["serve_inline_images_per_s"] = median_of(inline)
            row["serve_inline_over_st_encode"] = row["serve_inline_images_per_s"] / row["st_encode_images_per_s"]
            row["serve_inline_over_transformers"] = row["serve_inline_images_per_s"] / row["transformers_images_per_s"]
        # Where the time goes, per image (medians over the rounds).
        row["serve_decode_s_per_image"] = median_of(url, "decode_s_per_image")
        row["serve_inference_s_per_image"] = median_of(url, "inference_s_per_image")
        row["serve_mean_batch"] = median_of(url, "mean_batch")
        row["transformers_load_s_per_image"] = median_of(tf, "load_s") / row["images"]
        row["transformers_processor_s_per_image"] = median_of(tf, "processor_s") / row["images"]
        row["transformers_forward_s_per_image"] = median_of(tf, "forward_s") / row["images"]
        # What the rest of the machine took while each arm ran (CPU seconds over the arm's wall seconds).
        row["other_cpu_share"] = {
            "serve_url": statistics.median(p["other_cpu_s"] / (p["wall_s"] * cores) for p in url),
            "st_encode": statistics.median(r["other_cpu_s"] / (r["seconds"] * cores) for r in st),
            "transformers": statistics.median(r["other_cpu_s"] / (r["seconds"] * cores) for r in tf)}
        row["rounds"] = {"serve_url": [round(p["images_per_s"], 2) for p in url],
                         "serve_inline": [round(p["images_per_s"], 2) for p in inline],
                         "st_encode": [round(r["images_per_s"], 2) for r in st],
                         "transformers": [round(r["images_per_s"], 2) for r in tf]}
        sets[set_name] = row
    # Both sets as one folder would take: their images over the sum of the medians' seconds.
    total = sum(sets[s]["images"] for s in SETS)
    both = {"images": total, "size": "both sets"}
    for arm in ("serve_url", "st_encode", "transformers"):
        both[f"{arm}_images_per_s"] = total / sum(sets[s]["images"] / sets[s][f"{arm}_images_per_s"] for s in SETS)
    both["serve_over_st_encode"] = both["serve_url_images_per_s"] / both["st_encode_images_per_s"]
    both["serve_over_transformers"] = both["serve_url_images_per_s"] / both["transformers_images_per_s"]
    sets["both"] = both

    backlog = [p for p in passes if p["tag"] == "backlog-12mp"]
    peaks_12mp = [p["peak_rss_mib"] for p in passes if p["tag"].endswith("12mp-url")]
    cfg = effective
    import PIL
    import sentence_transformers
    import torch
    import transformers
    machine = stamp.machine()
    report = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": "bench/images/serve_bench.py" + (" --quick" if a.quick else ""),
        "commit": stamp.commit(),
        "qinfer_binary": binary,
        "machine": {**machine, "cpu": cpu_model()},
        "cores": cores,
        "library_torch_threads": cores,
        "serve_threads": {"torch_intra_op": summary.get("torch_threads", {}).get("intra_op"),
                          "decode_pool": summary.get("tokenizer_pool", {}).get("threads")},
        "model": {"what": "CLIP ViT-B/32 configuration (transformers CLIPConfig defaults), random weights, "
                          "exported with model/export_hf.py --task embed (TorchScript, float32)", **model_about},
        "libraries": libs.about,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "sentence_transformers": sentence_transformers.__version__, "pillow": PIL.__version__,
                     "python": platform.python_version()},
        "rounds": a.rounds,
        "sets": sets,
        "serve_rss": {
            "ready_mib": rss_ready,
            "idle_after_rounds_mib": rss_idle,
            "peak_12mp_mib": max(peaks_12mp) if peaks_12mp else None,
            "peak_12mp_per_round_mib": peaks_12mp,
            "backlog_images": backlog[0]["images"] if backlog else 0,
            "backlog_copies": a.backlog,
            "peak_backlog_mib": backlog[0]["peak_rss_mib"] if backlog else None,
            "backlog_images_per_s": backlog[0]["images_per_s"] if backlog else None,
            "peak_whole_run_sampled_mib": peak_whole,
            "peak_by_pass_sampled_mib": rss_by_pass,
        },
        "bounds": {
            "scheduler.max_batch_size": cfg["scheduler"]["max_batch_size"],
            "scheduler.max_queued_jobs": cfg["scheduler"]["max_queued_jobs"],
            "scheduler.max_queued_bytes": cfg["scheduler"]["max_queued_bytes"],
            "scheduler.max_batch_delay_ms": cfg["scheduler"]["max_batch_delay_ms"],
            "limits.max_image_bytes": cfg["limits"]["max_image_bytes"],
            "limits.max_image_pixels": cfg["limits"]["max_image_pixels"],
            "memory.cpu_block_cache": cfg["memory"]["cpu_block_cache"],
            "tokenizer.threads": cfg["tokenizer"]["threads"],
            "model.threads": cfg["model"]["threads"],
        },
        "serve_summary": {k: summary.get(k) for k in ("decode_summary", "stage_summary", "thread_cpu_summary")},
        "passes": passes,
        "library_runs": library_runs,
        "targets": {"serve_over_library": 2.0},
        "wall_s": round(time.monotonic() - started, 1),
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"{'set':<10}{'serve url':>11}{'serve inline':>14}{'st.encode':>11}{'transformers':>14}"
          f"{'serve/st':>10}{'serve/tf':>10}   images/s")
    for s, row in sets.items():
        inline = row.get("serve_inline_images_per_s")
        print(f"{s:<10}{row['serve_url_images_per_s']:>11.2f}{'' if inline is None else f'{inline:.2f}':>14}"
              f"{row['st_encode_images_per_s']:>11.2f}{row['transformers_images_per_s']:>14.2f}"
              f"{row['serve_over_st_encode']:>10.2f}{row['serve_over_transformers']:>10.2f}")
    rss = report["serve_rss"]
    print(f"serve RSS: ready {rss['ready_mib']:.0f} MiB, peak over 12 MP passes {rss['peak_12mp_mib']:.0f} MiB"
          + (f", over a backlog of {rss['backlog_images']} {rss['peak_backlog_mib']:.0f} MiB" if backlog else ""))
    print(f"bench/images/serve: wrote {a.out} in {report['wall_s']:.0f} s")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
