"""MPNet encoders (all-mpnet-base-v2's architecture) in the numpy encoder, checked against a plain
per-token reading of MPNet's forward pass over a small model with random weights.

The real all-mpnet-base-v2 is 438 MB and not installed for the tests; what differs from BERT (no
token types, positions after the pad id, a learned per-head bias by bucketed relative distance) is
all exercised here, with texts long enough to reach the log-scaled and the capped buckets.
"""
from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from memory_plugin.semantic.embedder import Embedder
from memory_plugin.semantic.models import FileProblem

HIDDEN, HEADS, LAYERS, INTER, BUCKETS, PAD = 16, 2, 2, 32, 32, 1


def _write_safetensors(path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, at = {}, [], 0
    for name, arr in tensors.items():
        raw = np.ascontiguousarray(arr, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    head = json.dumps(header).encode()
    path.write_bytes(len(head).to_bytes(8, "little") + head + b"".join(blobs))


@pytest.fixture(scope="module")
def tiny_mpnet(tmp_path_factory, model_dir):
    """A two-layer MPNet with random weights and the test model's BERT tokenizer."""
    d = tmp_path_factory.mktemp("tiny-mpnet")
    tok = json.loads((model_dir / "tokenizer.json").read_text())
    vocab = len(tok["model"]["vocab"])
    rng = np.random.default_rng(7)
    w = {
        "embeddings.word_embeddings.weight": rng.normal(0, 1, (vocab, HIDDEN)),
        "embeddings.position_embeddings.weight": rng.normal(0, 1, (300, HIDDEN)),
        "embeddings.LayerNorm.weight": rng.normal(1, 0.1, HIDDEN),
        "embeddings.LayerNorm.bias": rng.normal(0, 0.1, HIDDEN),
        "encoder.relative_attention_bias.weight": rng.normal(0, 1, (BUCKETS, HEADS)),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for n in "qkvo":
            w[p + f"attention.attn.{n}.weight"] = rng.normal(0, 0.3, (HIDDEN, HIDDEN))
            w[p + f"attention.attn.{n}.bias"] = rng.normal(0, 0.1, HIDDEN)
        w[p + "attention.LayerNorm.weight"] = rng.normal(1, 0.1, HIDDEN)
        w[p + "attention.LayerNorm.bias"] = rng.normal(0, 0.1, HIDDEN)
        w[p + "intermediate.dense.weight"] = rng.normal(0, 0.3, (INTER, HIDDEN))
        w[p + "intermediate.dense.bias"] = rng.normal(0, 0.1, INTER)
        w[p + "output.dense.weight"] = rng.normal(0, 0.3, (HIDDEN, INTER))
        w[p + "output.dense.bias"] = rng.normal(0, 0.1, HIDDEN)
        w[p + "output.LayerNorm.weight"] = rng.normal(1, 0.1, HIDDEN)
        w[p + "output.LayerNorm.bias"] = rng.normal(0, 0.1, HIDDEN)
    _write_safetensors(d / "model.safetensors", w)
    (d / "config.json").write_text(json.dumps({
        "model_type": "mpnet", "hidden_size": HIDDEN, "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS, "intermediate_size": INTER, "hidden_act": "gelu",
        "layer_norm_eps": 1e-5, "max_position_embeddings": 298, "pad_token_id": PAD,
        "relative_attention_num_buckets": BUCKETS, "vocab_size": vocab}))
    (d / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 296}))
    shutil.copyfile(model_dir / "tokenizer.json", d / "tokenizer.json")
    return d, {k: v.astype(np.float32) for k, v in w.items()}


def _bucket(rel: int) -> int:
    """T5's relative-position bucket as MPNet uses it (32 buckets, distances up to 128), one pair at a
    time: keys after the query take the upper half; distances under 8 are exact, longer ones share
    log-spaced buckets, 128 and beyond the last."""
    half = BUCKETS // 2
    out = half if rel > 0 else 0
    a = abs(rel)
    if a < half // 2:
        return out + a
    return out + min(half - 1, half // 2 + int(math.log(a / (half // 2)) / math.log(128 / (half // 2)) * (half // 2)))


def _reference(w: dict, ids: list[int]) -> np.ndarray:
    """MPNet's forward pass for one text, token by token, in float64."""
    w = {k: v.astype(np.float64) for k, v in w.items()}

    def ln(x, p):
        return (x - x.mean()) / math.sqrt(x.var() + 1e-5) * w[p + ".weight"] + w[p + ".bias"]

    def dense(x, p):
        return w[p + ".weight"] @ x + w[p + ".bias"]

    n, hd = len(ids), HIDDEN // HEADS
    h = [ln(w["embeddings.word_embeddings.weight"][t] + w["embeddings.position_embeddings.weight"][PAD + 1 + i],
            "embeddings.LayerNorm") for i, t in enumerate(ids)]
    rel = w["encoder.relative_attention_bias.weight"]
    for layer in range(LAYERS):
        p = f"encoder.layer.{layer}."
        q = [dense(x, p + "attention.attn.q") for x in h]
        k = [dense(x, p + "attention.attn.k") for x in h]
        v = [dense(x, p + "attention.attn.v") for x in h]
        new = []
        for i in range(n):
            ctx = np.zeros(HIDDEN)
            for head in range(HEADS):
                s = slice(head * hd, (head + 1) * hd)
                scores = np.array([q[i][s] @ k[j][s] / math.sqrt(hd) + rel[_bucket(j - i), head] for j in range(n)])
                probs = np.exp(scores - scores.max())
                probs /= probs.sum()
                ctx[s] = sum(probs[j] * v[j][s] for j in range(n))
            a = ln(dense(ctx, p + "attention.attn.o") + h[i], p + "attention.LayerNorm")
            mid = dense(a, p + "intermediate.dense")
            mid = 0.5 * mid * (1 + np.vectorize(math.erf)(mid / math.sqrt(2)))
            new.append(ln(dense(mid, p + "output.dense") + a, p + "output.LayerNorm"))
        h = new
    pooled = np.mean(h, axis=0)
    return pooled / np.linalg.norm(pooled)


def test_mpnet_forward_pass_matches_a_plain_reading_of_the_model(tiny_mpnet):
    d, w = tiny_mpnet
    enc = Embedder(d)
    texts = ["hello world",
             "Restore an earlier version of a note from the history of the vault",
             " ".join(f"word{i} sqlite index" for i in range(70))]  # ~200 tokens: buckets past 128
    ids = enc.token_ids(texts)
    assert len(ids[2]) > 140
    got = enc.encode(texts)  # one batch: the short texts are padded to the long one
    for row, x in zip(got, ids):
        assert np.allclose(row, _reference(w, x), atol=2e-5)
    assert np.allclose(enc.encode(texts[:1]), got[:1], atol=1e-6)  # padding changes nothing


def test_a_model_of_another_architecture_is_refused_with_a_one_line_error(tiny_mpnet, tmp_path):
    d, weights = tiny_mpnet
    other = tmp_path / "other"
    shutil.copytree(d, other)
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps(dict(cfg, model_type="xlm-roberta")))
    with pytest.raises(FileProblem, match="only BERT .* and MPNet encoders are supported"):
        Embedder(other)
    (other / "config.json").write_text(json.dumps(cfg))
    without_bias = {k: v for k, v in weights.items() if k != "encoder.relative_attention_bias.weight"}
    _write_safetensors(other / "model.safetensors", without_bias)
    with pytest.raises(FileProblem, match="relative_attention_bias.*not a MPNET model"):
        Embedder(other)


def test_a_batch_holds_at_most_its_token_budget_and_batching_changes_no_vector(tiny_mpnet):
    d, _ = tiny_mpnet
    enc = Embedder(d)
    texts = [" ".join(["vault"] * k) for k in (3, 250, 40, 7, 120, 90, 5, 60, 200, 2)]
    shapes = []
    forward = enc._forward

    def watched(ids):
        shapes.append((len(ids), max(map(len, ids))))
        return forward(ids)

    enc._forward = watched
    budgeted = enc.encode(texts, batch_tokens=128)
    assert all(b * n <= 128 or b == 1 for b, n in shapes) and sum(b for b, _ in shapes) == len(texts)
    assert [b for b, n in shapes if n > 128] == [1, 1]  # a text longer than the budget goes alone
    shapes.clear()
    whole = enc.encode(texts, batch_size=len(texts), batch_tokens=10**6)
    assert shapes == [(len(texts), max(n for _, n in shapes))]
    assert np.allclose(budgeted, whole, atol=1e-6)
