"""memory_plugin/semantic/wordpiece.py gives the ids Hugging Face's `tokenizers` gives, on the same tokenizer.json.

The reference is the real library loaded from the test model's tokenizer.json (all-MiniLM-L6-v2),
set as Embedder.token_ids used it: truncation to the Embedder's max_len, no padding.
"""
from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import FIXTURE_VAULT
from memory_plugin.semantic import wordpiece
from memory_plugin.semantic.chunks import chunk_note
from memory_plugin.semantic.embedder import Embedder, ModelError


def library(tokenizer_json: str, max_len: int):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(tokenizer_json)
    tok.enable_truncation(max_length=max_len)
    tok.no_padding()
    return tok


@pytest.fixture(scope="module")
def tj(model_dir) -> str:
    return (model_dir / "tokenizer.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def max_len(model_dir) -> int:
    return Embedder(model_dir).max_len  # 256, from sentence_bert_config.json


@pytest.fixture(scope="module")
def pair(tj, max_len):
    wp = wordpiece.from_config(json.loads(tj), max_len)
    assert wp is not None, "the test model's tokenizer.json is BERT's WordPiece"
    return wp, library(tj, max_len)


def mismatches(wp, lib, texts: list[str]) -> list[tuple[str, list[int], list[int]]]:
    want = [e.ids for e in lib.encode_batch(texts)]
    return [(t, got, w) for t, w in zip(texts, want) if (got := wp.encode(t)) != w]


def note_texts(vault: Path) -> list[str]:
    """Every markdown file whole, and cut into the chunks the semantic index embeds."""
    from memory_plugin.core.config import load_config
    from memory_plugin.vault.notes import parse_note

    import tempfile

    texts = []
    with tempfile.TemporaryDirectory() as cache:  # parsing keeps what it read of the vault there
        values = load_config(vault=vault, cache_dir=Path(cache)).values
        for p in sorted(vault.rglob("*.md")):
            raw = p.read_bytes()
            texts.append(raw.decode("utf-8", "replace"))
            n = parse_note(p.relative_to(vault).as_posix(), raw, values)
            texts += [c.text for c in chunk_note(n.display_title or n.title, n.summary, n.body)]
    return texts


def test_fixture_vault_notes_and_chunks(pair):
    texts = note_texts(FIXTURE_VAULT)
    assert len(texts) > 150
    assert mismatches(*pair, texts) == []


W99, W100, W101 = ("x" * 99, "y" * 100, "z" * 101)
EDGE = [
    "", " ", "   \t  ", "\n\n", ".", "...!!!???", "(){}[]<>", "—–-‐", "«»„“”‘’", "¿¡", "§¶†‡•…",
    "hello world", "Hello, World!", "UPPER lower MiXeD", "don't can't won't", "e-mail re-entry",
    "0", "42", "3.14159", "1,000,000", "2024-05-01T12:30:00Z", "+33 1 23 45 67 89", "0x1F600", "1e-9",
    "https://example.com/path?q=a%20b&x=1#frag", "user@example.org", "C:\\Users\\me\\file.txt",
    "def f(x): return x**2  # square", "if (a && b) { c->d(); }", "`code` **bold** _it_ [[Wiki Link|alias]]",
    "SELECT * FROM notes WHERE path LIKE '%.md';", "<div class=\"a\">x</div>", "#tag #nested/tag",
    "中文分词测试", "我爱北京天安门 and English", "日本語のテキスト、カタカナとひらがな", "ｶﾀｶﾅ ＡＢＣ １２３",
    "한국어 텍스트입니다", "𠀀𠀁 𪜀 𫝀 𫠠 𬺰 丽", "㐀㐁 ⺀ 〇 々", "Café crème brûlée naïve résumé",
    "Ångström Øre Ærø", "Ṩ ǅ ǈ ǋ ǲ", "ΣΑΣ ΟΔΟΣ σοφός Σ", "ὈΔΥΣΣΕΎΣ", "İstanbul Iıİi", "ß STRASSE Maße ẞ",
    "ﬁ ﬂ ﬀ ﬃ", "Ⅻ ⅻ ① ⑴", "ŉ ǰ ΐ", "Ǆ ǆ", "𝐀𝐁𝐂 𝔄𝔅", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया",
    "ภาษาไทย", "Tiếng Việt có dấu", "e\u0301 a\u0300 o\u0308 n\u0303", "a\u0316\u0301b", "\u0301start",
    "emoji 😀 🎉 👍🏽", "family 👨‍👩‍👧‍👦 flag 🇫🇷 rainbow 🏳️‍🌈", "keycap 1️⃣ #️⃣", "♥ ★ ✓ ✗ → ← ⇒ ∑ ∞ ≠ ≤",
    "zero\u200bwidth\u200cjoin\u200dx", "bom\ufeffhere", "soft\u00adhyphen", "nel\u0085line",
    "ls\u2028ps\u2029x",
    "nbsp\u00a0thin\u2009ideo\u3000narrow\u202f", "tab\there\nnew\r\nline\x0bvt\x0cff",
    "nul\x00byte", "bad\ufffdchar", "ctrl\x01\x02\x1b[31m\x7f\x9f", "\x1c\x1d\x1e\x1f", "pua\ue000\U000f0000",
    "noncharacter\uffff\U0010ffff", "unassigned\u0378\U00030000", "\u061c\u2066rtl\u2069",
    "[MASK]", "[SEP]", "[CLS]", "[UNK]", "[PAD]", "a[MASK]b", "[MASK][MASK]", " [SEP] [CLS] ",
    "[mask] [Mask] [ MASK ]", "x[UNK]y [PAD]z", "[[MASK]]", "[MASK", "MASK]", "word[SEP]", "[CLS]word",
    "Café[MASK]naïve", "中[SEP]文",
    W99, W100, W101, f"{W99} {W100} {W101}", "é" * 100, "é" * 101, "ab" * 50 + "!", "中" * 150,
    "unaffable unbelievable antidisestablishmentarianism", "qqqqzzzz xkcdqwfp", "##ing ##s",
    " ".join(["word"] * 300), "a" * 10_000, " ".join(f"token{i}" for i in range(10_000))[:10_000],
    ("The quick brown fox jumps over the lazy dog. " * 250)[:10_000],
]


def test_hand_written_edge_cases(pair):
    assert mismatches(*pair, EDGE) == []


def test_truncation_counts_the_two_special_tokens(pair, max_len):
    wp, _ = pair
    ids = wp.encode("word " * 1000)
    assert len(ids) == max_len and ids[0] == 101 and ids[-1] == 102
    assert wp.encode("") == [101, 102]
    assert wp.encode("a[MASK]b") == [101, 1037, 103, 1038, 102]


def test_every_code_point(tj):
    """Each code point alone, between letters and before a combining accent: what the library's
    own (older) Unicode tables say of it, as wordpiece._LIB_CATEGORY must mirror."""
    if not wordpiece.SAME_UNICODE:
        pytest.skip(f"Python's Unicode {unicodedata.unidata_version}: the table is for {wordpiece._UNICODE}")
    big = 40_000
    wide, lib = wordpiece.from_config(json.loads(tj), big), library(tj, big)
    cps = [chr(o) for o in range(0x110000) if not 0xD800 <= o <= 0xDFFF]
    texts = [" ".join(f"a{c}a {c}\u0301" for c in cps[i:i + 2000]) for i in range(0, len(cps), 2000)]
    bad = mismatches(wide, lib, texts)
    assert not bad, [t[:40] for t, _, _ in bad[:3]]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_random_unicode_text(pair, text):
    wp, lib = pair
    assert wp.encode(text) == lib.encode(text).ids


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["[MASK]", "[SEP]", "ΣΑΣ", "中", "é", "a", " ", ".", "\u0301", "İ", "##",
                                 "\x00", "\u200b", "x" * 40, "unbelievable", "\t"]), max_size=30))
def test_random_mix_of_hard_pieces(pair, parts):
    wp, lib = pair
    text = "".join(parts)
    assert wp.encode(text) == lib.encode(text).ids


# ------------------------------------------------------------------ which files take the fast path

def _variant(tj: str, edit) -> dict:
    d = json.loads(tj)
    edit(d)
    return d


@pytest.mark.parametrize("edit", [
    lambda d: d["normalizer"].update(lowercase=False),                    # a cased BERT
    lambda d: d["normalizer"].update(lowercase=False, strip_accents=True),
    lambda d: d["normalizer"].update(strip_accents=False),
    lambda d: d["normalizer"].update(handle_chinese_chars=False, clean_text=False),
    lambda d: d.update(post_processor={"type": "BertProcessing", "sep": ["[SEP]", 102],
                                       "cls": ["[CLS]", 101]}),
    lambda d: d["model"].update(max_input_chars_per_word=5),
], ids=["cased", "cased-strip", "no-strip", "raw", "bert-processing", "short-words"])
def test_other_bert_settings_match_too(tj, edit):
    d = _variant(tj, edit)
    wp = wordpiece.from_config(d, 64)
    assert wp is not None
    assert mismatches(wp, library(json.dumps(d), 64), EDGE) == []


@pytest.mark.parametrize("edit", [
    lambda d: d.update(normalizer={"type": "NFKC"}),
    lambda d: d.update(normalizer=None),
    lambda d: d.update(pre_tokenizer={"type": "Whitespace"}),
    lambda d: d["model"].update(type="BPE"),
    lambda d: d["added_tokens"][4].update(normalized=True),
    lambda d: d["added_tokens"][4].update(lstrip=True),
    lambda d: d["added_tokens"][4].update(single_word=True),
    lambda d: d["added_tokens"].append({"id": 5, "content": "hello", "special": False, "single_word": False,
                                        "lstrip": False, "rstrip": False, "normalized": False}),
    lambda d: d.update(post_processor={"type": "RobertaProcessing"}),
    lambda d: d.update(post_processor=None),
    lambda d: d["post_processor"]["single"].pop(),
    lambda d: d["normalizer"].update(lowercase="yes"),
], ids=["nfkc", "no-normalizer", "whitespace", "bpe", "normalized", "lstrip", "single-word", "non-special",
        "roberta", "no-post", "no-sep", "bad-flag"])
def test_anything_else_is_left_to_the_library(tj, edit):
    assert wordpiece.from_config(_variant(tj, edit), 64) is None


# ------------------------------------------------------------------ the Embedder

def _model_copy(model_dir: Path, dest: Path, tokenizer: dict | None) -> Path:
    dest.mkdir()
    for p in model_dir.iterdir():
        if p.name != "tokenizer.json":
            os.symlink(p, dest / p.name)
    if tokenizer is not None:
        (dest / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    return dest


def test_embedder_uses_wordpiece_and_agrees_with_the_library(model_dir, tj, pair, tmp_path):
    enc = Embedder(model_dir)
    assert enc.wp is not None and enc._tok is None  # the library is not even loaded
    texts = EDGE[:60] + ["hello world"]
    want = [e.ids for e in pair[1].encode_batch(texts)]
    assert enc.token_ids(texts) == want
    # a tokenizer the module does not reproduce: the library, with the same ids
    lstrip = _variant(tj, lambda d: d["added_tokens"][4].update(lstrip=True))
    other = _model_copy(model_dir, tmp_path / "m", lstrip)
    enc2 = Embedder(other)
    assert enc2.wp is None and enc2._tok is not None
    assert enc2.token_ids(["hello world"]) == want[-1:]


def test_embedder_errors_name_the_tokenizer_file(model_dir, tmp_path):
    missing = _model_copy(model_dir, tmp_path / "missing", None)
    with pytest.raises(ModelError, match=r"tokenizer\.json is missing"):
        Embedder(missing)
    broken = _model_copy(model_dir, tmp_path / "broken", None)
    (broken / "tokenizer.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError, match=r"tokenizer\.json cannot be read"):
        Embedder(broken)


def test_the_prompt_path_does_not_import_tokenizers(model_dir):
    import subprocess
    import sys

    code = ("import sys; from memory_plugin.semantic.embedder import Embedder; e = Embedder(sys.argv[1]); "
            "e.encode(['how do I restore an older version of a note?']); print('tokenizers' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code, str(model_dir)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
