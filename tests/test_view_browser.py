"""graph.html in a real browser: Debian's headless Chromium driven by Playwright, from file://.

Every assertion reads the page itself (window.__graph, the DOM, the browser's own request log).
Set GRAPH_SCREENSHOT=path to keep the screenshot (docs/graph.png is made that way).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import FIXTURE_VAULT

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("MEMORY_PLUGIN_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _skip_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM}: apt-get install chromium (scripts/ensure-chromium)"
    return None


if _skip_reason():
    pytest.skip(_skip_reason(), allow_module_level=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The fixture vault (a copy) indexed, and its graph.html. Module-scoped, so it passes every
    path explicitly: the autouse HOME fixture is per test."""
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index
    from memory_plugin.outputs.pipeline import rebuild

    root = tmp_path_factory.mktemp("browser")
    vault = root / "vault"
    shutil.copytree(FIXTURE_VAULT, vault, symlinks=True)
    empty = root / "config.yaml"
    empty.write_text("", encoding="utf-8")
    cfg = load_config(vault=vault, cache_dir=root / "cache", config_file=empty)
    rebuild(cfg)
    conn = open_index(cfg)
    private = conn.execute("SELECT path, title FROM notes WHERE private = 1").fetchall()
    conn.close()
    page = cfg.path("graph.html")
    assert page.exists()
    return {"page": page, "private": private, "home": root / "home"}


@pytest.fixture(scope="module")
def browser(built):
    from playwright.sync_api import sync_playwright

    home = built["home"]
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_CACHE_HOME": str(home / ".cache")}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, env=env)
        yield b
        b.close()


class Loaded:
    def __init__(self, page, errors, requests):
        self.page, self.errors, self.requests = page, errors, requests

    def js(self, expr: str):
        return self.page.evaluate(expr)

    def wait(self, expr: str, timeout: float = 20.0):
        # the page's CSP forbids eval, so poll with evaluate instead of wait_for_function
        end = time.monotonic() + timeout
        while not self.page.evaluate(expr):
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {expr}")
            self.page.wait_for_timeout(50)


@pytest.fixture
def loaded(browser, built):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors, requests = [], []
    page.on("console", lambda m: errors.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: errors.append(f"requestfailed: {r.url}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(built["page"].as_uri())
    ld = Loaded(page, errors, requests)
    ld.wait("window.__graph !== undefined")
    ld.js("__graph.settle()")
    yield ld
    page.close()


def _data(ld: Loaded) -> dict:
    return json.loads(ld.js("document.getElementById('graph-data').textContent"))


def test_page_loads_without_errors_or_network(loaded, built):
    loaded.page.wait_for_timeout(300)
    assert loaded.errors == []
    assert loaded.requests == [built["page"].as_uri()]


def test_drawn_nodes_equal_the_data(loaded):
    count = loaded.js("__graph.dataCount()")
    data = _data(loaded)
    assert count["nodes"] == len(data["nodes"]["id"]) and count["notes"] == data["meta"]["notes"]
    # a small vault: every note, unresolved target and attachment is drawn; tags are a toggle
    assert loaded.js("__graph.drawnCount()") == count["nodes"] - count["tags"]
    assert loaded.js("__graph.drawnEdgeCount()") > 0
    loaded.page.check("#t-tags")
    assert loaded.js("__graph.drawnCount()") == count["nodes"]
    loaded.page.uncheck("#t-tags")
    assert loaded.js("__graph.drawnCount()") == count["nodes"] - count["tags"]
    counts_text = loaded.page.inner_text("#counts")
    assert f"{count['notes']} notes" in counts_text
    # the fixture vault cites code: the files are drawn, and a toggle
    assert count["files"] > 0 and f"{count['files']} files cited" in counts_text
    loaded.page.uncheck("#t-files")
    assert loaded.js("__graph.drawnCount()") == count["nodes"] - count["tags"] - count["files"]
    loaded.page.check("#t-files")


def _unique_alias(data: dict) -> tuple[str, str, str]:
    n = data["nodes"]
    names = [t.lower() for t in n["t"]] + [a.lower() for al in n["a"] for a in al]
    for i, aliases in enumerate(n["a"]):
        for a in aliases:
            if names.count(a.lower()) == 1 and a.lower() not in n["t"][i].lower():
                return a, n["id"][i], n["t"][i]
    raise AssertionError("the fixture vault has no note with a distinctive alias")


def test_search_finds_a_note_by_alias_and_highlights_it(loaded):
    alias, path, title = _unique_alias(_data(loaded))
    loaded.page.fill("#search", alias)
    first = loaded.page.locator("#results div[data-i]").first
    assert title in first.inner_text() and "alias" in first.inner_text()
    assert path in loaded.js("__graph.highlighted()")
    loaded.page.press("#search", "Enter")
    assert loaded.js("__graph.selected()") == path
    assert loaded.page.inner_text("#panel-title") == title
    # centred: the found note sits in the middle of the canvas
    pos = loaded.js(f"__graph.screenPos({json.dumps(path)})")
    box = loaded.page.locator("#canvas").bounding_box()
    assert abs(pos["x"] - (box["x"] + box["width"] / 2)) < box["width"] * 0.1
    assert abs(pos["y"] - (box["y"] + box["height"] / 2)) < box["height"] * 0.1


def test_clicking_a_node_opens_its_panel(loaded):
    data = _data(loaded)
    n = data["nodes"]
    hubs = [i for i in range(len(n["id"])) if n["k"][i] == 0 and n["fl"][i] & 1]
    i = hubs[0]
    pos = loaded.js(f"__graph.screenPos({json.dumps(n['id'][i])})")
    loaded.page.mouse.click(pos["x"], pos["y"])
    assert loaded.page.locator("#panel").is_visible()
    assert loaded.page.inner_text("#panel-title") == n["t"][i]
    assert n["id"][i] in loaded.page.inner_text("#panelbody")
    # links in the panel are clickable and move the selection
    link = loaded.page.locator("#panel-out a[data-i]").first
    target = n["id"][int(link.get_attribute("data-i"))]
    link.click()
    assert loaded.js("__graph.selected()") == target


def test_type_filter_hides_exactly_that_type(loaded):
    before = loaded.js("__graph.drawnTypes()")
    assert "decision" in before
    loaded.page.uncheck("#types input[data-type=decision]")
    after = loaded.js("__graph.drawnTypes()")
    assert "decision" not in after
    assert len(after) == len(before) - before.count("decision")
    loaded.page.check("#types input[data-type=decision]")
    assert sorted(loaded.js("__graph.drawnTypes()")) == sorted(before)


def test_private_notes_are_absent_from_the_page(loaded, built):
    source = loaded.page.content()
    assert built["private"], "the fixture vault should hold a private note"
    for path, title in built["private"]:
        assert path not in source and title not in source
    loaded.page.fill("#search", built["private"][0][1])
    assert loaded.js("__graph.highlighted()") == []


def test_hover_highlights_neighbours_and_theme_toggles(loaded):
    data = _data(loaded)
    n = data["nodes"]
    i = next(i for i in range(len(n["id"])) if n["k"][i] == 0 and n["fl"][i] & 1)
    pos = loaded.js(f"__graph.screenPos({json.dumps(n['id'][i])})")
    loaded.page.mouse.move(pos["x"], pos["y"])
    assert loaded.js("document.getElementById('canvas').title") == n["t"][i]
    theme = loaded.js("document.documentElement.dataset.theme")
    loaded.page.click("#theme")
    assert loaded.js("document.documentElement.dataset.theme") != theme


def test_screenshot(loaded, tmp_path):
    """docs/vault.md's picture (docs/graph.png): the fixture vault with the best-linked hub's panel open."""
    data = _data(loaded)
    n = data["nodes"]
    degree = {}
    for j in range(0, len(data["edges"]), 3):
        for x in data["edges"][j:j + 2]:
            degree[x] = degree.get(x, 0) + 1
    hub = max((i for i in range(len(n["id"])) if n["k"][i] == 0 and n["fl"][i] & 1), key=lambda i: degree.get(i, 0))
    pos = loaded.js(f"__graph.screenPos({json.dumps(n['id'][hub])})")
    loaded.page.mouse.click(pos["x"], pos["y"])
    loaded.page.mouse.move(5, 5)
    loaded.page.wait_for_timeout(100)
    loaded.page.click("#zfit")
    loaded.page.wait_for_timeout(200)
    shot = Path(os.environ.get("GRAPH_SCREENSHOT") or tmp_path / "graph.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    loaded.page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert loaded.errors == []


def test_search_draws_a_note_that_was_not_shown(browser, tmp_path):
    """A vault bigger than html_max_nodes: a readable subset is drawn, and search still finds any
    note and draws it on demand."""
    from conftest import gen_vault
    from memory_plugin.core.config import load_config
    from memory_plugin.outputs.pipeline import rebuild

    v = gen_vault(tmp_path / "v", 300)
    cfg = load_config(vault=v, overrides={"html_max_nodes": 60})
    rebuild(cfg)
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(cfg.path("graph.html").as_uri())
    ld = Loaded(page, errors, [])
    ld.wait("window.__graph !== undefined")
    count = ld.js("__graph.dataCount()")
    assert count["notes"] == 300 and ld.js("__graph.drawnCount()") <= 60
    assert "300 notes" in page.inner_text("#counts") and "of 300 notes" in page.inner_text("#note")
    data = _data(ld)
    drawn = set(ld.js("__graph.drawnIds()"))
    n = data["nodes"]
    i = next(i for i in range(300) if n["id"][i] not in drawn and n["t"][i].lower() not in
             {t.lower() for j, t in enumerate(n["t"]) if j != i})
    page.fill("#search", n["t"][i])
    page.press("#search", "Enter")
    assert n["id"][i] in ld.js("__graph.drawnIds()")
    assert ld.js("__graph.selected()") == n["id"][i]
    assert page.inner_text("#panel-title") == n["t"][i]
    assert errors == []
    page.close()


# ---------------------------------------------------------------- a 1,000-note vault: entry points

DENDRON = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "dendron" / "vault"
# Label ink: text is drawn in --fg (#1f2328, luminance ~35) on a halo of the background; edges,
# discs and the muted "+N" count are all lighter than this, so ink this dark is label text.
INK = 90


@pytest.fixture(scope="module", params=["dendron", "generated"])
def big(request, tmp_path_factory):
    """A 1,000-note vault (a copy of Dendron's own docs vault, and a generated one) indexed, its
    graph.html and the entry points the brief lists."""
    from conftest import gen_vault
    from memory_plugin.core.config import load_config
    from memory_plugin.index.graph import hubs
    from memory_plugin.index.store import open_index
    from memory_plugin.outputs.pipeline import rebuild

    root = tmp_path_factory.mktemp(f"big-{request.param}")
    vault = root / "vault"
    if request.param == "dendron":
        if not DENDRON.is_dir():
            pytest.skip("../shared/eval/dendron is not here")
        shutil.copytree(DENDRON, vault, symlinks=True)
    else:
        gen_vault(vault, 1000)
    empty = root / "config.yaml"
    empty.write_text("", encoding="utf-8")
    cfg = load_config(vault=vault, cache_dir=root / "cache", config_file=empty)
    rebuild(cfg)
    conn = open_index(cfg)
    entry = [h["path"] for h in hubs(conn, cfg.hub_count)]
    notes = conn.execute("SELECT count(*) FROM notes WHERE private = 0").fetchone()[0]
    conn.close()
    assert notes >= 900 and entry
    return {"page": cfg.path("graph.html"), "entry": entry, "name": request.param}


@pytest.fixture
def opened(browser, big):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(big["page"].as_uri())
    ld = Loaded(page, errors, [])
    ld.wait("window.__graph !== undefined")
    ld.js("__graph.settle()")
    page.mouse.move(0, 0)  # no hover highlight
    page.wait_for_timeout(200)
    yield ld
    assert errors == []
    page.close()


def _ink(browser, png: bytes, boxes: list[dict], area: dict, skip: list[dict]) -> dict:
    """Count label-dark pixels of a screenshot, decoded by the browser itself in a blank page: in
    each box, and in `area` outside every box (and outside the controls in `skip`)."""
    import base64

    page = browser.new_page()
    try:
        return page.evaluate("""async ([b64, boxes, area, skip, ink]) => {
            const blob = await (await fetch("data:image/png;base64," + b64)).blob();
            const img = await createImageBitmap(blob);
            const c = new OffscreenCanvas(img.width, img.height), g = c.getContext("2d");
            g.drawImage(img, 0, 0);
            const px = g.getImageData(0, 0, img.width, img.height).data;
            const dark = (x, y) => { const o = 4 * (y * img.width + x);
                return 0.299 * px[o] + 0.587 * px[o + 1] + 0.114 * px[o + 2] < ink; };
            const inBox = boxes.map(() => 0);
            let outside = 0, total = 0;
            for (let y = Math.ceil(area.y); y < Math.floor(area.y + area.height); y++)
                for (let x = Math.ceil(area.x); x < Math.floor(area.x + area.width); x++) {
                    if (!dark(x, y) || skip.some((b) => x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height)) continue;
                    total++;
                    let hit = false;
                    boxes.forEach((b, k) => { if (x >= b.x0 - 1 && x < b.x1 + 1 && y >= b.y0 - 1 && y < b.y1 + 1) { inBox[k]++; hit = true; } });
                    if (!hit) outside++;
                }
            return {inBox, outside, total};
        }""", [base64.b64encode(png).decode(), boxes, area, skip, INK])
    finally:
        page.close()


@pytest.mark.slow
def test_big_vault_opens_on_its_entry_points_with_labels_that_do_not_overlap(opened, big, browser, tmp_path):
    """The first view of a 1,000-note vault: its entry points (index/graph.py hubs(), as the brief
    lists them), every one labelled, no label over another label or over another node, each label's
    text actually on screen where the page says it is (read back from the screenshot's pixels).

    The measure: each label's box is the text the browser measured for the canvas (measureText
    advance width, the font's ascent + descent) where the page drew it, in page pixels. The
    screenshot checks that box: every box holds label-dark ink, and almost no such ink lies outside
    the boxes (so no label was drawn that the page did not report)."""
    ld = opened
    drawn = ld.js("__graph.drawnIds()")
    assert sorted(drawn) == sorted(big["entry"]), "the first view is the entry points"
    assert ld.js("__graph.mode()") == "entry"
    labels = ld.js("__graph.labels()")
    data = _data(ld)
    n = data["nodes"]
    title = {n["id"][i]: n["t"][i] for i in range(len(n["id"]))}
    assert sorted(lb["id"] for lb in labels) == sorted(drawn), "every node of the first view is labelled"
    for lb in labels:
        assert lb["text"].startswith(title[lb["id"]][:39])
        assert lb["y1"] - lb["y0"] >= 12, "a readable size"
    canvas = ld.page.locator("#canvas").bounding_box()
    for lb in labels:
        assert canvas["x"] <= lb["x0"] and lb["x1"] <= canvas["x"] + canvas["width"], lb
        assert canvas["y"] <= lb["y0"] and lb["y1"] <= canvas["y"] + canvas["height"], lb
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            p, q = labels[a], labels[b]
            assert p["x1"] <= q["x0"] or q["x1"] <= p["x0"] or p["y1"] <= q["y0"] or q["y1"] <= p["y0"], (p, q)
    discs = ld.js("__graph.discs()")
    for lb in labels:
        for d in discs:
            if d["id"] == lb["id"]:
                continue
            nx, ny = min(max(d["x"], lb["x0"]), lb["x1"]), min(max(d["y"], lb["y0"]), lb["y1"])
            assert (nx - d["x"]) ** 2 + (ny - d["y"]) ** 2 >= d["r"] ** 2, f"{lb['text']!r} covers {d['id']}"
    shot = Path(os.environ.get("GRAPH_ENTRY_SCREENSHOT") or tmp_path / "entry.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    png = ld.page.screenshot(path=str(shot))
    controls = [b for b in (ld.page.locator(s).bounding_box() for s in ("#zoom", "#note")) if b]
    ink = _ink(browser, png, labels, canvas, controls)
    assert ink["total"] > 0, "no label text on screen"
    assert all(c >= 15 for c in ink["inBox"]), list(zip([lb["text"] for lb in labels], ink["inBox"]))
    assert ink["outside"] <= 0.01 * ink["total"], ink


def _neighbours(data: dict, i: int) -> set[int]:
    e = data["edges"]
    out = set()
    for j in range(0, len(e), 3):
        if e[j] == i:
            out.add(e[j + 1])
        elif e[j + 1] == i:
            out.add(e[j])
    return out - {i}


@pytest.mark.slow
def test_a_click_adds_the_neighbours_and_the_whole_graph_is_a_button_away(opened, big):
    ld = opened
    data = _data(ld)
    n = data["nodes"]
    pos = {p: i for i, p in enumerate(n["id"])}
    before = set(ld.js("__graph.drawnIds()"))
    # the best-linked entry point: more neighbours than one click adds
    first = big["entry"][0]
    nb = {n["id"][t] for t in _neighbours(data, pos[first]) if n["k"][t] != 1}  # tags are off
    hidden = nb - before
    assert hidden
    at = ld.js(f"__graph.screenPos({json.dumps(first)})")
    ld.page.mouse.click(at["x"], at["y"])
    after = set(ld.js("__graph.drawnIds()"))
    added = after - before
    assert before <= after and added, "a click adds the note's neighbours"
    assert added <= hidden, added - hidden
    assert len(added) == min(len(hidden), 40)
    assert ld.js("__graph.selected()") == first
    ld.js("__graph.settle()")
    assert {lb["id"] for lb in ld.js("__graph.labels()")} & added, "the added notes are labelled"
    # a search adds one note
    drawn = set(ld.js("__graph.drawnIds()"))
    titles = [t.lower() for t in n["t"]]
    k = next(i for i in range(data["meta"]["notes"]) if n["id"][i] not in drawn and titles.count(titles[i]) == 1)
    ld.page.fill("#search", n["t"][k])
    ld.page.press("#search", "Enter")
    assert set(ld.js("__graph.drawnIds()")) == drawn | {n["id"][k]}
    # the whole graph, and back
    ld.page.click("#mode")
    assert ld.js("__graph.mode()") == "whole"
    assert ld.js("__graph.drawnCount()") > 10 * len(big["entry"])
    ld.page.click("#mode")
    assert sorted(ld.js("__graph.drawnIds()")) == sorted(big["entry"])


# ---------------------------------------------------------------- files notes cite

LONG = "app/a_very_long_folder_name/deeper/still/settings.py"  # longer than a label: its end is kept
CITES = {  # note title -> (project, the files it cites)
    "Zz webhook pitfall": ("ledger", ["app/api/webhooks/stripe.py:42", LONG]),
    "Zz webhook again": ("ledger", ["app/api/webhooks/stripe.py"]),
    "Zz lint script": ("ledger", ["tools/lint.sh"]),
}


@pytest.fixture(scope="module")
def cited(tmp_path_factory):
    """A 200-note vault (more than every label fits: it opens on its entry points) with notes citing
    code, indexed, and its graph.html."""
    from conftest import gen_vault
    from memory_plugin.core.config import load_config
    from memory_plugin.outputs.pipeline import rebuild

    root = tmp_path_factory.mktemp("cited")
    vault = gen_vault(root / "vault", 200)
    (vault / "Code").mkdir()
    for title, (project, files) in CITES.items():
        (vault / "Code" / f"{title}.md").write_text(
            f"---\ntype: pitfall\nproject: {project}\n---\n# {title}\n" +
            "".join(f"- `{f}`\n" for f in files), encoding="utf-8")
    empty = root / "config.yaml"
    empty.write_text("", encoding="utf-8")
    cfg = load_config(vault=vault, cache_dir=root / "cache", config_file=empty)
    rebuild(cfg)
    return cfg.path("graph.html")


@pytest.fixture
def cited_page(browser, cited):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(cited.as_uri())
    ld = Loaded(page, errors, [])
    ld.wait("window.__graph !== undefined")
    ld.js("__graph.settle()")
    yield ld
    assert errors == []
    page.close()


def _file_ids(ld: Loaded) -> dict[str, str]:
    """path -> node id of every file node in the page's data."""
    n = _data(ld)["nodes"]
    return {n["t"][i]: n["id"][i] for i in range(len(n["id"])) if n["k"][i] == 4}


def _pixel(ld: Loaded, node_id: str) -> list[int]:
    """The colour the canvas holds at a node's centre."""
    return ld.page.evaluate("""(id) => {
        const c = document.getElementById("canvas"), r = c.getBoundingClientRect(), d = window.devicePixelRatio || 1;
        const p = __graph.discs().find((x) => x.id === id);
        return Array.from(c.getContext("2d").getImageData(Math.round((p.x - r.left) * d), Math.round((p.y - r.top) * d), 1, 1).data.slice(0, 3));
    }""", node_id)


def _css_rgb(ld: Loaded, var: str) -> list[int]:
    return ld.page.evaluate("""(v) => { const e = document.createElement("div"); e.style.color = `var(${v})`;
        document.body.appendChild(e); const c = getComputedStyle(e).color; e.remove();
        return c.match(/\\d+/g).slice(0, 3).map(Number); }""", var)


def test_a_click_on_a_note_draws_the_files_it_cites_labelled_by_their_path(cited_page, browser, tmp_path):
    ld = cited_page
    files = _file_ids(ld)
    assert set(files) == {"app/api/webhooks/stripe.py", LONG, "tools/lint.sh"}
    # the first view is the entry points, no file among them
    assert ld.js("__graph.mode()") == "entry"
    assert sorted(ld.js("__graph.drawnIds()")) == sorted(ld.js("__graph.entryIds()"))
    # search draws the note; its panel lists the files it cites
    ld.page.fill("#search", "Zz webhook pitfall")
    ld.page.press("#search", "Enter")
    assert ld.js("__graph.selected()") == "Code/Zz webhook pitfall.md"
    assert sorted(ld.page.locator("#panel-files a").all_inner_texts()) == sorted(["app/api/webhooks/stripe.py", LONG])
    assert not set(files.values()) & set(ld.js("__graph.drawnIds()"))
    # a click on it adds its neighbours: the files it cites among them
    at = ld.js("__graph.screenPos('Code/Zz webhook pitfall.md')")
    ld.page.mouse.click(at["x"], at["y"])
    drawn = set(ld.js("__graph.drawnIds()"))
    assert {files["app/api/webhooks/stripe.py"], files[LONG]} <= drawn and files["tools/lint.sh"] not in drawn
    ld.js("__graph.settle()")
    ld.page.mouse.move(0, 0)  # no hover highlight
    ld.page.wait_for_timeout(100)
    labels = {lb["id"]: lb for lb in ld.js("__graph.labels()")}
    # "+1": the other note citing it, not drawn yet
    assert labels[files["app/api/webhooks/stripe.py"]]["text"] == "app/api/webhooks/stripe.py +1"
    long_text = labels[files[LONG]]["text"]
    assert long_text.startswith("…") and LONG.endswith(long_text[1:]) and long_text.endswith("/settings.py")
    # the labels are on screen (label-dark ink in their boxes), and the files are drawn in their own colour
    canvas = ld.page.locator("#canvas").bounding_box()
    boxes = [labels[files[p]] for p in ("app/api/webhooks/stripe.py", LONG)]
    ink = _ink(browser, ld.page.screenshot(path=str(tmp_path / "files.png")), boxes, canvas, [])
    assert all(c >= 15 for c in ink["inBox"]), ink
    file_rgb = _css_rgb(ld, "--c-file")
    for p in ("app/api/webhooks/stripe.py", LONG):
        assert _pixel(ld, files[p]) == file_rgb, p
    assert _pixel(ld, "Code/Zz webhook pitfall.md") != file_rgb
    note_colours = [_css_rgb(ld, f"--c-{t}") for t in ("hub", "convention", "decision", "pitfall", "pattern",
                                                        "learning", "concept", "journal", "other", "attachment")]
    assert file_rgb not in note_colours


def test_search_finds_a_file_by_its_path_and_its_panel_lists_the_notes_citing_it(cited_page):
    ld = cited_page
    files = _file_ids(ld)
    ld.page.fill("#search", "webhooks/stripe")
    first = ld.page.locator("#results div[data-i]").first.inner_text()
    assert "app/api/webhooks/stripe.py" in first and "file" in first and "cited by 2 notes" in first
    ld.page.press("#search", "Enter")
    fid = files["app/api/webhooks/stripe.py"]
    assert ld.js("__graph.selected()") == fid and fid in ld.js("__graph.drawnIds()")
    assert ld.page.inner_text("#panel-title") == "app/api/webhooks/stripe.py"
    assert "ledger" in ld.page.inner_text("#panelbody")
    assert sorted(ld.page.locator("#panel-in a").all_inner_texts()) == ["Zz webhook again", "Zz webhook pitfall"]
    # a click on the file adds the notes citing it
    at = ld.js(f"__graph.screenPos({json.dumps(fid)})")
    ld.page.mouse.click(at["x"], at["y"])
    assert {"Code/Zz webhook again.md", "Code/Zz webhook pitfall.md"} <= set(ld.js("__graph.drawnIds()"))
