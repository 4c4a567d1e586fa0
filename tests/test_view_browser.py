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
