"""The `memory-plugin` group and what every command module shares: its context, JSON output, the index."""
from __future__ import annotations

import json
import time

import click

from .. import __version__
from ..core.config import Config, load_config


def echo_json(data) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


class Ctx:
    def __init__(self, vault, cache_dir, config_file):
        self.args = (vault, cache_dir, config_file)
        self._cfg: Config | None = None

    @property
    def cfg(self) -> Config:
        if self._cfg is None:
            v, c, f = self.args
            self._cfg = load_config(vault=v, cache_dir=c, config_file=f)
        return self._cfg


pass_ctx = click.make_pass_decorator(Ctx)
json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--vault", type=click.Path(readable=False), help="The vault folder (else $MEMORY_PLUGIN_VAULT or config).")
@click.option("--cache-dir", type=click.Path(readable=False), help="Where the index lives (else $MEMORY_PLUGIN_CACHE_DIR).")
@click.option("--config", "config_file", type=click.Path(readable=False), help="Config file (else $MEMORY_PLUGIN_CONFIG).")
@click.version_option(__version__, prog_name="memory-plugin")
@click.pass_context
def cli(ctx, vault, cache_dir, config_file):
    """Long-term memory for Claude Code from your markdown vault."""
    ctx.obj = Ctx(vault, cache_dir, config_file)


# Commands that write the vault or the index: the brief is collected again after each, so that the
# next session starts from what they wrote (a dry run changes nothing, so neither does the brief).
WRITE_COMMANDS = frozenset({"remember", "supersede", "contradicts", "validate", "retract", "reorganize",
                            "reindex", "sync"})


@cli.result_callback()
@click.pass_context
def _after(ctx, result, **_):
    if ctx.invoked_subcommand in WRITE_COMMANDS and ctx.obj is not None and ctx.obj._cfg is not None:
        from .lean import after_write

        after_write(ctx.obj.cfg)
    return result


def _open(c: Ctx):
    from ..index.store import open_index

    c.cfg.require_vault()
    return open_index(c.cfg)


def no_notes(cfg) -> str:
    """The line for an index of no notes: the vault's path may be wrong."""
    return (f"{cfg.vault} holds no notes (no .md file outside dot-folders and `exclude`): is it the "
            "folder of your notes? (--vault, $MEMORY_PLUGIN_VAULT or `vault:` in the config)")


def _none_because(c: Ctx, conn, why: str) -> str:
    """An empty listing's line: `why`, or, when the index holds no notes at all, that the path may be wrong."""
    if conn.execute("SELECT 1 FROM notes LIMIT 1").fetchone() is None:
        return no_notes(c.cfg)
    return why


def _age(ts: float | None) -> str:
    if not ts:
        return "never"
    s = time.time() - ts
    for unit, n in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= n:
            return f"{int(s // n)} {unit} ago"
    return f"{int(s)} s ago"


# ---------------------------------------------------------------- building

