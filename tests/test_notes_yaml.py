"""notes.simple_yaml, the fast path for simple properties: whatever it reads, it reads as
yaml.safe_load does (same values, same types, same key order); what it is unsure of it leaves to
PyYAML (None)."""
from __future__ import annotations

import datetime as dt

import pytest
import yaml

from memory_plugin.vault import notes as N

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


FAST = [
    'title: "Server tag node command façade"\ncreated: 2022-02-21\ntags:\n  - book\n  - status/active\n',
    "title: Plain title with  two spaces   \ntype: decision\n",
    "tags: [a, b,c ,  d]\naliases: []\nempty: [ ]\n",
    "tags:\n- a\n- 'b c'\n-   \"d\"\n\nnext: x\n",
    "key:\nother: 1\nzero: 0\nbig: 12345678901234567890\n",
    "private: true\nflag: False\nup: ON\nnone: ~\nnull_word: null\nn: n\ny: y\n",
    "source: https://example.com/a?b=c\n",
    "title: Bob's note\nq: say \"hi\" there\n",
    "dup: 1\nother: 2\ndup: 3\n",
    "title: 知识图谱 ünïcödé\n",
    "status: open\nproject: '[[Beacon]]'\nrel: \"[[A]], [[B]]\"\n",
    "confidence: 0.7\nweight: 10.50\nlead: 007.5\nnums: [0.25, 1.0]\n",  # plain decimals: floats
    "created: 2023-02-29\n",  # not a date: PyYAML raises, so the fast path must not answer
]

UNSURE = [
    "a: 1.5\n", "a: 10:30\n", "a: -3\n", "a: +3\n", "a: 007\n", "a: 0x1f\n", "a: 1_000\n", "a: 2022-1-5\n",
    "a: 2022-02-21 10:00:00\n", "a: .inf\n", "a: <<\n", "a: =\n",
    "a: b: c\n", "a: b:\n", "a: x # comment\n", "# only a comment\n", "a: &x 1\nb: *x\n",
    "a: !!str 1\n", "a: |\n  text\n", "a: >\n  text\n", "a: \"esc\\n\"\n", "a: 'it''s'\n",
    "a: \"open\n  close\"\n", "a: plain\n  continued\n", "a:\n  b: 1\n", "a:\n  - x\n    - y\n",
    "a:\n  - x\n - y\n", "a:\n  - x\n  more\n", "a:\n  - b: 1\n", "a:\n  -\n", "a: [x, [y]]\n",
    "a: [x: 1]\n", "a: [\"x, y\"]\n", "a: [x,]\n", "a: {b: 1}\n", "a: - x\n", "- x\n- y\n",
    "key:value\n", "key : value\n", " a: 1\n", "a:\tb\n", "on: x\n", "null: x\n", "yes: x\n",
    "a: @x\n", "a: `x`\n", "a: %x\n", "a: ?x\n", "a: \x07\n", "a: b\u2028c\n", "a: \ufeffb\n",
    "---\na: 1\n", "a: [x\n", "1: x\n", "\n\n",
]


@pytest.mark.parametrize("text", FAST)
def test_fast_path_reads_as_pyyaml(text):
    try:
        want = yaml.load(text, Loader=Loader)
    except Exception:
        assert N.simple_yaml(text) is None
        return
    got = N.simple_yaml(text)
    assert got is not None, "expected the fast path to read this"
    assert _same(got, want), (got, want)


@pytest.mark.parametrize("text", UNSURE)
def test_fast_path_leaves_the_rest_to_pyyaml(text):
    got = N.simple_yaml(text)
    if got is not None:  # answering is allowed only when it is exactly PyYAML's answer
        assert _same(got, yaml.load(text, Loader=Loader)), (got, text)


def test_dates_and_types():
    got = N.simple_yaml("d: 2022-02-21\ni: 42\nb: no\nn:\n")
    assert got == {"d": dt.date(2022, 2, 21), "i": 42, "b": False, "n": None}


def test_every_fixture_and_generated_frontmatter(tmp_path):
    """Every frontmatter of the fixture vault and of a generated vault: the fast path reads most of
    them, and those exactly as PyYAML does."""
    from conftest import FIXTURE_VAULT, gen_vault

    gen = gen_vault(tmp_path / "gen" / "vault", 300, 3)
    total = fast = 0
    for root in (FIXTURE_VAULT, gen):
        for p in sorted(root.rglob("*.md")):
            text, _ = N.decode(p.read_bytes())
            fm = N.split_frontmatter(text)[0] if text is not None else None
            if not fm or not fm.strip():
                continue
            total += 1
            got = N.simple_yaml(fm)
            if got is None:
                continue
            fast += 1
            assert _same(got, yaml.load(fm, Loader=Loader)), p
    assert total > 250 and fast > total // 2


def test_hard_ascii_characters_are_those_of_the_full_pattern():
    """_YAML_HARD_ASCII (simple_yaml's check for ASCII text) finds exactly the ASCII characters
    _YAML_HARD_PATTERN finds."""
    chars = "".join(map(chr, range(128)))
    assert [m.start() for m in N._YAML_HARD_ASCII.finditer(chars)] == [m.start() for m in N._yaml_hard().finditer(chars)]
