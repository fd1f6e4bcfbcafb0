"""qinfer-client: publish jobs to qinfer over Kafka, read their results, replay failures.

    from qinfer_client import Client
    with Client("127.0.0.1:9092", jobs_topic="jobs", reply_topic="results",
                dead_letter_topic="jobs-failed") as c:
        ids = c.submit(["a sentence", "another one"])
        for r in c.results(ids, timeout=120):
            print(r.id, r.output[:3])
"""

from .client import (ENCODINGS, JOB_FIELDS, REASONS, Client, Failure, QinferConnectionError, QinferError,
                     QinferJobFailed, QinferTimeout, Result, decode_output, default_tokenizer_path, load_tokenizer,
                     parse_dead_letter, parse_result_message, read_export, replay)

__all__ = ["ENCODINGS", "JOB_FIELDS", "REASONS", "Client", "Failure", "QinferConnectionError", "QinferError",
           "QinferJobFailed", "QinferTimeout", "Result", "decode_output", "default_tokenizer_path", "load_tokenizer",
           "parse_dead_letter", "parse_result_message", "read_export", "replay"]
__version__ = "0.1.0"
