"""Entry point. `memory-plugin hook ...` takes a lean path that never imports click or networkx."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"]:
        try:
            from . import hooks
        except ImportError:  # hooks not installed in this build: never fail a session
            return 0
        event = argv[1] if len(argv) > 1 else ""
        if event == "worker" or (event in hooks.HANDLERS and len(argv) == 2 and not hooks.typed_by_hand()):
            return hooks.run_hook(argv[1:])
        # `hook --help`, no event, an unknown one, extra arguments, a terminal on stdin: the click
        # command explains (usage errors exit 2) and no hook error is recorded.
    from .cli import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
