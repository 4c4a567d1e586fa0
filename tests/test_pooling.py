"""Models run as their cards say: the pooling of `1_Pooling/config.json`, the modules of
`modules.json` and the query / passage prefixes a model declares (or models.KNOWN_PROMPTS names),
checked over a small BERT with random weights against a plain per-token reading of its forward pass.

bge-small-en-v1.5 and snowflake-arctic-embed pool the [CLS] token; e5 wants "query: " / "passage: "
before its texts. None of them is installed for the tests: what they differ in is exercised here.
"""
from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from memory_plugin.core.config import load_config
from memory_plugin.index import store as I
from memory_plugin.semantic import models
from memory_plugin.semantic import vectors as S
from memory_plugin.semantic.chunks import chunk_hash, chunk_note
from memory_plugin.semantic.embedder import Embedder
from memory_plugin.semantic.models import FileProblem
from test_mpnet import _write_safetensors

HIDDEN, HEADS, LAYERS, INTER, EPS = 16, 2, 2, 32, 1e-12
MODULES = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
           {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
           {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
FLAGS = ("pooling_mode_cls_token", "pooling_mode_mean_tokens", "pooling_mode_max_tokens",
         "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")
TEXTS = ["hello world", "Restore an earlier version of a note from the history of the vault",
         "query: x", "a b"]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, model_dir):
    """A two-layer BERT with random weights and the test model's tokenizer, laid out as
    sentence-transformers publishes a model (mean pooling, normalised)."""
    d = tmp_path_factory.mktemp("tiny-bert") / "tiny-bert"
    d.mkdir()
    vocab = len(json.loads((model_dir / "tokenizer.json").read_text())["model"]["vocab"])
    rng = np.random.default_rng(11)
    w = {"embeddings.word_embeddings.weight": rng.normal(0, 1, (vocab, HIDDEN)),
         "embeddings.position_embeddings.weight": rng.normal(0, 1, (64, HIDDEN)),
         "embeddings.token_type_embeddings.weight": rng.normal(0, 1, (2, HIDDEN)),
         "embeddings.LayerNorm.weight": rng.normal(1, 0.1, HIDDEN),
         "embeddings.LayerNorm.bias": rng.normal(0, 0.1, HIDDEN)}
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for n, (o, k) in {"attention.self.query": (HIDDEN, HIDDEN), "attention.self.key": (HIDDEN, HIDDEN),
                          "attention.self.value": (HIDDEN, HIDDEN), "attention.output.dense": (HIDDEN, HIDDEN),
                          "intermediate.dense": (INTER, HIDDEN), "output.dense": (HIDDEN, INTER)}.items():
            w[p + n + ".weight"] = rng.normal(0, 0.3, (o, k))
            w[p + n + ".bias"] = rng.normal(0, 0.1, o)
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + n + ".weight"] = rng.normal(1, 0.1, HIDDEN)
            w[p + n + ".bias"] = rng.normal(0, 0.1, HIDDEN)
    _write_safetensors(d / "model.safetensors", w)
    (d / "config.json").write_text(json.dumps({
        "model_type": "bert", "hidden_size": HIDDEN, "num_attention_heads": HEADS, "num_hidden_layers": LAYERS,
        "intermediate_size": INTER, "hidden_act": "gelu", "layer_norm_eps": EPS,
        "max_position_embeddings": 64, "vocab_size": vocab}))
    (d / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 64}))
    (d / "modules.json").write_text(json.dumps(MODULES))
    (d / "1_Pooling").mkdir()
    shutil.copyfile(model_dir / "tokenizer.json", d / "tokenizer.json")
    _pooling(d, "pooling_mode_mean_tokens")
    return d, {k: v.astype(np.float32) for k, v in w.items()}


def _pooling(d, flag: str, **more) -> None:
    (d / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": HIDDEN, **{f: f == flag for f in FLAGS}, **more}))


@pytest.fixture
def model(tiny_bert, tmp_path):
    """A copy of the tiny model this test may change, in a folder of that model's name."""
    src, w = tiny_bert
    d = tmp_path / "tiny-bert"
    shutil.copytree(src, d)
    return d, w


def _states(w: dict, ids: list[int]) -> list[np.ndarray]:
    """BERT's last hidden states for one text, token by token, in float64."""
    w = {k: v.astype(np.float64) for k, v in w.items()}

    def ln(x, p):
        return (x - x.mean()) / math.sqrt(x.var() + EPS) * w[p + ".weight"] + w[p + ".bias"]

    def dense(x, p):
        return w[p + ".weight"] @ x + w[p + ".bias"]

    hd = HIDDEN // HEADS
    h = [ln(w["embeddings.word_embeddings.weight"][t] + w["embeddings.position_embeddings.weight"][i]
            + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm") for i, t in enumerate(ids)]
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        q, k, v = ([dense(x, p + "attention.self." + n) for x in h] for n in ("query", "key", "value"))
        new = []
        for i in range(len(ids)):
            ctx = np.zeros(HIDDEN)
            for head in range(HEADS):
                s = slice(head * hd, (head + 1) * hd)
                scores = np.array([q[i][s] @ k[j][s] / math.sqrt(hd) for j in range(len(ids))])
                probs = np.exp(scores - scores.max())
                probs /= probs.sum()
                ctx[s] = sum(probs[j] * v[j][s] for j in range(len(ids)))
            a = ln(dense(ctx, p + "attention.output.dense") + h[i], p + "attention.output.LayerNorm")
            mid = dense(a, p + "intermediate.dense")
            mid = 0.5 * mid * (1 + np.vectorize(math.erf)(mid / math.sqrt(2)))
            new.append(ln(dense(mid, p + "output.dense") + a, p + "output.LayerNorm"))
        h = new
    return h


def _reference(w: dict, ids: list[int], mode: str = "mean") -> np.ndarray:
    """The sentence vector as sentence-transformers' Pooling and Normalize modules make it."""
    h = np.array(_states(w, ids))
    pooled = {"cls": lambda: h[0], "mean": lambda: h.mean(0), "max": lambda: h.max(0),
              "mean_sqrt_len": lambda: h.sum(0) / math.sqrt(len(h)),
              "weightedmean": lambda: (h * np.arange(1, len(h) + 1)[:, None]).sum(0) / sum(range(1, len(h) + 1)),
              "lasttoken": lambda: h[-1]}[mode]()
    return pooled / np.linalg.norm(pooled)


# ---------------------------------------------------------------- pooling

@pytest.mark.parametrize("mode", ["cls", "mean", "max", "mean_sqrt_len", "weightedmean", "lasttoken"])
def test_each_pooling_mode_matches_a_plain_reading_of_the_model(model, mode):
    d, w = model
    _pooling(d, f"pooling_mode_{mode}" + ("" if mode == "lasttoken" else "_token" if mode == "cls" else "_tokens"))
    enc = Embedder(d)
    ids = enc.token_ids(TEXTS)
    assert len({len(x) for x in ids}) > 1  # one batch, padded: pooling must ignore the padding
    got = enc.encode(TEXTS)
    for row, x in zip(got, ids):
        assert np.allclose(row, _reference(w, x, mode), atol=2e-5)
    assert np.allclose(enc.encode(TEXTS[:1]), got[:1], atol=1e-6)


def test_cls_and_mean_pooling_give_other_vectors(model):
    d, w = model
    mean = Embedder(d).encode(TEXTS[:1])[0]
    _pooling(d, "pooling_mode_cls_token")
    cls = Embedder(d).encode(TEXTS[:1])[0]
    assert not np.allclose(mean, cls, atol=1e-2)  # the reference test above is no accident of the weights


def test_a_model_without_pooling_or_modules_files_is_mean_pooled_and_normalised(model):
    d, w = model
    shutil.rmtree(d / "1_Pooling")
    (d / "modules.json").unlink()
    enc = Embedder(d)
    assert enc.recipe == models.PLAIN
    assert np.allclose(enc.encode(TEXTS[:1])[0], _reference(w, enc.token_ids(TEXTS[:1])[0]), atol=2e-5)


def test_the_pooling_module_is_found_where_modules_json_puts_it(model):
    d, _ = model
    (d / "1_Pooling").rename(d / "pool")
    (d / "pool" / "config.json").write_text(json.dumps({f: f == "pooling_mode_cls_token" for f in FLAGS}))
    (d / "modules.json").write_text(json.dumps([dict(m, path="pool") if m["idx"] == 1 else m for m in MODULES]))
    assert Embedder(d).recipe.pooling == "cls"


@pytest.mark.parametrize("change, message", [
    (lambda d: (d / "modules.json").write_text(json.dumps(MODULES + [
        {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}])),
     r"modules.json chains a Dense \(3_Dense\) module"),
    (lambda d: _pooling(d, "pooling_mode_cls_token", pooling_mode_mean_tokens=True),
     "sets pooling_mode_cls_token and pooling_mode_mean_tokens; one pooling mode"),
    (lambda d: _pooling(d, "none"), "sets no pooling mode"),
    (lambda d: ((d / "modules.json").write_text(json.dumps(MODULES[:2])),
                (d / "config_sentence_transformers.json").write_text(json.dumps({"similarity_fn_name": "dot"}))),
     "scores by dot; only models compared by cosine"),
    (lambda d: (_pooling(d, "pooling_mode_mean_tokens", include_prompt=False),
                (d / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"query": "q: "}}))),
     "include_prompt false"),
    (lambda d: (d / "modules.json").write_text("{not json"), "modules.json cannot be read"),
])
def test_what_the_encoder_cannot_run_is_a_one_line_error_naming_it(model, change, message):
    d, _ = model
    change(d)
    with pytest.raises(FileProblem, match=message) as e:
        Embedder(d)
    assert "\n" not in str(e.value)


# ---------------------------------------------------------------- prefixes

def test_a_declared_query_prefix_is_put_before_questions_only(model):
    d, w = model
    (d / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": None}))
    enc = Embedder(d)
    [q_ids, p_ids, raw_ids] = enc.token_ids(["query: x", "passage: x", "x"])
    assert np.allclose(enc.encode(["x"], prompt="query")[0], _reference(w, q_ids), atol=2e-5)
    assert np.allclose(enc.encode(["x"], prompt="passage")[0], _reference(w, p_ids), atol=2e-5)
    assert np.allclose(enc.encode(["x"])[0], _reference(w, raw_ids), atol=2e-5)


@pytest.mark.parametrize("prompts, default, query, passage", [
    ({"query": "Represent this sentence for searching relevant passages: "}, None,
     "Represent this sentence for searching relevant passages: ", ""),  # snowflake-arctic-embed's
    ({"query": "search_query: ", "document": "search_document: "}, None, "search_query: ", "search_document: "),
    ({"classification": "classify: ", "query": "q: "}, "classification", "q: ", "classify: "),
])
def test_prompts_are_read_from_config_sentence_transformers(model, prompts, default, query, passage):
    d, _ = model
    (d / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": prompts, "default_prompt_name": default}))
    enc = Embedder(d)
    assert (enc.recipe.query_prefix, enc.recipe.passage_prefix) == (query, passage)


@pytest.mark.parametrize("name, query, passage", [
    ("intfloat/e5-small-v2", "query: ", "passage: "),
    ("intfloat/e5-base", "query: ", "passage: "),
    ("BAAI/bge-small-en-v1.5", "Represent this sentence for searching relevant passages: ", ""),
    ("baai/bge-base-en-v1.5", "Represent this sentence for searching relevant passages: ", ""),
    ("sentence-transformers/all-MiniLM-L6-v2", "", ""),
    ("BAAI/bge-m3", "", ""),
])
def test_known_families_get_the_prefixes_their_cards_ask_for(model, tmp_path, name, query, passage):
    d, _ = model
    r = models.read_recipe(d, name)  # by the hub name
    assert (r.query_prefix, r.passage_prefix) == (query, passage)
    cached = tmp_path / name.replace("/", "--")  # by the models cache's folder name
    d.rename(cached)
    assert (Embedder(cached).prefixes["query"], Embedder(cached).prefixes["passage"]) == (query, passage)
    bare = tmp_path / name.split("/")[1]  # a local folder named as the model
    cached.rename(bare)
    assert models.read_recipe(bare, str(bare)).query_prefix == query
    assert models.read_recipe(None, name).query_prefix == query  # the package's copy, not extracted


def test_declared_prompts_win_over_the_table(model, tmp_path):
    d, _ = model
    e5 = tmp_path / "intfloat--e5-small-v2"
    d.rename(e5)
    (e5 / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"query": "Q: "}}))
    assert models.read_recipe(e5) == models.Recipe("mean", "Q: ", "", True)


# ---------------------------------------------------------------- the model id and stored vectors

def test_the_default_model_is_run_as_before_and_keeps_its_id(real_encoder, semantic_env, tmp_path, monkeypatch):
    enc = real_encoder.embedder
    assert enc.recipe == models.PLAIN
    plain = enc.encode(["hello world"])
    assert np.array_equal(enc.encode(["hello world"], prompt="query"), plain)
    assert np.array_equal(enc.encode(["hello world"], prompt="passage"), plain)
    # the id its vectors are stored under is unchanged: no index is re-embedded for this change
    cfg = load_config(vault=tmp_path, cache_dir=tmp_path / "c")
    monkeypatch.setattr(S, "_EMBEDDERS", {})  # read from its files
    assert S.model_id(cfg) == models.DEFAULT_MODEL
    monkeypatch.setattr(S, "_EMBEDDERS", {models.DEFAULT_MODEL: enc})  # from the loaded model
    assert S.model_id(cfg) == models.DEFAULT_MODEL


def test_the_model_id_changes_with_pooling_and_prefixes(model):
    d, _ = model
    ids = [models.DEFAULT_MODEL + models.fingerprint(models.read_recipe(d))]
    _pooling(d, "pooling_mode_cls_token")
    ids.append(models.fingerprint(models.read_recipe(d)))
    (d / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"query": "query: "}}))
    ids.append(models.fingerprint(models.read_recipe(d)))
    (d / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"query": "query:  "}}))
    ids.append(models.fingerprint(models.read_recipe(d)))
    assert ids[0] == models.DEFAULT_MODEL and ids[1] == " (cls pooling)"
    assert len(set(ids)) == 4 and ids[2].startswith(" (cls pooling, prompts ")
    assert len({chunk_hash(i, "same text") for i in ids}) == 4


@pytest.fixture
def tiny_vault(model, tmp_path, monkeypatch):
    d, _ = model
    vault = tmp_path / "vault"
    vault.mkdir()
    for title, text in [("Backups", "Copy the vault to another disk every night."),
                        ("Locks", "A second writer waits for the database lock."),
                        ("Gardens", "Tomatoes want sun and water.")]:
        (vault / f"{title}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", str(d))
    monkeypatch.setattr(S, "_EMBEDDERS", {})
    cfg = load_config(vault=vault, cache_dir=tmp_path / "cache")
    I.rebuild(cfg)
    return cfg, d


def test_notes_are_passages_questions_are_queries_and_a_new_prefix_re_embeds(tiny_vault, monkeypatch):
    cfg, d = tiny_vault
    (d / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": "query: ", "passage": "passage: "}}))
    first = S.embed_pending(cfg)
    assert first["embedded"] >= 3
    conn = I.open_index(cfg)
    enc = S.embedder(cfg)
    rows = conn.execute("SELECT c.path, c.vec, c.heading, c.start, c.end FROM chunks c").fetchall()
    mid = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()[0]
    assert mid == str(d) + models.fingerprint(enc.recipe) != str(d)
    texts = {}
    for path, title, summary, body in conn.execute(
            "SELECT n.path, COALESCE(NULLIF(n.display_title, ''), n.title), COALESCE(n.summary, ''), f.body"
            " FROM notes n JOIN fts f ON f.rowid = n.id"):
        texts[path] = chunk_note(title, summary, body)[0].text
    for path, vec, *_ in rows:
        stored = np.frombuffer(vec, dtype=np.float32)
        assert np.allclose(stored, enc.encode(["passage: " + texts[path]])[0], atol=1e-6)
    hit = S.search(cfg, conn, "who waits for the lock", k=3)
    best = {path: np.frombuffer(vec, dtype=np.float32) for path, vec, *_ in rows}
    q = enc.encode(["query: who waits for the lock"])[0]
    assert [h.path for h in hit] == sorted(best, key=lambda p: -float(best[p] @ q))
    assert math.isclose(hit[0].score, float(best[hit[0].path] @ q), abs_tol=1e-5)
    conn.close()

    # another prefix (a new process reads the changed files): nothing made with the old one is reused
    (d / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"query": "query: "}}))
    monkeypatch.setattr(S, "_EMBEDDERS", {})
    with pytest.raises(S.SemanticUnavailable, match="run `memory-plugin sync` to re-embed"):
        S.search(cfg, I.open_index(cfg), "who waits for the lock")
    again = S.embed_pending(cfg)
    assert again["embedded"] == first["embedded"] and again["reused"] == 0
    assert S.search(cfg, I.open_index(cfg), "who waits for the lock")
