"""Everyday secret shapes stay out of the journal (issue 26): the 15 shapes the second probe found
leaking, through the real SessionEnd hook into the real journal file; more spellings of each (other
languages, other commands' password arguments, card layouts, Unicode disguises) through the
redaction the hook uses; prose beside them kept word for word; and 1 MB built of each new rule's
shape redacted in bounded time."""
from __future__ import annotations

import time

import pytest

from rel_helpers import case, count
from test_redaction import _journal, _parts, _session_end, env  # noqa: F401 - env is a fixture

# (name, request, the secret that must not survive, even in part)
SHAPES = [
    ("password with a space", "log in with password Tr0ub4dor3x and retry", "Tr0ub4dor3x"),
    ("the password is", "the password is Kx9vQ2mLp7, keep it", "Kx9vQ2mLp7"),
    ("pw is", "my pw is Qz7wR3tY8 for the staging box", "Qz7wR3tY8"),
    ("passphrase", "unlock the key with passphrase W4ter-Lily-Moon9", "W4ter-Lily-Moon9"),
    ("sshpass -p", "run sshpass -p S3cr3tSsh9 ssh deploy@host uptime", "S3cr3tSsh9"),
    ("docker login -p", "docker login -u bob -p D0ckerPw9x registry.example.com", "D0ckerPw9x"),
    ("htpasswd -b", "htpasswd -b /etc/nginx/.htpasswd admin Htp4ssw0rdX then reload", "Htp4ssw0rdX"),
    ("AWS secret beside its id", "keys AKIAZ3MQX7L2K4PQRSTU wJalrXUtnFEMI/K7MDENG/bPxRfiCYZ3MQX7L2K4 for prod",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYZ3MQX7L2K4"),
    ("Azure SAS sig=", "fetch https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-01-01"
     "&sig=Yx8tQm3%2BnK7pL2vR9sWq4ZaB6cD1eF0gH5iJ%3D now", "Yx8tQm3%2BnK7pL2vR9sWq4ZaB6cD1eF0gH5iJ%3D"),
    ("full-width colon", "password\uff1aTr0ub4dor9z", "Tr0ub4dor9z"),
    ("zero-width space in a token", "charge sk_live_4eC39Hq\u200bLyjWDarjtT1zdp7dc now", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("German", "mein Passwort ist Geh31mNix! bitte \u00e4ndern", "Geh31mNix"),
    ("French", "le mot de passe est Secr3tFr4nc pour le serveur", "Secr3tFr4nc"),
    ("card number", "pay with 5555 5555 5555 4444 exp 12/27", "5555 5555 5555 4444"),
    ("US SSN", "my SSN is 219-09-9999 for the form", "219-09-9999"),
]

# more spellings, through the redaction the hook runs (journal.request_line)
MORE = [
    ("Spanish", "la contrase\u00f1a es Cl4veSecreta", "Cl4veSecreta"),
    ("Spanish key", "contrase\u00f1a: Cl4veSecreta2", "Cl4veSecreta2"),
    ("Portuguese", "a senha \u00e9 S3nhaForte9", "S3nhaForte9"),
    ("Italian", "la password \u00e8 Parol4Segreta", "Parol4Segreta"),
    ("Dutch", "het wachtwoord is Wachtw00rd7", "Wachtw00rd7"),
    ("Swedish word", "mitt l\u00f6senord \u00e4r H3mligt77", "H3mligt77"),
    ("Danish", "adgangskode er Hemm3lig55", "Hemm3lig55"),
    ("Finnish", "salasana on Salainen88x", "Salainen88x"),
    ("Polish", "has\u0142o: Tajne99haslo", "Tajne99haslo"),
    ("Czech", "heslo je Tajn3Heslo1", "Tajn3Heslo1"),
    ("Russian", "\u043f\u0430\u0440\u043e\u043b\u044c: Sekr3tRu9", "Sekr3tRu9"),
    ("German Kennwort", "Kennwort lautet Kennw0rt!7", "Kennw0rt!7"),
    ("French mdp", "mdp : Fr4nc3Mdp!", "Fr4nc3Mdp!"),
    ("password to", "change the password to N3wPassw0rd", "N3wPassw0rd"),
    ("quoted passphrase", 'passphrase "correct horse battery staple" for gpg', "correct horse battery staple"),
    ("three-word passphrase", "passphrase correct-horse-battery-staple", "correct-horse-battery-staple"),
    ("podman -p=", "podman login -p=P0dmanPw9 quay.io", "P0dmanPw9"),
    ("helm registry login", "helm registry login -u me -p H3lmPass77 reg.io", "H3lmPass77"),
    ("sshpass -pX", "sshpass -pS3cretJoined ssh h", "S3cretJoined"),
    ("htpasswd -nb", "htpasswd -nb admin Nb4ssw0rd", "Nb4ssw0rd"),
    ("htpasswd -bc", "htpasswd -bc .htpasswd admin Bc4ssw0rd", "Bc4ssw0rd"),
    ("redis-cli -a", "redis-cli -h cache -a R3disPass9 ping", "R3disPass9"),
    ("ssh-keygen -N", "ssh-keygen -t ed25519 -N K3yPhrase9 -f id", "K3yPhrase9"),
    ("ssh-keygen -P", "ssh-keygen -p -P 0ldPhrase9 -N N3wPhrase9 -f id", "0ldPhrase9"),
    ("mongosh -p", "mongosh -u admin -p M0ngoPass9 --host db", "M0ngoPass9"),
    ("zip -P", "zip -P Z1pPass99 out.zip a.txt", "Z1pPass99"),
    ("7z -p", "7z a -pS3venZip9 out.7z dir", "S3venZip9"),
    ("Visa contiguous", "card 4111111111111111 declined", "4111111111111111"),
    ("Mastercard dashes", "card 5105-1051-0510-5100 declined", "5105-1051-0510-5100"),
    ("Amex 4-6-5", "amex 3782 822463 10005 expired", "3782 822463 10005"),
    ("card then a year", "4012 8888 8888 1881 2027 is the card and its year", "4012 8888 8888 1881"),
    ("AWS secret after aws", "aws configure: secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKE2",
     "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKE2"),
    ("full-width token", "\uff53\uff4b\uff3f\uff4c\uff49\uff56\uff45\uff3f4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("soft hyphen in a token", "push ghp_1a2B3c4D5e6F7g8H9i0J\u00ad1k2L3m4N5o6P7q8R", "1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"),
    ("no-break space", "password\u00a0Tr0ub4dor3z", "Tr0ub4dor3z"),
]

# prose beside a secret: the whole line is expected, so prose keeps every word
PROSE = [
    ("the password policy is documented in SECURITY.md; the password is Kx9vQ2mLp7",
     "the password policy is documented in SECURITY.md; the password is [REDACTED]"),
    ("the password is required for every login, so pw is Qz7wR3tY8",
     "the password is required for every login, so pw is [REDACTED]"),
    ("add a password field (see the vault) and a password reset link; password Tr0ub4dor3x",
     "add a password field (see the vault) and a password reset link; password [REDACTED]"),
    ("my password manager is 1Password; the pw is wrong; passphrase W4ter-Lily-Moon9",
     "my password manager is 1Password; the pw is wrong; passphrase [REDACTED]"),
    ("Passwort vergessen? Klick hier. Le mot de passe est Secr3tFr4nc",
     "Passwort vergessen? Klick hier. Le mot de passe est [REDACTED]"),
    ("run docker run -p 8080:80 nginx, ssh -p 2222 h and psql -p 5432; docker login -p D0ckerPw9x",
     "run docker run -p 8080:80 nginx, ssh -p 2222 h and psql -p 5432; docker login -p [REDACTED]"),
    ("order 12345 on 2024-01-15, call +1 415 555 0100, took 1733011200000 ms; card 4111 1111 1111 1111",
     "order 12345 on 2024-01-15, call +1 415 555 0100, took 1733011200000 ms; card [REDACTED]"),
    ("4111 1111 1111 1112 fails Luhn, ISBN 978-3-16-148410-0; 5555555555554444",
     "4111 1111 1111 1112 fails Luhn, ISBN 978-3-16-148410-0; [REDACTED]"),
    ("not SSNs: 000-12-3456 666-12-3456 900-12-3456 123-00-4567 123-45-0000 ABC-123-4567; 219-09-9999",
     "not SSNs: 000-12-3456 666-12-3456 900-12-3456 123-00-4567 123-45-0000 ABC-123-4567; [REDACTED]"),
    ("aws s3 ls s3://bucket/prefix, commit 3f9a1c2e7b8d4f6a0e1c2b3d4f5a6b7c8d9e0f1a; AKIAZ3MQX7L2K4PQRSTU "
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYZ3MQX7L2K4",
     "aws s3 ls s3://bucket/prefix, commit 3f9a1c2e7b8d4f6a0e1c2b3d4f5a6b7c8d9e0f1a; [REDACTED] [REDACTED]"),
    ("use the passphrase option e.g. for keys, the sig= field; htpasswd -b f u Htp4ssw0rdX",
     "use the passphrase option e.g. for keys, the sig= field; htpasswd -b f u [REDACTED]"),
    ("zip -r out.zip dir && mkdir -p build; sshpass -p S3cr3tSsh9 ssh h",
     "zip -r out.zip dir && mkdir -p build; sshpass -p [REDACTED] ssh h"),
]


def test_the_fifteen_shapes_are_redacted_in_the_journal(env, vault, tmp_path):
    for i, (name, request, _) in enumerate(SHAPES):
        _session_end(env, tmp_path, f"shp{i:03d}", request)
    journal = _journal(vault)
    failed = []
    for i, (name, request, secret) in enumerate(SHAPES):
        try:
            with case():
                line = [ln for ln in journal.splitlines() if f"session shp{i:03d}" in ln]
                assert len(line) == 1, f"{name}: no entry"
                assert "[REDACTED" in line[0], f"{name}: nothing redacted in {line[0]!r}"
                leaked = [p for p in _parts(secret) if p in line[0]]
                assert not leaked, f"{name}: {leaked} in {line[0]!r}"
        except AssertionError as e:
            failed.append(str(e))
    count("operations", len(SHAPES))
    count("leaks", len(failed))
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("name,request_text,secret", MORE, ids=[m[0] for m in MORE])
def test_more_spellings_are_redacted(name, request_text, secret):
    from memory_plugin.memory.journal import request_line

    with case():
        out = request_line(request_text)
        assert "[REDACTED]" in out, out
        assert not [p for p in _parts(secret) if p in out], out
        count("operations")


@pytest.mark.parametrize("text,want", PROSE, ids=[str(i) for i in range(len(PROSE))])
def test_prose_beside_a_secret_keeps_every_word(text, want):
    from memory_plugin.memory.journal import request_line

    with case():
        assert request_line(text) == want
        count("operations")


ADVERSARIAL = {
    "password words": "password is Tr0ub4dor3x pw ",
    "languages": "mot de passe est Secr3tFr4nc Passwort ",
    "card digits": "4111 1111 1111 1111 4 ",
    "SSN dashes": "219-09-9999 1-2-3- ",
    "htpasswd": "htpasswd -b f u Htp4ssw0rdX ",
    "command flags": "sshpass docker login -p D0ckerPw9x mysql -pMy5qlPass9 ",
    "AWS base64": "AKIAZ3MQX7L2K4PQRSTU wJalrXUtnFEMI/K7MDENG/bPxRfiCYZ3MQX7L2K4 " + "A/b+" * 11 + " ",
    "SAS": "?sig=Yx8tQm3%2BnK7pL2vR9sWq4ZaB6cD1eF0gH5iJ&sig=",
    "invisible": "sk_live_4eC39Hq\u200b\u00ad\ufeffLyjWDarjtT1zdp7dc\uff1a",
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_a_megabyte_of_each_new_shape_is_redacted_in_bounded_time(name):
    """A hang detector, not a speed figure: 1 MB of a rule's own shape (the old patterns finish it
    in about a second on an idle machine; a quadratic one would need hours)."""
    from memory_plugin.memory import redact as R

    unit = ADVERSARIAL[name]
    text = unit * ((1 << 20) // len(unit))
    with case():
        t0 = time.perf_counter()
        out = R.redact(text)
        took = time.perf_counter() - t0
        assert took < 60, f"{name}: {took:.1f} s"
        secrets = [w for w in ("Tr0ub4dor3x", "Secr3tFr4nc", "4111 1111", "219-09-9999", "Htp4ssw0rdX",
                               "D0ckerPw9x", "My5qlPass9", "wJalrXUtnFEMI", "Yx8tQm3", "LyjWDarjtT1")
                   if w in unit.replace("\u200b\u00ad\ufeff", "")]
        assert secrets and not [w for w in secrets if w in out], name
        count("operations")


def test_a_hostile_request_with_a_secret_first_is_journaled_redacted(env, vault, tmp_path):
    """Through the hook: the request is cut to its bounded prefix before redaction, so 1 MB after a
    secret changes neither the time nor the result."""
    with case():
        _session_end(env, tmp_path, "hostpw01", "the password is Kx9vQ2mLp7 " + "password pw 4111 " * 60_000)
        line = [ln for ln in _journal(vault).splitlines() if "session hostpw01" in ln]
        assert len(line) == 1 and "Kx9vQ2" not in line[0] and "[REDACTED]" in line[0], line
        count("operations")
