"""A sentence-transformers BERT or MPNet encoder (all-MiniLM-L6-v2, all-mpnet-base-v2, e5, bge and their
kin) run with numpy alone.

Imported only where embedding happens (never by a hook that embeds notes; UserPromptSubmit recall in
semantic mode encodes the prompt alone): it needs the `semantic` extra (numpy and tokenizers;
BERT's WordPiece is read by wordpiece.py, the library only for other tokenizers). The model directory
holds the files sentence-transformers publishes:
`config.json`, `tokenizer.json`, `model.safetensors` and optionally `modules.json`,
`1_Pooling/config.json`, `sentence_bert_config.json` and `config_sentence_transformers.json`. What
runs is what those files chain (models.read_recipe): the prefix the model asks for (a question's or
a passage's), the BERT (or MPNet) forward pass, the pooling of its `1_Pooling/config.json` (mean
over the attention mask, the [CLS] token, max, weighted mean or last token) and L2 normalisation.
MPNet differs from BERT in three places only: no token types, positions counted from the pad id + 1,
and a learned bias per head on the attention scores by bucketed relative distance (as in T5).

Why numpy and not ONNX Runtime or torch: the official release has no ONNX export and making one
needs torch; numpy reproduces the published vectors (tests/test_semantic.py) at a speed that fits
a background job and a single query, with nothing compiled of our own.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .models import FileProblem as ModelError
from .models import check_safetensors, read_recipe


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT uses, in place on x. numpy has no erf: Abramowitz & Stegun 7.1.26
    is within 1.5e-7 of it, below float32 noise here. In-place steps keep it at four arrays the
    size of x besides x (the feed-forward layer's activations are a forward pass's largest)."""
    z = x * np.float32(0.7071067811865476)
    a = np.abs(z)
    t = a * np.float32(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    y = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        y += np.float32(c)
        y *= t
    del t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    y *= a  # y = 1 - erf(|z|)
    del a
    np.subtract(np.float32(1.0), y, out=y)  # erf(|z|)
    np.copysign(y, z, out=y)  # erf(z)
    y += np.float32(1.0)
    x *= np.float32(0.5)
    x *= y
    return x


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# Tokens in one padded batch. Memory of a forward pass grows with it (the feed-forward layer holds
# several (tokens x 4 x hidden) float32 arrays, attention (batch x heads x n x n)); speed does not
# gain past a few thousand rows per matrix product. 2048: eight 256-token chunks of all-MiniLM-L6-v2.
BATCH_TOKENS = 2048


def _relative_buckets(n: int, buckets: int, max_distance: int = 128) -> np.ndarray:
    """MPNet's (T5's) bucket of each (query i, key j) distance: half the buckets for keys before the
    query, half after; within each half, distances below a quarter of the buckets exactly, longer ones
    on a log scale up to max_distance."""
    rel = np.arange(n)[None, :] - np.arange(n)[:, None]
    half = buckets // 2
    exact = half // 2
    out = (rel > 0).astype(np.int64) * half
    a = np.abs(rel)
    far = exact + (np.log(np.maximum(a, 1) / exact) / np.log(max_distance / exact) * (half - exact)).astype(np.int64)
    return out + np.where(a < exact, a, np.minimum(far, half - 1))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdims=True)
    return xc / np.sqrt(var + eps) * w + b


def _pool(mode: str, h: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """One row per text of the (texts, tokens, dim) states, as sentence-transformers' Pooling does
    in `mode`; padding (mask 0) is always at the end."""
    if mode == "cls":
        return h[:, 0]
    if mode == "lasttoken":
        return h[np.arange(len(h)), mask.sum(1).astype(np.int64) - 1]
    if mode == "max":
        return np.where(mask[:, :, None] > 0, h, np.float32(-1e9)).max(1)
    if mode == "weightedmean":  # token i (from 1) weighs i
        mask = mask * np.arange(1, h.shape[1] + 1, dtype=np.float32)
    return (h * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path} is missing") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ModelError(f"{path} cannot be read ({e})") from None


class Embedder:
    """Loads the model once; `encode(texts, prompt)` gives float32 rows of unit length. `name`: the
    model's hub name, for the prompts of models.KNOWN_PROMPTS (by default the folder's name).
    `threads`: how many batches are encoded at once (None: one per core). Each batch runs on one
    core (vectors.py keeps BLAS to one thread) and numpy lets go of the GIL for its array work, so
    the batches run side by side, each computed exactly as it would be alone."""

    def __init__(self, model_dir: str | os.PathLike, threads: int | None = None, name: str = ""):
        d = Path(model_dir)
        self.dir = d
        self.threads = max(1, threads or cores())
        cfg = _read_json(d / "config.json")
        self.kind = cfg.get("model_type", "bert")
        if self.kind not in ("bert", "mpnet") or cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ModelError(f"{d / 'config.json'}: only BERT (absolute positions) and MPNet encoders are supported")
        if cfg.get("hidden_act", "gelu") != "gelu":
            raise ModelError(f"{d / 'config.json'}: activation {cfg.get('hidden_act')!r} is not supported")
        self.recipe = read_recipe(d, name)
        self.prefixes = {"query": self.recipe.query_prefix, "passage": self.recipe.passage_prefix}
        st_path = d / "sentence_bert_config.json"
        st = _read_json(st_path) if st_path.exists() else {}
        self.max_len = int(min(st.get("max_seq_length", 256), cfg.get("max_position_embeddings", 512)))
        self.heads = int(cfg["num_attention_heads"])
        self.n_layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.dim = int(cfg["hidden_size"])
        # MPNet: positions start after the pad id; relative distances fall in this many buckets
        self.pos_offset = int(cfg.get("pad_token_id", 1)) + 1 if self.kind == "mpnet" else 0
        self.rel_buckets = int(cfg.get("relative_attention_num_buckets", 32))
        self._load_tokenizer(d / "tokenizer.json")
        self._load_weights(d / "model.safetensors")

    def _load_tokenizer(self, path: Path) -> None:
        """BERT's WordPiece in pure Python (wordpiece.py) when tokenizer.json is exactly that: ~25 ms
        where importing `tokenizers` and building its Tokenizer cost ~80. Any other tokenizer, or
        a text wordpiece cannot vouch for (WordPiece.handles), goes to the library."""
        from . import wordpiece

        self._tok = None
        self.wp = wordpiece.from_config(_read_json(path), self.max_len)
        if self.wp is None:
            self._library_tokenizer()

    def _library_tokenizer(self):
        if self._tok is None:
            from tokenizers import Tokenizer

            path = self.dir / "tokenizer.json"
            if not path.exists():
                raise ModelError(f"{path} is missing")
            try:
                tok = Tokenizer.from_file(str(path))
            except Exception as e:  # noqa: BLE001 - the Rust side raises plain Exception
                raise ModelError(f"{path} cannot be read ({str(e)[:200]})") from None
            tok.enable_truncation(max_length=self.max_len)
            tok.no_padding()
            self._tok = tok
        return self._tok

    def _load_weights(self, path: Path) -> None:
        """Map the .safetensors file (its format: an 8-byte header length, a JSON header, raw
        little-endian tensors) instead of reading it: a query touches only the word-embedding rows
        of its tokens, and the weights are used in place (the transposes are views, which BLAS takes
        as they are). Measured in bench/RESULTS.md: this is what keeps a query's model load short."""
        header = check_safetensors(path)
        base = 8 + int.from_bytes(open(path, "rb").read(8), "little")
        try:
            mm = np.memmap(path, dtype=np.uint8, mode="r")
        except (OSError, ValueError) as e:
            raise ModelError(f"{path} cannot be mapped ({e})") from None
        dtypes = {"F32": np.float32, "F16": np.float16}
        pre = next((p for p in ("bert.", "mpnet.") if p + "embeddings.word_embeddings.weight" in header), "")

        def g(k: str) -> np.ndarray:
            meta = header[pre + k]
            dt = dtypes.get(meta["dtype"])
            if dt is None:
                raise ModelError(f"{path}: tensor {k} is {meta['dtype']}; only F32 and F16 are supported")
            a, b = meta["data_offsets"]
            arr = mm[base + a:base + b].view(dt).reshape(meta["shape"])
            return arr if dt is np.float32 else arr.astype(np.float32)

        mpnet = self.kind == "mpnet"
        names = (("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o",
                  "attention.LayerNorm") if mpnet else
                 ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense", "attention.output.LayerNorm"))
        try:
            self.word = g("embeddings.word_embeddings.weight")
            self.pos = g("embeddings.position_embeddings.weight")
            self.type0 = np.float32(0.0) if mpnet else np.array(g("embeddings.token_type_embeddings.weight")[0])
            self.emb_ln = (g("embeddings.LayerNorm.weight"), g("embeddings.LayerNorm.bias"))
            self.rel_bias = g("encoder.relative_attention_bias.weight") if mpnet else None
            self.layers = []
            for i in range(self.n_layers):
                p = f"encoder.layer.{i}."
                qkv_w = np.concatenate([g(p + n + ".weight") for n in names[:3]])
                qkv_b = np.concatenate([g(p + n + ".bias") for n in names[:3]])
                self.layers.append((
                    qkv_w.T, qkv_b,
                    g(p + names[3] + ".weight").T, g(p + names[3] + ".bias"),
                    g(p + names[4] + ".weight"), g(p + names[4] + ".bias"),
                    g(p + "intermediate.dense.weight").T, g(p + "intermediate.dense.bias"),
                    g(p + "output.dense.weight").T, g(p + "output.dense.bias"),
                    g(p + "output.LayerNorm.weight"), g(p + "output.LayerNorm.bias"),
                ))
        except KeyError as e:
            raise ModelError(f"{path} lacks the tensor {e}: not a {self.kind.upper()} model") from None
        except (ValueError, TypeError) as e:
            raise ModelError(f"{path} has a tensor of the wrong size ({e})") from None
        if self.word.shape[1] != self.dim:
            raise ModelError(f"{path}: embeddings are {self.word.shape[1]}-dimensional, config.json says {self.dim}")

    # ------------------------------------------------------------ forward pass

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        texts = list(texts)
        wp = self.wp
        if wp is not None and all(map(wp.handles, texts)):
            return [wp.encode(t) for t in texts]
        return [e.ids for e in self._library_tokenizer().encode_batch(texts)]

    def _forward(self, ids: list[list[int]]) -> np.ndarray:
        b, n = len(ids), max(len(x) for x in ids)
        tok = np.zeros((b, n), dtype=np.int64)
        mask = np.zeros((b, n), dtype=np.float32)
        for i, x in enumerate(ids):
            tok[i, :len(x)] = x
            mask[i, :len(x)] = 1.0
        # Dense layers run on (b*n, dim) matrices: one BLAS call each, 3x faster than 3-D stacks.
        h = (self.word[tok] + self.pos[self.pos_offset:self.pos_offset + n] + self.type0).reshape(b * n, self.dim)
        h = _layer_norm(h, *self.emb_ln, self.eps)
        nh, hd = self.heads, self.dim // self.heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        if self.rel_bias is not None:
            bias = bias + self.rel_bias[_relative_buckets(n, self.rel_buckets)].transpose(2, 0, 1)[None]
        scale = np.float32(1.0 / np.sqrt(hd))
        for (qkv_w, qkv_b, ao_w, ao_b, ln1_w, ln1_b, i_w, i_b, o_w, o_b, ln2_w, ln2_b) in self.layers:
            qkv = (h @ qkv_w + qkv_b).reshape(b, n, 3, nh, hd)
            # contiguous (b, heads, n, hd) stacks: numpy's batched matmul reaches BLAS only for those
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3)) * scale
            kt = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            s = q @ kt
            s += bias  # in place: the (batch, heads, n, n) scores are the largest array of a layer
            s -= s.max(-1, keepdims=True)
            np.exp(s, out=s)
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b * n, self.dim)
            h = _layer_norm(ctx @ ao_w + ao_b + h, ln1_w, ln1_b, self.eps)
            h = _layer_norm(_gelu(h @ i_w + i_b) @ o_w + o_b + h, ln2_w, ln2_b, self.eps)
        pooled = _pool(self.recipe.pooling, h.reshape(b, n, self.dim), mask)
        # Unit rows whatever modules.json says: the search is by cosine, which the length never moves
        # (read_recipe refuses a model scored otherwise).
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def encode(self, texts: list[str], batch_size: int = 16, batch_tokens: int = BATCH_TOKENS,
               prompt: str | None = None) -> np.ndarray:
        """Unit-length float32 rows, one per text, in order. `prompt` "query" (a question) or
        "passage" (a note's text) puts the prefix the model asks for before each text; None, none.
        Texts of similar length share a batch so little of each batch is padding; a batch holds at
        most `batch_size` texts and, padded, at most `batch_tokens` tokens (one text alone may
        exceed it). Batches run `self.threads` at a time."""
        texts = list(texts)
        if prompt is not None and self.prefixes[prompt]:
            texts = [self.prefixes[prompt] + t for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches: list[list[int]] = [[]]
        for i in order:  # ascending lengths: the text being added is the longest of its batch
            part = batches[-1]
            if part and (len(part) == batch_size or (len(part) + 1) * len(ids[i]) > batch_tokens):
                batches.append([])
            batches[-1].append(i)
        run = lambda part: self._forward([ids[j] for j in part])  # noqa: E731
        if self.threads == 1 or len(batches) == 1:
            for part in batches:
                out[part] = run(part)
            return out
        from concurrent.futures import ThreadPoolExecutor

        batches.reverse()  # the longest first: no core is left with a long batch at the end
        with ThreadPoolExecutor(min(self.threads, len(batches)), thread_name_prefix="memory-plugin-encode") as pool:
            for part, rows in zip(batches, pool.map(run, batches)):
                out[part] = rows
        return out
