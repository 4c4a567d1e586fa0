"""GRAPH_REPORT.md and hub detection on a generated vault with known hubs."""
import json

import pytest

from conftest import gen_vault, run_cli


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("rep")
    v = gen_vault(base / "v", 1500, 11)
    env = {"MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(base / "cache")}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return v, base / "cache", env


def test_hubs_are_the_real_hubs(built):
    v, cache, env = built
    truth = [json.loads(l) for l in (v / ".groundtruth" / "notes.jsonl").open(encoding="utf-8")]
    real = {n["path"] for n in truth if n["hub"]}
    hubs = json.loads(run_cli("hubs", "-n", str(len(real)), "--json", env=env).stdout)
    assert {h["path"] for h in hubs} == real


def test_conventions_found_with_summaries(built):
    v, cache, env = built
    truth = [json.loads(l) for l in (v / ".groundtruth" / "notes.jsonl").open(encoding="utf-8")]
    conv = {n["path"] for n in truth if n["convention"]}
    got = json.loads(run_cli("conventions", "--json", env=env).stdout)
    assert conv <= {c["path"] for c in got} and all(c["summary"] for c in got if c["path"] in conv)


def test_report_is_bounded(built):
    v, cache, env = built
    text = (cache / "GRAPH_REPORT.md").read_text()
    assert len(text.splitlines()) < 260 and len(text) < 60_000
    assert "more dangling targets" in text and "## Communities" in text
    dangling = json.loads(run_cli("dangling", "--json", env=env).stdout)
    assert len(dangling) > 25  # the report shows a bounded part of a longer list
