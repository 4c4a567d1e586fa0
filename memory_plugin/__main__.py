"""Entry point. `memory-plugin hook ...` takes a lean path that never imports click or networkx, and so
do the plain forms of `memory-plugin query` and `memory-plugin remember` (cli/lean.py)."""
from __future__ import annotations

import sys


# The hook events whose process ends without the interpreter's teardown (quick_exit): PostToolUse runs
# on every Read and Edit, and tearing down its modules cost it ~12M instructions (a third of bare start);
# SessionStart ~5 ms of CPU at 10k notes (its worker is started before run_hook returns).
QUICK_EXIT = {"post-tool-use", "session-start"}


def quick_exit(code: int) -> None:
    """Exit at once, output flushed, when nothing is left for the teardown to do: the hooks close every
    file, connection and lock they open (os.write, atomic_write, `with`, `finally`), and this checks
    that no exit handler was registered and no other thread runs; else it returns (a normal exit)."""
    import atexit
    import os

    threading = sys.modules.get("threading")
    if getattr(atexit, "_ncallbacks", lambda: 1)() or (threading is not None and threading.active_count() > 1):
        return
    for f in (sys.stdout, sys.stderr):
        try:
            if f is not None:
                f.flush()
        except (OSError, ValueError):  # a closed pipe: as the normal exit, nothing more to say
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    console = argv is None  # the process itself (the console script): it may end without a teardown
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["hook"]:
        try:
            from .claude import hooks
        except ImportError:  # hooks not installed in this build: never fail a session
            return 0
        event = argv[1] if len(argv) > 1 else ""
        if event == "worker" or (event in hooks.HANDLERS and len(argv) == 2 and not hooks.typed_by_hand()):
            code = hooks.run_hook(argv[1:])
            if console and event in QUICK_EXIT:
                quick_exit(code)
            return code
        # `hook --help`, no event, an unknown one, extra arguments, a terminal on stdin: the click
        # command explains (usage errors exit 2) and no hook error is recorded.
    if "query" in argv[:7] or "remember" in argv[:7]:  # their plain forms skip click (cli/lean.py); None: not
        from .cli import lean as cli_lean

        code = cli_lean.main(argv)
        if code is not None:
            if console and cli_lean.ran in cli_lean.QUICK_EXIT:
                quick_exit(code)
            return code
    from .cli.main import run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
