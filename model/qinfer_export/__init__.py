"""The exporter (model/export_hf.py) as a package: one module per stage.

  checkpoint.py  reading the directory and choosing the task (Plan, make_plan);
  st_dir.py      what a sentence-transformers directory adds (Pooling, Normalize, SpladePooling, the token
                 modules, prompts, max_seq_length);
  wrappers.py    the nn.Module around transformers' model: qinfer's signature and each task's output;
  patches.py     what is swapped in while tracing: a family's sdpa_swap, a decoder's causal mask skipped,
                 key heads repeated for sdpa;
  trace.py       torch.jit.trace_module, one method an input kind (and the AOTInductor packages), devices
                 unpinned, the trace checked;
  checks.py      the tolerances, and the checks between AOTI packages (each input kind runs the contract and
                 the library on its own samples);
  manifest.py    writing the model file, the copies, manifest.json (with the digests);
  export.py      the stages in order (export());
  inputs/        the input kinds: what makes a model's inputs (inputs/__init__.py's InputKind), text's in
                 inputs/text.py, images' in inputs/image.py (a two-tower model takes both: forward the text,
                 encode_image the image);
and model/families/, one module a family (what the library does not tell the exporter).

model/ must be on sys.path (export_hf.py puts it there): the package imports qinfer_model, aoti_export
and families as top-level modules. Nothing is fetched from a model hub.
"""

import json
import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class Refused(Exception):
    """The checkpoint or the options cannot be exported (exit 2); the message says why."""


class CheckFailed(Exception):
    """The export does not do what the library does (exit 1); the message says how."""


def read_json(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Refused(f"cannot read {path}: {e}") from None
