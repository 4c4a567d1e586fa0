"""YAML as the plugin reads it (notes' properties and the config file), with the limits both share:
a loaded value larger or deeper than these is refused, so an alias bomb costs a bounded walk."""
from __future__ import annotations

# A note's properties, expanded (a YAML alias counts each time it is used), hold at most this many
# values and nest at most this deep; beyond that (an alias bomb, a generated tree) they are dropped
# with a warning and the note keeps its text and body links. Real vaults stay far below both.
MAX_PROP_VALUES = 20_000
MAX_PROP_DEPTH = 32

_yaml_loader = None


def load_yaml(fm: str):
    """A frontmatter as PyYAML reads it (what simple_yaml is not sure of)."""
    global _yaml_loader
    import yaml

    if _yaml_loader is None:  # libyaml's loader when PyYAML has it: 6x less CPU on generated notes
        _yaml_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(fm, Loader=_yaml_loader)
    except yaml.YAMLError:
        if _yaml_loader is yaml.SafeLoader:
            raise
        # the same error again from the pure-Python loader, whose message names the character: the
        # warning (and so the index) must not depend on whether libyaml is installed
        return yaml.load(fm, Loader=yaml.SafeLoader)


def props_too_big(data) -> str | None:
    """Why `data` (loaded YAML) is beyond MAX_PROP_VALUES / MAX_PROP_DEPTH, or None. Iterative, and
    it stops at the limit, so a billion-value alias bomb costs MAX_PROP_VALUES steps."""
    stack = [(data, 0)]
    n = 0
    while stack:
        v, depth = stack.pop()
        n += 1
        if n > MAX_PROP_VALUES:
            return (f"properties expand to more than {MAX_PROP_VALUES} values (YAML aliases?): "
                    "properties ignored")
        if depth > MAX_PROP_DEPTH:
            return f"properties nest deeper than {MAX_PROP_DEPTH} levels: properties ignored"
        if isinstance(v, dict):
            stack.extend((x, depth + 1) for kv in v.items() for x in kv)
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v)
    return None
