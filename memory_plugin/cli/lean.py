"""`memory-plugin query` without click: importing click costs each query ~130 million instructions
(a third of a lexical query's whole process at 10k notes), and `query` is what the skills run.

`main` takes the plain forms only: the global options --vault/--cache-dir/--config each with a
value, then `query`, one TEXT and the options of QUERY_OPTIONS (--type/--project/--budget VALUE,
--json, --history), each at most once, in any order. Anything else (--help, --version, `--opt=value`, a value or TEXT starting
with `-`, a repeated or unknown option, a budget that is not plain digits, shell completion, a
standard stream click would re-wrap) returns None and the click command handles it, so help,
usage errors and their wording stay click's. What is printed, the one-line errors and the exit
codes are those of the click command and `cli.run` (the tests run both).
"""
from __future__ import annotations

import os
import sys

GLOBAL = {"--vault": 0, "--cache-dir": 1, "--config": 2}


class Option:
    """One option of `query`: `flag`, the keyword `answer` takes it as (`key`), `kind` ("text",
    "int" or "flag": no value) and `help`. QUERY_OPTIONS builds both parsers: this module's and
    the click command (memory_cmds), in this order (the order of `query --help`)."""
    __slots__ = ("flag", "key", "kind", "help")

    def __init__(self, flag: str, key: str, kind: str, help: str):
        self.flag, self.key, self.kind, self.help = flag, key, kind, help


QUERY_OPTIONS = (
    Option("--type", "type_", "text", "Only notes of this type (decision, pitfall, convention, ...)."),
    Option("--project", "project", "text", "Put this project's notes first (default: from the working folder)."),
    Option("--history", "history", "flag", "Superseded and retracted notes first."),
    Option("--budget", "budget", "int", "Answer size in tokens, text or JSON (default 1500, at least 50; 4 chars each)."),
    Option("--json", "as_json", "flag", "Print JSON."),
)
OPTION = {o.flag: o for o in QUERY_OPTIONS}
COMPLETE_VAR = "_MEMORY_PLUGIN_COMPLETE"  # click's shell completion for prog_name memory-plugin


def parse(argv: list[str]) -> tuple[list, dict] | None:
    """([vault, cache_dir, config_file], {text, and each of QUERY_OPTIONS by its key}) for the plain
    forms of `query` (see the module's doc), else None."""
    g: list = [None, None, None]
    i = 0
    while i < len(argv) and argv[i] != "query":
        k = argv[i]
        if k not in GLOBAL or i + 1 >= len(argv) or g[GLOBAL[k]] is not None or argv[i + 1].startswith("-"):
            return None
        g[GLOBAL[k]] = argv[i + 1]
        i += 2
    if i >= len(argv):
        return None
    opts: dict = {}
    text = None
    rest = argv[i + 1:]
    j = 0
    while j < len(rest):
        o = OPTION.get(rest[j])
        if o is not None:
            if o.key in opts:
                return None
            if o.kind == "flag":
                opts[o.key] = True
                j += 1
                continue
            if j + 1 >= len(rest) or rest[j + 1].startswith("-"):
                return None
            value = rest[j + 1]
            if o.kind == "int":
                if not (value.isascii() and value.isdigit()):
                    return None
                value = int(value)
            opts[o.key] = value
            j += 2
        elif rest[j].startswith("-") or text is not None:
            return None
        else:
            text = rest[j]
            j += 1
    if text is None:
        return None
    return g, {"text": text, **{o.key: opts.get(o.key, False if o.kind == "flag" else None) for o in QUERY_OPTIONS}}


def _plain_stream(f) -> bool:
    """A text stream click.echo writes to as it is (not one it would re-wrap: ASCII, binary, none)."""
    try:
        import codecs

        enc, errs = getattr(f, "encoding", None), getattr(f, "errors", None)
        return (enc is not None and errs is not None and hasattr(f, "buffer")
                and codecs.lookup(enc).name != "ascii")
    except Exception:  # noqa: BLE001 - unknown encoding, odd stream: click decides
        return False


_ANSI = None


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """click.echo for a str to stdout/stderr: ANSI style codes removed unless the stream is a
    terminal, always flushed."""
    global _ANSI
    f = sys.stderr if err else sys.stdout
    if f is None:
        return
    out = message + "\n" if nl else message
    if not out:
        f.flush()
        return
    if "\033" in out:
        try:
            tty = f.isatty()
        except Exception:  # noqa: BLE001 - as click.isatty
            tty = False
        if not tty:
            if _ANSI is None:
                import re

                _ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")  # click._compat._ansi_re
            out = _ANSI.sub("", out)
    f.write(out)
    f.flush()


def _repo() -> str | None:
    """The git repository of the working folder: notes of the answer whose code there changed say so."""
    from ..core.paths import git_top

    return git_top(os.getcwd())


def answer(cfg, text, type_, project, history, budget, as_json, out=echo) -> None:
    """The body of `memory-plugin query` (the click command calls it too, with click.echo)."""
    from ..index import project as P
    from ..search import query as Q
    from ..index.store import open_index

    cfg.require_vault()
    conn = open_index(cfg)
    if project:  # any name the project goes by: its hub's title, an alias, its repository
        project = P.resolve(conn, project)[0]
    res = Q.query(cfg, conn, text, type_=type_, project=project, history=history, budget=budget,
                  as_json=as_json, code_repo=_repo())
    if res["notice"]:
        out(res["notice"], err=True)
    out(Q.render(res, as_json), nl=False)


class _PacifyFlush:
    """click's _PacifyFlushWrapper: a broken pipe on the last flush is not an error."""

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def flush(self) -> None:
        import errno

        try:
            self.wrapped.flush()
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)


def main(argv: list[str]) -> int | None:
    """Run `query` without click, or None (click's command will) for any other form."""
    if os.environ.get(COMPLETE_VAR) or not (_plain_stream(sys.stdout) and _plain_stream(sys.stderr)):
        return None
    parsed = parse(argv)
    if parsed is None:
        return None
    (vault, cache_dir, config_file), a = parsed
    from ..core.errors import report

    try:
        try:
            from ..core.config import load_config

            cfg = load_config(vault=vault, cache_dir=cache_dir, config_file=config_file)
            answer(cfg, **a)
        except (EOFError, KeyboardInterrupt):  # click: a blank line, then Abort -> cli.run
            print(file=sys.stderr)  # click.echo(file=sys.stderr)
            sys.stderr.flush()
            echo("Aborted.", err=True)
            return 1
        except OSError as e:  # click.Command.main: a broken pipe exits 1, quietly
            import errno

            if e.errno != errno.EPIPE:
                raise
            sys.stdout = _PacifyFlush(sys.stdout)
            sys.stderr = _PacifyFlush(sys.stderr)
            return 1
    except Exception as e:  # noqa: BLE001 - cli.run's handler: one line, never a traceback
        return report(e, echo)
    return 0
