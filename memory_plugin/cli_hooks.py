"""CLI commands of the hooks layer: install, uninstall, doctor, and `hook` (help only: the hook
path itself is dispatched in __main__ without click)."""
from __future__ import annotations

from pathlib import Path

import click


def register(cli: click.Group) -> None:
    from .cli import echo_json

    @cli.command("hook", context_settings={"ignore_unknown_options": True})
    @click.argument("event", type=click.Choice(["session-start", "user-prompt-submit", "post-tool-use", "session-end"]))
    def hook(event):
        """Run a Claude Code hook: reads the hook JSON on stdin, always exits 0."""
        from .hooks import run_hook

        raise SystemExit(run_hook([event]))

    @cli.command()
    @click.option("--vault", "vault", type=click.Path(path_type=Path), help="Record this vault in the user config.")
    @click.option("--settings", "settings", type=click.Path(path_type=Path),
                  help="Settings file (default ~/.claude/settings.json).")
    @click.option("--dry-run", is_flag=True, help="Print the diff, change nothing.")
    def install(vault, settings, dry_run):
        """Register the three hooks in ~/.claude/settings.json and install the skills."""
        from . import install as I

        for m in I.install(settings, vault, dry_run):
            click.echo(m)

    @cli.command()
    @click.option("--settings", "settings", type=click.Path(path_type=Path))
    @click.option("--dry-run", is_flag=True, help="Print the diff, change nothing.")
    def uninstall(settings, dry_run):
        """Remove exactly what install added."""
        from . import install as I

        for m in I.uninstall(settings, dry_run):
            click.echo(m)

    @cli.command()
    @click.option("--settings", "settings", type=click.Path(path_type=Path))
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_obj
    def doctor(c, settings, as_json):
        """Check hooks, vault, index, locks, hook errors and the SessionEnd budget; exit 1 if anything is wrong."""
        from . import doctor as D

        checks = D.run(c.cfg, settings)
        if as_json:
            echo_json(checks)
        else:
            for ch in checks:
                click.echo(f"{'ok ' if ch['ok'] else 'BAD'} {ch['check']}")
                if ch["fix"]:
                    click.echo(f"    fix: {ch['fix']}")
        if not all(ch["ok"] for ch in checks):
            raise SystemExit(1)
