"""Link and tag extraction and Obsidian's resolution, against hand-written cases and the
generator's ground truth."""
import json
from collections import Counter

import pytest

from memory_plugin.vault import links as L
from memory_plugin.core.config import load_config
from memory_plugin.vault.notes import parse_note

from conftest import gen_vault, run_cli


def kinds(body):
    return [(l.kind, l.linkpath, l.subpath, l.display, l.prop) for l in L.extract_body_links(body)]


@pytest.mark.parametrize("body,expected", [
    ("[[Name]]", [("link", "Name", "", "", None)]),
    ("[[Name.md]]", [("link", "Name.md", "", "", None)]),
    ("[[Name|shown]]", [("link", "Name", "", "shown", None)]),
    ("[[Name#Heading]]", [("link", "Name", "#Heading", "", None)]),
    ("[[Name#H1#H2]]", [("link", "Name", "#H1#H2", "", None)]),
    ("[[Name#^abc123]]", [("link", "Name", "#^abc123", "", None)]),
    ("[[#Heading]]", [("link", "", "#Heading", "", None)]),
    ("![[Embed]]", [("embed", "Embed", "", "", None)]),
    ("![[x.webp|265]]", [("embed", "x.webp", "", "265", None)]),
    ("[[folder/Name]]", [("link", "folder/Name", "", "", None)]),
    ("| a | [[Name\\|shown]] |", [("link", "Name", "", "shown", None)]),
    ("[t](../x/My%20Note.md)", [("mdlink", "../x/My Note.md", "", "t", None)]),
    ("[t](<../x/My Note.md>)", [("mdlink", "../x/My Note.md", "", "t", None)]),
    ("[t](Note.md#Sec)", [("mdlink", "Note.md", "#Sec", "t", None)]),
    ("![alt](img.png)", [("embed", "img.png", "", "alt", None)]),
    ("[t](https://example.com/#x) [m](mailto:a@b.c)", []),
    ("implements:: [[Auth]]", [("property", "Auth", "", "", "implements")]),
    ("- related:: [[A]], [[B]]", [("property", "A", "", "", "related"), ("property", "B", "", "", "related")]),
    ("%% [[Counted]] %%", [("link", "Counted", "", "", None)]),
    ("\\[\\[not a link\\]\\]", []),
    ("`[[inline code]]`", []),
    ("<!-- [[html comment]] -->", []),
    ("<!--\n[[multi\nline]] [[x]]\n-->", []),
    ("```\n[[fenced]]\n```\n[[after]]", [("link", "after", "", "", None)]),
    ("~~~python\n[[tilde]]\n~~~", []),
    ("````\n```\n[[nested]]\n```\n````\n", []),
])
def test_extraction(body, expected):
    assert kinds(body) == expected


def test_line_numbers_survive_masking():
    body = "a\n```\n[[x]]\n```\n<!--\n-->\n[[y]]\n"
    assert [l.line for l in L.extract_body_links(body)] == [7]


@pytest.mark.parametrize("text,tags", [
    ("#tag #nested/deep #café", ["tag", "nested/deep", "café"]),
    ("#1984 is a year, #y1984 is a tag", ["y1984"]),
    ("see https://example.com/page#fragment and a#b", []),
    ("# Heading\n## Sub", []),
    ("end of sentence #done.", ["done"]),
    ("(#paren) #ok", ["ok"]),
])
def test_inline_tags(text, tags):
    assert L.extract_inline_tags(L.mask_non_content(text)) == tags


def test_frontmatter_tags_links_and_broken_yaml():
    cfg = load_config(vault="/tmp")
    raw = ("---\ntags: python, testing\naliases: [WAL]\nrelated: [\"[[A]]\", \"[[B|b]]\"]\n"
           "supersedes: \"[[Old]]\"\nsummary: Short.\n---\n# Shown Title\nBody #inline `#code`\n").encode()
    n = parse_note("dir/Note.md", raw, cfg.values)
    assert n.tags == ["python", "testing", "inline"]
    # a plain folder's note is titled by its file name (not a slug); its H1 is an alias (vault/dialect.py)
    assert n.aliases == ["WAL", "Shown Title"] and n.summary == "Short." and n.display_title == "Note"
    assert [(l.prop, l.linkpath) for l in n.links] == [("related", "A"), ("related", "B"), ("supersedes", "Old")]
    bad = b"---\ncreated: {{date}}\nauthors:\n- @name\n---\nStill [[Linked]] #tagged\n"
    n = parse_note("Bad.md", bad, cfg.values)
    assert n.warnings and "invalid YAML" in n.warnings[0]
    assert [l.linkpath for l in n.links] == ["Linked"] and n.tags == ["tagged"]


def test_bom_crlf_and_skips():
    cfg = load_config(vault="/tmp")
    n = parse_note("C.md", "\ufeff---\r\ntype: pitfall\r\n---\r\nText [[X]]\r\n".encode(), cfg.values)
    assert n.type == "pitfall" and [l.linkpath for l in n.links] == ["X"] and n.links[0].line == 4
    nul = parse_note("B.md", b"text\x00 with a NUL [[Linked]]\n", cfg.values)  # UTF-8: read, as Obsidian does
    assert not nul.skipped and [l.linkpath for l in nul.links] == ["Linked"] and "\x00" not in nul.body
    assert parse_note("L.md", "caf\xe9".encode("latin-1"), cfg.values).skipped
    assert parse_note("E.md", b"", cfg.values).warnings == ["empty note"]
    big = parse_note("G.md", b"x" * (cfg.max_note_bytes + 1), cfg.values)
    assert big.skipped and "max_note_bytes" in big.warnings[0]


def test_resolution_rules():
    files = ["Projects/atlas/Overview.md", "Archive/Overview.md", "Concepts/WAL.md", "Root.md",
             "Attachments/arch.png", "a/Dup.md", "a/b/Dup.md", "Notes/v1.2 notes.md"]
    r = L.Resolver(files)
    assert r.resolve("overview", "Projects/atlas/Task.md") == ("Projects/atlas/Overview.md", False)
    assert r.resolve("Overview", "Root.md") == ("Archive/Overview.md", True)  # shortest, ambiguous
    assert r.resolve("Projects/atlas/Overview", "Archive/x.md") == ("Projects/atlas/Overview.md", False)
    assert r.resolve("wal", "x.md") == ("Concepts/WAL.md", False)
    assert r.resolve("WAL.md", "x.md") == ("Concepts/WAL.md", False)
    assert r.resolve("arch.png", "x.md") == ("Attachments/arch.png", False)
    assert r.resolve("Missing", "x.md") == (None, False)
    assert r.resolve("", "Root.md") == ("Root.md", False)
    assert r.resolve("../Concepts/WAL.md", "Projects/x.md") == ("Concepts/WAL.md", False)
    assert r.resolve("../../../x.md", "a/x.md") == (None, False)
    assert r.resolve("v1.2 notes", "x.md") == ("Notes/v1.2 notes.md", False)
    assert r.resolve("Dup", "a/b/c.md") == ("a/b/Dup.md", False)
    assert r.resolve("Dup", "a/c.md")[0] == "a/Dup.md"


def _check_against_groundtruth(vault, cache):
    import sqlite3

    gt = [json.loads(l) for l in (vault / ".groundtruth" / "links.jsonl").open(encoding="utf-8")]
    kind = {"link": "link", "embed": "embed", "mdlink": "mdlink", "property": "frontmatter"}
    conn = sqlite3.connect(cache / "index.sqlite")
    ours = Counter((s, kind[k], t if t else "?" + lp.lower())
                   for s, k, lp, t in conn.execute("SELECT src, kind, linkpath, target FROM links"))
    exp = Counter((r["src"], r["kind"], r["target"] if r["target"] else "?" + r["dangling_name"].lower())
                  for r in gt)
    assert sum(exp.values()) > 0
    assert not (exp - ours) and not (ours - exp), (list((exp - ours).items())[:5], list((ours - exp).items())[:5])
    forms = Counter(f for r in gt for f in r["form"])
    return forms


@pytest.mark.slow
def test_generated_vault_matches_ground_truth_exactly(tmp_path, cache_dir):
    vault = gen_vault(tmp_path / "v", 2000, 3, "--md-link-share", "0.08", "--case-variant-link-share", "0.1",
                      "--path-link-share", "0.15", "--dup-share", "0.08")
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    forms = _check_against_groundtruth(vault, cache_dir)
    # every form the generator knows was exercised
    for f in ("alias", "heading", "block", "embed", "attachment", "dangling", "folder-path", "case-variant",
              "markdown", "frontmatter", "same-note", "path-qualified-for-duplicate"):
        assert forms[f] > 0, f


def _add_block_decoys(path, i):
    """Open code spans that CommonMark closes at the next block, and a NUL byte: no link changes."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    h1 = next(k for k, l in enumerate(lines) if l.startswith("# "))
    opener = ["- plan it in a ```schedule block", "- and a second item"] if i % 2 else \
        ["A paragraph that opens ` one backtick and never closes it.", ""]
    lines[h1 + 1:h1 + 1] = opener
    closer = "- the ``` that would close it" if i % 2 else "The ` that would close it."
    lines += ["", closer, "", f"A pasted NUL byte \x00 in note {i}.", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def test_generated_vault_with_open_code_spans_and_nul_bytes(tmp_path, cache_dir):
    """The generator's ground truth still holds when every note gets an unclosed code span before
    its links (closed only after them, blocks later) and a NUL byte."""
    vault = gen_vault(tmp_path / "v", 300, 5, "--md-link-share", "0.08", "--hub-share", "0.05")
    notes = sorted(p for p in vault.rglob("*.md") if ".groundtruth" not in p.parts)
    for i, p in enumerate(notes):
        _add_block_decoys(p, i)
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    _check_against_groundtruth(vault, cache_dir)


@pytest.mark.parametrize("body,links", [
    ("- in a ```schedule block\n- [[A]]\n- [[B]] ```", ["A", "B"]),
    ("p `open\n\n[[A]] `", ["A"]),
    ("> `open\n> [[A]] `", ["A"]),
    ("# h `open\n[[A]] `", ["A"]),
    ("text\n\n## h `open\n[[A]] `", ["A"]),
    ("text\n\n## h\nx `open\n[[X]] `", []),
    ("1. `open\n2. [[A]] `", ["A"]),
    ("p `open\n---\n[[A]] `", ["A"]),
    ("a `span\ncontinues [[X]]` [[A]]", ["A"]),         # one paragraph: a span may run over lines
    ("x ``a` [[X]] ``", []),                              # `` closes ``, the single ` inside is code
    ("x `a ``b` [[A]]", ["A"]),
    ("\\`[[A]]`", ["A"]),                                 # an escaped backtick opens nothing
    ("````\n[[X]]\n````\n[[A]]", ["A"]),                  # a fence, not a code span
])
def test_code_spans_follow_commonmark(body, links):
    assert [l.linkpath for l in L.extract_body_links(body)] == links


# The fast scanners (no look-behind at the pattern's start) find exactly what the patterns find.
from hypothesis import given, settings, strategies as st  # noqa: E402

_LINKY = st.text(alphabet="[]!\\#|^ \n\ta/-1é_:.", max_size=60)


@settings(max_examples=600, deadline=None)
@given(_LINKY)
def test_iter_wikilinks_finds_what_the_wikilink_pattern_finds(text):
    want = [(m.start(), m.end(), bool(m.group(1)), m.group(2)) for m in L.WIKILINK_RE.finditer(text)]
    assert list(L.iter_wikilinks(text)) == want


def _mdlinks_by_pattern(text):
    return [(m.start(), m.end(), m.group(1) == "!", m.group(2), m.group(3)) for m in L.MDLINK_RE.finditer(text)]


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="![]()<>\\ \n\"'ab#:/", max_size=60))
def test_iter_mdlinks_finds_what_the_markdown_link_pattern_finds(text):
    assert list(L.iter_mdlinks(text)) == _mdlinks_by_pattern(text)


@pytest.mark.parametrize("text", ["[a](b)", "![a](b)", "\\[a](b)", "]![a](b)", "\\![a](b)", "!![a](b)", "][a](b)[c](d)",
                                  "[[a](b)", "![a](<b c> 't')", "[a]](b)", "x\\![a](b)"])
def test_iter_mdlinks_edge_cases(text):
    assert list(L.iter_mdlinks(text)) == _mdlinks_by_pattern(text)


def _tags_by_pattern(masked):
    out = []
    for m in L.TAG_RE.finditer(masked):
        t = m.group(1).rstrip("/-")
        if t and not t.replace("/", "").isdigit() and any(not c.isdigit() for c in t):
            out.append(t)
    return out


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="#a1/- \n\t\u00a0\u2003.,é\x1c", max_size=60))
def test_inline_tags_found_as_the_tag_pattern_finds_them(text):
    assert L.extract_inline_tags(text) == _tags_by_pattern(text)


@pytest.mark.parametrize("text", ["![[a]]", "\\![[a]]", "\\[[a]]", "!![[a]]", "\\\\[[a]]", "[[[a]]]", "x![[a]]![[b]]",
                                  "[[a]]\\[[b]]![[c]]", "![[]]", "[[a]][[b]]"])
def test_iter_wikilinks_edge_cases(text):
    want = [(m.start(), m.end(), bool(m.group(1)), m.group(2)) for m in L.WIKILINK_RE.finditer(text)]
    assert list(L.iter_wikilinks(text)) == want


def test_generated_vault_with_an_excluded_folder_keeps_its_files_as_link_targets(tmp_path, cache_dir):
    """Exclude the top folder that other notes link into most: its notes are no sources (their links
    are gone, they are no notes of the graph) but every link into it still resolves exactly as the
    generator's ground truth says."""
    import sqlite3

    vault = gen_vault(tmp_path / "v", 400, 7, "--dup-share", "0.05", "--md-link-share", "0.08")
    gt = [json.loads(l) for l in (vault / ".groundtruth" / "links.jsonl").open(encoding="utf-8")]
    top = lambda p: p.split("/", 1)[0] if "/" in p else None  # noqa: E731
    into = Counter(top(r["target"]) for r in gt if r["target"] and top(r["target"]) and top(r["src"]) != top(r["target"]))
    folder = into.most_common(1)[0][0]
    conf = tmp_path / "exclude.yaml"
    conf.write_text(f'exclude: [".trash", "Templates", "{folder}"]\n', encoding="utf-8")
    r = run_cli("--vault", str(vault), "rebuild", env={"MEMORY_PLUGIN_CONFIG": str(conf)})
    assert r.returncode == 0, r.stderr
    kind = {"link": "link", "embed": "embed", "mdlink": "mdlink", "property": "frontmatter"}
    conn = sqlite3.connect(cache_dir / "index.sqlite")
    ours = Counter((s, kind[k], t if t else "?" + lp.lower())
                   for s, k, lp, t in conn.execute("SELECT src, kind, linkpath, target FROM links"))
    exp = Counter((r["src"], r["kind"], r["target"] if r["target"] else "?" + r["dangling_name"].lower())
                  for r in gt if top(r["src"]) != folder)
    assert not (exp - ours) and not (ours - exp), (list((exp - ours).items())[:5], list((ours - exp).items())[:5])
    assert sum(n for (s, k, t), n in exp.items() if top(t) == folder) >= 5  # links into it, all resolved
    assert not conn.execute("SELECT count(*) FROM notes WHERE path LIKE ?", (folder + "/%",)).fetchone()[0]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from("a b c d".split()), max_size=12), st.lists(st.sampled_from("a b c".split()), max_size=4))
def test_contains_seq_finds_a_run_of_words_exactly_where_a_scan_does(hay, needle):
    from memory_plugin.core.textutil import contains_seq

    n = len(needle)
    want = bool(n) and n <= len(hay) and any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))
    assert contains_seq(hay, needle) == want


_PATH_PART = st.sampled_from(["a", ".b", "Templates", "notes", "draft-1.md", "x.md", "[x].md", "Daily", "c.d"])


@given(st.lists(_PATH_PART, min_size=1, max_size=4),
       st.lists(st.sampled_from([".trash", "Templates", "/notes/", "notes/draft-*", "*/Templates", "*.md",
                                 "[x].md", "Daily/*.md", "", "/"]), max_size=3))
def test_compiled_excludes_decide_as_the_plain_rule(parts, excludes):
    """paths.excluder (patterns compiled once for the scan) against the rule written out: a dot
    part, an exclude equal to the path or a folder above it, or an fnmatch glob."""
    import fnmatch

    from memory_plugin.core.paths import excluder

    rel = "/".join(parts)
    pats = [e.strip("/") for e in excludes if e.strip("/")]
    want = any(p.startswith(".") for p in parts) or any(
        rel == e or rel.startswith(e + "/") or fnmatch.fnmatch(rel, e) for e in pats)
    assert excluder(excludes)(rel) == want


# Dendron's links (wiki.dendron.so, "Links"): `[[label|note]]` puts the label first, a note is named by
# its dotted file name, `[[note#heading]]` / `[[label|note#^block]]` point inside it, and
# `[[dendron://vault/note]]` names a note of a given vault of the workspace (the vault's name may
# hold dots, never a slash). In every other vault `[[target|label]]` stays Obsidian's order.
def test_dendron_links_read_label_first():
    body = ("See [[docs|dendron.ref.commands]] and [[Office Hours|dendron://dendron.dendron-site/community.events#summary,1:#*]],\n"
            "[[dendron://private.vault/people.ana]], [[pkg.cli#flags]], ![[recipes.favorites]],\n"
            "| a | [[Label\\|pkg.cli]] |\n")
    got = [(x.kind, x.linkpath, x.subpath, x.display) for x in L.extract_body_links(body, dialect="dendron")]
    assert got == [("link", "dendron.ref.commands", "", "docs"),
                   ("link", "community.events", "#summary,1:#*", "Office Hours"),
                   ("link", "people.ana", "", ""),
                   ("link", "pkg.cli", "#flags", ""),
                   ("embed", "recipes.favorites", "", ""),
                   ("link", "pkg.cli", "", "Label")]
    props = L.extract_property_links({"up": "[[Parent|pkg]]"}, "dendron")
    assert [(x.linkpath, x.display, x.prop) for x in props] == [("pkg", "Parent", "up")]
    # the same text in an Obsidian vault: target first, and a dendron:// link is no note name
    obs = [(x.linkpath, x.display) for x in L.extract_body_links(body)]
    assert obs[0] == ("docs", "dendron.ref.commands") and obs[2] == ("dendron://private.vault/people.ana", "")
    assert L.split_wikilink("Name#H|shown") == ("Name", "#H", "shown")
    assert L.split_wikilink("shown|Name#H", label_first=True) == ("Name", "#H", "shown")


def test_an_escaped_hash_in_a_markdown_link_is_part_of_the_name():
    """`%23` is a `#` in the file's name (`# Writing a good CLAUDE.md.md`), not the heading mark: only
    a written `#` starts the heading; both parts are decoded."""
    from memory_plugin.vault.links import extract_body_links

    body = ("- [Writing](Articles/%23%20Writing%20a%20good%20CLAUDE.md.md)\n"
            "- [Ralph](Articles/%23%20a%20brief%20history%20of%20ralph.md#Part%20two)\n")
    got = [(ln.linkpath, ln.subpath) for ln in extract_body_links(body, 0)]
    assert got == [("Articles/# Writing a good CLAUDE.md.md", ""),
                   ("Articles/# a brief history of ralph.md", "#Part two")], got
