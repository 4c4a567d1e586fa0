"""graphdata's compact graph gives exactly what networkx gives on the full MultiDiGraph: the same
graph.json bytes (nodes, edges, keys, order) and the same communities, both below and above the
Louvain size limit."""
import json
from collections import deque

import networkx as nx
import pytest

from memory_plugin.index import graph as G
from memory_plugin.outputs import graphdata as GD
from memory_plugin.index import store as I
from memory_plugin.core.config import load_config

from conftest import FIXTURE_VAULT, gen_vault


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
