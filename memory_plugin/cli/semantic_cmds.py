"""CLI of the semantic layer: `model download`, and the embedding pass `rebuild` and `sync` run."""
from __future__ import annotations

import sys

import click


def embed_after_index(cfg, as_json: bool = False) -> tuple[dict | None, Exception | None]:
    """The pipeline's embed stage after rebuild/sync, with progress on a terminal."""
    from ..outputs.pipeline import embed

    progress = None
    if sys.stderr.isatty() and not as_json:
        def progress(i, n):
            click.echo(f"\rembedding notes {i}/{n}", err=True, nl=(i == n))
    return embed(cfg, progress=progress)


def describe(stats: dict | None) -> str | None:
    if stats is None:
        return None
    if stats.get("busy"):
        return "embedding: another process is embedding this vault; it finishes the rest"
    from ..core.textutil import plural

    return (f"embedded {plural(stats['notes'], 'note')} ({plural(stats['embedded'], 'chunk')} embedded, "
            f"{stats['reused']} reused)")


def register(cli) -> None:
    @cli.group()
    def model():
        """The embedding model of semantic search."""

    @model.command()
    @click.argument("name", required=False)
    @click.option("--force", is_flag=True, help="Download again even when it is there.")
    @click.pass_obj
    def download(c, name, force):
        """Fetch the embedding model (default: embedding_model) into the models cache."""
        from ..semantic import models

        name = name or c.cfg.values.get("embedding_model") or models.DEFAULT_MODEL
        if models.is_off(name):
            name = models.DEFAULT_MODEL
        bar = {"file": None, "bar": None}

        def progress(fname, done, total):
            if not sys.stderr.isatty():
                return
            if bar["file"] != fname:
                if bar["bar"] is not None:
                    bar["bar"].render_finish()
                bar["file"] = fname
                bar["bar"] = click.progressbar(length=total or 0, label=fname, file=sys.stderr)
                bar["done"] = 0
            bar["bar"].update(done - bar["done"])
            bar["done"] = done

        where = models.locate(name)[1]
        path = models.download(name, force=force, progress=progress)
        if bar["bar"] is not None:
            bar["bar"].render_finish()
        click.echo(f"model {name} is in {path}" + (
            f" (from the installed {models.PACKAGE_INSTALL.rsplit(' ', 1)[-1]} package; nothing downloaded)"
            if where == "package" and not force else ""))

    @model.command("status")
    @click.pass_obj
    def model_status(c):
        """Which search mode is on and why."""
        from ..semantic import vectors as semantic

        m, detail = semantic.mode(c.cfg)
        click.echo(f"{m}: {detail}")
