"""graphdata's compact graph gives exactly what networkx gives on the full MultiDiGraph: the same
graph.json bytes (nodes, edges, keys, order) and the same communities, both below and above the
Louvain size limit. The repository files notes cite are nodes of kind "file" with a "cites" edge from
each citing note: one node per file, per project; never a private note's, never a hub."""
import json
from collections import deque
from pathlib import Path

import networkx as nx
import pytest

from memory_plugin.index import graph as G
from memory_plugin.outputs import graphdata as GD
from memory_plugin.index import store as I
from memory_plugin.core.config import load_config

from conftest import FIXTURE_VAULT, gen_vault
from memory_plugin.index.graph import degrees, hubs
from memory_plugin.outputs.stage import write_graph_files


def _reference_partition(h, hubs, limit):
    """The community step as it was done on networkx graphs."""
    if h.number_of_nodes() <= limit:
        return nx.community.louvain_communities(h, seed=7)
    deg = dict(h.degree())
    seeds = [n for n in hubs if n in h]
    want = max(10, h.number_of_nodes() // 200)
    if len(seeds) < want:
        extra = sorted((n for n in h if n not in set(seeds)), key=lambda n: (-deg[n], n))
        seeds += extra[: want - len(seeds)]
    seeds.sort(key=lambda n: (-deg[n], n))
    owner = {s: s for s in seeds}
    queue = deque(seeds)
    while queue:
        u = queue.popleft()
        for v in h[u]:
            if v not in owner:
                owner[v] = owner[u]
                queue.append(v)
    parts = {}
    for n, o in owner.items():
        parts.setdefault(o, set()).add(n)
    rest = h.subgraph(n for n in h if n not in owner)
    return list(parts.values()) + [set(c) for c in nx.connected_components(rest)]


def _reference(conn, limit):
    g = G.build_graph(conn)
    h = nx.Graph()
    h.add_nodes_from(n for n, d in g.nodes(data=True) if d.get("kind") == "note")
    for u, v in g.edges():
        if u != v and g.nodes[u].get("kind") == "note" and g.nodes[v].get("kind") == "note":
            h.add_edge(u, v)
    h.remove_nodes_from([n for n in list(h) if g.nodes[n].get("type") == "journal" or g.nodes[n].get("private")])
    comms = []
    if h.number_of_edges():
        for members in _reference_partition(h, {n for n in h if g.nodes[n].get("hub")}, limit):
            if len(members) < 3:
                continue
            ranked = sorted(members, key=lambda n: (not g.nodes[n].get("hub"), -h.degree(n), n))
            comms.append({"name": g.nodes[ranked[0]].get("display_title") or ranked[0], "hub": ranked[0],
                          "has_hub": bool(g.nodes[ranked[0]].get("hub")), "size": len(members),
                          "members": ranked})
    comms.sort(key=lambda c: (-c["size"], c["hub"]))
    for c in comms:
        for m in c["members"]:
            g.nodes[m]["community"] = c["name"]
    # the files notes cite, added to the networkx graph as a networkx user would add them
    cf = GD.cited_files(conn)
    for fid, path, project in zip(cf.ids, cf.paths, cf.projects):
        g.add_node(fid, kind="file", path=path, project=project)
    for note, k in cf.cites:
        g.add_edge(note, cf.ids[k], type="cites")
    data = nx.node_link_data(g, edges="links")
    # privacy (issue 9): a private note is an opaque node, numbered as public notes first link to it
    priv = {n for n, d in g.nodes(data=True) if d.get("private")}
    ids = {}
    for e in data["links"]:
        if e["target"] in priv and e["target"] not in ids:
            ids[e["target"]] = f"private:{len(ids) + 1}"
    data["nodes"] = [{"kind": "note", "private": True, "id": ids[n["id"]]} if n["id"] in ids else n
                     for n in data["nodes"] if n["id"] not in priv or n["id"] in ids]
    for e in data["links"]:
        e["target"] = ids.get(e["target"], e["target"])
    return comms, json.dumps(data, ensure_ascii=False, default=str)


@pytest.fixture(scope="module", params=["fixture", "generated"])
def built(request, tmp_path_factory):
    base = tmp_path_factory.mktemp("gd")
    if request.param == "fixture":
        import shutil
        vault = base / "vault"
        shutil.copytree(FIXTURE_VAULT, vault, symlinks=True)
    else:
        vault = gen_vault(base / "vault", 600, 4, "--dup-share", "0.1")
    cfg = load_config(vault=vault, cache_dir=base / "cache")
    I.rebuild(cfg)
    return cfg, base


@pytest.mark.parametrize("limit", [GD.LOUVAIN_MAX_NODES, 40])
def test_compact_graph_equals_networkx(built, limit, monkeypatch):
    cfg, base = built
    monkeypatch.setattr(GD, "LOUVAIN_MAX_NODES", limit)
    conn = I.open_index(cfg)
    try:
        want_comms, want_json = _reference(conn, limit)
        ng = GD.load(conn)
        comms = GD.communities(ng)
        out = base / f"graph-{limit}.json"
        GD.write_json(conn, ng, comms, out)
    finally:
        conn.close()
    assert comms == want_comms and len(comms) >= 3
    assert out.read_text(encoding="utf-8") == want_json
    if built[0].vault.name == "vault" and (built[0].vault / "SOPs").is_dir():  # the fixture vault cites code
        assert '"kind": "file"' in want_json and '"type": "cites"' in want_json


# ---------------------------------------------------------------- files notes cite

CITING = {
    # note: (frontmatter lines, body)
    "Code/Middleware order.md": ("project: starlette", "Fixed in `starlette/middleware/base.py:40-52` and "
                                 "`starlette/routing.py`; the `send()` wrapper."),
    "Code/Base middleware.md": ("project: starlette", "See `middleware/base.py` and the top-level `README.md`."),
    "Code/Bare base.md": ("project: starlette", "Only `base.py` here, and `a/x/util.py`, `b/x/util.py`, "
                          "`x/util.py`."),
    "Code/Ledger readme.md": ("project: Ledger API", "`README.md` and app/api/webhooks/stripe.py:42 matter."),
    "Code/Ledger again.md": ("project: ledger-api", "Again `app/api/webhooks/stripe.py`."),
    "Code/No project.md": ("", "Routing lives in `starlette/routing.py`; webhooks in `webhooks/stripe.py`; "
                           "the `README.md`; and `tools/lint.sh`."),
    "Code/Symbols only.md": ("project: starlette", "`Router.url_path_for()` and `collapse_excgroups()` only."),
    "Code/Secret.md": ("project: starlette\nprivate: true", "`zzsecret/only_here.py` and `starlette/routing.py`."),
}
# node id -> (path, project as the first citing note in path order writes it, the notes citing it)
EXPECTED = {
    "file:starlette:starlette/middleware/base.py": ("starlette/middleware/base.py", "starlette",
                                                   {"Code/Middleware order.md", "Code/Base middleware.md"}),
    "file:starlette:starlette/routing.py": ("starlette/routing.py", "starlette",
                                           {"Code/Middleware order.md", "Code/No project.md"}),
    "file:starlette:README.md": ("README.md", "starlette", {"Code/Base middleware.md"}),
    "file:starlette:base.py": ("base.py", "starlette", {"Code/Bare base.md"}),  # a bare name stays apart
    "file:starlette:a/x/util.py": ("a/x/util.py", "starlette", {"Code/Bare base.md"}),
    "file:starlette:b/x/util.py": ("b/x/util.py", "starlette", {"Code/Bare base.md"}),
    "file:starlette:x/util.py": ("x/util.py", "starlette", {"Code/Bare base.md"}),  # ends both: which one?
    "file:ledgerapi:README.md": ("README.md", "ledger-api", {"Code/Ledger readme.md"}),
    "file:ledgerapi:app/api/webhooks/stripe.py": ("app/api/webhooks/stripe.py", "ledger-api",
                                                 {"Code/Ledger readme.md", "Code/Ledger again.md",
                                                  "Code/No project.md"}),
    "file:README.md": ("README.md", None, {"Code/No project.md"}),  # two projects cite a README.md
    "file:tools/lint.sh": ("tools/lint.sh", None, {"Code/No project.md"}),
}


@pytest.fixture(scope="module")
def citing(tmp_path_factory):
    """A vault of notes citing code in the ways that decide which file node they reach, and a few
    plain notes linking them."""
    base = tmp_path_factory.mktemp("cite")
    vault = base / "vault"
    for path, (front, body) in CITING.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(f"---\ntype: pitfall\n{front}\n---\n{body}\n", encoding="utf-8")
    (vault / "Home.md").write_text("# Home\n" + "".join(f"- [[{Path(p).stem}]]\n" for p in CITING), encoding="utf-8")
    cfg = load_config(vault=vault, cache_dir=base / "cache")
    I.rebuild(cfg)
    return cfg


def _graph(cfg):
    write_graph_files(cfg)
    return json.loads(cfg.path("graph.json").read_text(encoding="utf-8"))


def test_files_notes_cite_are_nodes_with_an_edge_from_each_citing_note(citing):
    data = _graph(citing)
    files = {n["id"]: n for n in data["nodes"] if n["kind"] == "file"}
    assert set(files) == set(EXPECTED)
    for fid, (path, project, notes) in EXPECTED.items():
        assert (files[fid]["path"], files[fid]["project"]) == (path, project), fid
        cites = {e["source"] for e in data["links"] if e["type"] == "cites" and e["target"] == fid}
        assert cites == notes, fid
    # every cites edge goes from a note to a file node; no note cites one file twice
    kind = {n["id"]: n["kind"] for n in data["nodes"]}
    pairs = [(e["source"], e["target"]) for e in data["links"] if e["type"] == "cites"]
    assert all(kind[s] == "note" and kind[t] == "file" for s, t in pairs) and len(pairs) == len(set(pairs))
    # a note with symbols and no file reaches no file node
    assert "Code/Symbols only.md" not in {s for s, _ in pairs}
    # files join no community: communities are of notes
    assert not any("community" in n for n in files.values())


def test_a_private_note_cites_nothing_in_the_graph(citing):
    conn = I.open_index(citing)
    try:
        assert conn.execute("SELECT private FROM notes WHERE path = 'Code/Secret.md'").fetchone() == (1,)
        # its anchors are not indexed at all (the store's rule), so no output can show them ...
        assert conn.execute("SELECT count(*) FROM anchors WHERE path = 'Code/Secret.md'").fetchone() == (0,)
        conn.execute("BEGIN")
        conn.execute("INSERT INTO anchors(path, kind, file) VALUES ('Code/Secret.md', 'file', 'zzsecret/injected.py')")
        cf = GD.cited_files(conn)  # ... and were a row there, the graph would still leave it out
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    assert not any("zzsecret" in p for p in cf.paths) and not any(n == "Code/Secret.md" for n, _ in cf.cites)
    text = json.dumps(_graph(citing))
    assert "zzsecret" not in text and "Code/Secret.md" not in text


def test_files_are_never_hubs_and_change_no_note_degree(citing):
    """hubs() and degrees() read links, never anchors: the same with every anchor gone."""
    conn = I.open_index(citing)
    try:
        with_files = (hubs(conn, 10), degrees(conn))
        assert GD.cited_files(conn).ids
        conn.execute("BEGIN")
        conn.execute("DELETE FROM anchors")
        without = (hubs(conn, 10), degrees(conn))
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    assert with_files == without and with_files[0]
    assert not any(h["path"].startswith(GD.FILE_PREFIX) for h in with_files[0])
    assert not any(p.startswith(GD.FILE_PREFIX) for p in with_files[1])


def test_a_changed_citation_rewrites_the_graph(citing):
    """graph.json is rewritten only when what it shows changed, and the files notes cite are part of
    that: a note whose citation alone changed (same title, summary, links) rewrites it."""
    from memory_plugin.outputs.pipeline import sync

    _graph(citing)
    note = citing.vault / "Code/Ledger again.md"
    before = note.read_text(encoding="utf-8")
    try:
        note.write_text(before.replace("---\nAgain", "summary: Stripe again.\n---\nAgain"), encoding="utf-8")
        sync(citing)
        note.write_text(note.read_text(encoding="utf-8").replace("app/api/webhooks/stripe.py", "app/api/zznew.py"),
                        encoding="utf-8")
        sync(citing)
        assert '"file:ledgerapi:app/api/zznew.py"' in citing.path("graph.json").read_text(encoding="utf-8")
    finally:
        note.write_text(before, encoding="utf-8")
        sync(citing)
