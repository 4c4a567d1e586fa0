"""One error root; the CLI turns these into `Error: <one line>` and exit 2."""
from __future__ import annotations


class MemoryPluginError(Exception):
    exit_code = 2


class ConfigError(MemoryPluginError):
    pass


class VaultError(MemoryPluginError):
    pass


class CacheError(MemoryPluginError):
    pass


class CacheFull(CacheError):
    """The cache dir's disk is full: the previous index is kept; the next rebuild or sync retries."""


class NoteNotFound(MemoryPluginError):
    pass


class SettingsFileError(MemoryPluginError):
    pass


class IndexMissing(MemoryPluginError):
    pass

class Busy(Exception):
    """Another process holds the index lock."""


def report(e: Exception, echo) -> int:
    """A command's failure as the user sees it: `Error: <one line>` through `echo` (click.echo, or
    cli.lean's copy of it), and its exit code: the error's own for ours, 3 for a busy index, else 1
    with the type named (never a traceback). Used by cli.main.run and by cli.lean.main."""
    if isinstance(e, MemoryPluginError):
        echo(f"Error: {e}", err=True)
        return e.exit_code
    if isinstance(e, Busy):
        echo(f"Error: {e}: try again when it has finished", err=True)
        return 3
    echo(f"Error: {type(e).__name__}: {e}", err=True)
    return 1
