"""A word naming a kind of note ("task", "pattern", "decided") asks for that kind only where the vault
has notes of it, as the product types them or as the vault's own `type:` links name them; elsewhere
it is an ordinary word of the question, searched for like the others."""

from conftest import query_items, run_cli, write_file as _note
from memory_plugin.search import query as Q


def _vault(tmp_path, typed: str | None = None):
    v = tmp_path / "vault"
    # "arguments" alone ranks the function note first (it says it three times); "task" tells them apart
    _note(v, "Functions.md", "Arguments, arguments: a function takes arguments in parentheses.\n")
    _note(v, "Rake.md", "A rake task takes its arguments in brackets.\n")
    for t in ("tea", "kites", "stamps", "boats", "clocks", "maps", "shoes", "lamps"):
        _note(v, f"{t.title()}.md", f"What I know about {t}.\n")
    if typed:
        _note(v, "Chores.md", f"---\ntype: {typed}\n---\nWater the plants.\n")
    r = run_cli("--vault", str(v), "rebuild")
    assert r.returncode == 0, r.stderr
    return v


def _ask(v, text):
    return query_items(v, text)


def test_a_kind_no_note_is_of_is_an_ordinary_word(tmp_path, cache_dir):
    v = _vault(tmp_path)
    items = _ask(v, "task arguments")
    assert [i["path"] for i in items][:1] == ["Rake.md"]
    assert any("task" in w for w in items[0]["why"])


def test_a_kind_the_vault_holds_is_asked_for(tmp_path, cache_dir):
    """The vault has a task (typed the product's way): "task" asks for tasks, as before."""
    v = _vault(tmp_path, typed="task")
    items = _ask(v, "which task is about plants?")
    assert items and items[0]["path"] == "Chores.md" and "is a task" in items[0]["why"]


def test_held_kinds_reads_a_type_link(tmp_path, cache_dir):
    """`type: "[[Task]]"` (the vault's own link to its Task note) makes tasks a kind of this vault."""
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index

    v = _vault(tmp_path, typed='"[[Task]]"')
    conn = open_index(load_config(vault=v))
    assert Q.held_kinds(conn) == {"task"}
    assert Q.parse_question("which task is about plants?", Q.held_kinds(conn))["intent"] == {"task"}
    items = _ask(v, "which task is about plants?")
    assert items[0]["path"] == "Chores.md" and "is a task" in items[0]["why"]


def test_parse_question_held():
    q = Q.parse_question("rake task arguments", set())
    assert q["content"] == ["rake", "task", "arguments"] and not q["intent"]
    q = Q.parse_question("rake task arguments", {"task"})
    assert q["content"] == ["rake", "arguments"] and q["intent"] == {"task"}
    assert Q.parse_question("rake task arguments")["intent"] == {"task"}  # no vault given: every kind
