"""A tiny ViT image classifier for the executor's image tests (tests/executor/image_model_test.cc): 32 x 32
images in patches of 8 (16 patches and a class token: image.length 17), hidden 32, 2 layers, 3 labels, with
a PIL-backend processor of a fixed 32 x 32 and bilinear resampling, saved with save_pretrained. Random
weights (seeded): the tests compare the package with itself across batches, devices and precisions."""
import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import torch
    from transformers import ViTConfig, ViTForImageClassification, ViTImageProcessorPil

    torch.manual_seed(63)
    config = ViTConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                       image_size=32, patch_size=8, initializer_range=0.1,
                       id2label={0: "cat", 1: "dog", 2: "boat"}, label2id={"cat": 0, "dog": 1, "boat": 2})
    ViTForImageClassification(config).eval().save_pretrained(args.out)
    ViTImageProcessorPil(size={"height": 32, "width": 32}, resample=2).save_pretrained(args.out)


if __name__ == "__main__":
    main()
