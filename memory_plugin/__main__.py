"""Entry point. `memory-plugin hook ...` takes a lean path that never imports click or networkx."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"]:
        try:
            from .hooks import run_hook
        except ImportError:  # hooks not installed in this build: never fail a session
            return 0
        return run_hook(argv[1:])
    from .cli import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
