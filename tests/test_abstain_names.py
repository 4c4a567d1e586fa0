"""Abstention: a note the question's rarer known words name is evidence, even when words no note has
("filed", "topic") outweigh them; a question mostly of words no note has still gets "Nothing"."""
import json

from conftest import query_items, run_cli, write_file as _note
from memory_plugin.search import query as Q


def _vault(tmp_path):
    v = tmp_path / "vault"
    _note(v, "References/Antifragility.md", "Some things gain from disorder and shocks.\n")
    _note(v, "Clippings/Develop resilience.md", "A clipping on the topic of antifragility: pain and suffering.\n")
    for t in ("sleep", "running", "reading", "cooking", "travel", "music", "gardens", "chess", "cameras"):
        _note(v, f"Clippings/On {t}.md", f"A clipping on the topic of {t}.\n")
    for t in ("budget", "taxes", "moving", "paint", "piano", "bicycle"):
        _note(v, f"Notes/{t.title()}.md", f"My notes on the {t} topic, kept short.\n")
    for t in ("tea", "kites", "stamps", "boats", "clocks", "maps", "shoes", "lamps"):
        _note(v, f"Notes/{t.title()}.md", f"What I know about {t}.\n")
    _note(v, "Notes/Import.md", "How the bank statements are brought in each month.\n")
    r = run_cli("--vault", str(v), "rebuild")
    assert r.returncode == 0, r.stderr
    return v


def _ask(v, text):
    return [i["path"] for i in query_items(v, text)]


def test_a_title_naming_the_rarer_known_words_is_evidence(tmp_path, cache_dir):
    """"filed" (no note has it) outweighs the rest of the question's idf mass, yet the title
    `Antifragility` holds most of what the vault knows of it: answered, not "Nothing"."""
    v = _vault(tmp_path)
    got = _ask(v, "which clipping is filed under the topic Antifragility?")
    assert "References/Antifragility.md" in got[:5] and "Clippings/Develop resilience.md" in got[:5]


def test_a_question_mostly_of_words_no_note_has_still_abstains(tmp_path, cache_dir):
    """A title naming the question's only known word (`Import`) is no evidence when the rest of the
    question is words no note has."""
    v = _vault(tmp_path)
    assert _ask(v, "how do I import my Evernote notebooks?") == []


def test_named_known_rule():
    A = Q.ABSTAIN
    ev = {"named": True, "semantic": False, "sem_top": 0.0, "agree": False, "named_w": 0.1, "cover": 0.3,
          "known": A["lexical_known"] - 0.01}
    assert Q.abstain({**ev, "named_known": A["named_known_min"] - 0.01})
    assert not Q.abstain({**ev, "named_known": A["named_known_min"]})
    assert Q.abstain({**ev, "named_known": 1.0, "known": A["named_known_floor"] - 0.01})
    # semantic on: the same names evidence answers before the closeness is read
    sem = {**ev, "semantic": True, "sem_z": -3.0, "named_known": A["named_known_min"],
           "known": A["named_known_floor"]}
    assert not Q.abstain(sem) and Q.abstain({**sem, "named_known": 0.0})


def _films(tmp_path):
    v = tmp_path / "films"
    _note(v, "Movies/Alien.md", '---\ncategories: "[[Movies]]"\ndirector: "[[Ridley Scott]]"\nyear: 1979\n---\n'
                                "A crew answers a distress call.\n")
    _note(v, "Notes/Import.md", "How the bank statements are brought in each month.\n")
    for t in ("tea", "kites", "stamps", "boats", "clocks", "maps", "shoes", "lamps", "bread", "chess", "piano"):
        _note(v, f"Notes/{t.title()}.md", f"What I know about {t}.\n")
    r = run_cli("--vault", str(v), "rebuild")
    assert r.returncode == 0, r.stderr
    return v


def test_a_fact_filed_in_a_property_is_evidence(tmp_path, cache_dir):
    """"picture" and "shoot" (no note has them) outweigh "Ridley Scott", which only Alien's
    `director:` property holds: that property is what its owner filed about the note, so the
    question is answered, and `why` shows the property."""
    v = _films(tmp_path)
    r = run_cli("--vault", str(v), "query", "which picture did Ridley Scott shoot?", "--json")
    items = json.loads(r.stdout)["items"]
    assert items and items[0]["path"] == "Movies/Alien.md"
    assert any("in the property director (Ridley Scott)" in w for w in items[0]["why"])
    # a question mostly of words no note has still abstains, property or not
    assert _ask(v, "how do I import my Evernote notebooks?") == []
    assert _ask(v, "which pictures were shot by Ridley Scott in seventy-nine?") == []


def test_filed_known_rule():
    A = Q.ABSTAIN
    ev = {"named": False, "semantic": False, "sem_top": 0.0, "agree": False, "named_w": 0.0, "cover": 0.3,
          "named_known": 0.0, "known": A["lexical_known"] - 0.01}
    assert Q.abstain({**ev, "filed_known": A["filed_known_min"] - 0.01})
    assert not Q.abstain({**ev, "filed_known": A["filed_known_min"]})
    assert Q.abstain({**ev, "filed_known": 1.0, "known": A["named_known_floor"] - 0.01})


def test_a_summary_filed_in_a_property_is_evidence(tmp_path, cache_dir):
    """A Dendron proxy note says what it is in `desc:` only: "kept" (no note has it) outweighs the
    words its `desc` holds, which the owner filed about the note as much as any property. A summary
    the parser took from the text is not filed: the same note with its words in the body abstains."""
    v = tmp_path / "ws"
    _note(v, "dendron.yml", "version: 5\n")
    _note(v, "ext.repo.docs.md", "---\ntitle: Docs\ndesc: 'Harbor Developer Docs'\n"
                                 "uri: https://github.com/acme/harbor-docs.git\n---\n")
    topics = ("tea", "kites", "stamps", "boats", "clocks", "maps", "shoes", "lamps", "bread", "chess", "piano",
              "ropes", "sails", "knots", "tides", "winds", "buoys", "cranes", "docks", "piers", "locks", "gates")
    for k, t in enumerate(topics):  # the question's known words, common in the vault: `kept` outweighs them
        extra = " The developer docs say so." if k % 8 == 0 else " See the docs." if k % 8 == 4 else ""
        _note(v, f"notes.{t}.md", f"---\ntitle: {t}\n---\nWhat I know about {t}, for the harbor team.{extra}\n")
    assert run_cli("--vault", str(v), "rebuild").returncode == 0
    assert _ask(v, "where are the Harbor developer docs kept?")[:1] == ["ext.repo.docs.md"]
    _note(v, "ext.repo.docs.md", "---\ntitle: Docs\nuri: https://github.com/acme/harbor-docs.git\n---\n"
                                 "Harbor Developer Docs\n")
    assert run_cli("--vault", str(v), "rebuild").returncode == 0
    assert _ask(v, "where are the Harbor developer docs kept?") == []
