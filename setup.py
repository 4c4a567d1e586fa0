"""Packaging beyond pyproject.toml: the wheel carries the repository's plugin files, skills,
documented config and default eval data inside the package, as memory_plugin/_data/ (a complete
plugin root: .claude-plugin/, hooks/, skills/), so that `pip install`, `pipx install` and
`uv tool install` give every command what it uses. An editable install reads them from the checkout
instead (memory_plugin/core/resources.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = (".claude-plugin", "hooks", "skills", "config.yaml", "fixtures/eval", "fixtures/vault", "LICENSE")


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dst = Path(self.build_lib) / "memory_plugin" / "_data"
        for rel in SHIPPED:
            src, out = ROOT / rel, dst / rel
            if not src.exists():
                raise SystemExit(f"setup.py: {src} is missing: build from a complete checkout or sdist")
            out.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, out, dirs_exist_ok=True, symlinks=False,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".obsidian"))
            else:
                shutil.copy2(src, out)
        run = dst / "hooks" / "run"
        run.chmod(0o755)


setup(cmdclass={"build_py": BuildPyWithData})
