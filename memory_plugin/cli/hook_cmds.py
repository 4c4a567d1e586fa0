"""CLI commands of the hooks layer: install, uninstall, doctor, and `hook`. Claude Code's own hook
calls (`memory-plugin hook EVENT`, JSON on stdin) are dispatched in __main__ without click; this
`hook` command handles the rest: --help, usage errors, global options given before `hook`."""
from __future__ import annotations

import os
from pathlib import Path

import click

from ..core.errors import MemoryPluginError


class HookUsageError(MemoryPluginError):
    pass


def register(cli: click.Group) -> None:
    from .base import echo_json
    from ..claude.hooks import HANDLERS, HOOKS

    @cli.command("hook")
    @click.argument("event", type=click.Choice(sorted(HANDLERS)), metavar="EVENT")
    @click.pass_obj
    def hook(c, event):
        """Run the Claude Code hook EVENT (post-tool-use, session-end, session-start, ...): reads the hook's JSON input on stdin, prints what Claude Code
        expects (SessionStart: the brief), always exits 0 and logs any error to hooks.log. Claude Code
        runs it; to try it by hand, pipe the JSON in: echo '{"cwd": "."}' | memory-plugin hook session-start"""
        from ..claude import hooks

        if hooks.typed_by_hand():
            raise HookUsageError(f"`memory-plugin hook {event}` reads the hook's JSON input on stdin, as Claude "
                                 f"Code sends it: pipe it in, e.g. echo '{{}}' | memory-plugin hook {event}")
        vault, cache_dir, config_file = c.args  # global options before `hook`: as the environment would
        for var, value in (("MEMORY_PLUGIN_VAULT", vault), ("MEMORY_PLUGIN_CACHE_DIR", cache_dir),
                           ("MEMORY_PLUGIN_CONFIG", config_file)):
            if value:
                os.environ[var] = str(Path(value).expanduser().absolute())
        raise SystemExit(hooks.run_hook([event]))

    @cli.command(help=f"Register the hooks ({', '.join(h.event for h in HOOKS)}) in ~/.claude/settings.json, "
                      "allow the skills' commands, install the skills and build the vault's index.")
    @click.option("--vault", "vault", type=click.Path(path_type=Path), help="Record this vault in the user config.")
    @click.option("--settings", "settings", type=click.Path(path_type=Path),
                  help="Settings file (default ~/.claude/settings.json).")
    @click.option("--dry-run", is_flag=True, help="Print the diff, change nothing.")
    @click.option("--no-permissions", is_flag=True,
                  help="Leave out the Bash(memory-plugin:*) rule: Claude asks before each memory-plugin command.")
    @click.option("--permissions-only", is_flag=True,
                  help="Only the Bash(memory-plugin:*) rule (and --vault): for the plugin route, whose hooks and "
                       "skills come with the plugin.")
    @click.option("--no-build", is_flag=True, help="Do not build the index now (the first session builds it).")
    @click.option("--force", is_flag=True, help="Record a --vault that holds no notes yet (a new vault).")
    @click.pass_obj
    def install(c, vault, settings, dry_run, no_permissions, permissions_only, no_build, force):
        import sys

        from ..claude import install as I
        from ..core.config import load_config

        if no_permissions and permissions_only:
            raise HookUsageError("--no-permissions and --permissions-only contradict each other: give one")
        cfg = load_config(vault=vault or c.args[0], cache_dir=c.args[1], config_file=c.args[2])
        # A vault that holds no notes is most often a wrong path (a parent folder, a typo that exists):
        # a --vault given now is refused before anything is written, unless --force says it is a new vault.
        empty = I.no_notes(cfg) if cfg.vault is not None and cfg.vault.is_dir() else None
        if empty and vault is not None and not force:
            raise HookUsageError(f"{empty}; nothing was changed (give the folder of your notes, or --force "
                                 "to use this one as a new vault)")
        for m in I.install(settings, vault, dry_run, permissions=not no_permissions, hooks=not permissions_only):
            click.echo(m)
        if empty:
            click.echo(f"warning: {empty}", err=True)
        if dry_run or no_build:
            return
        if cfg.vault is None:
            click.echo("no vault configured yet: `memory-plugin install --vault PATH` records one and builds its index")
            return
        progress = None
        if sys.stderr.isatty():
            def progress(i, n):
                click.echo(f"\rreading notes {i}/{n}", err=True, nl=(i == n))
        click.echo(I.build(cfg, progress))

    @cli.command("plugin-dir")
    def plugin_dir():
        """Print the folder holding the Claude Code plugin (and its marketplace), for
        `claude plugin install memory-plugin --marketplace "$(memory-plugin plugin-dir)"`."""
        from ..core.resources import plugin_root

        click.echo(str(plugin_root()))

    @cli.command()
    @click.option("--settings", "settings", type=click.Path(path_type=Path))
    @click.option("--dry-run", is_flag=True, help="Print the diff, change nothing.")
    def uninstall(settings, dry_run):
        """Remove exactly what install added."""
        from ..claude import install as I

        for m in I.uninstall(settings, dry_run):
            click.echo(m)

    @cli.command()
    @click.option("--settings", "settings", type=click.Path(path_type=Path))
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_obj
    def doctor(c, settings, as_json):
        """Check hooks, vault, index, locks, hook errors and the SessionEnd budget; exit 1 if anything is wrong."""
        from ..claude import doctor as D

        checks = D.run(c.cfg, settings)
        if as_json:
            echo_json(checks)
        else:
            for ch in checks:
                click.echo(f"{'BAD' if not ch['ok'] else 'WARN' if ch.get('warn') else 'ok '} {ch['check']}")
                if ch["fix"]:
                    click.echo(f"    fix: {ch['fix']}")
        if not all(ch["ok"] for ch in checks):
            raise SystemExit(1)
