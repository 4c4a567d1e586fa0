"""Session 8's experiment (bench/s8_known.py): `known` read against the vault's own pseudo-questions.
Not product code (not accepted, bench/eval/PROTOCOL.md session 8), but its baseline must be query's
rule exactly, and its calibration must leave the pseudo-question's own note (and private notes) out."""
import sys
from pathlib import Path

import pytest

from memory_plugin.search import query as Q
from memory_plugin.core.config import load_config
from memory_plugin.index.store import open_index

from conftest import run_cli

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import s8_known as S  # noqa: E402

WORDS = ["quokka", "wombat", "dingo", "numbat", "bilby", "potoroo", "quoll", "bandicoot", "echidna",
         "platypus", "wallaby", "kookaburra"]


def _index(tmp_path, notes: dict[str, str]):
    vault = tmp_path / "v"
    vault.mkdir(parents=True)
    for name, text in notes.items():
        (vault / f"{name}.md").write_text(text)
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return open_index(load_config(vault=vault))


@pytest.mark.parametrize("semantic", [True, False])
@pytest.mark.parametrize("known", [0.2, 0.45, 0.55, 0.9])
def test_raw_form_is_querys_rule(semantic, known):
    ev = {"semantic": semantic, "sem_top": 0.4, "sem_z": -0.5, "agree": False, "known": known,
          "named_w": 0.0, "cover": 0.3}
    assert S.abstains(ev) == Q.abstain(ev)
    assert S.abstains(ev, "ratio", {"mean": 1.0, "sd": 0.1}) == Q.abstain(ev)  # m = 1: main's rule
    assert S.abstains(ev, "ratio", None) == Q.abstain(ev)  # no calibration: raw


def test_ratio_and_z_forms():
    ev = {"semantic": False, "known": 0.3, "named_w": 0.0, "cover": 0.3}
    assert Q.abstain(ev)                                            # raw: 0.3 < 0.5
    assert not S.abstains(ev, "ratio", {"mean": 0.5, "sd": 0.2})    # 0.3 / 0.5 = 0.6 >= 0.5
    assert S.abstains(ev, "ratio", {"mean": 0.9, "sd": 0.2})        # 0.33 < 0.5
    assert S.abstains(ev, "z", {"mean": 0.5, "sd": 0.1}, 0.0, -1.5)          # z = -2.0 < -1.5
    assert not S.abstains(ev, "z", {"mean": 0.5, "sd": 0.1}, 0.0, -2.5)      # z = -2.0 >= -2.5
    assert S.abstains(ev, "z", {"mean": 0.5, "sd": 0.0}, 0.0, -3.0)          # sd floor 0.05: z = -4.0
    assert not S.abstains({**ev, "cover": 0.9}, "z", {"mean": 0.5, "sd": 0.1}, 0.0, -1.5)  # override first


def test_calibration_leaves_the_own_note_out(tmp_path):
    """Each title's word is in its own note only: asked of the vault without that note, no title is
    known (known_loo 0); main's `known` of the same words, own note included, would be 1."""
    c = _index(tmp_path, {w.title(): f"# {w.title()}\n\nAbout the {w} alone.\n" for w in WORDS})
    cal = S.known_calibration(c, "title")
    assert cal["n"] == len(WORDS) and cal["mean"] == 0.0 and cal["sd"] == 0.0


def test_calibration_counts_other_public_notes_only(tmp_path):
    """Each note also mentions the next one's word: every title is known elsewhere (mean 1), unless the
    only other note with the word is private."""
    notes = {w.title(): f"# {w.title()}\n\nThe {w} lives near the {WORDS[(i + 1) % len(WORDS)]}.\n"
             for i, w in enumerate(WORDS)}
    c = _index(tmp_path, notes)
    assert S.known_calibration(c, "title")["mean"] == pytest.approx(1.0)
    c.close()
    notes[WORDS[-1].title()] = "---\nprivate: true\n---\n" + notes[WORDS[-1].title()]  # it names WORDS[0]
    c = _index(tmp_path / "p", notes)
    cal = S.known_calibration(c, "title")
    assert cal["n"] == len(WORDS) - 1 and cal["mean"] == pytest.approx((len(WORDS) - 2) / (len(WORDS) - 1))


def test_first_sentence_source_and_the_minimum(tmp_path):
    assert S.pseudo_question("T", "One two. Three four.", "sentence") == "One two."
    assert S.pseudo_question("T", "One two", "sentence") == "One two"
    assert S.pseudo_question("T", "", "sentence") == ""
    c = _index(tmp_path, {w.title(): f"# {w.title()}\n\nThe {w}.\n" for w in WORDS[:5]})
    cal = S.known_calibration(c, "title")
    assert cal["n"] == 5 and "mean" not in cal  # fewer than CAL["min"]: no calibration (raw rule)
