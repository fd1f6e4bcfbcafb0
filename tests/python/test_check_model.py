"""model/check_model.py: a contract-breaking model is refused naming the problem; MiniLM passes.

The broken models are small scripted encoders made here; MiniLM is the real
export in $QINFER_MINILM_DIR (build/minilm; ctest sets it). The task
contracts (per-token outputs, the three-input pair signature) are named by a
manifest.json written beside the scripted model, as model/export_hf.py
writes one.
"""

import json
import os
import subprocess
import sys

import pytest
import torch
from torch import Tensor, nn

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(REPO, "model", "check_model.py")
sys.path.insert(0, os.path.join(REPO, "model"))
from qinfer_model import sha256_file  # noqa: E402


class Encoder(nn.Module):
    """Embeddings (100 ids, 64 positions) + one linear layer; pools as told."""

    def __init__(self, pooling: str):
        super().__init__()
        torch.manual_seed(0)
        self.pooling = pooling
        self.tok = nn.Embedding(100, 16)
        self.pos = nn.Embedding(64, 16)
        self.mix = nn.Linear(16, 16)

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        positions = torch.arange(input_ids.size(1))
        # A sequence-wide term, so that padding could leak into every position.
        x = self.tok(input_ids) + self.pos(positions).unsqueeze(0)
        mask = attention_mask.to(x.dtype).unsqueeze(-1)
        if self.pooling in ("leaky", "leaky_tokens"):
            context = x.mean(dim=1, keepdim=True)  # padded positions included
        else:
            context = (x * mask).sum(dim=1, keepdim=True) / mask.sum(dim=1, keepdim=True).clamp(min=1.0)
        h = torch.tanh(self.mix(x + context))
        if self.pooling in ("none", "leaky_tokens"):
            return h  # [B, T, D]: per-token rows, not one vector per row
        return (h * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


class LengthSorted(nn.Module):
    """Sorts the rows by length (as sequence packing does) and un-sorts them by rank.

    The un-sort is right only when the lengths differ: rows of one length all
    get the output of the first of them. A padded batch of distinct lengths
    (all the old check tried) cannot tell; a bucket of equal lengths can.
    """

    def __init__(self):
        super().__init__()
        self.inner = Encoder("masked")

    def forward(self, input_ids: Tensor, attention_mask: Tensor) -> Tensor:
        lengths = attention_mask.sum(dim=1)
        order = torch.argsort(lengths, descending=True)
        pooled = self.inner(input_ids[order], attention_mask[order])
        rank = (lengths.unsqueeze(0) > lengths.unsqueeze(1)).sum(dim=1)  # rows longer than each row
        return pooled[rank]


class Swapped(nn.Module):
    """forward(attention_mask, input_ids): the arguments in the other order.

    It embeds its "ids" (qinfer's mask: 1, and 0 in the padding) and takes the
    non-zero ones as its mask, so padding is left out and every row of one
    length gives the same output, whatever its ids.
    """

    def __init__(self):
        super().__init__()
        self.inner = Encoder("masked")

    def forward(self, attention_mask: Tensor, input_ids: Tensor) -> Tensor:
        keep = ((input_ids != 0) & (attention_mask >= 0)).to(torch.int64)
        return self.inner(input_ids, keep)


class MaskFirst(nn.Module):
    """forward(attention_mask, input_ids): a masked encoder exported with its arguments the other way round.

    In qinfer's order it embeds the mask and masks with the ids: any id is
    accepted in the first argument, none past the vocabulary in the second.
    """

    def __init__(self):
        super().__init__()
        self.inner = Encoder("masked")

    def forward(self, attention_mask: Tensor, input_ids: Tensor) -> Tensor:
        return self.inner(input_ids, attention_mask)


class PairMaskFirst(nn.Module):
    """forward(attention_mask, input_ids, token_type_ids): a pair model with its first two arguments swapped."""

    def __init__(self):
        super().__init__()
        self.inner = Pair(True)

    def forward(self, attention_mask: Tensor, input_ids: Tensor, token_type_ids: Tensor) -> Tensor:
        return self.inner(input_ids, attention_mask, token_type_ids)


class Pair(nn.Module):
    """forward(input_ids, attention_mask, token_type_ids) -> 3 logits; reads its token types or not."""

    def __init__(self, reads_types: bool):
        super().__init__()
        self.inner = Encoder("masked")
        self.types = nn.Embedding(2, 16)
        self.reads_types = reads_types

    def forward(self, input_ids: Tensor, attention_mask: Tensor, token_type_ids: Tensor) -> Tensor:
        pooled = self.inner(input_ids, attention_mask)
        if self.reads_types:
            mask = attention_mask.to(pooled.dtype).unsqueeze(-1)
            pooled = pooled + (self.types(token_type_ids) * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        return pooled[:, :3]


def save(tmp_path, pooling, manifest=None):
    path = tmp_path / pooling / "model.pt"
    path.parent.mkdir()
    model = {"length_sorted": LengthSorted, "swapped": Swapped, "mask_first": MaskFirst, "pair": lambda: Pair(True),
             "pair_ignoring_types": lambda: Pair(False), "pair_mask_first": PairMaskFirst}.get(
        pooling, lambda: Encoder(pooling))()
    torch.jit.script(model.eval()).save(str(path))
    if manifest is not None:
        (path.parent / "manifest.json").write_text(json.dumps(manifest))
        (path.parent / "tokenizer.json").write_text("{}")
    return path


def check(*args):
    return subprocess.run([sys.executable, CHECK, *map(str, args)], capture_output=True, text=True, timeout=300)


def test_a_well_behaved_model_passes_with_measured_limits(tmp_path):
    path = save(tmp_path, "masked")
    done = check(path)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((path.parent / "manifest.json").read_text())
    assert (manifest["vocab_size"], manifest["max_positions"], manifest["max_tokens"], manifest["dim"]) == \
        (100, 64, 64, 16)
    assert manifest["output"] == "pooled" and manifest["digest"] == "sha256:" + sha256_file(str(path))
    assert set(manifest["measured"]) == {"vocab_size", "max_positions"}


def test_wrong_output_rank_is_refused(tmp_path):
    done = check(save(tmp_path, "none"), "--out", tmp_path / "out")
    assert done.returncode == 1
    assert "REFUSED: output has rank 3" in done.stderr and "[B, D]" in done.stderr
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_padding_leaking_into_the_output_is_refused(tmp_path):
    done = check(save(tmp_path, "leaky"))
    assert done.returncode == 1
    assert "REFUSED: padding changes results" in done.stderr
    assert not (tmp_path / "leaky" / "manifest.json").exists()


def test_rows_that_depend_on_their_batch_mates_are_refused(tmp_path):
    done = check(save(tmp_path, "length_sorted"))
    assert done.returncode == 1, done.stdout
    assert "REFUSED: rows depend on each other: in a batch of 3 rows of 7 tokens (no padding), row 1" \
        in done.stderr, done.stderr
    assert not (tmp_path / "length_sorted" / "manifest.json").exists()


SWAPPED = "REFUSED: forward(input_ids, attention_mask) looks swapped: it accepts ids past the vocabulary in " \
    "the first argument but fails on them in the second"


def test_arguments_in_the_other_order_are_refused(tmp_path):
    # With --vocab-size, the first check it fails is the one of ids that change nothing (every "id" it
    # sees is 0 or 1); that failure follows the swap's.
    done = check(save(tmp_path, "swapped"), "--vocab-size", 100)
    assert done.returncode == 1, done.stdout
    assert SWAPPED in done.stderr, done.stderr
    assert "it behaves as forward(attention_mask, input_ids); export it with its arguments in the order " \
        "(input_ids, attention_mask)" in done.stderr, done.stderr
    assert "(the check that failed: two rows of 7 tokens with different input_ids (attention_mask all 1) give " \
        "the same output" in done.stderr, done.stderr
    assert not (tmp_path / "swapped" / "manifest.json").exists()


@pytest.mark.parametrize("vocab", [[], ["--vocab-size", 100]], ids=["measured", "given"])
def test_a_mask_first_encoder_is_refused_as_swapped(tmp_path, vocab):
    # Measured, its vocabulary has no bound ("cannot measure the vocabulary"); given, padding changes its
    # results (the padding's ids are its mask). Either way the refusal names the swap first.
    done = check(save(tmp_path, "mask_first"), *vocab)
    assert done.returncode == 1, done.stdout
    assert SWAPPED in done.stderr, done.stderr
    assert ("cannot measure the vocabulary" if not vocab else "padding changes results") in done.stderr
    assert not (tmp_path / "mask_first" / "manifest.json").exists()


def test_a_correct_model_refused_for_another_reason_is_not_called_swapped(tmp_path):
    done = check(save(tmp_path, "leaky"))
    assert done.returncode == 1 and "padding changes results" in done.stderr, done.stderr
    assert "swapped" not in done.stderr, done.stderr


def test_a_non_torchscript_file_is_named(tmp_path):
    bad = tmp_path / "model.pt"
    bad.write_bytes(b"not a model")
    done = check(bad)
    assert done.returncode == 2 and f"cannot load {bad} as TorchScript" in done.stderr


def test_minilm_passes_and_gets_the_exports_limits(tmp_path):
    model_dir = os.environ.get("QINFER_MINILM_DIR")
    if not model_dir or not os.path.isfile(os.path.join(model_dir, "model.pt")):
        pytest.skip("no MiniLM export: QINFER_MINILM_DIR unset or without model.pt (ctest sets it to "
                    "build/minilm, exported when deploy/setup.sh installed sentence-transformers)")
    done = check(os.path.join(model_dir, "model.pt"), "--out", tmp_path, "--max-tokens", 256)
    assert done.returncode == 0, done.stderr
    ours = json.loads((tmp_path / "manifest.json").read_text())
    export = json.loads(open(os.path.join(model_dir, "manifest.json")).read())
    for key in ("vocab_size", "max_positions", "max_tokens", "dim", "digest"):
        assert ours[key] == export[key], key


def test_the_minilm_export_records_its_precision_check():
    model_dir = os.environ.get("QINFER_MINILM_DIR")
    if not model_dir or not os.path.isfile(os.path.join(model_dir, "manifest.json")):
        pytest.skip("no MiniLM export: QINFER_MINILM_DIR unset or without manifest.json")
    export = json.loads(open(os.path.join(model_dir, "manifest.json")).read())
    assert "precision_check" in export, "export_minilm.py writes precision_check into the manifest"
    bf16 = export["precision_check"]["bfloat16"]
    assert bf16["floor"] == 0.999 and bf16["inputs"] > 0
    assert 0.999 <= bf16["min_cosine"] <= 1.0 and bf16["refused"] is False


def test_the_drift_model_is_exported_with_bf16_refused(tmp_path):
    done = subprocess.run([sys.executable, os.path.join(REPO, "model", "export_model.py"), "--out", str(tmp_path),
                           "--bf16-drift", "--layers", "1", "--max-tokens", "64"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # float32 is what is exported, and it is fine
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["bf16_drift"] is True
    bf16 = manifest["precision_check"]["bfloat16"]
    assert bf16["refused"] is True and bf16["min_cosine"] < 0.999, bf16
    assert "bfloat16 autocast vs. float32" in done.stdout and "REFUSED" in done.stdout


def test_an_aoti_package_passes_and_gets_an_aoti_manifest(tmp_path):
    model_dir = os.environ.get("QINFER_TEST_MODEL_AOTI_DIR")
    package = os.path.join(model_dir or "", "model-cpu-float32.pt2")
    if not model_dir or not os.path.isfile(package):
        pytest.skip("no aoti export: QINFER_TEST_MODEL_AOTI_DIR unset or without model-cpu-float32.pt2 (ctest "
                    "sets it to build/test-model-aoti)")
    refused = check(package, "--out", tmp_path)
    assert refused.returncode == 2 and "needs --max-batch" in refused.stderr, refused.stderr
    done = check(package, "--out", tmp_path, "--max-batch", 256)
    assert done.returncode == 0, done.stderr
    ours = json.loads((tmp_path / "manifest.json").read_text())
    export = json.loads(open(os.path.join(model_dir, "manifest.json")).read())
    for key in ("format", "vocab_size", "max_positions", "dim", "digest", "max_batch"):
        assert ours[key] == export[key], key
    assert ours["packages"] == {"cpu/float32": export["packages"]["cpu/float32"]}
    assert set(ours["measured"]) == {"vocab_size", "max_positions"}


# ------------------------------------------------------------------ the task contracts (the manifest's task,
# output and inputs, as model/export_hf.py writes them)

TOKENS = {"task": "tokens", "output": "token_logits", "labels": [f"L{i}" for i in range(16)],
          "activation": "softmax", "pairs": False, "inputs": ["input_ids", "attention_mask"],
          "tokenizer": "tokenizer.json", "end_token_id": 3}
PAIR = {"task": "classify", "output": "logits", "labels": ["NEG", "NEU", "POS"], "activation": "softmax",
        "pairs": True, "inputs": ["input_ids", "attention_mask", "token_type_ids"]}


def test_a_per_token_model_passes_the_tokens_contract_and_keeps_its_task_fields(tmp_path):
    path = save(tmp_path, "none", TOKENS)
    done = check(path, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "-> float32 [B, T, 16] (tokens, token_logits)" in done.stdout
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    for key, value in TOKENS.items():
        assert manifest[key] == value, key
    assert (manifest["dim"], manifest["vocab_size"], manifest["max_positions"]) == (16, 100, 64)
    assert (tmp_path / "out" / "tokenizer.json").is_file()


def test_padding_leaking_into_real_tokens_is_refused(tmp_path):
    done = check(save(tmp_path, "leaky_tokens", TOKENS))
    assert done.returncode == 1, done.stdout
    assert "REFUSED: padding changes results: a token's output run alone and the same in a batch padded" \
        in done.stderr, done.stderr


def test_a_pooled_model_is_refused_for_the_tokens_contract(tmp_path):
    done = check(save(tmp_path, "masked", TOKENS))
    assert done.returncode == 1
    assert "REFUSED: output has rank 2" in done.stderr and "[B, L, C]" in done.stderr, done.stderr


def test_a_pair_model_passes_with_three_inputs(tmp_path):
    done = check(save(tmp_path, "pair", PAIR), "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "forward(input_ids, attention_mask, token_type_ids) -> float32 [B, 3] (classify, logits)" in done.stdout
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["inputs"] == PAIR["inputs"] and manifest["labels"] == PAIR["labels"]


def test_a_pair_model_with_its_first_two_arguments_swapped_is_refused_as_swapped(tmp_path):
    done = check(save(tmp_path, "pair_mask_first", PAIR))
    assert done.returncode == 1, done.stdout
    assert "REFUSED: forward(input_ids, attention_mask, token_type_ids) looks swapped" in done.stderr, done.stderr
    assert "it behaves as forward(attention_mask, input_ids, token_type_ids)" in done.stderr, done.stderr


def test_a_pair_model_that_ignores_its_token_types_is_refused(tmp_path):
    done = check(save(tmp_path, "pair_ignoring_types", PAIR))
    assert done.returncode == 1, done.stdout
    assert "does not read its third argument" in done.stderr, done.stderr


def test_a_two_input_model_is_refused_for_a_three_input_manifest(tmp_path):
    done = check(save(tmp_path, "masked", {**PAIR, "labels": [f"L{i}" for i in range(16)]}))
    assert done.returncode == 1
    assert "forward takes 2 arguments (input_ids, attention_mask); the contract is forward(input_ids, " \
        "attention_mask, token_type_ids)" in done.stderr, done.stderr


def test_a_manifest_whose_fields_do_not_fit_is_refused(tmp_path):
    done = check(save(tmp_path, "none", {**TOKENS, "inputs": PAIR["inputs"]}))
    assert done.returncode == 2
    assert "inputs: token_type_ids is an input only of a model that takes pairs (classify, rerank), not of task " \
        "tokens" in done.stderr, done.stderr
    done = check(tmp_path / "none" / "model.pt", "--manifest", tmp_path / "missing.json")
    assert done.returncode == 2 and "no such file" in done.stderr
