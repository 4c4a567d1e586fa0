"""Where the files shipped with the package live: memory_plugin/_data/ in an installed wheel (see
setup.py), the checkout's top level in an editable install."""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # the package's folder (this file is in core/)


def data_dir() -> Path:
    shipped = HERE / "_data"
    return shipped if (shipped / "skills").is_dir() else HERE.parent


def path(*parts: str) -> Path:
    return data_dir().joinpath(*parts)


def plugin_root() -> Path:
    """A Claude Code plugin root (and its own directory marketplace): .claude-plugin/, hooks/, skills/."""
    return data_dir()
