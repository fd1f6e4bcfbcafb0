"""TorchServe 0.12 handler for qinfer's TorchScript models (bench/torchserve).

What TorchServe's batching does with qinfer's jobs: the frontend gathers up
to batch_size requests (or what arrived within max_batch_delay), and this
handler pads them to the LONGEST member, as a stock TorchServe deployment of
a BERT-style encoder does, and runs one forward on the whole batch.

  request body (application/json): {"id": "job-000001", "input_ids": [..]}
  reply (application/json):         {"id", "dim", "padded_length",
                                     "batch_size", "batch", "threads",
                                     "forward_ms", "first"}

  dim            D of the model's [B, D] output
  padded_length  L, the longest input_ids in this batch (every row runs L)
  batch_size     B, the rows of this forward (valid requests only)
  batch          this worker's batch counter (1, 2, ...): replies of one
                 forward share it
  threads        torch's intra-op threads in the worker
  forward_ms     the model call of this batch (padding and JSON excluded)
  first          output[row, 0], so the forward's result is really used

A request without a non-empty list of int input_ids gets its own 400 reply;
the rest of the batch still runs. The embedding itself is not returned, to
keep HTTP cheap on both sides of the comparison.

Model contract (model/qinfer_model.py): forward(input_ids int64 [B, L],
attention_mask int64 [B, L]) -> float32 [B, D]; attention_mask is 1 on real
tokens, 0 on padding; padding ids are 0.

Intra-op threads: env QINFER_TS_THREADS, else `handler: {threads: N}` in
the archive's model-config YAML, else 2. Inter-op threads are left at
torch's default, as qinfer's executor does (it sets intra-op only).

TorchServe loads a handler module's classes and requires exactly one:
keep helpers here as functions.
"""

import json
import logging
import os
import time

import torch

logger = logging.getLogger(__name__)

DEFAULT_THREADS = 2


def _threads(context) -> int:
    env = os.environ.get("QINFER_TS_THREADS")
    if env:
        return int(env)
    config = getattr(context, "model_yaml_config", None) or {}
    return int((config.get("handler") or {}).get("threads", DEFAULT_THREADS))


def _job(item):
    """The job dict of one request, or an error string."""
    body = item.get("body", item.get("data")) if isinstance(item, dict) else None
    if isinstance(body, (bytes, bytearray)):
        try:
            body = json.loads(body)
        except ValueError as e:
            return f"body is not JSON: {e}"
    elif isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError as e:
            return f"body is not JSON: {e}"
    if not isinstance(body, dict):
        return "body is not a JSON object"
    ids = body.get("input_ids")
    if not isinstance(ids, list) or not ids or not all(
            isinstance(t, int) and not isinstance(t, bool) for t in ids):
        return "input_ids is not a non-empty list of ints"
    return body


class QinferEncoderHandler:
    """Plain TorchServe handler: initialize(context) once, handle(data, context) per batch."""

    def __init__(self):
        self.model = None
        self.batches = 0
        self.initialized = False

    def initialize(self, context):
        threads = _threads(context)
        torch.set_num_threads(threads)
        model_dir = context.system_properties.get("model_dir")
        serialized = (context.manifest or {}).get("model", {}).get("serializedFile", "model.pt")
        path = os.path.join(model_dir, serialized)
        self.model = torch.jit.load(path, map_location="cpu")
        self.model.eval()
        self.initialized = True
        logger.info("qinfer handler: loaded %s torch=%s intra_op_threads=%d inter_op_threads=%d",
                    path, torch.__version__, torch.get_num_threads(),
                    torch.get_num_interop_threads())

    def handle(self, data, context):
        if data is None:  # TorchServe's function-style init probe; not used for classes
            return None
        jobs = [_job(item) for item in data]
        rows = [i for i, j in enumerate(jobs) if isinstance(j, dict)]
        replies = [None] * len(jobs)
        for i, j in enumerate(jobs):
            if not isinstance(j, dict):
                context.set_response_status(400, j, idx=i)
                replies[i] = {"error": j}
        if rows:
            self.batches += 1
            lengths = [len(jobs[i]["input_ids"]) for i in rows]
            b, l = len(rows), max(lengths)
            ids = torch.zeros((b, l), dtype=torch.int64)
            mask = torch.zeros((b, l), dtype=torch.int64)
            for r, i in enumerate(rows):
                n = lengths[r]
                ids[r, :n] = torch.tensor(jobs[i]["input_ids"], dtype=torch.int64)
                mask[r, :n] = 1
            t0 = time.perf_counter()
            with torch.inference_mode():
                out = self.model(ids, mask)
            forward_ms = (time.perf_counter() - t0) * 1000.0
            dim = int(out.shape[1])
            first = out[:, 0].tolist()
            threads = torch.get_num_threads()
            for r, i in enumerate(rows):
                replies[i] = {"id": jobs[i].get("id"), "dim": dim, "padded_length": l,
                              "batch_size": b, "batch": self.batches, "threads": threads,
                              "forward_ms": round(forward_ms, 3), "first": first[r]}
        for i in range(len(replies)):
            context.set_response_content_type(i, "application/json")
        return [json.dumps(r) for r in replies]
