"""What the tests of notes tied to code share: a small Python module (SRC) that notes cite, and a
note writer."""
import textwrap
from pathlib import Path

SRC = textwrap.dedent('''\
    import re


    class Parser:
        def __init__(self, limit):
            self.limit = limit

        def on_part_data(self, data):
            if len(data) > self.limit:
                raise ValueError("Part exceeded maximum size")
            return data


    def helper_function(x):
        return x * 2
    ''')


def write_note(vault: Path, rel: str, props: str, body: str) -> None:
    """A note with YAML properties `props` (their text) and `body`."""
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"---\n{props}\n---\n{body}\n", encoding="utf-8")
