"""CLI commands of the query and memory layer: parse options, call one core function, render."""
from __future__ import annotations

import click

from .base import Ctx, _none_because, _open, echo_json
from ..core.textutil import plural

json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
dry_opt = click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")


def _show_edits(results: list[dict], as_json: bool) -> None:
    from .lean import show_edits

    show_edits(results, as_json, click.echo)


def _edit_command(cli: click.Group, name: str, args: tuple[str, ...], doc: str) -> None:
    def command(c: Ctx, dry_run, as_json, **notes):
        from ..memory import write as M

        _show_edits(getattr(M, name)(c.cfg, *(notes[a] for a in args), dry_run), as_json)

    command = dry_opt(json_opt(click.pass_obj(command)))
    for a in reversed(args):
        command = click.argument(a)(command)
    cli.command(name, help=doc)(command)


def _no_hits(c: Ctx, conn, text: str, type_: str | None) -> str:
    """Why `search` found nothing: an index of no notes, no note of that type, or no note with the
    phrase(s) and words asked for (private notes are never searched)."""
    from ..core import textutil as T

    quoted, rest = T.phrases(text)
    rest = [w for w in rest if w not in T.STOPWORDS] or rest
    parts = [f'the phrase "{T.one_line(q).strip()}"' for q in quoted]
    if rest and not quoted:  # with a phrase, the other words were tried, then left out
        words = ", ".join(dict.fromkeys(rest))
        parts.append(f"the word {words}" if len(set(rest)) == 1 else f"any of the words {words}")
    type_ = type_ and type_.strip().lower()  # as search checked it
    why = f"no note{' of type ' + type_ if type_ else ''} contains {' and '.join(parts)}"
    if type_ and conn.execute("SELECT 1 FROM notes WHERE type = ? AND private = 0 LIMIT 1", (type_,)).fetchone() is None:
        why = f"no note has type {type_}"
    return _none_because(c, conn, why)


def query_option(o):
    """The click option of one of lean.QUERY_OPTIONS."""
    if o.kind == "flag":
        return click.option(o.flag, o.key, is_flag=True, help=o.help)
    return click.option(o.flag, o.key, type=int if o.kind == "int" else None, default=None, help=o.help)


def register(cli: click.Group) -> None:
    from .lean import QUERY_OPTIONS, answer  # answer also runs without click for the plain forms (__main__)

    def query(c: Ctx, text, **opts):
        """What do we know about TEXT? Notes ranked and grouped by kind, with why each was returned."""
        answer(c.cfg, text, **opts, out=click.echo)

    query = click.pass_obj(query)
    for o in reversed(QUERY_OPTIONS):  # the lean parser reads the same table (cli/lean.py)
        query = query_option(o)(query)
    cli.command()(click.argument("text")(query))

    @cli.command()
    @click.argument("text")
    @click.option("--type", "type_", help="Only notes of this type.")
    @click.option("-n", "--limit", type=click.IntRange(1), default=20, help="How many hits (default 20).")
    @json_opt
    @click.pass_obj
    def search(c: Ctx, text, type_, limit, as_json):
        """Full-text search (FTS5 BM25) with snippets."""
        from ..search import query as Q

        conn = _open(c)
        hits = Q.search(conn, text, type_, limit)
        if as_json:
            return echo_json({"query": text, "hits": hits})
        if not hits:
            click.echo(_no_hits(c, conn, text, type_))
        for h in hits:
            click.echo(f"{h['title']}  ({h['path']}, {h['type']}{', ' + h['status'] if h['status'] else ''})")
            if h["snippet"]:
                click.echo(f"    {h['snippet']}")

    @cli.command()
    @click.option("--type", "type_", required=True,
                  help="decision, pitfall, pattern, learning, convention or note.")
    @click.option("--title", required=True, help="The note's title (becomes its file name).")
    @click.option("--summary", required=True, help="One sentence: what to remember.")
    @click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
    @click.option("--link", "links", multiple=True, help="A note to link to (repeatable).")
    @click.option("--project", help="The project this memory belongs to (any of its names; default: the "
                  "working folder's project, except for conventions).")
    @click.option("--no-project", is_flag=True, help="Belongs to no project, whatever the working folder.")
    @click.option("--body", help="Body text (markdown).")
    @click.option("--body-file", type=click.Path(allow_dash=True), help="Read the body from a file, - for stdin.")
    @click.option("--merge", help="Append a dated section to this existing note instead.")
    @click.option("--supersedes", help="This new note replaces that one (marked superseded, kept).")
    @click.option("--about", "about", multiple=True, metavar="PATH[:LINES]",
                  help="The code this memory is about (repeatable): a file of the working folder's git repository, "
                       "with lines as PATH:10, PATH:10-20 or PATH#L10-L20; recorded in `files:` with a "
                       "fingerprint, so a later change of that code is flagged.")
    @click.option("--force", is_flag=True, help="Write even when near-duplicates exist.")
    @dry_opt
    @json_opt
    @click.pass_obj
    def remember(c: Ctx, **opts):
        """Write a new typed memory note (refuses near-duplicates unless --merge or --force)."""
        from .lean import remember as body

        body(lambda: c.cfg, out=click.echo, **opts)

    # Property-only edits of existing notes: memory.<name>(cfg, *notes, dry_run) -> edits shown.
    for name, args, doc in (
            ("supersede", ("old", "new"), "Mark OLD superseded by NEW (OLD keeps its body; both stay in the vault)."),
            ("contradicts", ("a", "b"), "Record that note A contradicts note B (reorganize lists it until one is "
                                        "superseded)."),
            ("validate", ("note",), "Confirm NOTE still holds: last_validated today, confidence raised."),
            ("retract", ("note",), "Mark NOTE retracted (kept in the vault, demoted in answers).")):
        _edit_command(cli, name, args, doc)

    @cli.command()
    @click.option("--apply", "apply_ids", multiple=True, help="Apply these proposal numbers (repeatable, or 1,3,5).")
    @click.option("--limit", type=click.IntRange(1), default=None, help="Proposals shown per kind (default report_max_items).")
    @dry_opt
    @json_opt
    @click.pass_obj
    def reorganize(c: Ctx, apply_ids, limit, dry_run, as_json):
        """Hygiene proposals; --apply ID... applies the chosen safe ones (nothing is ever deleted)."""
        import os

        from ..index.code import repo_root
        from ..memory import reorganize as R

        cfg = c.cfg
        conn = _open(c)
        props = R.proposals(cfg, conn, repo=repo_root(os.getcwd()))
        conn.close()
        if not apply_ids:
            if as_json:
                return echo_json({"proposals": props})
            click.echo(R.render(props, limit or cfg.report_max_items), nl=False)
            return
        ids = R.parse_ids(apply_ids, props)
        results = R.apply(cfg, props, ids, dry_run=dry_run, echo=None if as_json else click.echo)
        if as_json:
            echo_json({"applied": results, "dry_run": dry_run})

    @cli.command(name="eval")
    @click.argument("questions", required=False, type=click.Path())
    @click.option("-v", "--verbose", is_flag=True, help="Also list the questions query missed.")
    @click.option("--prompts", "prompts", type=click.Path(),
                  help="A prompt set: score what the UserPromptSubmit hook adds (recall and capture).")
    @json_opt
    @click.pass_obj
    def eval_(c: Ctx, questions, verbose, prompts, as_json):
        """Recall@1, recall@5, MRR per kind and abstention: hybrid, lexical, semantic and plain BM25
        (with --prompts: what the UserPromptSubmit hook adds, lexical and semantic)."""
        from ..search import evaluate as E
        from ..core.config import load_config
        from ..index.store import open_index, sync

        if prompts and questions:
            raise click.UsageError("give a questions file or --prompts FILE, not both")
        if prompts:
            from ..claude import prompt_eval as PE

            qs, named_vault = PE.load(prompts)
        else:
            path = questions or E.default_questions()
            qs, named_vault = E.load_questions(path)
        cfg = c.cfg
        if named_vault and cfg.sources.get("vault") != "command line":
            # The named vault gets its own cache, never the one of the user's vault.
            from ..core.config import default_cache_dir

            cache = cfg.cache_dir if cfg.sources.get("cache_dir") == "command line" else default_cache_dir(named_vault)
            cfg = load_config(vault=named_vault, cache_dir=cache, config_file=c.args[2])
        cfg.require_vault()
        sync(cfg)
        if prompts:
            try:
                from .semantic_cmds import embed_after_index
            except ImportError:  # no semantic layer in this install
                pass
            else:
                embed_after_index(cfg, as_json)  # as sync does: the prompt hook answers from the embedded notes
            return _eval_prompts(cfg, qs, verbose, as_json)
        # No embedding for the question sets (a vault's first embedding takes minutes, and the
        # dendron figure runs under a 45 s timeout): eval measures what `sync` embedded and says so.
        conn = open_index(cfg)
        res = E.run(cfg, conn, qs)
        if as_json:
            return echo_json(res)
        mode = (f"semantic on, {res['embedded']}" if res["mode"] == "semantic" else
                "semantic off: " + (res["notice"] or "no semantic layer; hybrid = lexical"))
        click.echo(f"{plural(len(qs), 'question')} over {cfg.vault} ({mode})\n")
        click.echo(E.markdown(res["summary"]), nl=False)
        if verbose:
            for line in E.failures(res):
                click.echo(f"missed: {line}")


def _eval_prompts(cfg, prompts: list[dict], verbose: bool, as_json: bool) -> None:
    from ..claude import prompt_eval as PE
    from ..claude.hooks import refresh_brief

    refresh_brief(cfg)  # the brief a session would start with: its notes are not injected again
    results = {mode: PE.run(cfg, prompts, mode=mode) for mode in PE.modes(cfg)}
    if as_json:
        return echo_json({m: r["summary"] for m, r in results.items()})
    click.echo(f"{plural(len(prompts), 'prompt')} over {cfg.vault}\n")
    click.echo(PE.markdown({m: r["summary"] for m, r in results.items()}), nl=False)
    if verbose:
        by_id = {q["id"]: q for q in prompts}
        for m, r in results.items():
            for line in PE.misses(r["rows"], by_id):
                click.echo(f"{m}: {line}")
