"""Secret redaction, in linear time: gitleaks' rules (vendored in gitleaks_rules.toml) plus ours for
the forms a person types: `KEY=value`, `key: value`, `'key' => 'value'` for any key that names a
password, secret, token, key, auth or credential; a word for password (in the main European
languages) followed by a value, with or without `=`/`:`/"is"; URL credentials;
`Authorization: Basic/Bearer`; `curl -u user:pw`; the password arguments of `mysql`, `sshpass`,
`docker login`, `htpasswd`, `redis-cli`, `ssh-keygen`, `zip`/`7z`; `--password x`; an AWS secret
key beside its access key id; an Azure SAS `sig=`; card numbers (Luhn); US SSNs; private key
blocks cut short.

The text is normalised first (NFKC, zero-width and other invisible format characters dropped), so
a full-width colon or a zero-width space inside a token changes nothing; what is returned is the
normalised text.

Imported only when there is text to redact (the SessionEnd hook with a first request); each rule
is compiled the first time a keyword of it appears.

Linear time: Python's `re` backtracks, so every pattern here is bounded. Ours use bounded and
possessive repeats only. gitleaks' are rewritten when compiled (`to_python`):
- Go-only syntax: a `(?i)` in the middle becomes a scoped `(?i:...)`, `\\z` becomes `\\Z`;
- every unbounded repeat (`*`, `+`, `{n,}`) gets the bound MAX_REPEAT;
- the leading `[\\w.-]{0,50}?` of the keyword rules is dropped (it only widened the match to the
  left of the keyword; the secret found is the same), which saves 50 tries at every position;
- the closing context (`(?:[\\x60'"\\s;]|\\\\[nr]|$)` and kin) becomes a lookahead and also accepts
  prose punctuation (`.`, `,`, `)`, ...), so the redaction ends where the secret ends.
tests/reliability/test_redaction.py checks every compiled pattern has no unbounded repeat.
"""
from __future__ import annotations

import math
import os
import re
import unicodedata

MARKER = "[REDACTED]"
PEM_MARKER = "[REDACTED PRIVATE KEY]"
EMAIL_MARKER = "[REDACTED EMAIL]"
MAX_REPEAT = 1024
RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gitleaks_rules.toml")

# ---------------------------------------------------------------- gitleaks rules, made linear

_GO_END = r"""(?:[\x60'"\s;]|\\[nr]|$)"""
_CONTEXT = [  # (Go text, Python text): closing context as lookahead, prose punctuation accepted
    (_GO_END, r"""(?=[\x60'"\s;.,:!?)\]}>]|\\[nr]|$)"""),
    (r"""(?:[\x60'"\s;]|\\[nr]|$|\b)""", r"""(?=[\x60'"\s;.,:!?)\]}>]|\\[nr]|$|\b)"""),
    (r"""(?:[^\w-]|\z)""", r"""(?=[^\w-]|\Z)"""),
    (r"""(?:[^a-zA-Z0-9+/]|\z)""", r"""(?=[^a-zA-Z0-9+/]|\Z)"""),
    (r"""(?:$|[\\'"\x60\s<),])""", r"""(?=$|[\\'"\x60\s<),.])"""),
    (r"""(?:^|[\\'"\x60\s>=:(,)])""", r"""(?:^|(?<=[\\'"\x60\s>=:(,)]))"""),
    (r"""(?:[\/|\#|\?|:]|$)""", r"""(?=[\/|\#|\?|:]|$)"""),
]
_KEY_PREFIXES = ((r"(?i)[\w.-]{0,50}?", "(?i)"), (r"[\w.-]{0,50}?(?i:[\w.-]{0,50}?", "(?i:"))
_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z]{1,8})\)")
_GROUP_OPEN = re.compile(r"\((?:\?(?:P<\w{1,64}>|[a-zA-Z-]{0,8}:|[=!]|<[=!]))?")
_BRACES = re.compile(r"\{(\d{1,6})(?:(,)(\d{0,6}))?\}")


def to_python(go: str) -> tuple[str, bool]:
    """A gitleaks (Go RE2) pattern as a bounded Python pattern; -> (pattern, keyword rule?)."""
    keyed = False
    for prefix, repl in _KEY_PREFIXES:
        if go.startswith(prefix):
            go, keyed = repl + go[len(prefix):], True
            break
    for a, b in _CONTEXT:
        go = go.replace(a, b)
    out: list[str] = []
    scopes: list[list[str]] = [[]]  # per open group: the scoped flag groups opened inside it
    i, n = 0, len(go)
    while i < n:
        c = go[i]
        if c == "\\":
            out.append("\\Z" if go[i:i + 2] == "\\z" else go[i:i + 2])
            i += 2
        elif c == "[":
            j = i + 1
            if j < n and go[j] == "^":
                j += 1
            if j < n and go[j] == "]":
                j += 1
            while j < n and go[j] != "]":
                j += 2 if go[j] == "\\" else 1
            out.append(go[i:j + 1])
            i = j + 1
        elif c == "(":
            m = _FLAG_GROUP.match(go, i)
            if m and i == 0:
                out.append(m.group(0))  # global flags at the start: Python accepts them there
            elif m:
                out.append(f"(?{m.group(1)}:")  # Go: flags to the end of the group; Python: scoped
                scopes[-1].append(m.group(1))
            else:
                m = _GROUP_OPEN.match(go, i)
                out.append(m.group(0))
                scopes.append([])
            i = m.end()
        elif c == ")":
            out.append(")" * len(scopes.pop()) + ")")
            i += 1
        elif c == "|" and scopes[-1]:  # close the scoped flags before the branch, reopen after
            out.append(")" * len(scopes[-1]) + "|" + "".join(f"(?{f}:" for f in scopes[-1]))
            i += 1
        elif c in "*+" or (c == "{" and _BRACES.match(go, i)):
            if c == "{":
                m = _BRACES.match(go, i)
                lo, comma, hi = m.group(1), m.group(2), m.group(3)
                out.append(m.group(0) if not comma or hi else f"{{{lo},{max(int(lo), MAX_REPEAT)}}}")
                i = m.end()
            else:
                out.append(f"{{{0 if c == '*' else 1},{MAX_REPEAT}}}")
                i += 1
        else:
            out.append(c)
            i += 1
    out.append(")" * len(scopes[0]))
    return "".join(out), keyed


class _Rule:
    __slots__ = ("id", "regex", "keywords", "entropy", "keyed", "_rx")

    def __init__(self, rid: str, regex: str, keywords: tuple, min_entropy: float, keyed: bool):
        self.id, self.regex, self.keywords, self.entropy, self.keyed = rid, regex, keywords, min_entropy, keyed
        self._rx = None

    @property
    def rx(self) -> re.Pattern:
        if self._rx is None:
            self._rx = re.compile(self.regex)
        return self._rx

    def spans(self, text: str):
        for m in self.rx.finditer(text):
            if self.keyed and m.lastindex:  # keep the key, redact from the first group to the last
                got = [(m.start(g), m.end(g)) for g in range(1, m.lastindex + 1) if m.start(g) < m.end(g)]
                if not got:
                    continue
                s, e = min(a for a, _ in got), max(b for _, b in got)
            else:
                s, e = m.span()
            if e > s and (not self.entropy or entropy(text[s:e]) >= self.entropy):
                yield s, e


def translate_rules(path: str = RULES_FILE) -> list[tuple]:
    """gitleaks_rules.toml as (id, Python pattern, keywords, entropy, keyword rule?) rows: what
    scripts/gitleaks_rules.py writes into secret_rules.py, so the hook never parses TOML."""
    import tomllib

    with open(path, "rb") as f:
        data = tomllib.load(f)
    rows = []
    for d in data["rules"]:
        if d.get("regex"):
            regex, keyed = to_python(d["regex"])
            rows.append((d["id"], regex, tuple(k.lower() for k in d.get("keywords", ())),
                         float(d.get("entropy", 0)), keyed))
    return rows


_rules: list[_Rule] | None = None


def rules() -> list[_Rule]:
    global _rules
    if _rules is None:
        from .secret_rules import RULES

        _rules = [_Rule(*row) for row in RULES]
    return _rules


def entropy(s: str) -> float:
    counts: dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


# ---------------------------------------------------------------- our rules (bounded, possessive)

# a key names a secret: always when it holds one of these; an identifier (FOO_BAR, fooBar, FOO,
# foo-bar, foo1) when it holds a stem; a plain word only when it is one of PROSE_KEYS, so prose like
# "the author: Smith" or "tokens: 5" stays as it is
STRONG = ("password", "passwd", "passphrase", "passcode", "secret", "credential", "apikey", "api_key",
          "api-key", "privatekey", "private_key", "private-key", "accesskey", "access_key", "access-key",
          "passwort", "kennwort", "motdepasse", "mot_de_passe", "contraseña", "contrasena", "senha",
          "wachtwoord", "lösenord", "losenord", "adgangskode", "passord", "salasana", "hasło", "haslo",
          "heslo", "jelszó", "jelszo", "parolă", "пароль", "şifre")
STEMS = ("pass", "secret", "token", "key", "auth", "credential", "cred", "pwd", "pw")
PROSE_KEYS = frozenset("""pass password passwords passwd passphrase passcode pwd pw secret secrets token
key apikey auth authorization credential credentials cred creds""".split())
_KEYOP = re.compile(r"""(?<![\w.-])(["']?+)([\w.-]{1,80}+)\1?+[ \t]{0,5}+(?:=>|:=|=|:)(?!=)[ \t]{0,5}+""")
_VALUE = re.compile(r"""(?:(?i:basic|bearer|token|digest|negotiate|ntlm|bot)[ \t]{1,5}+)?"""
                    r"""("[^"\n]{0,512}+"|'[^'\n]{0,512}+'|[^\s"']\S{0,511}+)""")
_FLAG = re.compile(r"""(?<![\w-])--([A-Za-z][\w-]{0,40}+)[ \t]{1,5}+(?=[^\s-])""")
_USER = re.compile(r"""(?<![\w-])(?:-u|--user)(?:[ \t]{1,5}+|=)["']?+[^\s:"']{1,256}+:([^\s"']{1,256}+)""")
_MYSQL = re.compile(r"""\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b""", re.I)
_MYSQL_P = re.compile(r"""(?<!\S)-p("[^"\n]{1,256}+"|'[^'\n]{1,256}+'|[^\s"'-]\S{0,255}+)""")
_URL_CRED = re.compile(r"""://[^/\s:@]{0,256}+:([^@\s/]{1,256}+)@""")
_BEARER = re.compile(r"""(?i)\b(?:bearer[ \t]{1,5}+([A-Za-z0-9._~+/=-]{8,1024}+)|"""
                     r"""token[ \t]{1,5}+([A-Za-z0-9._~+/=-]{16,1024}+))""")
# Tokens known by their prefix, whatever their length (gitleaks' rules want exact lengths, which
# change), and Google OAuth access tokens, which gitleaks has no rule for.
_PREFIXED = re.compile(r"""\b(?:(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,1024}+|"""
                       r"""(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{8,1024}+|"""
                       r"""(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,1024}+|github_pat_\w{20,1024}+|"""
                       r"""xox[abeoprs]-[A-Za-z0-9-]{10,1024}+|glpat-[\w-]{20,1024}+|hf_[A-Za-z0-9]{30,1024}+|"""
                       r"""ya29\.[\w-]{20,1024}+|(?:AKIA|ASIA)[A-Z0-9]{16}\b|AIza[\w-]{30,1024}+|"""
                       r"""eyJ[\w-]{8,1024}+\.[\w-]{8,1024}+\.[\w-]{8,1024}+)""")
_PEM = re.compile(r"""-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----""", re.I)
_EMAIL = re.compile(r"""(?<![\w.%+-])[\w.%+-]{1,64}+@(?:[A-Za-z0-9-]{1,63}\.){1,10}[A-Za-z]{2,24}\b""")

# A word for password followed by its value: `password X`, `the password is X`, `pw: X`, `Passwort
# ist X`, `mot de passe : X`. Each language's everyday word (detect-secrets' keyword list has only
# the English and Spanish ones). After `=`/`:` any value is taken, as for `password: x` above; after
# a space or "is" only one that looks like a secret (_looks_secret), so prose keeps its words.
_PW_WORDS = (r"pass(?:word|wd|phrase|code)|pwd|pw|passwort|kennwort|mot[ \t]de[ \t]passe|mdp|contrase[ñn]a|"
             r"senha|wachtwoord|l[öo]senord|adgangskode|passord|kodeord|salasana|has[łl]o|heslo|jelsz[óo]|"
             r"parolă|пароль|şifre")
_IS = r"is|was|ist|lautet|war|est|es|era|é|è|är|er|var|on|jest|je|este|to"
_PW_PHRASE = re.compile(rf"""(?i)(?<![\w-])(?:{_PW_WORDS})(?![\w-])["']?+(?:[ \t]{{1,5}}+(?:{_IS})(?![\w-]))?+"""
                        r"""(?:[ \t]{0,5}+(=>|:=|=|:)[ \t]{0,5}+|[ \t]{1,5}+)"""
                        r"""("[^"\n]{1,512}+"|'[^'\n]{1,512}+'|[^\s"']{1,512}+)""")
_TRAILING = ".,;:!?)]}>"

# Commands that take a password as an argument: (keyword, the command, its password argument).
_ARG = r"""("[^"\n]{1,256}+"|'[^'\n]{1,256}+'|[^\s"'-]\S{0,255}+)"""
_COMMANDS = (
    (("mysql", "mariadb"), _MYSQL, _MYSQL_P),
    ("sshpass", re.compile(r"\bsshpass\b"), re.compile(rf"(?<!\S)-p[ \t]{{0,5}}+{_ARG}")),
    ("login", re.compile(r"""(?i)\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]{1,5}+registry)"""
                         r"""[ \t]{1,5}+login\b"""), re.compile(rf"(?<!\S)-p(?:=|[ \t]{{1,5}}+)?+{_ARG}")),
    ("redis-cli", re.compile(r"\bredis-cli\b"), re.compile(rf"(?<!\S)-a[ \t]{{1,5}}+{_ARG}")),
    ("ssh-keygen", re.compile(r"\bssh-keygen\b"), re.compile(rf"(?<!\S)-[NP][ \t]{{1,5}}+{_ARG}")),
    ("mongo", re.compile(r"\bmongo(?:sh|dump|restore|export|import)?\b"),
     re.compile(rf"(?<!\S)-p[ \t]{{1,5}}+{_ARG}")),
    ("zip", re.compile(r"\b(?:zip|unzip|zipcloak)\b"), re.compile(rf"(?<!\S)-P[ \t]{{1,5}}+{_ARG}")),
    ("7z", re.compile(r"(?<![\w-])7z[ar]?\b"), re.compile(r"""(?<!\S)-p("[^"\n]{1,256}+"|[^\s"']{1,256}+)""")),
)
_HTPASSWD = re.compile(r"\bhtpasswd\b")
_TOKEN = re.compile(r"\S{1,1024}+")
_STOP = re.compile(r"\n|;|\||&&")
SEGMENT = 400  # a command's arguments are read up to the next ; | && or line end, at most this far

# An AWS secret access key: 40 base64 characters, looked for when an access key id or "aws" is there.
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_SAS_SIG = re.compile(r"(?<![\w-])sig=([A-Za-z0-9%+/=_-]{16,1024}+)")
# Digit runs that may hold a card number (checked by IIN, length and Luhn) and US SSNs (no area 000,
# 666 or 9xx, group 00 or serial 0000: those are never issued).
_DIGIT_RUN = re.compile(r"(?<![\w.+-])\+?+\d{1,19}+(?:[ -]\d{1,19}+){0,9}+")
_DIGITS = re.compile(r"\d{1,19}+")
_SSN = re.compile(r"(?<![\w.+-])(?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")
# NFKC leaves these (they are not compatibility characters): zero-width, bidi and other invisible
# format characters, variation selectors, tags, fillers. A token with one inside would pass a rule.
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]")


def normalise(text: str) -> str:
    """What the rules read: NFKC (full-width `：` is `:`, `ｓｋ_ｌｉｖｅ` is `sk_live`), invisible
    characters dropped."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def _looks_secret(v: str) -> bool:
    """A value after `password` with no `=`/`:`: a digit, a symbol, inner capitals or three
    hyphenated words; not a plain word ("the password is documented")."""
    if len(v) < 4:
        return False
    if any(c.isdigit() or not (c.isalpha() or c in "-'.") for c in v):
        return True
    return v.count("-") >= 2 or (any(c.isupper() for c in v[1:]) and any(c.islower() for c in v))


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(digits: str) -> bool:
    """A payment card number: an issuer's prefix and length (Visa, Mastercard, Amex, Diners, JCB,
    Discover, UnionPay, Maestro) and the Luhn check."""
    n, first = len(digits), digits[0]
    if not 13 <= n <= 19 or first not in "23456":
        return False
    if first == "4":
        ok = n in (13, 16, 19)
    elif first == "2":
        ok = n == 16 and 2221 <= int(digits[:4]) <= 2720
    elif first == "3":
        ok = n == 15 if digits[1] in "47" else n >= 14
    elif first == "6":
        ok = n >= 16
    else:  # Mastercard has 16 digits, Maestro (50, 56-58) 13 to 19
        ok = n >= 16 or digits[:2] in ("50", "56", "57", "58")
    return ok and _luhn(digits)


def _cards(text: str):
    for m in _DIGIT_RUN.finditer(text):
        if text[m.start()] == "+":  # a phone number
            continue
        groups = [(g.start(), g.end()) for g in _DIGITS.finditer(text, m.start(), m.end())]
        i = 0
        while i < len(groups):
            digits, found = "", None
            for j in range(i, len(groups)):
                digits += text[groups[j][0]:groups[j][1]]
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and _card(digits):
                    found = j
            if found is None:
                i += 1
                continue
            yield groups[i][0], groups[found][1], MARKER
            i = found + 1


def _commands(text: str, low: str):
    """The password arguments of the commands in _COMMANDS and of `htpasswd -b`, each read within its
    command's segment; a segment is read once however many commands it names (linear)."""
    for kw, cmd, arg in _COMMANDS:
        if not any(k in low for k in ((kw,) if isinstance(kw, str) else kw)):
            continue
        stop_at = until = -1
        for m in cmd.finditer(text):
            if stop_at < m.end():
                s = _STOP.search(text, m.end())
                stop_at = s.start() if s else len(text)
            start, end = max(m.end(), until), min(stop_at, m.end() + SEGMENT)
            if start < end:
                for p in arg.finditer(text, start, end):
                    yield p.start(1), p.end(1), MARKER
                until = end
    if "htpasswd" in low:  # `htpasswd -b[c] FILE USER PASSWORD`, `htpasswd -nb USER PASSWORD`
        until = -1
        for m in _HTPASSWD.finditer(text):
            if m.start() < until:  # an argument of the previous htpasswd
                continue
            s = _STOP.search(text, m.end(), m.end() + SEGMENT)
            flags, args = "", []
            for t in _TOKEN.finditer(text, m.end(), s.start() if s else m.end() + SEGMENT):
                until = t.end()
                if t.group().startswith("-") and not args:
                    flags += t.group()[1:] if not t.group().startswith("--") else ""
                else:
                    args.append(t)
                if len(args) > 2:
                    break
            k = 1 if "n" in flags else 2
            if "b" in flags and len(args) > k:
                yield args[k].start(), args[k].end(), MARKER


def _numbers_and_keys(text: str, low: str):
    """Card numbers, SSNs, AWS secret keys and Azure SAS signatures."""
    if any(c.isdigit() for c in text):
        yield from _cards(text)
        if "-" in text:
            for m in _SSN.finditer(text):
                yield m.start(), m.end(), MARKER
    if "akia" in low or "asia" in low or "aws" in low:
        for m in _AWS_SECRET.finditer(text):
            v = m.group()
            if (any(c.isupper() for c in v) and any(c.islower() for c in v)
                    and any(c.isdigit() or c in "/+" for c in v)):
                yield m.start(), m.end(), MARKER
    if "sig=" in low:
        for m in _SAS_SIG.finditer(text):
            yield m.start(1), m.end(1), MARKER


def _password_words(text: str):
    pos = 0
    while m := _PW_PHRASE.search(text, pos):
        s, e = m.span(2)
        pos = e
        if text[s] not in "\"'":
            while e > s and text[e - 1] in _TRAILING:
                e -= 1
            if not m.group(1) and (text[s] in "([{<" or not _looks_secret(text[s:e])):
                pos = s  # a plain word is no value, but it may be the next password word
                continue
        if e > s:
            yield s, e, MARKER


def secret_key(key: str) -> bool:
    k = key.strip("-_.")
    if not k:
        return False
    low = k.lower()
    if any(s in low for s in STRONG):
        return True
    if not k.isalpha() or k[1:] != k[1:].lower():  # an identifier, not a word
        return any(s in low for s in STEMS)
    return low in PROSE_KEYS


def _own_spans(text: str, low: str):
    for m in _KEYOP.finditer(text):
        if secret_key(m.group(2)):
            v = _VALUE.match(text, m.end())
            if v:
                yield v.start(1), v.end(1), MARKER
    if "--" in text:
        for m in _FLAG.finditer(text):
            if secret_key(m.group(1)):
                v = _VALUE.match(text, m.end())
                if v:
                    yield v.start(1), v.end(1), MARKER
    if "-u" in text or "--user" in text:
        for m in _USER.finditer(text):
            yield m.start(1), m.end(1), MARKER
    if "://" in text:
        for m in _URL_CRED.finditer(text):
            yield m.start(1), m.end(1), MARKER
    if "bearer" in low or "token" in low:
        for m in _BEARER.finditer(text):
            g = 1 if m.start(1) >= 0 else 2
            yield m.start(g), m.end(g), MARKER
    for m in _PREFIXED.finditer(text):
        yield m.start(), m.end(), MARKER
    yield from _commands(text, low)
    yield from _password_words(text)
    yield from _numbers_and_keys(text, low)
    if "-----begin" in low:  # a key block up to its END line, or to the end when it was cut
        for m in _PEM.finditer(text):
            k = low.find("-----end", m.end())
            stop = len(text) if k < 0 else low.find("-----", k + 8)
            yield m.start(), len(text) if stop < 0 or k < 0 else stop + 5, PEM_MARKER


def redact(text: str, emails: bool = False, keep_until: int | None = None) -> str:
    """`text` with every secret replaced by a marker. `keep_until`: drop what follows that offset of
    `text` (a redacted secret that starts before it is kept as its marker). The text is normalised
    first (`normalise`); so is the offset."""
    if keep_until is not None:
        keep_until = len(normalise(text[:max(0, keep_until)]))
    text = normalise(text)
    low = text.lower()
    spans = list(_own_spans(text, low))
    for rule in rules():
        if rule.keywords and not any(k in low for k in rule.keywords):
            continue
        spans += [(s, e, MARKER) for s, e in rule.spans(text)]
    if emails and "@" in text:
        spans += [(m.start(), m.end(), EMAIL_MARKER) for m in _EMAIL.finditer(text)]
    spans.sort(key=lambda t: (t[0], -t[1]))
    return _apply(text, spans, len(text) if keep_until is None else max(0, min(keep_until, len(text))))


def _apply(text: str, spans: list, limit: int) -> str:
    """text[:limit] with the (sorted) spans replaced; overlapping spans are one redaction, labelled
    by the widest; a span that starts before `limit` is replaced whole."""
    inside = [(s, min(e, len(text)), label) for s, e, label in spans if s < limit]
    merged: list[list] = []
    for s, e, label in inside:
        if merged and s < merged[-1][1]:
            if e - s > merged[-1][1] - merged[-1][0]:
                merged[-1][2] = label
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e, label])
    out, pos = [], 0
    for s, e, label in merged:
        out += [text[pos:s], label]
        pos = e
    if pos < limit:
        out.append(text[pos:limit])
    return "".join(out)
