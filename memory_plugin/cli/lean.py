"""`memory-plugin query` and `memory-plugin remember` without click: importing click costs each
process ~130 million instructions (a third of a lexical query's whole process at 10k notes, a
tenth of a remember's), and they are what the skills run.

`main` takes the plain forms only: the global options --vault/--cache-dir/--config each with a
value, then `query` with one TEXT and the options of QUERY_OPTIONS (--type/--project/--budget VALUE,
--json, --history), each at most once, in any order; or `remember` with the options of
REMEMBER_OPTIONS (each single one at most once, --tag/--link/--about any number of times; --type,
--title and --summary given). Anything else (--help, --version, `--opt=value`, a value or TEXT
starting with `-` but `--body-file -`, a repeated or unknown option, a missing required one, a
budget that is not plain digits, shell completion, a standard stream click would re-wrap) returns
None and the click command handles it, so help, usage errors and their wording stay click's. What is
printed, the one-line errors and the exit codes are those of the click commands and `cli.run` (the
tests run both); after a remember that wrote, the brief is collected again as after every write
command (`after_write`, base.WRITE_COMMANDS).
"""
from __future__ import annotations

import os
import sys

GLOBAL = {"--vault": 0, "--cache-dir": 1, "--config": 2}
# The commands whose process may end without the interpreter's teardown (__main__.quick_exit, which
# checks that no exit handler or thread is left): a remember closes every connection, file and lock
# it opens, and its teardown was ~10 ms of its process at 10k notes.
QUICK_EXIT = frozenset({"remember"})
ran: str | None = None  # the command `main` ran last


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


# `remember`'s options: "text" takes a value (the last kept), "multi" a value each time (a tuple),
# "flag" none. The click command (memory_cmds) declares the same, in this order (test_cli_lean checks).
REMEMBER_OPTIONS = (
    Option("--type", "type_", "text", ""), Option("--title", "title", "text", ""),
    Option("--summary", "summary", "text", ""), Option("--tag", "tags", "multi", ""),
    Option("--link", "links", "multi", ""), Option("--project", "project", "text", ""),
    Option("--no-project", "no_project", "flag", ""), Option("--body", "body", "text", ""),
    Option("--body-file", "body_file", "text", ""), Option("--merge", "merge", "text", ""),
    Option("--supersedes", "supersedes", "text", ""), Option("--about", "about", "multi", ""),
    Option("--force", "force", "flag", ""), Option("--dry-run", "dry_run", "flag", ""),
    Option("--json", "as_json", "flag", ""),
)
REMEMBER_OPTION = {o.flag: o for o in REMEMBER_OPTIONS}
REMEMBER_REQUIRED = ("type_", "title", "summary")


def _globals(argv: list[str], command: str) -> tuple[list, int] | None:
    """([vault, cache_dir, config_file], index of `command`) when only global options, each with a
    value, come before it; else None."""
    g: list = [None, None, None]
    i = 0
    while i < len(argv) and argv[i] != command:
        k = argv[i]
        if k not in GLOBAL or i + 1 >= len(argv) or g[GLOBAL[k]] is not None or argv[i + 1].startswith("-"):
            return None
        g[GLOBAL[k]] = argv[i + 1]
        i += 2
    if i >= len(argv):
        return None
    return g, i


def parse_remember(argv: list[str]) -> tuple[list, dict] | None:
    """([vault, cache_dir, config_file], {each of REMEMBER_OPTIONS by its key}) for the plain forms
    of `remember` (see the module's doc), else None."""
    head = _globals(argv, "remember")
    if head is None:
        return None
    g, i = head
    opts: dict = {}
    rest = argv[i + 1:]
    j = 0
    while j < len(rest):
        o = REMEMBER_OPTION.get(rest[j])
        if o is None or (o.kind != "multi" and o.key in opts):
            return None
        if o.kind == "flag":
            opts[o.key] = True
            j += 1
            continue
        if j + 1 >= len(rest) or (rest[j + 1].startswith("-") and not (o.key == "body_file" and rest[j + 1] == "-")):
            return None
        if o.kind == "multi":
            opts[o.key] = opts.get(o.key, ()) + (rest[j + 1],)
        else:
            opts[o.key] = rest[j + 1]
        j += 2
    if any(k not in opts for k in REMEMBER_REQUIRED):
        return None
    return g, {o.key: opts.get(o.key, {"flag": False, "multi": ()}.get(o.kind)) for o in REMEMBER_OPTIONS}


def parse(argv: list[str]) -> tuple[list, dict] | None:
    """([vault, cache_dir, config_file], {text, and each of QUERY_OPTIONS by its key}) for the plain
    forms of `query` (see the module's doc), else None."""
    head = _globals(argv, "query")
    if head is None:
        return None
    g, i = head
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


def memory_project(cfg, type_: str, project: str | None, no_project: bool) -> tuple[str | None, str]:
    """The project a new memory belongs to (project.resolve) and, when it came from the working
    folder, a line saying so."""
    from ..index import project as P
    from ..index.store import IndexMissing, open_index

    if no_project:
        return None, ""
    if not project and (type_ or "").strip().lower() == "convention":
        return None, ""
    try:
        conn = open_index(cfg)
    except IndexMissing:
        return project, ""
    try:
        name, m = P.resolve(conn, project)
    finally:
        conn.close()
    if project or not name:
        return name, ("" if project or not m.ambiguous else
                      f"none: {m.describe()}; give --project")
    return name, f"{name} (from {m.via}; --no-project for none)"


def show_json(data, out=echo) -> None:
    """base.echo_json through `out`."""
    import json

    out(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def show_edits(results: list[dict], as_json: bool, out=echo) -> None:
    """The property edits of existing notes (supersede, validate ...) as the commands print them."""
    if as_json:
        return show_json(results, out)
    for r in results:
        verb = "would change" if r["dry_run"] else "changed"
        if not r["diff"]:
            out(f"{r['path']}: unchanged")
        else:
            out(f"{verb} {r['path']}: " + ", ".join(f"{k}: {v}" for k, v in r["changed"].items()))
            out(r["diff"].rstrip("\n"))
        show_code(r.get("code"), r["dry_run"], out)


def show_code(found: dict | None, dry_run: bool, out=echo) -> None:
    """validate: what became of the fingerprints of the code the note is about."""
    if not found:
        return
    if found["repository"] is None:
        out("  code it is about not checked: the working folder is not in a git repository")
        return
    for a in found["anchors"]:
        what = {"current": "unchanged", "moved": "moved, followed (fingerprint kept)",
                "missing": "no longer there: fix the citation in its `files:` by hand",
                "changed": "changed: fingerprint " + ("would be " if dry_run else "") + "recorded again"
                if a["recorded"] else "changed"}.get(a["state"], a["state"])
        out(f"  code {a['cite']}: {what}")


def remember(get_cfg, type_, title, summary, tags, links, project, no_project, body, body_file, merge,
             supersedes, about, force, dry_run, as_json, out=echo) -> None:
    """The body of `memory-plugin remember` (the click command calls it too, with click.echo);
    `get_cfg()` loads the configuration (after the body is read, as the command always did)."""
    from ..memory import write as M

    if body is not None and body_file:
        raise M.MemoryWriteError("give --body or --body-file, not both")
    if body_file == "-":
        data = sys.stdin.buffer.read()
        try:
            body = data.decode("utf-8")
        except UnicodeDecodeError:
            raise M.MemoryWriteError("the body on stdin is not UTF-8 text: convert it and try again") from None
    elif body_file:
        from pathlib import Path

        body = M.read_text(Path(body_file), "body file")
    cfg = get_cfg()
    project, detected = memory_project(cfg, type_, project, no_project)
    res = M.remember(cfg, type_=type_, title=title, summary=summary, tags=tags, links=links,
                     project=project, body=body, merge=merge, force=force, dry_run=dry_run,
                     supersedes=supersedes, about=about)
    if as_json:
        return show_json(res, out)
    if res["action"] == "merged":
        out(f"{'would append to' if dry_run else 'appended to'} {res['path']}")
        for d in res["about"]:
            out(f"  about: {d['entry']}")
        out(res["diff"].rstrip("\n"))
        return
    out(f"{'would write' if dry_run else 'wrote'} {res['path']}")
    if detected:
        out(f"  project: {detected}")
    for p in res["links"]:
        out(f"  related: {p}")
    for p in res["concepts"]:
        out(f"  concept: {p}")
    for d in res["about"]:
        out(f"  about: {d['entry']}")
    for d in res["overrode_duplicates"]:
        out(f"  (near-duplicate kept anyway: {d['path']})")
    for d in res.get("replaces", []):  # a successor, not a duplicate: written, with the way to record it
        import shlex  # quoted for a shell: a title with an apostrophe ("Beacon's ...") too

        out(f"  replaces? {d['path']} (“{d['because']}”): `memory-plugin supersede "
            f"{shlex.quote(d['path'])} {shlex.quote(res['path'])}` records it")
    if dry_run:
        out(res["text"].rstrip("\n"))
    if res.get("superseded"):
        show_edits(res["superseded"], False, out)


def after_write(cfg) -> None:
    """After a command that wrote the vault or the index (base.WRITE_COMMANDS): the brief is collected
    again, so that the next session starts from what it wrote; a large vault's by a detached worker."""
    from ..claude import hooks
    from ..index.store import IndexMissing, open_index

    try:
        conn = open_index(cfg)
    except IndexMissing:
        notes = 0
    else:
        try:
            notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        finally:
            conn.close()
    if notes > hooks.BRIEF_INLINE_MAX_NOTES:
        hooks.start_worker(cfg, "brief")  # a large vault's catalogue: the command does not wait for it
    else:
        from ..outputs import brief

        brief.refresh(cfg)


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
    """Run `query` or `remember` without click, or None (click's command will) for any other form."""
    if os.environ.get(COMPLETE_VAR) or not (_plain_stream(sys.stdout) and _plain_stream(sys.stderr)):
        return None
    parsed = parse(argv) if "query" in argv[:7] else None
    command = "query"
    if parsed is None and "remember" in argv:
        parsed, command = parse_remember(argv), "remember"
    if parsed is None:
        return None
    (vault, cache_dir, config_file), a = parsed
    global ran
    ran = command
    from ..core.errors import report

    try:
        try:
            from ..core.config import load_config

            if command == "query":
                answer(load_config(vault=vault, cache_dir=cache_dir, config_file=config_file), **a)
            else:
                loaded: list = []

                def get_cfg():  # as base.Ctx.cfg: loaded when the command first needs it
                    if not loaded:
                        loaded.append(load_config(vault=vault, cache_dir=cache_dir, config_file=config_file))
                    return loaded[0]

                remember(get_cfg, **a)
                if loaded:  # as base._after: only when the command went through
                    after_write(loaded[0])
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
