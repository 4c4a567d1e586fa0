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
