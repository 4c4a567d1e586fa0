"""CLI command of the view layer: `memory-plugin view` writes graph.html and prints its path."""
from __future__ import annotations

from pathlib import Path

import click


def register(cli: click.Group) -> None:
    @cli.command()
    @click.option("--open", "open_", is_flag=True, help="Open the page in the default browser.")
    @click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
                  help="Write the page here instead of the cache dir.")
    @click.pass_obj
    def view(c, open_, out):
        """Write the interactive graph page (graph.html) and print its path."""
        from . import cli as C
        from . import view as V

        conn = C._open(c)
        try:
            path = V.write_html(c.cfg, conn, out=out.expanduser().absolute() if out else None)
        finally:
            conn.close()
        click.echo(str(path))
        if open_:
            import webbrowser

            url = path.as_uri()
            if not webbrowser.open(url):
                click.echo(f"no browser found: open {url} yourself", err=True)
