"""The semantic layer with the real all-MiniLM-L6-v2 (loaded once per session)."""
from __future__ import annotations

import functools
import json
import http.server
import os
import shutil
import sqlite3
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURE_VAULT, embedded_index, run_cli
from memory_plugin.index import store as I
from memory_plugin.semantic import models
from memory_plugin.semantic import vectors as S
from memory_plugin.semantic.chunks import chunk_note
from memory_plugin.core.config import load_config

DEFAULT = models.DEFAULT_MODEL
# sentence-transformers' all-MiniLM-L6-v2 vector of "hello world", first five components, as
# fastembed's tests pin it (tests/test_text_onnx_embeddings.py, CANONICAL_VECTOR_VALUES).
HELLO_WORLD = np.array([-0.034478, 0.03102, 0.00673, 0.02611, -0.039362])


# ---------------------------------------------------------------- the model

def test_embedding_reproduces_the_published_vector(real_encoder):
    enc = real_encoder.embedder
    v = enc.encode(["hello world", "flag embedding"])
    assert v.shape == (2, 384) and v.dtype == np.float32
    assert np.allclose(v[0, :5], HELLO_WORLD, atol=1e-5)  # the pinned values have 5 significant digits
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)
    again = enc.encode(["flag embedding", "hello world"])  # other order, other batch
    assert np.allclose(again[::-1], v, atol=1e-6)
    assert np.array_equal(enc.encode(["hello world"]), enc.encode(["hello world"]))


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(real_encoder):
    a, b, c = real_encoder.embedder.encode([
        "Can I roll a note back to how it looked an hour ago?",
        "Restore an earlier version of a file from its history",
        "The café serves lunch until three in the afternoon"])
    assert a @ b > 0.4 > 0.1 > a @ c


def test_texts_longer_than_the_model_reads_are_cut_not_refused(real_encoder):
    enc = real_encoder.embedder
    long = " ".join(["sqlite"] * 2000)
    assert len(enc.token_ids([long])[0]) == enc.max_len == 256
    assert np.isfinite(enc.encode([long])).all()


def test_encode_runs_batches_side_by_side_with_the_vectors_of_one_thread(model_dir):
    """Embedding uses every core: two batches are in the forward pass at once (each waits for the
    other at a barrier, which one thread alone never passes), and the vectors are those of one thread,
    bit for bit."""
    from memory_plugin.semantic.embedder import Embedder, cores

    texts = [f"note {i}: " + "the worker drains the queue " * (i % 7 + 1) for i in range(40)]
    serial = Embedder(model_dir, threads=1).encode(texts, batch_size=4)
    enc = Embedder(model_dir, threads=2)
    forward, meet, met = enc._forward, threading.Barrier(2, timeout=30), []

    def meeting_forward(ids):  # the real forward pass, once both threads are in it
        if not met:
            meet.wait()
            met.append(threading.get_ident())
        return forward(ids)

    enc._forward = meeting_forward
    assert np.array_equal(enc.encode(texts, batch_size=4), serial)
    assert len(set(met)) == 2
    assert Embedder(model_dir).threads == cores()


# ---------------------------------------------------------------- chunks

def test_chunks_carry_title_heading_path_and_windows():
    body = "Intro [[Folder/Target|shown]].\n\n# Setup\n```\n# not a heading\n```\n## Linux\n" + \
           " ".join(f"w{i}" for i in range(400))
    cs = chunk_note("My note", "One line summary.", body)
    assert cs[0].text.startswith("My note\nOne line summary.\nIntro shown.")
    assert [c.heading for c in cs[1:]] == ["Setup"] + ["Setup › Linux"] * 4
    assert "# not a heading" in cs[1].text
    assert all(c.text.startswith("My note › Setup › Linux\n") for c in cs[2:])
    lin = cs[2:]
    assert body[lin[0].start:].startswith("w0 ") and body[lin[1].start:].startswith("w120 ")
    assert max(len(c.text.split()) for c in cs) <= 160
    assert chunk_note("Empty", "", "") == [chunk_note("Empty", "", "")[0]] and len(chunk_note("Empty", "", "")) == 1


# ---------------------------------------------------------------- storage and search

def _cfg(vault, cache):
    return load_config(vault=vault, cache_dir=cache)


@pytest.fixture
def sem_cfg(tmp_path, semantic_env, embedded_fixture_index):
    """A fixture-vault copy whose index starts from the session's vectors (rebuild reuses them)."""
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copyfile(embedded_fixture_index, cache / "index.sqlite")
    cfg = _cfg(vault, cache)
    I.rebuild(cfg)
    return cfg


def test_search_gives_one_hit_per_note_best_first_with_its_heading(sem_cfg, real_encoder):
    assert S.embed_pending(sem_cfg, encode=real_encoder)["embedded"] == 0
    conn = I.open_index(sem_cfg)
    hits = S.search(sem_cfg, conn, "a second writer gets database is locked errors", k=10)
    assert hits[0].path == "Pitfalls/SQLite WAL needs busy_timeout.md"
    assert len({h.path for h in hits}) == len(hits) == 10
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(-1.0 <= h.score <= 1.0 and h.snippet for h in hits)
    by_path = {h.path: h for h in S.search(sem_cfg, conn, "consequences of keeping state in sqlite", k=60)}
    assert by_path["Decisions/Use SQLite for local state.md"].heading == "Consequences"


def test_private_notes_are_never_embedded_nor_found(sem_cfg, real_encoder):
    conn = I.open_index(sem_cfg)
    assert conn.execute("SELECT count(*) FROM chunks WHERE path LIKE 'Personal/%'").fetchone()[0] == 0
    hits = S.search(sem_cfg, conn, "salary negotiation compensation review offers", k=100)
    assert "Personal/Salary negotiation.md" not in {h.path for h in hits}
    conn.close()
    note = sem_cfg.vault / "Concepts" / "Idempotency.md"  # a note turned private loses its vectors
    note.write_text("---\nprivate: true\n---\n" + note.read_text(encoding="utf-8"), encoding="utf-8")
    I.sync(sem_cfg)
    real_encoder.calls.clear()  # what this pass encodes (the session's first pass asked every title)
    S.embed_pending(sem_cfg, encode=real_encoder)
    conn = I.open_index(sem_cfg)
    assert conn.execute("SELECT count(*) FROM chunks WHERE path='Concepts/Idempotency.md'").fetchone()[0] == 0
    assert all(not any("Idempotency" in t for t in call) for call in real_encoder.calls)


def test_one_changed_note_is_the_only_one_re_embedded(sem_cfg, real_encoder):
    note = sem_cfg.vault / "Concepts" / "Backpressure.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n## Added\nBounded queues push back on producers.\n",
                    encoding="utf-8")
    I.sync(sem_cfg)
    real_encoder.calls.clear()
    stats = S.embed_pending(sem_cfg, encode=real_encoder)
    assert stats["notes"] == 1 and stats["embedded"] >= 1
    asked = [t for call in real_encoder.calls for t in call]
    assert asked and all(t.startswith("Backpressure") for t in asked)
    assert stats["embedded"] == len(asked)  # the unchanged first chunk was reused, not re-embedded
    assert stats["reused"] >= 1
    real_encoder.calls.clear()
    I.rebuild(sem_cfg)  # a rebuild keeps the previous generation's vectors
    assert S.embed_pending(sem_cfg, encode=real_encoder) == {"notes": 0, "embedded": 0, "reused": 0, "busy": False}
    assert real_encoder.calls == []


def test_vectors_never_outlive_their_note(sem_cfg, real_encoder):
    (sem_cfg.vault / "Concepts" / "Backpressure.md").unlink()
    I.sync(sem_cfg)  # no embedding pass: the lexical sync alone drops them
    conn = I.open_index(sem_cfg)
    assert conn.execute("SELECT count(*) FROM chunks WHERE path='Concepts/Backpressure.md'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM chunks WHERE path NOT IN (SELECT path FROM notes)").fetchone()[0] == 0
    edited = sem_cfg.vault / "Concepts" / "Idempotency.md"
    edited.write_text("# Idempotency\nCompletely different text about gardening tomatoes.\n", encoding="utf-8")
    I.sync(sem_cfg)  # changed, not yet re-embedded: its old vectors are not searched
    hits = S.search(sem_cfg, conn, "retried POST must not create two jobs", k=100)
    assert "Concepts/Idempotency.md" not in {h.path for h in hits}
    conn.close()


def _same_hits(cfg, conn, question, monkeypatch):
    """The search's hits, checked equal to what the chunks table alone gives (no vectors file)."""
    hits = S.search(cfg, conn, question, k=100)
    with monkeypatch.context() as m:
        m.setattr(S, "_tag", lambda conn: None)  # changes not counted: the table is read
        table = S.search(cfg, conn, question, k=100)
    assert [h[:1] + h[2:] for h in hits] == [h[:1] + h[2:] for h in table]
    assert np.allclose([h.score for h in hits], [h.score for h in table], atol=1e-6)
    return hits


def test_search_maps_the_vectors_file_only_while_it_holds_the_tables_rows(sem_cfg, real_encoder, monkeypatch):
    question = "retried POST must not create two jobs"
    S.embed_pending(sem_cfg, encode=real_encoder)  # counts the table's changes, writes the file
    vectors = sem_cfg.path(S.VECTORS_FILE)
    assert vectors.exists()
    conn = I.open_index(sem_cfg)
    tag = S._tag(conn)
    assert tag and S._load_vectors(sem_cfg, tag, 384) is not None
    assert "Concepts/Idempotency.md" in {h.path for h in _same_hits(sem_cfg, conn, question, monkeypatch)}
    edited = sem_cfg.vault / "Concepts" / "Idempotency.md"
    edited.write_text("# Idempotency\nCompletely different text about gardening tomatoes.\n", encoding="utf-8")
    I.sync(sem_cfg)  # the note's hash changed, its rows did not: the file is still current, the rows stale
    assert S._tag(conn) == tag
    assert "Concepts/Idempotency.md" not in {h.path for h in _same_hits(sem_cfg, conn, question, monkeypatch)}
    S.embed_pending(sem_cfg, encode=real_encoder)  # new rows for the note: a new count, the file again
    assert S._tag(conn) != tag and S._load_vectors(sem_cfg, S._tag(conn), 384) is not None
    hits = _same_hits(sem_cfg, conn, "gardening tomatoes", monkeypatch)
    assert hits[0].path == "Concepts/Idempotency.md" and "tomatoes" in hits[0].snippet
    tag = S._tag(conn)
    (sem_cfg.vault / "Concepts" / "Backpressure.md").unlink()
    I.sync(sem_cfg)  # rows deleted by the lexical sync: the file is stale, the next search writes it again
    assert S._tag(conn) != tag and S._load_vectors(sem_cfg, S._tag(conn), 384) is None
    assert "Concepts/Backpressure.md" not in {h.path for h in _same_hits(sem_cfg, conn, "backpressure", monkeypatch)}
    assert S._load_vectors(sem_cfg, S._tag(conn), 384) is not None
    vectors.write_bytes(vectors.read_bytes()[:1000])  # cut short: the table, and the file again
    _same_hits(sem_cfg, conn, question, monkeypatch)
    assert S._load_vectors(sem_cfg, S._tag(conn), 384) is not None
    conn.close()


def test_a_stored_vector_size_that_differs_from_the_model_falls_back_with_the_fix(sem_cfg, real_encoder):
    conn = I.open_index(sem_cfg)
    conn.execute("UPDATE meta SET value='768' WHERE key='embedding_dim'")
    with pytest.raises(S.SemanticUnavailable, match=r"768-dimensional .* run `memory-plugin rebuild`"):
        S.search(sem_cfg, conn, "anything")
    checks = S.doctor_checks(sem_cfg, conn)
    assert not all(ok for ok, _, _ in checks) and any("768" in what for _, what, _ in checks)
    conn.close()
    stats = S.embed_pending(sem_cfg, encode=real_encoder)  # sync's embedding pass re-embeds them all
    conn = I.open_index(sem_cfg)
    assert stats["notes"] == S.counts(conn)["embeddable_notes"] > 50 and stats["reused"] == 0
    conn.close()
    conn = I.open_index(sem_cfg)
    assert S.search(sem_cfg, conn, "database is locked")[0].path == "Pitfalls/SQLite WAL needs busy_timeout.md"


def test_query_vector_reuses_the_last_search_and_encodes_other_texts(sem_cfg):
    conn = I.open_index(sem_cfg)
    S.search(sem_cfg, conn, "a second writer gets database is locked errors", k=5)
    conn.close()
    v = S.query_vector(sem_cfg, "a second writer gets database is locked errors")
    assert v is S._LAST_QUERY["a second writer gets database is locked errors"]  # not encoded again
    assert np.allclose(v, S.embed(sem_cfg, ["a second writer gets database is locked errors"])[0], atol=1e-5)
    other = S.query_vector(sem_cfg, "an unrelated sentence about gardening")
    assert np.allclose(other, S.embed(sem_cfg, ["an unrelated sentence about gardening"])[0], atol=1e-5)


def test_embed_returns_unit_rows(sem_cfg):
    v = S.embed(sem_cfg, ["one", "two three"])
    assert v.shape == (2, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-6)


# ---------------------------------------------------------------- mode, CLI, bad input

def test_mode_says_which_and_why(tmp_path, semantic_env, monkeypatch, model_dir):
    cfg = _cfg(tmp_path, tmp_path / "c")
    assert S.mode(cfg)[0] == "semantic" and DEFAULT in S.mode(cfg)[1]
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", "off")
    assert S.mode(_cfg(tmp_path, tmp_path / "c")) == ("lexical", "embedding_model is off ($MEMORY_PLUGIN_EMBEDDING_MODEL)")
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", str(model_dir))
    assert S.mode(_cfg(tmp_path, tmp_path / "c")) == ("semantic", f"the model in {model_dir}")


def _broken_model(tmp_path, model_dir, how):
    d = tmp_path / "broken-model"
    shutil.copytree(model_dir, d)
    if how == "truncated":
        with open(d / "model.safetensors", "r+b") as f:
            f.truncate(1_000_000)
    elif how == "garbage":
        (d / "model.safetensors").write_bytes(b"\xff" * 64)
    elif how == "missing":
        (d / "tokenizer.json").unlink()
    return d


@pytest.mark.parametrize("how", ["truncated", "garbage", "missing", "absent"])
def test_a_configured_model_that_cannot_load_is_a_one_line_error(vault, cache_dir, tmp_path, model_dir, how):
    d = tmp_path / "nowhere" if how == "absent" else _broken_model(tmp_path, model_dir, how)
    env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_EMBEDDING_MODEL": str(d)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: ") and str(d) in err[0], r.stderr
    assert "rebuilt" in r.stdout  # the lexical index is complete and usable
    st = run_cli("status", env=env)
    assert st.returncode == 0 and "search     lexical: " in st.stdout


def test_the_extra_not_installed_is_lexical_and_says_how_to_get_it(vault, cache_dir, semantic_env):
    code = ("import sys; sys.modules['numpy'] = None; from memory_plugin.__main__ import main; "
            "sys.argv = ['memory-plugin'] + sys.argv[1:]; sys.exit(main())")
    env = {**os.environ, "MEMORY_PLUGIN_VAULT": str(vault)}
    import subprocess

    run = lambda *a, **kw: subprocess.run([sys.executable, "-c", code, *a], capture_output=True,  # noqa: E731
                                          text=True, env={**env, **kw})
    r = run("rebuild", MEMORY_PLUGIN_EMBEDDING_MODEL=DEFAULT)
    assert r.returncode == 2 and r.stderr.strip() == (
        "Error: the semantic extra is not installed (no numpy): pip install 'memory-plugin[semantic]'")
    del env["MEMORY_PLUGIN_EMBEDDING_MODEL"]  # not asked for: lexical, no error
    r = run("rebuild")
    assert r.returncode == 0, r.stderr
    st = run("status")
    assert "search     lexical: the semantic extra is not installed (no numpy): pip install" in st.stdout
    # query and eval on a plain install (default model name, no numpy) answer lexically, never crash
    q = run("query", "job queue")
    assert q.returncode == 0 and "Traceback" not in q.stderr and "Error" not in q.stderr, q.stderr
    assert "Redis" in q.stdout or "SKIP LOCKED" in q.stdout, q.stdout
    ev = run("eval")
    assert ev.returncode == 0, ev.stderr


def test_status_and_doctor_name_the_mode(semantic_vault_env):
    st = run_cli("status", env=semantic_vault_env)
    n = json.loads(run_cli("status", "--json", env=semantic_vault_env).stdout)["vectors"]["embeddable_notes"]
    assert n > 50
    assert f"search     semantic: {DEFAULT} (" in st.stdout and f"{n}/{n} notes embedded" in st.stdout
    doc = run_cli("doctor", "--json", env=semantic_vault_env)
    checks = {c["check"]: c["ok"] for c in json.loads(doc.stdout)}
    assert any(k.startswith("search mode: semantic") and v for k, v in checks.items())
    assert checks[f"{n} of {n} notes embedded"]


# ---------------------------------------------------------------- download

class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


@pytest.fixture
def hub(tmp_path, model_dir):
    """A local HTTP server laid out like the hub: /<name>/resolve/main/<file>."""
    root = tmp_path / "hub"
    dst = root / DEFAULT / "resolve" / "main"
    shutil.copytree(model_dir, dst)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", dst
    srv.shutdown()
    srv.server_close()


def test_model_download_fetches_checks_and_installs_the_model(hub, tmp_path, no_model_package):
    url, _ = hub
    cache = tmp_path / "models"
    env = {"MEMORY_PLUGIN_HF_ENDPOINT": url, "MEMORY_PLUGIN_MODELS_DIR": str(cache),
           "MEMORY_PLUGIN_EMBEDDING_MODEL": DEFAULT, **no_model_package}  # the package's copy would be used
    r = run_cli("model", "download", env=env)
    assert r.returncode == 0, r.stderr
    got = cache / "sentence-transformers--all-MiniLM-L6-v2"
    assert models._sha256(got / "model.safetensors") == models.PINNED_SHA256[DEFAULT]
    assert (got / "1_Pooling" / "config.json").is_file()
    assert sorted(p.name for p in cache.iterdir()) == [got.name]  # no temporary folder left
    st = run_cli("model", "status", env=env)
    assert st.stdout.startswith(f"semantic: {DEFAULT} ({got})")


@pytest.mark.parametrize("damage", ["truncated", "wrong-weights", "missing-tokenizer"])
def test_a_bad_download_installs_nothing(hub, tmp_path, damage, no_model_package):
    url, served = hub
    if damage == "truncated":
        with open(served / "model.safetensors", "r+b") as f:
            f.truncate(5_000_000)
    elif damage == "wrong-weights":  # a valid file, not the official weights
        data = bytearray((served / "model.safetensors").read_bytes())
        data[-1] ^= 1
        (served / "model.safetensors").write_bytes(bytes(data))
    else:
        (served / "tokenizer.json").unlink()
    cache = tmp_path / "models"
    r = run_cli("model", "download", env={"MEMORY_PLUGIN_HF_ENDPOINT": url, "MEMORY_PLUGIN_MODELS_DIR": str(cache),
                                          "MEMORY_PLUGIN_EMBEDDING_MODEL": DEFAULT, **no_model_package})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "nothing was installed" in lines[0]
    assert not any(cache.iterdir())


# ---------------------------------------------------------------- hooks

def _hook(event, payload, env):
    import json
    import subprocess

    return subprocess.run([sys.executable, "-X", "importtime", "-m", "memory_plugin", "hook", event],
                          input=json.dumps(payload), capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)


def test_post_tool_use_indexes_at_once_and_embeds_in_a_detached_worker(semantic_vault_env, vault, cache_dir):
    note = vault / "Concepts" / "Backpressure.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nAlso: load shedding drops work at the door.\n",
                    encoding="utf-8")
    r = _hook("post-tool-use", {"tool_name": "Edit", "tool_input": {"file_path": str(note)}}, semantic_vault_env)
    assert r.returncode == 0 and r.stdout == ""
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert not {"numpy", "tokenizers", "safetensors", "memory_plugin.semantic.embedder"} & imported
    cfg = load_config()
    conn = I.open_index(cfg)
    h = conn.execute("SELECT hash FROM notes WHERE path='Concepts/Backpressure.md'").fetchone()[0]
    deadline = time.time() + 120
    while time.time() < deadline:
        if conn.execute("SELECT count(*) FROM chunks WHERE path='Concepts/Backpressure.md' AND note_hash=?",
                        (h,)).fetchone()[0]:
            break
        time.sleep(0.3)
    else:
        pytest.fail("the background worker did not embed the edited note within 120 s")
    assert S.pending(conn) == []
    conn.close()


def test_hooks_are_unaffected_by_a_broken_model(vault_env, vault, tmp_path, model_dir, cache_dir):
    d = _broken_model(tmp_path, model_dir, "garbage")
    env = {**vault_env, "MEMORY_PLUGIN_EMBEDDING_MODEL": str(d)}
    (cache_dir / "embed.stamp").write_text("x\n")
    note = vault / "Concepts" / "Backpressure.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nmore\n", encoding="utf-8")
    r = _hook("post-tool-use", {"tool_name": "Edit", "tool_input": {"file_path": str(note)}}, env)
    assert r.returncode == 0 and r.stdout == ""
    conn = sqlite3.connect(cache_dir / "index.sqlite")
    assert "more" in conn.execute("SELECT f.body FROM fts f JOIN notes n ON n.id=f.rowid "
                                  "WHERE n.path='Concepts/Backpressure.md'").fetchone()[0]
    time.sleep(2)  # the detached worker finds the model unusable and stays quiet
    assert not (cache_dir / "errors.json").exists() or "background" not in (cache_dir / "errors.json").read_text()


def test_the_vault_measures_its_own_closeness_when_embedded(sem_cfg, real_encoder):
    """Embedding stores the vault's cosine calibration (note titles, daily notes' dates not among them,
    asked as questions, best cosine to another note): query reads it; without it the stated defaults
    apply; the next embedding pass measures it again, and a rebuild keeps it."""
    conn = I.open_index(sem_cfg)
    n = conn.execute("SELECT count(DISTINCT path) FROM chunks").fetchone()[0]
    titles = [t for (t,) in conn.execute("SELECT COALESCE(NULLIF(display_title, ''), title) FROM notes"
                                         " WHERE path IN (SELECT path FROM chunks)")]
    dates = sum(map(S.date_like, titles))
    # the fixture's three daily notes (journal/2026-11-2x) and the standup whose H1 is a template
    # placeholder, so it is titled by its dated file name, are not asked
    assert dates == 4
    cal = json.loads(conn.execute("SELECT value FROM meta WHERE key='cosine_calibration'").fetchone()[0])
    assert cal["notes"] == n and cal["n"] == min(n - dates, S.CALIBRATION_TITLES) and 0 < cal["sd"] < cal["mean"] < 1
    assert cal["method"] == S.CALIBRATION_METHOD
    assert S.calibration(conn) == (cal["mean"], cal["sd"])
    conn.execute("DELETE FROM meta WHERE key='cosine_calibration'")
    conn.commit()
    assert S.calibration(conn) == S.CALIBRATION_DEFAULT
    conn.close()
    real_encoder.calls.clear()
    assert S.embed_pending(sem_cfg, encode=real_encoder)["embedded"] == 0
    assert any(len(call) > 1 for call in real_encoder.calls)  # the titles, asked in one go
    conn = I.open_index(sem_cfg)
    assert S.calibration(conn) == pytest.approx((cal["mean"], cal["sd"]))
    conn.close()
    I.rebuild(sem_cfg)
    conn = I.open_index(sem_cfg)
    assert S.calibration(conn) == pytest.approx((cal["mean"], cal["sd"]))


def test_date_titles_do_not_move_the_calibration(tmp_path, real_encoder):
    """Daily notes titled by date (the calibration without date questions): topic notes plus as many daily notes calibrate
    close to the topic notes alone; asked, a date title's nearest note is another date, not a topic
    (the calibration that asked every title: 0.41 against 0.14 here, n 24). The daily notes stay match
    candidates."""
    topics = ["Sourdough bread recipe", "Pizza dough hydration", "Garden fence repair", "Building a garden shed",
              "Race training plan", "Marathon nutrition", "Piano tuning basics", "Guitar string gauges",
              "Database migration checklist", "Postgres index bloat", "Houseplant watering", "Repotting a fern"]
    days = ["slept badly, grey and windy all day", "lunch with mum, talked about the holidays",
            "quiet day, mostly emails and a long walk", "rainy, stayed in and read a novel",
            "felt tired, early night", "sunny morning, coffee on the balcony", "busy day, meetings until six",
            "visited friends across town", "the train was late again", "cleaned the flat, did laundry",
            "phone call with my sister", "lazy Sunday, nothing planned"]
    cals = {}
    for name, daily in (("topics", []), ("journal", days)):
        vault = tmp_path / name
        vault.mkdir()
        for i, t in enumerate(topics):
            (vault / f"t{i}.md").write_text(f"# {t}\n\nNotes on {t.lower()}: what to do and what to avoid.\n")
        for i, d in enumerate(daily):
            (vault / f"2023-08-{i + 10:02d}.md").write_text(f"# 2023-08-{i + 10:02d}\n\n{d}.\n")
        conn = embedded_index(vault, real_encoder)
        cals[name] = S.calibrate(conn, real_encoder, "minilm-test")
        conn.close()
    assert cals["journal"]["notes"] == 24 and cals["journal"]["n"] == cals["topics"]["n"] == 12
    assert abs(cals["journal"]["mean"] - cals["topics"]["mean"]) < 0.05
    assert abs(cals["journal"]["sd"] - cals["topics"]["sd"]) < 0.05


def test_a_calibration_of_another_method_is_measured_again_once(sem_cfg, real_encoder):
    """A calibration stored by the first method has no method name (it asked every title, "titles"): the next
    embedding pass measures it again with the product's method, and the one after leaves it alone."""
    conn = I.open_index(sem_cfg)
    cal = json.loads(S._get_meta(conn, "cosine_calibration"))
    assert cal["method"] == S.CALIBRATION_METHOD and not S._needs_calibration(conn, cal["model"])
    old = {k: v for k, v in cal.items() if k != "method"} | {"mean": 0.9, "sd": 0.01}
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('cosine_calibration', ?)", (json.dumps(old),))
    conn.commit()
    assert S._needs_calibration(conn, cal["model"]) and S.calibration(conn) == (0.9, 0.01)
    conn.close()
    real_encoder.calls.clear()
    S.embed_pending(sem_cfg, encode=real_encoder)
    assert any(len(call) > 1 for call in real_encoder.calls)  # the titles, asked again
    conn = I.open_index(sem_cfg)
    assert json.loads(S._get_meta(conn, "cosine_calibration")) == cal
    conn.close()
    real_encoder.calls.clear()
    S.embed_pending(sem_cfg, encode=real_encoder)
    assert not real_encoder.calls  # once: the next pass has nothing to measure


@pytest.mark.parametrize("how", ["garbage", "absent"])
def test_the_prompt_hook_answers_lexically_and_logs_when_the_model_cannot_load(sem_cfg, tmp_path, model_dir, how):
    """UserPromptSubmit with prompt recall on, over an index embedded with the default model, whose
    model files are then damaged or gone: exit 0, nothing or the valid JSON shape on stdout, the
    reason logged in hooks.log and kept for the next brief (errors.json)."""
    models = tmp_path / "models"
    models.mkdir()
    if how == "garbage":
        shutil.move(str(_broken_model(tmp_path, model_dir, "garbage")), models / model_dir.name)
    conf = tmp_path / "recall-on.yaml"
    conf.write_text("prompt_recall: true\n")
    env = {"MEMORY_PLUGIN_VAULT": str(sem_cfg.vault), "MEMORY_PLUGIN_CACHE_DIR": str(sem_cfg.cache_dir),
           "MEMORY_PLUGIN_MODELS_DIR": str(models), "MEMORY_PLUGIN_CONFIG": str(conf),
           "MEMORY_PLUGIN_EMBEDDING_MODEL": "sentence-transformers/all-MiniLM-L6-v2"}
    prompt = "a second writer gets database is locked errors with SQLite WAL: what is the busy_timeout fix?"
    r = _hook("user-prompt-submit", {"session_id": "s1", "prompt": prompt, "cwd": str(sem_cfg.vault)}, env)
    assert r.returncode == 0, r.stderr
    if r.stdout.strip():
        out = json.loads(r.stdout)
        assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    log = (sem_cfg.cache_dir / "hooks.log").read_text(encoding="utf-8")
    assert "user-prompt-submit" in log and "semantic search unavailable" in log
    errors = json.loads((sem_cfg.cache_dir / "errors.json").read_text(encoding="utf-8"))
    assert "semantic search unavailable" in json.dumps(errors)
    if how == "absent":  # the installed package's copy is there to extract, but a hook never writes the model
        assert list(models.iterdir()) == []


def test_status_names_the_vectors_file_the_search_maps(tmp_path):
    from memory_plugin.outputs import stage as outputs
    from memory_plugin.core.config import load_config

    cfg = load_config(vault=tmp_path, cache_dir=tmp_path / "cache")
    assert outputs.paths(cfg)["vectors"] == str(cfg.path(S.VECTORS_FILE))
    assert outputs.paths(cfg)["vectors_current"] == str(cfg.path(S.CURRENT_FILE))


def test_which_rows_are_current_is_kept_until_a_note_changes(sem_cfg, real_encoder, monkeypatch):
    question = "retried POST must not create two jobs"
    S.embed_pending(sem_cfg, encode=real_encoder)
    conn = I.open_index(sem_cfg)
    kept = sem_cfg.path(S.CURRENT_FILE)
    first = _same_hits(sem_cfg, conn, question, monkeypatch)
    stamp, _, bits = kept.read_bytes().partition(b"\n")
    assert stamp.decode() == S._current_stamp(conn, S._tag(conn)) and len(bits) == len(S.vectors(sem_cfg, conn)[0]["pairs"])
    assert S.search(sem_cfg, conn, question, k=100) == S.search(sem_cfg, conn, question, k=100)
    kept.write_bytes(stamp + b"\n" + bytes(len(bits)))  # the kept answer is what the search uses: "none current"
    assert S.search(sem_cfg, conn, question, k=100) == []
    kept.write_bytes(stamp + b"\n" + bits)
    edited = sem_cfg.vault / "Concepts" / "Idempotency.md"
    edited.write_text("# Idempotency\nCompletely different text about gardening tomatoes.\n", encoding="utf-8")
    I.reindex(sem_cfg, ["Concepts/Idempotency.md"])  # PostToolUse's one-note reindex moves changed_at
    hits = _same_hits(sem_cfg, conn, question, monkeypatch)
    assert "Concepts/Idempotency.md" not in {h.path for h in hits}
    assert [h.path for h in hits] == [h.path for h in first if h.path != "Concepts/Idempotency.md"]
    assert kept.read_bytes().partition(b"\n")[0].decode() == S._current_stamp(conn, S._tag(conn)) != stamp.decode()
    conn.close()


# ---------------------------------------------------------------- search order and the model's preload

@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=300), st.integers(1, 400))
def test_best_first_is_the_head_of_a_stable_argsort(values, m):
    scores = np.array(values, dtype=np.float32) / 4  # few distinct values: many ties
    full = np.argsort(-scores, kind="stable")
    head = S._best_first(scores, m)
    assert len(head) >= min(m, len(scores))
    assert np.array_equal(head, full[:len(head)])  # same rows, same order, ties in row order


def test_search_takes_each_notes_best_chunk_beyond_the_sorted_head(sem_cfg, real_encoder, monkeypatch):
    # a head of one row per note wanted is too short when notes have several chunks: the search
    # then sorts every row, and the answer is the one a full sort gives
    conn = I.open_index(sem_cfg)
    try:
        want = S.search(sem_cfg, conn, "meeting notes about the release", k=20)
        monkeypatch.setattr(S, "SEARCH_ROWS_PER_NOTE", 1)
        assert S.search(sem_cfg, conn, "meeting notes about the release", k=20) == want
        monkeypatch.setattr(S, "SEARCH_ROWS_PER_NOTE", 10_000)
        assert S.search(sem_cfg, conn, "meeting notes about the release", k=20) == want
    finally:
        conn.close()


def test_preload_loads_the_model_once_in_a_thread(tmp_path, semantic_env, model_dir, monkeypatch):
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", str(model_dir))
    monkeypatch.setattr(S, "_EMBEDDERS", {})
    monkeypatch.setattr(S, "_PRELOADS", {})
    cfg = _cfg(tmp_path, tmp_path / "c")
    S.preload(cfg)
    (thread,) = S._PRELOADS.values()
    S.preload(cfg)  # already loading: no second thread
    assert list(S._PRELOADS.values()) == [thread]
    enc = S.embedder(cfg)
    assert not thread.is_alive() and S._PRELOADS == {} and S.embedder(cfg) is enc
    assert enc.encode(["hello world"])[0] @ enc.encode(["hello world"])[0] > 0.999


def test_a_preload_that_fails_leaves_the_error_to_the_caller(tmp_path, semantic_env, model_dir, monkeypatch):
    broken = _broken_model(tmp_path, model_dir, "garbage")
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", str(broken))
    monkeypatch.setattr(S, "_EMBEDDERS", {})
    monkeypatch.setattr(S, "_PRELOADS", {})
    cfg = _cfg(tmp_path, tmp_path / "c")
    S.preload(cfg)  # never raises
    with pytest.raises(S.SemanticUnavailable, match="unusable"):
        S.embedder(cfg)
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", "off")
    S.preload(load_config(vault=tmp_path, cache_dir=tmp_path / "c"))  # semantic off: nothing starts
    assert S._PRELOADS == {}


def test_the_vectors_file_mapped_ahead_serves_one_search_only(sem_cfg, real_encoder, monkeypatch):
    S.embed_pending(sem_cfg, encode=real_encoder)
    conn = I.open_index(sem_cfg)
    question = "a second writer gets database is locked errors"
    want = S.search(sem_cfg, conn, question, k=20)
    monkeypatch.setattr(S, "_MAPPED", {})
    monkeypatch.setattr(S, "_PRELOADS", {})
    monkeypatch.setattr(S, "_EMBEDDERS", {})
    S.preload(sem_cfg, conn)  # maps the file while the model loads
    assert list(S._MAPPED) == [str(sem_cfg.path(S.VECTORS_FILE))]
    assert S.search(sem_cfg, conn, question, k=20) == want
    assert S._MAPPED == {}  # used once: a later search maps the file again
    assert S.search(sem_cfg, conn, question, k=20) == want
    conn.close()
