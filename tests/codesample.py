"""What the tests of notes tied to code share: a small Python module (SRC) that notes cite, a
repository layer and a note writer."""
import subprocess
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


def lay_repo(repo: Path, files: dict[str, str]) -> Path:
    """A git repository at `repo` holding `files` (path -> text)."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def write_note(vault: Path, rel: str, props: str, body: str) -> None:
    """A note with YAML properties `props` (their text) and `body`."""
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"---\n{props}\n---\n{body}\n", encoding="utf-8")
