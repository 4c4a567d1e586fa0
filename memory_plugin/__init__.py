"""memory-plugin: long-term memory for Claude Code from a markdown vault."""
__version__ = "0.1.0"
