"""Entry point. `memory-plugin hook ...` takes a lean path that never imports click or networkx, and so
does the plain form of `memory-plugin query` (cli/lean.py)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"]:
        try:
            from .claude import hooks
        except ImportError:  # hooks not installed in this build: never fail a session
            return 0
        event = argv[1] if len(argv) > 1 else ""
        if event == "worker" or (event in hooks.HANDLERS and len(argv) == 2 and not hooks.typed_by_hand()):
            code = hooks.run_hook(argv[1:])
            if event == "session-start":
                hooks.exit_now(code)
            return code
        # `hook --help`, no event, an unknown one, extra arguments, a terminal on stdin: the click
        # command explains (usage errors exit 2) and no hook error is recorded.
    if "query" in argv[:7]:  # the plain forms of `query` skip click (cli/lean.py); None: they are not
        from .cli import lean as cli_lean

        code = cli_lean.main(argv)
        if code is not None:
            return code
    from .cli.main import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
