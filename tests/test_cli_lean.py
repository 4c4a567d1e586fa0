"""`memory-plugin query` without click (cli/lean.py): the plain forms give what the click command
gives, byte for byte, exit code included; every other form is left to click."""
import shutil
import subprocess
import sys

import pytest

from conftest import run_cli
from memory_plugin.cli import lean as cli_lean


def both(capsys, full_for) -> list[tuple]:
    """(exit code, stdout, stderr) of the click command (side "a") and the lean path (side "b") on the
    arguments `full_for(side)` gives."""
    from memory_plugin.cli import main as cli

    out = []
    for side, runner in (("a", cli.run), ("b", cli_lean.main)):
        full = full_for(side)
        code = runner(full)
        assert code is not None, full
        got = capsys.readouterr()
        out.append((code, got.out, got.err))
    return out


@pytest.mark.parametrize("argv", [
    ["query", "job queue"],
    ["query", "job queue", "--json"],
    ["query", "--json", "job queue", "--type", "decision", "--budget", "80"],
    ["--vault", "v", "--cache-dir", "c", "--config", "f", "query", "x", "--history", "--project", "atlas"],
    ["query", ""],
    ["query", "x", "--budget", "007"],
])

def test_plain_forms_are_taken(argv):
    assert cli_lean.parse(argv) is not None


@pytest.mark.parametrize("argv", [
    [], ["query"], ["query", "--help"], ["query", "-h"], ["--help"], ["--version"], ["search", "query"],
    ["query", "a", "b"], ["query", "x", "--json", "--json"], ["query", "--type=decision", "x"],
    ["query", "-x"], ["query", "-"], ["query", "x", "--budget", "1_0"], ["query", "x", "--budget", " 5"],
    ["query", "x", "--budget", "-5"], ["query", "x", "--budget", "٣"], ["query", "x", "--budget"],
    ["query", "x", "--project", "-p"], ["--vault"], ["--vault", "v", "--vault", "w", "query", "x"],
    ["--vault", "--cache-dir", "query", "x"], ["--bogus", "v", "query", "x"], ["query", "x", "--", "y"],
    ["query", "x", "-n", "3"],
])
def test_other_forms_go_to_click(argv):
    assert cli_lean.parse(argv) is None


PLAIN = [
    ["job queue"], ["job queue", "--json"], ["--json", "job queue", "--type", "decision", "--budget", "80"],
    ["x", "--history", "--project", "atlas"], [""], ["x", "--budget", "007"], ["--history", "x", "--json"],
]


def _click_query():
    from memory_plugin.cli import main

    main._register_commands()
    return main.cli.commands["query"]


def test_every_option_of_the_click_query_is_known_to_the_lean_parser():
    """Both parsers come from lean.QUERY_OPTIONS: the click command has exactly those options,
    under the same keywords, and TEXT."""
    cmd = _click_query()
    params = {p.name: p for p in cmd.params}
    assert [p.name for p in cmd.params] == ["text"] + [o.key for o in cli_lean.QUERY_OPTIONS]
    for o in cli_lean.QUERY_OPTIONS:
        assert params[o.key].opts == [o.flag] and params[o.key].is_flag == (o.kind == "flag")


@pytest.mark.parametrize("args", PLAIN)
def test_the_lean_parser_reads_what_click_reads(args):
    cmd = _click_query()
    with cmd.make_context("query", list(args)) as ctx:
        expected = ctx.params
    assert cli_lean.parse(["query", *args])[1] == expected


def test_completion_and_odd_streams_go_to_click(monkeypatch):
    monkeypatch.setenv("_MEMORY_PLUGIN_COMPLETE", "bash_complete")
    assert cli_lean.main(["query", "x"]) is None
    monkeypatch.delenv("_MEMORY_PLUGIN_COMPLETE")

    class Ascii:
        encoding, errors = "ascii", "strict"
        buffer = None
    monkeypatch.setattr(sys, "stdout", Ascii())
    assert cli_lean.main(["query", "x"]) is None


ARGVS = [
    ["query", "SKIP LOCKED job queue"],
    ["query", "SKIP LOCKED job queue", "--json"],
    ["query", "sqlite", "--type", "pitfall"],
    ["query", "what did we decide before about the job queue", "--history", "--json"],
    ["query", "deploy", "--project", "atlas"],
    ["query", "deploy", "--budget", "60"],
    ["query", "kubernetes autoscaler grafana"],
    ["query", ""],
    ["query", "x", "--budget", "10"],
    ["query", "x", "--type", "bogus"],
    ["--vault", "/nonexistent/vault", "query", "x"],
]


def test_same_output_and_exit_code_as_the_click_command(vault, tmp_path, capsys):
    """Each path on its own copy of one index (query records usage, which moves later scores)."""
    assert run_cli("--vault", str(vault), "--cache-dir", str(tmp_path / "a"), "rebuild").returncode == 0
    shutil.copytree(tmp_path / "a", tmp_path / "b", symlinks=True)
    for argv in ARGVS:
        out = both(capsys, lambda side: ["--cache-dir", str(tmp_path / side)]
                   + (argv if argv[0] == "--vault" else ["--vault", str(vault)] + argv))
        assert out[0] == out[1], argv
    assert out[0][0] == 2 and out[0][2].startswith("Error: vault /nonexistent/vault does not exist")


def test_the_plain_query_never_imports_click(vault, tmp_path):
    assert run_cli("--vault", str(vault), "--cache-dir", str(tmp_path / "c"), "rebuild").returncode == 0
    code = ("import sys; from memory_plugin.__main__ import main; rc = main(sys.argv[1:]); "
            "assert 'click' not in sys.modules, 'click imported'; sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, "--vault", str(vault), "--cache-dir", str(tmp_path / "c"),
                        "query", "job queue", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"items"' in r.stdout
    # help and usage errors are click's, as before
    r = run_cli("query", "--help")
    assert r.returncode == 0 and "Usage: memory-plugin query" in r.stdout
    r = run_cli("query", "x", "--budget", "abc")
    assert r.returncode == 2 and r.stderr.startswith("Error: Invalid value for '--budget'")


# ---------------------------------------------------------------- remember

REMEMBER = ["--type", "learning", "--title", "Orchids", "--summary", "Water orchids when the bark is dry."]


@pytest.mark.parametrize("argv", [
    ["remember", *REMEMBER],
    ["--vault", "v", "remember", *REMEMBER, "--tag", "a", "--tag", "b", "--json", "--force", "--dry-run"],
    ["remember", "--summary", "s", "--title", "t", "--type", "pitfall", "--body-file", "-", "--no-project"],
    ["remember", *REMEMBER, "--link", "x", "--about", "a.py:3", "--about", "b.py", "--merge", "m", "--supersedes", "o"],
])
def test_plain_remember_forms_are_taken(argv):
    assert cli_lean.parse_remember(argv) is not None


@pytest.mark.parametrize("argv", [
    ["remember"], ["remember", "--help"], ["remember", *REMEMBER, "-h"], ["remember", "--type", "learning"],
    ["remember", *REMEMBER, "--title", "again"], ["remember", *REMEMBER, "--json", "--json"],
    ["remember", "--type=learning", "--title", "t", "--summary", "s"], ["remember", *REMEMBER, "extra"],
    ["remember", *REMEMBER, "--body", "-x"], ["remember", *REMEMBER, "--tag"], ["remember", *REMEMBER, "--", "x"],
    ["remember", *REMEMBER, "--bogus"], ["--bogus", "v", "remember", *REMEMBER], ["remember", *REMEMBER, "--body", "-"],
])
def test_other_remember_forms_go_to_click(argv):
    assert cli_lean.parse_remember(argv) is None


def _click_remember():
    from memory_plugin.cli import main

    main._register_commands()
    return main.cli.commands["remember"]


def test_every_option_of_the_click_remember_is_known_to_the_lean_parser():
    cmd = _click_remember()
    assert [p.name for p in cmd.params] == [o.key for o in cli_lean.REMEMBER_OPTIONS]
    params = {p.name: p for p in cmd.params}
    for o in cli_lean.REMEMBER_OPTIONS:
        p = params[o.key]
        assert p.opts == [o.flag] and p.is_flag == (o.kind == "flag") and p.multiple == (o.kind == "multi")
        assert p.required == (o.key in cli_lean.REMEMBER_REQUIRED)


@pytest.mark.parametrize("args", [
    REMEMBER, [*REMEMBER, "--tag", "a", "--tag", "b", "--json", "--force", "--dry-run"],
    ["--summary", "s", "--title", "t", "--type", "pitfall", "--no-project", "--about", "a.py", "--about", "b.py"],
])
def test_the_lean_remember_parser_reads_what_click_reads(args):
    cmd = _click_remember()
    with cmd.make_context("remember", list(args)) as ctx:
        expected = ctx.params
    assert cli_lean.parse_remember(["remember", *args])[1] == expected


REMEMBER_ARGVS = [
    ["remember", *REMEMBER],
    ["remember", *REMEMBER],  # the same name again: refused
    ["remember", *REMEMBER, "--force", "--json"],
    ["remember", "--type", "decision", "--title", "Keep state in SQLite", "--summary",
     "Local state lives in one SQLite file.", "--link", "Use SQLite for local state", "--tag", "storage"],
    ["remember", "--type", "decision", "--title", "Keep state in SQLite files", "--summary",
     "Local state lives in one SQLite file.", "--dry-run", "--project", "atlas"],
    ["remember", "--type", "learning", "--title", "More on bisect", "--summary", "Bisect with a script.",
     "--merge", "Git bisect finds regressions fast", "--json"],
    ["remember", "--type", "decision", "--title", "Pin with pip-tools", "--summary", "Pin dependencies with pip-tools.",
     "--supersedes", "Pin dependencies with uv lock", "--no-project"],
    ["remember", "--type", "bogus", "--title", "t", "--summary", "s"],
    ["remember", *REMEMBER, "--body", "b", "--body-file", "f.md"],
    ["remember", "--type", "note", "--title", "Body from a file", "--summary", "s", "--body-file", "/nonexistent/f.md"],
    ["--vault", "/nonexistent/vault", "remember", *REMEMBER],
]


def test_remember_gives_the_same_output_and_exit_code_as_the_click_command(vault, tmp_path, capsys):
    """Each path on its own copy of the vault and its index (remember writes both)."""
    for side in ("a", "b"):
        shutil.copytree(vault, tmp_path / side / "vault", symlinks=True)
        r = run_cli("--vault", str(tmp_path / side / "vault"), "--cache-dir", str(tmp_path / side / "c"), "rebuild")
        assert r.returncode == 0, r.stderr
    for argv in REMEMBER_ARGVS:
        out = both(capsys, lambda side: ["--cache-dir", str(tmp_path / side / "c"),
                                         *(["--vault", str(tmp_path / side / "vault")] if argv[0] != "--vault" else []), *argv])
        assert out[0] == out[1], argv
    assert out[0][0] == 2 and out[0][2].startswith("Error: vault /nonexistent/vault does not exist")
    for p in sorted((tmp_path / "a" / "vault").rglob("*.md")):  # the same notes written
        rel = p.relative_to(tmp_path / "a" / "vault")
        assert p.read_text(encoding="utf-8") == (tmp_path / "b" / "vault" / rel).read_text(encoding="utf-8"), rel


def test_the_plain_remember_never_imports_click(vault, tmp_path):
    assert run_cli("--vault", str(vault), "--cache-dir", str(tmp_path / "c"), "rebuild").returncode == 0
    code = ("import sys; from memory_plugin.__main__ import main; rc = main(sys.argv[1:]); "
            "assert 'click' not in sys.modules, 'click imported'; sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, "--vault", str(vault), "--cache-dir", str(tmp_path / "c"),
                        "remember", *REMEMBER, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"action": "created"' in r.stdout
    r = run_cli("remember", "--help")
    assert r.returncode == 0 and "Usage: memory-plugin remember" in r.stdout
    r = run_cli("remember", "--type", "learning")
    assert r.returncode == 2 and r.stderr.startswith("Error: Missing option")


def test_a_remember_process_ends_without_teardown(vault, tmp_path):
    """The console's plain remember ends by quick_exit (no exit handler, no thread is left), output
    flushed; any other form ends as before."""
    assert run_cli("--vault", str(vault), "--cache-dir", str(tmp_path / "c"), "rebuild").returncode == 0
    code = ("import os, sys; real = os._exit\n"
            "os._exit = lambda c: (sys.stderr.write('quick exit\\n'), sys.stderr.flush(), real(c))\n"
            "sys.argv = ['memory-plugin'] + sys.argv[1:]\n"
            "from memory_plugin.__main__ import main; sys.exit(main())\n")
    base = [sys.executable, "-c", code, "--vault", str(vault), "--cache-dir", str(tmp_path / "c")]
    r = subprocess.run(base + ["remember", *REMEMBER, "--json"], capture_output=True, text=True)
    assert r.returncode == 0 and '"action": "created"' in r.stdout and r.stderr == "quick exit\n", r.stderr
    r = subprocess.run(base + ["remember", *REMEMBER], capture_output=True, text=True)  # refused: exit code kept
    assert r.returncode == 2 and r.stderr.startswith("Error: ") and r.stderr.endswith("quick exit\n")
    r = subprocess.run(base + ["query", "orchids"], capture_output=True, text=True)
    assert r.returncode == 0 and "quick exit" not in r.stderr
