"""CLI command of the view layer: `memory-plugin view` writes graph.html and prints its path."""
from __future__ import annotations

import os
from pathlib import Path

import click


def _check_out(out: Path) -> Path:
    """--out must name a page (never a note) where it can be written."""
    from ..core.errors import MemoryPluginError

    if out.suffix.lower() == ".md":
        raise MemoryPluginError(f"--out {out}: a .md path would be a note; give a .html file")
    if out.is_dir():
        raise MemoryPluginError(f"--out {out}: is a folder; give a file name")
    base = out.parent  # missing folders are created; the nearest existing one must be a writable folder
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise MemoryPluginError(f"--out {out}: {base} is a file, not a folder")
    if not os.access(base, os.W_OK):
        raise MemoryPluginError(f"--out {out}: cannot write in {base}")
    return out


def register(cli: click.Group) -> None:
    @cli.command()
    @click.option("--open", "open_", is_flag=True, help="Open the page in the default browser.")
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
                  help="Write the page here instead of the cache dir.")
    @click.pass_obj
    def view(c, open_, out):
        """Write the interactive graph page (graph.html) and print its path."""
        from . import base as C
        from ..outputs import view as V

        if out is not None:
            out = _check_out(out.expanduser().absolute())
        conn = C._open(c)
        try:
            path = V.write_html(c.cfg, conn, out=out)
        finally:
            conn.close()
        click.echo(str(path))
        if open_:
            import webbrowser

            url = path.as_uri()
            if not webbrowser.open(url):
                click.echo(f"no browser found: open {url} yourself", err=True)
