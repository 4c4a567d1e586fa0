"""Secrets never reach the journal: the first request of a session, through the real SessionEnd hook,
with every secret redacted whole (issue 9's 24 cases and more), a secret straddling the cut never
half-kept, a hostile request finished, and every journal field on one line whatever the input."""
from __future__ import annotations

import json
import re
import time

import pytest

from conftest import run_cli
from rel_helpers import count, run_bytes

PEM = ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGXk3m8BCADJx7Qp2vN9Lr4tZw8Ks1Yh6Fq0Bc3Xe5Ud7Wg9Ti2Mo4Pl6Sn8\n"
       "Rv1Ja3Ko5Ng7Hm9Ec2Dx4Fz6By8Aw0Cu1Et3Gs5Ir7Kq9Mo1Op3Qn5Sp7Uo9Wm\n-----END PGP PRIVATE KEY BLOCK-----")
RSA_CUT = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
# (name, request, the secret that must not survive, even in part)
CASES = [
    ("stripe secret key", "charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc please", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe restricted key", "use rk_live_51HxQ2bKx9Zt7Wq3LmN8vB0cD for reads", "51HxQ2bKx9Zt7Wq3LmN8vB0cD"),
    ("PGP private key block", f"import this key:\n{PEM}\nthen sign", "lQOYBGXk3m8BCADJx7Qp2vN9"),
    ("private key cut short", f"my key is {RSA_CUT}", "MIIEowIBAAKCAQEAu1SU1Lf"),
    ("PGPASSWORD=", "run PGPASSWORD=Pg-s3cret-77 psql -h db", "Pg-s3cret-77"),
    ("DB_PASS=", "set DB_PASS=hunter22x in .env", "hunter22x"),
    ("Azure AccountKey=", "conn DefaultEndpointsProtocol=https;AccountName=acct;"
     "AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4"),
    ("PHP array", "config has 'password' => 'Tr0ub4dor&3' in it", "Tr0ub4dor"),
    ("Authorization: Basic", "send Authorization: Basic dXNlcjpwYXNzd29yZDEyMw== to the API", "dXNlcjpwYXNzd29yZDEyMw"),
    ("Authorization: Bearer", 'curl -H "Authorization: Bearer abcDEF123ghiJKL456mno" https://x.io', "abcDEF123ghiJKL456mno"),
    ("curl -u", "curl -u admin:Sup3rS3cret https://api.example.com/v1", "Sup3rS3cret"),
    ("mysql -p", "mysql -u root -pS3cretPass42 mydb < dump.sql", "S3cretPass42"),
    ("Hugging Face token", "login with hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "AbCdEfGhIjKlMnOpQrSt"),
    ("Google OAuth token", "token ya29.a0AfH6SMBx3kQ7r9Lp2Zt8WqYv4NcXe1UoTg expired", "a0AfH6SMBx3kQ7r9Lp2Z"),
    ("SendGrid key", "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 is ours", "ngeVfQFYQlKU0ufo8x5d1A"),
    ("Slack webhook", "post to https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/a1B2c3D4e5F6g7H8i9J0k1L2 now",
     "a1B2c3D4e5F6g7H8i9J0k1L2"),
    ("AWS access key", "aws key AKIAZ3MQX7L2K4PQRSTU leaked", "AKIAZ3MQX7L2K4PQRSTU"),
    ("GitHub token", "push with ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R ok", "1a2B3c4D5e6F7g8H9i0J"),
    ("OpenAI key", "export OPENAI_API_KEY=sk-proj-Xq3L9vB2mN7kP4tR8wZ1cY6 then run", "Xq3L9vB2mN7kP4tR8wZ1cY6"),
    ("JWT", "decode eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U for me", "dozjgNryP4J3jVmNHl0w5N"),
    ("URL credentials", "connect to postgres://app:Pg-pass-123x@db.internal:5432/app", "Pg-pass-123x"),
    ("--password flag", "run deploy --password hunter2xyz --verbose", "hunter2xyz"),
    ("GitLab token", "CI uses glpat-Ab3dE6gH9jK2mN5pQ8sT", "Ab3dE6gH9jK2mN5pQ8sT"),
    ("Slack bot token", "bot xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx here", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("JSON client secret", 'body {"client_secret": "cs-9f8e7d6c5b4a3210"} sent', "cs-9f8e7d6c5b4a3210"),
    ("YAML api token", "in values.yaml: api-token: tok_77aa88bb99cc", "tok_77aa88bb99cc"),
    ("Ruby assignment", "secret_token = 'r8T2vX9qL4mN6pK1' in config", "r8T2vX9qL4mN6pK1"),
    ("credentials key", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY rotate", "wJalrXUtnFEMI"),
]


def _parts(secret: str) -> list[str]:
    """The secret and its first and last six characters: none may survive (redacted whole)."""
    return [secret, secret[:6], secret[-6:]]


def _session_end(env: dict, tmp_path, sid: str, request: str, **extra) -> None:
    t = tmp_path / f"{sid}.jsonl"
    t.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": request}}) + "\n")
    payload = {"session_id": sid, "cwd": str(tmp_path), "reason": "other", "transcript_path": str(t), **extra}
    r = run_bytes("hook", "session-end", data=json.dumps(payload).encode(), env=env)
    assert r.returncode == 0 and r.stdout == "", r.stderr


@pytest.fixture
def env(vault, cache_dir):
    e = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=e).returncode == 0
    return e


def _journal(vault) -> str:
    return (vault / "journal" / time.strftime("%Y-%m-%d.md")).read_text(encoding="utf-8")


def test_every_secret_in_the_first_request_is_redacted_whole(env, vault, tmp_path):
    for i, (name, request, _) in enumerate(CASES):
        _session_end(env, tmp_path, f"sec{i:03d}", request)
    journal = _journal(vault)
    leaks = []
    for i, (name, request, secret) in enumerate(CASES):
        line = [ln for ln in journal.splitlines() if f"session sec{i:03d}" in ln]
        assert len(line) == 1, (name, journal[-2000:])
        assert "[REDACTED" in line[0], (name, line[0])
        leaks += [f"{name}: {p!r} in {line[0]!r}" for p in _parts(secret) if p in line[0]]
    count("operations", len(CASES))
    count("detail:secret_cases", len(CASES))
    count("leaks", len(leaks))
    assert not leaks, "\n".join(leaks)


def test_prose_keeps_its_words():
    from memory_plugin.memory.journal import request_line

    for text in ("reset the password flow", "the author: Smith; tokens: 5; use a token to auth",
                 "mysql --password --user root", "mkdir -p build && cd build", "what is the key idea here?"):
        assert request_line(text) == text


def test_a_secret_straddling_the_cut_is_never_half_kept():
    from memory_plugin.memory.journal import MARGIN, REQUEST_CHARS, request_line

    token = "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
    # a secret across the 200-character cut: seen whole (the window is wider), redacted whole
    out = request_line("x" * 190 + " password=" + "Q7w8E9r0T1y2U3i4O5p6")
    assert "Q7w8" not in out and len(out) <= REQUEST_CHARS
    # a key block that starts before the cut and ends long after the window
    out = request_line("y" * 150 + " " + RSA_CUT + "A" * 5000)
    assert "MIIE" not in out and "AAAA" not in out
    # a long redaction brings text from the end of the window into the answer: a token cut there
    # (too short for any rule) must not come with it
    block = "-----BEGIN RSA PRIVATE KEY-----\n" + "B" * 1100 + "\n-----END RSA PRIVATE KEY-----"
    window = REQUEST_CHARS + MARGIN
    text = block + " " * (window - len(block) - 15) + token
    assert text[:window].endswith(token[:15])
    out = request_line(text)
    assert token[:6] not in out and "BBBB" not in out
    count("operations", 3)


def test_a_hostile_request_finishes_and_is_redacted(env, vault, tmp_path):
    """160 KB of what made the old redaction quadratic (it was still running at 60 s)."""
    _session_end(env, tmp_path, "hostile1", "build-cache-key-" * 10_000 + " password=hunter2zz")
    _session_end(env, tmp_path, "hostile2", "[[" * 80_000)
    journal = _journal(vault)
    assert "session hostile1" in journal and "session hostile2" in journal
    count("operations", 2)


def test_every_rule_is_bounded_and_generated_from_the_vendored_file():
    import re._parser as P

    from memory_plugin.memory import redact as R
    from memory_plugin.memory.secret_rules import RULES

    assert list(RULES) == R.translate_rules(), "run scripts/gitleaks_rules.py"
    assert len(RULES) >= 200

    def unbounded(tree) -> list:
        bad = []
        for op, av in tree:
            if op in (P.MAX_REPEAT, P.MIN_REPEAT, P.POSSESSIVE_REPEAT):
                lo, hi, sub = av
                if hi == P.MAXREPEAT or hi > R.MAX_REPEAT:
                    bad.append((lo, hi))
                bad += unbounded(sub)
            elif op in (P.SUBPATTERN, P.ATOMIC_GROUP):
                bad += unbounded(av[-1])
            elif op == P.BRANCH:
                for b in av[1]:
                    bad += unbounded(b)
            elif op in (P.ASSERT, P.ASSERT_NOT):
                bad += unbounded(av[1])
        return bad

    ours = [v for v in vars(R).values() if isinstance(v, re.Pattern)]
    ours += [x for row in R._COMMANDS for x in row if isinstance(x, re.Pattern)]  # commands' arguments
    assert len(ours) >= 10
    for rule in R.rules():
        assert not unbounded(P.parse(rule.regex)), rule.id
        re.compile(rule.regex)
    for rx in ours:
        assert not unbounded(P.parse(rx.pattern, rx.flags)), rx.pattern
    count("operations", len(RULES) + len(ours))


def test_journal_fields_are_single_lines(env, vault, tmp_path):
    evil = vault / "Inbox" / "Evil\n- 09:99 · forged entry.md"
    evil.write_text("# evil\n")
    r = run_bytes("hook", "post-tool-use", data=json.dumps(
        {"session_id": "nl\n- forged", "tool_input": {"file_path": str(evil)}}).encode(), env=env)
    assert r.returncode == 0
    before = _journal(vault).count("\n") if (vault / "journal" / time.strftime("%Y-%m-%d.md")).exists() else None
    cwd = tmp_path / "proj\n- 10:00 · project forged"
    cwd.mkdir()
    t = tmp_path / "t.jsonl"
    t.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "line one\n- 11:00 · forged\r\x1b[2J"}}) + "\n")
    payload = {"session_id": "nl\n- forged", "cwd": str(cwd), "reason": "other\n- 12:00 · forged\x00\x07",
               "transcript_path": str(t)}
    r = run_bytes("hook", "session-end", data=json.dumps(payload).encode(), env=env)
    assert r.returncode == 0
    journal = _journal(vault)
    new = journal.splitlines()[-1]
    assert (before is None or journal.count("\n") == before + 1)
    assert not any(ln.startswith("- ") and "forged" in ln for ln in journal.splitlines() if ln != new)
    assert not re.search(r"[\x00-\x1f\x7f]", new)
    count("operations", 1)
