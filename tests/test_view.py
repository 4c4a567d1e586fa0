"""graph.html without a browser: written by `view` and by every rebuild, private-safe, self-contained,
bounded in size."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import gen_vault, run_cli
from memory_plugin.outputs import view as V
from memory_plugin.core.config import load_config
from memory_plugin.index.store import open_index
from memory_plugin.outputs.pipeline import rebuild


def _page_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S)
    assert m, "the data script element is missing"
    return json.loads(m.group(1))


def _build(vault: Path, **overrides):
    cfg = load_config(vault=vault, overrides=overrides or None)
    rebuild(cfg)
    return cfg


def test_view_writes_the_page_and_prints_its_path(vault, cache_dir):
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    page = cache_dir / "graph.html"
    page.unlink()
    r = run_cli("--vault", str(vault), "view")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(page)
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>")
    assert _page_data(html)["meta"]["notes"] > 0


def test_view_out_writes_elsewhere(vault, tmp_path):
    run_cli("--vault", str(vault), "rebuild")
    out = tmp_path / "sub" / "g.html"
    r = run_cli("--vault", str(vault), "view", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out) and out.exists()


def test_view_without_index_says_how_to_fix(vault):
    r = run_cli("--vault", str(vault), "view")
    assert r.returncode != 0
    assert "memory-plugin rebuild" in r.stderr and "Traceback" not in r.stderr


def test_rebuild_and_view_write_the_same_page(vault, cache_dir, tmp_path):
    run_cli("--vault", str(vault), "rebuild")
    out = tmp_path / "again.html"
    run_cli("--vault", str(vault), "view", "--out", str(out))
    assert (cache_dir / "graph.html").read_bytes() == out.read_bytes()


def test_status_and_report_link_to_the_page(vault, cache_dir):
    run_cli("--vault", str(vault), "rebuild")
    assert f"file://{cache_dir / 'graph.html'}" in run_cli("--vault", str(vault), "status").stdout
    assert "(graph.html)" in (cache_dir / "GRAPH_REPORT.md").read_text(encoding="utf-8")


def test_private_notes_and_excluded_folders_never_appear(vault, cache_dir):
    (vault / "Personal" / "Diary.md").write_text(
        "---\nprivate: true\ntags: [zzsecrettag]\naliases: [zzsecretalias]\n---\n# Diary\n"
        "Met [[Zzsecret unwritten target]] and embedded ![[Attachments/zzsecret.png]].\n", encoding="utf-8")
    (vault / "Attachments" / "zzsecret.png").write_bytes(b"\x89PNG")
    (vault / "Inbox" / "Points at diary.md").write_text(
        "---\nrelated: \"[[Diary]]\"\n---\nSee [[Diary]] and [[Home]].\n", encoding="utf-8")
    (vault / "Templates").mkdir(exist_ok=True)
    (vault / "Templates" / "Zzexcluded template.md").write_text("# Zzexcluded template\n[[Home]]\n", encoding="utf-8")
    cfg = _build(vault)
    html = (cache_dir / "graph.html").read_text(encoding="utf-8")
    conn = open_index(cfg)
    private = conn.execute("SELECT path, title FROM notes WHERE private = 1").fetchall()
    conn.close()
    assert len(private) >= 2
    for path, title in private:
        assert path not in html and title not in html, path
    for secret in ("zzsecret", "sk-test", "Zzexcluded"):
        assert secret.lower() not in html.lower(), secret
    # files of excluded folders are link targets only: drawn as such, their own links never
    data0 = _page_data(html)
    tpl = [k for k, n in enumerate(data0["nodes"]["id"]) if n.startswith("Templates/")]
    assert all(data0["edges"][j] not in tpl for j in range(0, len(data0["edges"]), 3))
    data = _page_data(html)
    i = data["nodes"]["id"].index("Inbox/Points at diary.md")
    flat = data["edges"]
    assert [flat[j + 1] for j in range(0, len(flat), 3) if flat[j] == i] == [data["nodes"]["id"].index("Home.md")]
    assert data["props"][str(i)]["related"] == "[[private note]]"


def test_page_is_self_contained(vault, cache_dir):
    (vault / "Inbox" / "Nasty.md").write_text(
        "---\naliases: ['</script><script>alert(1)</script>']\nsource: https://example.com/x\n---\n"
        "# Nasty </script> title\n", encoding="utf-8")
    _build(vault)
    html = (cache_dir / "graph.html").read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the data and the code, nothing broke out
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    code = html.split('id="graph-data">', 1)[0] + html.rsplit("</script>", 2)[1]
    for forbidden in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "EventSource", "sendBeacon",
                      "@import", "url(http", "<iframe", "<link rel=\"stylesheet\""):
        assert forbidden not in code, forbidden
    assert "default-src 'none'" in html  # and the browser refuses anything else
    data = _page_data(html)
    assert "</script><script>alert(1)</script>" in [a for al in data["nodes"]["a"] for a in al]


def test_all_notes_are_searchable_but_only_a_subset_is_drawn(tmp_path, cache_dir):
    v = gen_vault(tmp_path / "v", 300)
    cfg = _build(v, html_max_nodes=60)
    data = V.build_data(cfg, open_index(cfg))
    assert data["meta"]["notes"] == 300
    assert sum(1 for k in data["nodes"]["k"] if k == V.NOTE) == 300
    initial = data["initial"]
    assert 0 < len(initial) <= 60
    hubs = [i for i in range(300) if data["nodes"]["fl"][i] & V.HUB]
    assert hubs and set(hubs[:5]) <= set(initial)


def test_entry_points_are_the_hubs_the_brief_lists_and_never_private(vault, cache_dir):
    """The page opens a big vault on its entry points: index/graph.py hubs(), in its order. A private
    hub linked from many notes is not an entry point (nor in the page)."""
    from memory_plugin.index.graph import hubs

    (vault / "Personal" / "Zz hub.md").write_text("---\nprivate: true\ntype: hub\n---\n# Zz hub\n" + "".join(
        f"- [[Zz points {k}]]\n" for k in range(12)), encoding="utf-8")
    for k in range(12):
        (vault / "Inbox" / f"Zz points {k}.md").write_text(f"# Zz points {k}\n[[Zz hub]] [[Home]]\n", encoding="utf-8")
    cfg = _build(vault)
    data = _page_data((cache_dir / "graph.html").read_text(encoding="utf-8"))
    conn = open_index(cfg)
    from memory_plugin.index.graph import degrees

    assert degrees(conn)["Personal/Zz hub.md"][0] >= 12  # more linked than most notes
    expected = [h["path"] for h in hubs(conn, cfg.hub_count)]
    conn.close()
    ids = data["nodes"]["id"]
    assert [ids[i] for i in data["entry"]] == expected and len(expected) == cfg.hub_count
    assert "Personal/Zz hub.md" not in ids
    assert data["meta"]["label_all"] == V.LABEL_ALL_MAX


def test_small_vault_draws_every_note(vault, cache_dir):
    cfg = _build(vault)
    data = V.build_data(cfg, open_index(cfg))
    assert data["initial"] == list(range(data["meta"]["notes"]))


def test_superseded_and_retracted_are_flagged(vault, cache_dir):
    (vault / "Decisions" / "Zz old.md").write_text("---\ntype: decision\nstatus: retracted\n---\n# Zz old\n",
                                                  encoding="utf-8")
    (vault / "Decisions" / "Zz older.md").write_text("---\ntype: decision\n---\n# Zz older\n", encoding="utf-8")
    (vault / "Decisions" / "Zz new.md").write_text("---\ntype: decision\nsupersedes: \"[[Zz older]]\"\n---\n",
                                                  encoding="utf-8")
    cfg = _build(vault)
    data = V.build_data(cfg, open_index(cfg))
    ids, fl = data["nodes"]["id"], data["nodes"]["fl"]
    assert fl[ids.index("Decisions/Zz old.md")] & V.RETRACTED
    assert fl[ids.index("Decisions/Zz older.md")] & V.SUPERSEDED
    assert not fl[ids.index("Decisions/Zz new.md")] & V.SUPERSEDED
    assert "supersedes" in data["etypes"]


@pytest.mark.slow
def test_page_stays_under_10_mb_at_10k_notes(tmp_path, cache_dir):
    """Measured on 2k notes and extrapolated linearly (the page is linear in notes and links);
    bench/bench_view.py measures a real 10k vault."""
    v = gen_vault(tmp_path / "v", 2000)
    _build(v)
    size = (cache_dir / "graph.html").stat().st_size
    assert size * 5 < 10_000_000, f"{size} bytes at 2k notes"


@pytest.mark.parametrize("case", ["parent-is-a-file", "under-a-file", "a-folder", "a-note"])
def test_view_out_to_a_bad_place_is_a_one_line_error(vault, tmp_path, case):
    run_cli("--vault", str(vault), "rebuild")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    out = {"parent-is-a-file": tmp_path / "afile" / "g.html", "under-a-file": tmp_path / "afile" / "sub" / "g.html",
           "a-folder": tmp_path / "adir", "a-note": vault / "Home.md"}[case]
    before = (vault / "Home.md").read_bytes()
    r = run_cli("--vault", str(vault), "view", "--out", str(out))
    assert r.returncode == 2 and r.stderr.startswith("Error:") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert (vault / "Home.md").read_bytes() == before and (tmp_path / "afile").read_text() == "x"


def _cite(vault: Path, n: int, files: list[str], project: str = "starlette") -> list[str]:
    """n notes citing `files` (note k cites files[k % len(files)] and the next one); their paths."""
    (vault / "Code").mkdir(exist_ok=True)
    out = []
    for k in range(n):
        a, b = files[k % len(files)], files[(k + 1) % len(files)]
        (vault / "Code" / f"Zz code {k}.md").write_text(
            f"---\ntype: pitfall\nproject: {project}\n---\n# Zz code {k}\nSee `{a}:{k + 1}` and `{b}`; [[Home]].\n",
            encoding="utf-8")
        out.append(f"Code/Zz code {k}.md")
    return out


def test_files_notes_cite_are_nodes_of_their_own_kind(vault, cache_dir):
    files = ["starlette/routing.py", "starlette/middleware/base.py", "zz_tools/a_very_long_folder_name/deeper/still/lint.sh"]
    notes = _cite(vault, 5, files)
    (vault / "Personal" / "Zz diary code.md").write_text(
        "---\nprivate: true\nproject: starlette\n---\n`zzsecret/only_here.py` and `starlette/routing.py`\n", encoding="utf-8")
    cfg = _build(vault)
    html = (cache_dir / "graph.html").read_text(encoding="utf-8")
    data = _page_data(html)
    n, flat = data["nodes"], data["edges"]
    got = {n["id"][i]: i for i in range(len(n["id"])) if n["k"][i] == V.FILE}
    assert {n["t"][i] for i in got.values()} >= set(files)  # labelled by their path
    cites = data["etypes"].index("cites")
    citing = {}
    for j in range(0, len(flat), 3):
        if flat[j + 2] == cites:
            assert n["k"][flat[j]] == V.NOTE and n["k"][flat[j + 1]] == V.FILE
            citing.setdefault(n["t"][flat[j + 1]], set()).add(n["id"][flat[j]])
    # several notes citing one file meet at its one node
    assert {f: citing[f] & set(notes) for f in files} == {f: {notes[k] for k in range(5) if f in (
        files[k % 3], files[(k + 1) % 3])} for f in files}
    assert data["meta"]["files"] == len(got)
    assert "zzsecret" not in html and "Zz diary code" not in html
    assert all(n["k"][i] == V.NOTE for i in data["entry"]) and all(n["k"][i] == V.NOTE for i in data["initial"])


def test_the_first_view_is_the_same_with_or_without_files(tmp_path, cache_dir):
    """Files notes cite change neither the entry points nor the notes the whole graph opens on."""
    v = gen_vault(tmp_path / "v", 300)
    _cite(v, 30, [f"pkg/mod{k}.py" for k in range(7)])
    cfg = _build(v, html_max_nodes=60)
    conn = open_index(cfg)
    try:
        with_files = V.build_data(cfg, conn)
        conn.execute("BEGIN")
        conn.execute("DELETE FROM anchors")
        without = V.build_data(cfg, conn)
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    assert with_files["meta"]["files"] == 7 and without["meta"]["files"] == 0
    assert with_files["entry"] == without["entry"] and with_files["initial"] == without["initial"]
    notes = with_files["meta"]["notes"]
    for col, values in with_files["nodes"].items():
        assert values[:notes] == without["nodes"][col][:notes], col
