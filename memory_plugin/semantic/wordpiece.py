"""BERT's WordPiece tokenizer in pure Python, for the tokenizer.json files that describe exactly it.

Why: importing Hugging Face's `tokenizers` and building its Tokenizer from tokenizer.json cost a
query ~80 ms on a small machine, to tokenize one prompt; this module needs json.loads of the file
(~20 ms) and a few ms more, and gives the same ids (tests/test_wordpiece.py compares the two on the
fixture vault, edge cases, every code point and random text), for the pipeline of all-MiniLM-L6-v2
and the other BERT models:

  added special tokens ([CLS], [MASK], ...; `normalized` false) are matched in the raw text first;
  the rest goes through BertNormalizer (clean text, space around CJK ideographs, NFD and drop
  non-spacing marks, lowercase char by char), BertPreTokenizer (split on whitespace, each
  punctuation char a word of its own), WordPiece (greedy longest match first, `##` continuations,
  [UNK] for a word with no match or longer than max_input_chars_per_word), [CLS] ... [SEP] around,
  and truncation to max_len ids in all.

`from_config` returns None for any other pipeline (another normalizer or pre-tokenizer, a BPE
model, added tokens with lstrip/rstrip/single_word...): the caller then uses the `tokenizers` library.
"""
from __future__ import annotations

import re
import unicodedata

# char::is_whitespace (the White_Space property) minus the C* ones clean_text drops first (U+0085...)
_SPACES = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
          "\u2028\u2029\u202f\u205f\u3000"
_SPLIT = re.compile(f"[{_SPACES}]+")
# The CJK ideograph blocks BertNormalizer puts spaces around (the Rust is_chinese_char's ranges).
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ASCII_CLEAN = {c: None for c in range(32) if chr(c) not in "\t\n\r"} | {127: None, 9: 32, 10: 32, 13: 32}

# The library's category tables are older than Python's (Unicode 8.0, judging by what they do): the
# characters below, assigned since as non-spacing marks, punctuation or format characters, are to it
# unassigned letters, kept and not split; three changed category since. Found by running every code
# point through the library; tests/test_wordpiece.py checks this again against the installed version.
_UNICODE = "14.0.0"  # the unicodedata version the table was made with: other versions, the library
_NEWER = (
    0x61D, 0x7FD, (0x890, 0x891), (0x898, 0x89F), (0x8CA, 0x8E2), (0x9FD, 0x9FE), 0xA76, (0xAFA, 0xAFF),
    0xB55, 0xC04, 0xC3C, 0xC77, 0xC84, 0xD00, (0xD3B, 0xD3C), 0xD81, 0xEBA, 0x180F, (0x1885, 0x1886),
    (0x1ABF, 0x1ACE), (0x1B7D, 0x1B7E), (0x1DF6, 0x1DFB), (0x2E43, 0x2E4F), (0x2E52, 0x2E5D), 0xA82C, 0xA8C5,
    0xA8FF, 0xA9BD, (0x10D24, 0x10D27), (0x10EAB, 0x10EAD), (0x10F46, 0x10F50), (0x10F55, 0x10F59),
    (0x10F82, 0x10F89), 0x11070, (0x11073, 0x11074), 0x110C2, 0x110CD, 0x111CF, 0x1123E, 0x1133B,
    (0x11438, 0x1143F), (0x11442, 0x11444), 0x11446, (0x1144B, 0x1144F), (0x1145A, 0x1145B),
    (0x1145D, 0x1145E), (0x11660, 0x1166C), 0x116B9, (0x1182F, 0x11837), (0x11839, 0x1183B),
    (0x1193B, 0x1193C), 0x1193E, (0x11943, 0x11946), (0x119D4, 0x119D7), (0x119DA, 0x119DB), 0x119E0,
    0x119E2, (0x11A01, 0x11A0A), (0x11A33, 0x11A38), (0x11A3B, 0x11A47), (0x11A51, 0x11A56),
    (0x11A59, 0x11A5B), (0x11A8A, 0x11A96), (0x11A98, 0x11A9C), (0x11A9E, 0x11AA2), (0x11C30, 0x11C36),
    (0x11C38, 0x11C3D), 0x11C3F, (0x11C41, 0x11C45), (0x11C70, 0x11C71), (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6), (0x11D31, 0x11D36), 0x11D3A,
    (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), 0x11D47, (0x11D90, 0x11D91), 0x11D95, 0x11D97,
    (0x11EF3, 0x11EF4), (0x11EF7, 0x11EF8), 0x11FFF, (0x12FF1, 0x12FF2), (0x13430, 0x13438),
    (0x16E97, 0x16E9A), 0x16F4F, 0x16FE2, 0x16FE4, (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46),
    (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A),
    (0x1E130, 0x1E136), 0x1E2AE, (0x1E2EC, 0x1E2EF), (0x1E944, 0x1E94A), (0x1E95E, 0x1E95F),
)
_LIB_CATEGORY = {o: "Cn" for r in _NEWER for o in (range(r[0], r[1] + 1) if isinstance(r, tuple) else (r,))}
# CANADIAN SYLLABICS CHI SIGN, HANUNOO SIGN PAMUDPOD, SHARADA SANDHI MARK
_LIB_CATEGORY |= {0x166D: "Po", 0x1734: "Mn", 0x111C9: "Po"}
SAME_UNICODE = unicodedata.unidata_version == _UNICODE


def _category(c: str) -> str:
    return _LIB_CATEGORY.get(ord(c)) or unicodedata.category(c)


def _cjk(o: int) -> bool:
    return any(a <= o <= b for a, b in _CJK)


def _clean_char(c: str, clean: bool, cjk: bool) -> str:
    if clean:
        if c in _SPACES and c not in "\v\f\x85":  # \v \f U+0085 are Cc: dropped like the rest
            return " "
        if c == "\ufffd" or _category(c) in ("Cc", "Cf", "Co"):  # not Cn (unassigned): kept
            return ""
    if cjk and _cjk(ord(c)):
        return f" {c} "
    return c


def _is_punct(c: str) -> bool:
    return c in _ASCII_PUNCT or _category(c)[0] == "P"


class WordPiece:
    def __init__(self, vocab: dict[str, int], *, unk: str, prefix: str, max_chars: int,
                 cls: int, sep: int, specials: dict[str, int], max_len: int,
                 clean_text: bool = True, chinese_chars: bool = True, strip_accents: bool = True,
                 lowercase: bool = True):
        self.vocab, self.unk, self.prefix, self.max_chars = vocab, vocab[unk], prefix, max_chars
        self.cls, self.sep, self.specials, self.max_len = cls, sep, specials, max_len
        self.clean, self.chinese, self.strip, self.lower = clean_text, chinese_chars, strip_accents, lowercase
        self.longest = max(map(len, vocab))  # no match is longer: the window a lookup tries
        # leftmost-longest match of the special tokens, as the library's added vocabulary does
        alts = sorted(specials, key=len, reverse=True)
        self._special = re.compile("|".join(map(re.escape, alts))) if alts else None
        self._memo: dict[str, str] = {}

    # -------------------------------------------------------------- normalizer

    def normalize(self, text: str) -> str:
        if text.isascii():
            if self.clean:
                text = text.translate(_ASCII_CLEAN)
            return text.lower() if self.lower else text
        memo = self._memo
        out = []
        for c in text:
            r = memo.get(c)
            if r is None:
                r = memo[c] = _clean_char(c, self.clean, self.chinese)
            out.append(r)
        text = "".join(out)
        if self.strip:
            text = "".join(c for c in unicodedata.normalize("NFD", text) if _category(c) != "Mn")
        if self.lower:
            # char by char, as Rust's char::to_lowercase: no final-sigma rule (str.lower has one)
            text = text.lower() if "\u03a3" not in text else "".join(c.lower() for c in text)
        return text

    # -------------------------------------------------------------- pre-tokenizer and model

    def words(self, text: str) -> list[str]:
        out = []
        for w in _SPLIT.split(text):
            if w.isalnum() or not w:
                if w:
                    out.append(w)
                continue
            start = 0
            for i, c in enumerate(w):
                if _is_punct(c):
                    if i > start:
                        out.append(w[start:i])
                    out.append(c)
                    start = i + 1
            if start < len(w):
                out.append(w[start:])
        return out

    def word_ids(self, word: str) -> list[int]:
        if len(word) > self.max_chars:
            return [self.unk]
        vocab, ids, start, n = self.vocab, [], 0, len(word)
        while start < n:
            end = min(n, start + self.longest)
            while end > start:
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                i = vocab.get(piece)
                if i is not None:
                    ids.append(i)
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return ids

    @staticmethod
    def handles(text: str) -> bool:
        """Whether encode gives the library's ids: always under the Unicode version the table was
        made with, ASCII text under any."""
        return SAME_UNICODE or text.isascii()

    def encode(self, text: str) -> list[int]:
        """The ids of one text: [CLS], its tokens (cut to max_len - 2), [SEP]."""
        room = self.max_len - 2
        ids: list[int] = []
        pos = 0
        for m in self._special.finditer(text) if self._special else ():
            self._encode_plain(text[pos:m.start()], ids, room)
            ids.append(self.specials[m.group()])
            pos = m.end()
            if len(ids) >= room:
                break
        self._encode_plain(text[pos:], ids, room)
        return [self.cls, *ids[:room], self.sep]

    def _encode_plain(self, text: str, ids: list[int], room: int) -> None:
        if not text or len(ids) >= room:
            return
        for w in self.words(self.normalize(text)):
            ids += self.word_ids(w)
            if len(ids) >= room:
                return


# ------------------------------------------------------------------ which tokenizer.json

def _flag(v, default: bool) -> bool | None:
    return default if v is None else v if isinstance(v, bool) else None


def from_config(tj: dict, max_len: int) -> WordPiece | None:
    """The tokenizer a parsed tokenizer.json describes, or None when it is not BERT's WordPiece
    exactly as this module reproduces it."""
    norm, pre, model, post = (tj.get(k) if isinstance(tj.get(k), dict) else {}
                              for k in ("normalizer", "pre_tokenizer", "model", "post_processor"))
    if (norm.get("type") != "BertNormalizer" or pre != {"type": "BertPreTokenizer"}
            or model.get("type") != "WordPiece" or max_len < 2):
        return None
    lower = _flag(norm.get("lowercase"), True)
    flags = [_flag(norm.get("clean_text"), True), _flag(norm.get("handle_chinese_chars"), True),
             _flag(norm.get("strip_accents"), bool(lower)), lower]  # strip_accents null: as lowercase
    vocab, unk = model.get("vocab"), model.get("unk_token")
    prefix, max_chars = model.get("continuing_subword_prefix"), model.get("max_input_chars_per_word")
    if (None in flags or not isinstance(vocab, dict) or not vocab or unk not in vocab
            or not isinstance(prefix, str) or type(max_chars) is not int):
        return None
    specials = {}
    for t in tj.get("added_tokens") or []:
        if (t.get("special") is not True or t.get("normalized") is not False or t.get("lstrip")
                or t.get("rstrip") or t.get("single_word") or not isinstance(t.get("content"), str)
                or not t["content"] or type(t.get("id")) is not int):
            return None
        specials[t["content"]] = t["id"]
    ends = _cls_sep(post)
    if ends is None:
        return None
    return WordPiece(vocab, unk=unk, prefix=prefix, max_chars=max_chars, cls=ends[0], sep=ends[1],
                     specials=specials, max_len=max_len, clean_text=flags[0], chinese_chars=flags[1],
                     strip_accents=flags[2], lowercase=flags[3])


def _cls_sep(post: dict) -> tuple[int, int] | None:
    """The ids put before and after a single text: TemplateProcessing `X $A Y` or BertProcessing."""
    if post.get("type") == "BertProcessing":
        cls, sep = post.get("cls"), post.get("sep")
        ok = all(isinstance(x, list) and len(x) == 2 and type(x[1]) is int for x in (cls, sep))
        return (cls[1], sep[1]) if ok else None
    if post.get("type") != "TemplateProcessing":
        return None
    single = post.get("single") or []
    shape = [next(iter(p), None) for p in single]
    if shape != ["SpecialToken", "Sequence", "SpecialToken"] or single[1]["Sequence"].get("id") != "A":
        return None
    ids = []
    for p in (single[0], single[2]):
        spec = (post.get("special_tokens") or {}).get(p["SpecialToken"].get("id")) or {}
        if not isinstance(spec.get("ids"), list) or len(spec["ids"]) != 1 or type(spec["ids"][0]) is not int:
            return None
        ids.append(spec["ids"][0])
    return ids[0], ids[1]

