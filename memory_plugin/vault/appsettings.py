"""The settings a vault's app keeps beside its notes: where the owner's daily notes go and how they are
named, where a new note goes, the templates and attachments folders. Read as each app documents them,
from small JSON files and one EDN file read by a regex (no YAML, nothing heavy: SessionEnd reads the
daily-notes settings every time it writes the journal). docs/vault.md says what each key means.

- Obsidian: `.obsidian/daily-notes.json` (`folder`, `format` in moment.js tokens, `template`),
  `.obsidian/app.json` (`newFileLocation` "root" | "current" | "folder" with `newFileFolderPath`,
  `attachmentFolderPath`), `.obsidian/templates.json` (`folder`), and the community plugins that take
  those over when enabled: Periodic Notes (`.obsidian/plugins/periodic-notes/data.json`, daily
  `folder`/`format`/`template`) and Templater (`templates_folder`).
- Logseq: `logseq/config.edn` (`:journal/file-name-format`, default `yyyy_MM_dd`; `:journals-directory`,
  default `journals`; `:pages-directory`, default `pages`; `:journal/page-title-format`).
- Foam: the daily-note template's `foam_template: filepath:` (`.foam/templates/daily-note.md`), else the
  legacy `.vscode/settings.json` keys `foam.openDailyNote.directory` (default: the workspace root) and
  `foam.openDailyNote.filenameFormat` (dateformat tokens, default `isoDate`); else `journal/`.
"""
from __future__ import annotations

import json
import os
import re

TYPE_CHECKING = False  # importing typing (or datetime) costs the SessionEnd hook a few ms
if TYPE_CHECKING:
    import datetime as _dt

MAX_SETTINGS_BYTES = 1_000_000  # a settings file larger than this is not one: ignored

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# Date tokens of each app's format language, longest first (a token is matched at the longest).
_COMMON = {
    "month_long": lambda d: MONTHS[d.month - 1], "month_short": lambda d: MONTHS[d.month - 1][:3],
    "day_long": lambda d: DAYS[d.weekday()], "day_short": lambda d: DAYS[d.weekday()][:3],
}
# moment.js (Obsidian, Periodic Notes, Templater): https://momentjs.com/docs/#/displaying/format/
MOMENT = {
    "YYYY": lambda d: f"{d.year:04d}", "YY": lambda d: f"{d.year % 100:02d}",
    "Q": lambda d: str((d.month - 1) // 3 + 1),
    "MMMM": _COMMON["month_long"], "MMM": _COMMON["month_short"], "MM": lambda d: f"{d.month:02d}",
    "M": lambda d: str(d.month), "Mo": lambda d: _ordinal(d.month),
    "DDDD": lambda d: f"{d.timetuple().tm_yday:03d}", "DDD": lambda d: str(d.timetuple().tm_yday),
    "Do": lambda d: _ordinal(d.day), "DD": lambda d: f"{d.day:02d}", "D": lambda d: str(d.day),
    "dddd": _COMMON["day_long"], "ddd": _COMMON["day_short"], "dd": lambda d: DAYS[d.weekday()][:2],
    "d": lambda d: str((d.weekday() + 1) % 7), "E": lambda d: str(d.isoweekday()),
    "GGGG": lambda d: f"{d.isocalendar()[0]:04d}", "gggg": lambda d: f"{d.isocalendar()[0]:04d}",
    "WW": lambda d: f"{d.isocalendar()[1]:02d}", "W": lambda d: str(d.isocalendar()[1]),
    "ww": lambda d: f"{d.isocalendar()[1]:02d}", "w": lambda d: str(d.isocalendar()[1]),
}
# dateformat (Foam's legacy filenameFormat): https://github.com/felixge/node-dateformat#mask-options
DATEFORMAT = {
    "yyyy": MOMENT["YYYY"], "yy": MOMENT["YY"], "mmmm": _COMMON["month_long"], "mmm": _COMMON["month_short"],
    "mm": MOMENT["MM"], "m": MOMENT["M"], "dddd": _COMMON["day_long"], "ddd": _COMMON["day_short"],
    "dd": MOMENT["DD"], "d": MOMENT["D"], "W": MOMENT["W"], "WW": MOMENT["WW"],
}
DATEFORMAT_MASKS = {"isoDate": "yyyy-mm-dd", "shortDate": "m/d/yy", "mediumDate": "mmm d, yyyy",
                    "longDate": "mmmm d, yyyy", "fullDate": "dddd, mmmm d, yyyy"}
# Logseq's formats (date-fns / Joda letters): https://docs.logseq.com/#/page/config.edn
LOGSEQ = {
    "yyyy": MOMENT["YYYY"], "yy": MOMENT["YY"], "MMMM": _COMMON["month_long"], "MMM": _COMMON["month_short"],
    "MM": MOMENT["MM"], "M": MOMENT["M"], "do": MOMENT["Do"], "dd": MOMENT["DD"], "d": MOMENT["D"],
    "EEEE": _COMMON["day_long"], "EEE": _COMMON["day_short"], "E": _COMMON["day_short"],
}


def format_date(day: _dt.date, fmt: str, tokens: dict, quotes: tuple[str, str] = ("[", "]")) -> str:
    """`day` written in `fmt`, whose letters are `tokens` (longest match first); text between
    `quotes` is literal (moment's `[..]`; dateformat's and Logseq's `'..'`), as is any other character."""
    keys = sorted(tokens, key=len, reverse=True)
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == quotes[0]:
            j = fmt.find(quotes[1], i + 1)
            j = len(fmt) if j < 0 else j
            out.append(fmt[i + 1:j])
            i = j + 1
            continue
        for k in keys:
            if fmt.startswith(k, i):
                out.append(tokens[k](day))
                i += len(k)
                break
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


def read_json(path: str):
    """A small JSON file's value, or None (missing, too large, not JSON)."""
    try:
        if os.path.getsize(path) > MAX_SETTINGS_BYTES:
            return None
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def read_jsonc(path: str):
    """A small JSON-with-comments file's value (VS Code's settings.json: `//` and `/* */` comments,
    trailing commas), or None (missing, too large, not JSON)."""
    try:
        if os.path.getsize(path) > MAX_SETTINGS_BYTES:
            return None
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':  # a string, escapes and all: nothing in it is a comment
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else n
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 2 if text.find("*/", i + 2) >= 0 else n
        else:
            out.append(c)
            i += 1
    try:
        return json.loads(re.sub(r",(\s*[}\]])", r"\1", "".join(out)))
    except ValueError:
        return None


def foam_unreported(vault: str) -> list[str]:
    """The folders and globs a Foam workspace leaves out of its orphans report and its graph
    (`foam.orphans.exclude`, `foam.files.ignore` in `.vscode/settings.json`)."""
    settings = read_jsonc(os.path.join(vault, ".vscode", "settings.json"))
    if not isinstance(settings, dict):
        return []
    return [g.strip().strip("/") for key in ("foam.orphans.exclude", "foam.files.ignore")
            for g in (settings.get(key) if isinstance(settings.get(key), list) else [])
            if isinstance(g, str) and g.strip().strip("/")]


def _str(d, key: str) -> str | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v.strip() if isinstance(v, str) else None


def _folder(value: str | None) -> str | None:
    """A folder setting as a vault-relative path ("" is the root), or None when it would leave the vault."""
    if value is None:
        return None
    v = value.replace("\\", "/").strip().strip("/")
    if v.startswith("~") or re.match(r"^[A-Za-z]:", v) or ".." in v.split("/"):
        return None
    return "" if v in ("", ".") else v.removeprefix("./")


def _enabled_plugins(vault: str, name: str) -> list[str]:
    """The plugins `.obsidian/<name>.json` lists as enabled (a list, or {plugin: true} in newer versions)."""
    data = read_json(os.path.join(vault, ".obsidian", name))
    if isinstance(data, list):
        return [p for p in data if isinstance(p, str)]
    if isinstance(data, dict):
        return [p for p, on in data.items() if on is True]
    return []


class Daily:
    """Where and how the owner's app names a daily note."""

    def __init__(self, app: str, folder: str, fmt: str, tokens: dict, quotes: tuple[str, str],
                 template: str | None = None, source: str = "", home: str | None = None):
        self.app, self.folder, self.fmt, self.tokens, self.quotes = app, folder, fmt, tokens, quotes
        self.template, self.source = template, source
        # the folder every daily note lives under (the format may add dated subfolders)
        self.home = folder if home is None else home
        self.app_set = True  # an app's settings name it (False: only the vault's notes show it)

    def rel(self, day: _dt.date) -> str | None:
        """The vault-relative path of the daily note of `day`, or None when the format makes no
        usable name (empty, or a part that leaves the vault)."""
        name = format_date(day, self.fmt, self.tokens, self.quotes).strip().strip("/")
        parts = [p for p in f"{self.folder}/{name}".split("/") if p]
        if not name or any(p in (".", "..") or p.startswith(".") for p in parts):
            return None
        return "/".join(parts) + ".md"

    def name_re(self):
        """A regex matching the names this format writes (a token writing digits matches digits, one
        writing an ordinal an ordinal, one writing a name letters), as format_date reads the format."""
        import datetime as _dtm

        sample = _dtm.date(2024, 11, 28)
        keys = sorted(self.tokens, key=len, reverse=True)
        fmt, out, i = self.fmt, [], 0
        while i < len(fmt):
            if fmt[i] == self.quotes[0]:
                j = fmt.find(self.quotes[1], i + 1)
                j = len(fmt) if j < 0 else j
                out.append(re.escape(fmt[i + 1:j]))
                i = j + 1
                continue
            for k in keys:
                if fmt.startswith(k, i):
                    v = self.tokens[k](sample)
                    out.append(r"\d+" if v.isdigit() else r"\d+[a-z]{2}" if v[:-2].isdigit() else r"[^\W\d_]+")
                    i += len(k)
                    break
            else:
                out.append(re.escape(fmt[i]))
                i += 1
        return re.compile("".join(out), re.I)

    def holds(self, rel: str) -> bool:
        """Whether the note at vault-relative `rel` is one of these daily notes: under the daily-notes
        folder and named as the format names them (a note beside them, `Daily/Review.md`, is not)."""
        home = self.home.strip("/")
        if home and not rel.startswith(home + "/"):
            return False
        name = rel[len(home) + 1 if home else 0:]
        name = name[:-3] if name.endswith(".md") else name
        if self.app == "logseq":  # Logseq's journals folder holds journals only, whatever their names
            return "/" not in name
        rx = getattr(self, "_rx", None)
        if rx is None:
            rx = self._rx = self.name_re()
        return rx.fullmatch(name) is not None

    def __repr__(self) -> str:
        return f"Daily({self.app!r}, folder={self.folder!r}, format={self.fmt!r}, template={self.template!r})"


def _obsidian_daily(vault: str) -> Daily | None:
    if "periodic-notes" in _enabled_plugins(vault, "community-plugins.json"):
        data = read_json(os.path.join(vault, ".obsidian", "plugins", "periodic-notes", "data.json"))
        day = data.get("daily") if isinstance(data, dict) else None
        if not isinstance(day, dict) and isinstance(data, dict):  # 1.x: calendar sets
            sets = data.get("calendarSets")
            first = sets[0] if isinstance(sets, list) and sets and isinstance(sets[0], dict) else {}
            day = first.get("day")
        if isinstance(day, dict) and day.get("enabled") is True:
            folder = _folder(_str(day, "folder") or "")
            if folder is not None:
                return Daily("obsidian", folder, _str(day, "format") or "YYYY-MM-DD", MOMENT, ("[", "]"),
                             _str(day, "template") or None, ".obsidian/plugins/periodic-notes/data.json")
    path = os.path.join(vault, ".obsidian", "daily-notes.json")
    data = read_json(path)
    core = _enabled_plugins(vault, "core-plugins.json")
    if data is None and "daily-notes" not in core:
        return None  # the owner keeps no daily notes in Obsidian: nothing to follow
    folder = _folder(_str(data, "folder") or "")
    if folder is None:
        return None
    return Daily("obsidian", folder, _str(data, "format") or "YYYY-MM-DD", MOMENT, ("[", "]"),
                 _str(data, "template") or None, ".obsidian/daily-notes.json" if data is not None
                 else ".obsidian/core-plugins.json")


_EDN_LINE = re.compile(r'^[ \t]*(?:\{[ \t]*)?(:[\w./?-]+)[ \t]+(?:"((?:[^"\\]|\\.)*)"|(:[\w./?-]+))', re.M)


def logseq_config(vault: str) -> dict[str, str]:
    """The top-level keys of `logseq/config.edn` this module needs, read by a regex: `:key "string"` or
    `:key :keyword` on a line that is not a comment (`;`). Nested maps are not read."""
    try:
        path = os.path.join(vault, "logseq", "config.edn")
        if os.path.getsize(path) > MAX_SETTINGS_BYTES:
            return {}
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    out: dict[str, str] = {}
    for m in _EDN_LINE.finditer(text):
        key, s, kw = m.group(1), m.group(2), m.group(3)
        out.setdefault(key, s.replace('\\"', '"') if s is not None else kw)
    return out


def _logseq_daily(vault: str) -> Daily | None:
    if not os.path.isfile(os.path.join(vault, "logseq", "config.edn")):
        return None
    conf = logseq_config(vault)
    folder = _folder(conf.get(":journals-directory", "journals"))
    if folder is None:
        return None
    return Daily("logseq", folder, conf.get(":journal/file-name-format") or "yyyy_MM_dd", LOGSEQ, ("'", "'"),
                 None, "logseq/config.edn")


def _foam_template_filepath(vault: str) -> tuple[str | None, str | None]:
    """(the daily-note template's path if any, its `foam_template: filepath:` if it declares one)."""
    path = os.path.join(vault, ".foam", "templates", "daily-note.md")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(8000)
    except OSError:
        return None, None
    m = re.search(r"(?m)^foam_template:[ \t]*\n(?:[ \t]+.*\n)*?[ \t]+filepath:[ \t]*['\"]?([^'\"\n]+)", head)
    return ".foam/templates/daily-note.md", (m.group(1).strip() if m else None)


_FOAM_VARS = {"FOAM_DATE_YEAR": "yyyy", "CURRENT_YEAR": "yyyy", "FOAM_DATE_MONTH": "mm", "CURRENT_MONTH": "mm",
              "FOAM_DATE_DATE": "dd", "CURRENT_DATE": "dd", "FOAM_DATE_MONTH_NAME": "mmmm",
              "CURRENT_MONTH_NAME": "mmmm", "FOAM_DATE_MONTH_NAME_SHORT": "mmm",
              "CURRENT_MONTH_NAME_SHORT": "mmm", "FOAM_DATE_DAY_NAME": "dddd", "CURRENT_DAY_NAME": "dddd",
              "FOAM_DATE_DAY_NAME_SHORT": "ddd", "CURRENT_DAY_NAME_SHORT": "ddd",
              "CURRENT_YEAR_SHORT": "yy", "FOAM_DATE_YEAR_SHORT": "yy"}


def foam_vars_to_format(text: str) -> str | None:
    """A Foam template path (`journal/${FOAM_DATE_YEAR}-${FOAM_DATE_MONTH}.md`) as a dateformat mask,
    or None when it holds a variable that is not a date."""
    out, pos = [], 0
    for m in re.finditer(r"\$\{?([A-Z_]+)\}?", text):
        if m.group(1) not in _FOAM_VARS:
            return None
        out.append("'" + text[pos:m.start()] + "'" if text[pos:m.start()] else "")
        out.append(_FOAM_VARS[m.group(1)])
        pos = m.end()
    if text[pos:]:
        out.append("'" + text[pos:] + "'")
    return "".join(out)


def _foam_daily(vault: str) -> Daily:
    template, filepath = _foam_template_filepath(vault)
    if filepath:
        fp = filepath.replace("\\", "/").strip().lstrip("/")
        fp = fp[:-3] if fp.endswith(".md") else fp
        mask = foam_vars_to_format(fp)
        first_var = fp.find("$")
        folder = _folder(fp[:first_var if first_var >= 0 else len(fp)].rpartition("/")[0])
        if mask and folder is not None and _folder(fp) is not None:
            return Daily("foam", "", mask, DATEFORMAT, ("'", "'"), template, template or "", folder)
    settings = read_jsonc(os.path.join(vault, ".vscode", "settings.json"))
    settings = settings if isinstance(settings, dict) else {}
    legacy = [k for k in settings if k.startswith("foam.openDailyNote.") and k != "foam.openDailyNote.onStartup"]
    if legacy:  # the settings Foam read until 0.47: the workspace root unless a directory is named
        folder = _folder(_str(settings, "foam.openDailyNote.directory") or "")
        fmt = _str(settings, "foam.openDailyNote.filenameFormat") or "isoDate"
        fmt = DATEFORMAT_MASKS.get(fmt, fmt)
        if folder is not None:
            return Daily("foam", folder, fmt, DATEFORMAT, ("'", "'"), template, ".vscode/settings.json")
    # Foam's default since 0.47: journal/YYYY-MM-DD.md
    return Daily("foam", "journal", "yyyy-mm-dd", DATEFORMAT, ("'", "'"), template, "Foam's default")


def daily_notes(vault: str | os.PathLike | None, dialect: str) -> Daily | None:
    """Where the vault's app keeps the owner's daily notes, or None when it keeps none (no app, or an
    Obsidian vault whose daily-notes plugin is off and unconfigured)."""
    if vault is None:
        return None
    vault = str(vault)
    if dialect == "obsidian":
        return _obsidian_daily(vault) or _daily_by_notes(vault)
    if dialect == "logseq":
        return _logseq_daily(vault)
    if dialect == "foam":
        return _foam_daily(vault)
    return _daily_by_notes(vault) if dialect == "plain" else None


# Where no app setting names it, the daily-notes folder its notes show: a top folder whose notes are
# mostly named by the day in one of these formats (Obsidian's default first)
DAILY_NAME_FORMATS = ("YYYY-MM-DD", "YYYY_MM_DD", "YYYY.MM.DD", "YYYYMMDD")
DAILY_FOLDER_NAMES = ("daily", "dailies", "daily notes", "journal", "journals", "diary")
DAILY_SHARE = 0.5  # ... this share of a folder's notes, at least DAILY_MIN of them
DAILY_MIN = 2


def _daily_by_notes(vault: str) -> Daily | None:
    """The daily notes a vault with no app settings keeps (kepano's template without `.obsidian/`):
    the top folder most of whose notes are named by a day in one format (DAILY_NAME_FORMATS), or, when
    none is, a top folder named for them (`Daily/`, `Journal/`: a name says it) in Obsidian's default
    format. Its template: a note of the templates folder named for daily notes (`Daily Note
    Template.md`)."""
    try:
        tops = sorted(e.name for e in os.scandir(vault) if e.is_dir() and not e.name.startswith("."))
    except OSError:
        return None
    best = None  # (dated notes, folder, format)
    for top in tops:
        try:
            names = [e.name[:-3] for e in os.scandir(os.path.join(vault, top)) if e.name.endswith(".md")]
        except OSError:
            continue
        for fmt in DAILY_NAME_FORMATS:
            rx = re.compile(re.sub(r"YYYY|MM|DD", lambda m: rf"\d{{{len(m.group())}}}", re.escape(fmt)))
            dated = sum(bool(rx.fullmatch(n)) for n in names)
            if dated >= DAILY_MIN and dated >= DAILY_SHARE * len(names) and (best is None or dated > best[0]):
                best = (dated, top, fmt)
    if best is None:
        named = [t for t in tops if t.strip().lower() in DAILY_FOLDER_NAMES]
        if not named:
            return None
        best = (0, named[0], DAILY_NAME_FORMATS[0])
    daily = Daily("obsidian", best[1], best[2], MOMENT, ("[", "]"), _daily_template(vault, tops),
                  f"the notes of {best[1]}/")
    daily.app_set = False
    return daily


def _daily_template(vault: str, tops: list[str]) -> str | None:
    """The templates folder's note named for daily notes (`Templates/Daily Note Template.md`), as a
    vault-relative path without `.md`, or None."""
    for top in tops:
        if not TEMPLATE_FOLDER_RE.match(top.strip()):
            continue
        try:
            names = sorted(e.name for e in os.scandir(os.path.join(vault, top)) if e.name.endswith(".md"))
        except OSError:
            continue
        for n in names:
            if "daily" in n.lower():
                return f"{top}/{n[:-3]}"
    return None


# Dendron's daily journal: `daily.journal.2024.01.02` (dendron.yml's journal dailyDomain and name)
DENDRON_JOURNAL_RE = re.compile(r"(?:^|\.)journal\.\d{4}(?:\.\d{2}){0,2}$")


def is_daily_note(rel: str, daily: "Daily | None", dialect: str) -> bool:
    """Whether the owner's app made the note at `rel` as a daily note (its daily-notes settings, or
    Dendron's journal hierarchy)."""
    if dialect == "dendron":
        return DENDRON_JOURNAL_RE.search(rel.rsplit("/", 1)[-1][:-3]) is not None
    return daily is not None and daily.holds(rel)


def new_note_folder(vault: str | os.PathLike | None, dialect: str) -> str | None:
    """The folder the app puts a new note in when the owner named one: Obsidian's `newFileLocation:
    "folder"` with `newFileFolderPath`; Logseq's pages directory. None otherwise ("root" and "current"
    name no folder of their own)."""
    if vault is None:
        return None
    vault = str(vault)
    if dialect == "obsidian":
        app = read_json(os.path.join(vault, ".obsidian", "app.json"))
        if _str(app, "newFileLocation") == "folder":
            return _folder(_str(app, "newFileFolderPath") or "")
        return None
    if dialect == "logseq":
        return _folder(logseq_config(vault).get(":pages-directory", "pages"))
    return None


def dendron_vaults(vault: str, notes: bool = True) -> list[str]:
    """The note folders of a Dendron workspace, as its `dendron.yml` lists them (`workspace.vaults`,
    each `fsPath` relative to the workspace; a self-contained vault keeps its notes in `notes/`), those
    that exist, in the file's order; "" for the workspace's own root. With `notes` False, the vaults'
    own folders (a self-contained vault's root, not its `notes/`)."""
    text = _read(os.path.join(vault, "dendron.yml"))
    if not text:
        return []
    import yaml  # here: only a Dendron workspace's write path needs it

    try:
        conf = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    ws = conf.get("workspace") if isinstance(conf, dict) else None
    out = []
    for v in (ws.get("vaults") if isinstance(ws, dict) else None) or []:
        if not isinstance(v, dict) or not isinstance(v.get("fsPath"), str):
            continue
        rel = os.path.normpath(v["fsPath"].strip()).replace(os.sep, "/")
        if v.get("selfContained") and notes:
            rel = os.path.normpath(os.path.join(rel, "notes")).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        if rel.startswith("../") or rel == ".." or os.path.isabs(rel):
            continue  # a vault outside the workspace: not this vault's to write in
        if os.path.isdir(os.path.join(vault, rel)) and rel not in out:
            out.append(rel)
    return out


def dendron_site_index(vault: str) -> list[str]:
    """The note a Dendron workspace publishes as its site's home page: `publishing.siteIndex` (`site.`
    in older configs), else the first of its `siteHierarchies` (Dendron's default); [] for `root`,
    which is the vault's top already, or without a dendron.yml."""
    text = _read(os.path.join(vault, "dendron.yml"))
    if "siteIndex" not in text and "siteHierarchies" not in text:
        return []
    import yaml  # here: only a Dendron workspace that publishes needs it

    try:
        conf = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    for key in ("publishing", "site"):
        pub = conf.get(key) if isinstance(conf, dict) else None
        if not isinstance(pub, dict):
            continue
        hier = pub.get("siteHierarchies")
        index = pub.get("siteIndex") or (hier[0] if isinstance(hier, list) and hier else None)
        if isinstance(index, str) and index.strip() and index.strip() != "root":
            return [index.strip()]
    return []


def dendron_write_vault(vault: str | os.PathLike | None) -> str | None:
    """Where Dendron would put a new note of the owner's: the workspace's one vault, or of several the one
    holding the most notes (Dendron asks which vault on create; the owner writes in the vault where
    their notes are, the others hold schemas, classes or shared pages). None without a dendron.yml."""
    if vault is None:
        return None
    vault = str(vault)
    vaults = dendron_vaults(vault)
    if len(vaults) <= 1:
        return vaults[0] if vaults else None

    def notes(rel: str) -> int:
        try:
            return sum(1 for e in os.scandir(os.path.join(vault, rel)) if e.name.endswith(".md"))
        except OSError:
            return 0
    return max(vaults, key=notes)  # max keeps the first listed on a tie


def templates_folder(vault: str | os.PathLike | None, dialect: str) -> str | None:
    """The owner's templates folder: Templater's `templates_folder`, else the core Templates plugin's
    `folder`; Foam's `.foam/templates`."""
    if vault is None:
        return None
    vault = str(vault)
    if dialect == "obsidian":
        tp = read_json(os.path.join(vault, ".obsidian", "plugins", "templater-obsidian", "data.json"))
        core = read_json(os.path.join(vault, ".obsidian", "templates.json"))
        return _folder(_str(tp, "templates_folder") or _str(core, "folder"))
    if dialect == "foam":
        return ".foam/templates" if os.path.isdir(os.path.join(vault, ".foam", "templates")) else None
    return None


# A folder named for templates, as a vault without settings naming one keeps them (`Templates`, `_templates`,
# `01 Templates` under `00 - Contribute/`): its notes are templates.
TEMPLATE_FOLDER_RE = re.compile(r"^[\d\W_]*templates?$", re.I)
TEMPLATE_FOLDER_DEPTH = 2  # how deep template_prose looks for one (a scan per process: the vault's top levels only)


def in_template_folder(path: str) -> bool:
    """Whether a vault-relative path lies in a folder named for templates (TEMPLATE_FOLDER_RE), at any depth."""
    return any(TEMPLATE_FOLDER_RE.match(part) for part in path.split("/")[:-1])


TEMPLATE_FILES_MAX = 200  # template notes read for their prose; a vault has a few dozen
TEMPLATE_PROSE_WORDS = 3  # a template line of fewer words is a heading or a label, not an instruction


def template_prose(vault: str | os.PathLike | None, dialect: str) -> frozenset[str]:
    """The prose lines of the owner's templates (every folder a setting names and the folders named for
    templates in the vault's top TEMPLATE_FOLDER_DEPTH levels), lowercased and with their quote and list marks dropped: a note made from a template
    still carrying its instruction ("> One paragraph describing what and why.") says nothing of its
    own there, so a summary skips those lines (notes.first_paragraph)."""
    if vault is None:
        return frozenset()
    vault = str(vault)
    found, _ = machinery_folders(vault, dialect)
    level = [""]
    for _depth in range(TEMPLATE_FOLDER_DEPTH):
        below = []
        for parent in level:
            try:
                entries = [e.name for e in os.scandir(os.path.join(vault, parent))
                           if e.is_dir() and not e.name.startswith(".")]
            except OSError:
                continue
            for name in entries:
                rel = f"{parent}/{name}" if parent else name
                (found if TEMPLATE_FOLDER_RE.match(name) else below).append(rel)
        level = below
    lines: set[str] = set()
    files = 0
    for folder in dict.fromkeys(found):
        for root, dirs, names in os.walk(os.path.join(vault, folder)):
            dirs[:] = [d for d in dirs if not d.startswith(".")] if files < TEMPLATE_FILES_MAX else []
            for n in names:
                if not n.endswith(".md") or files >= TEMPLATE_FILES_MAX:
                    continue
                files += 1
                try:
                    with open(os.path.join(root, n), encoding="utf-8", errors="replace") as f:
                        text = f.read(MAX_SETTINGS_BYTES)
                except OSError:
                    continue
                for line in text.splitlines():
                    key = prose_key(line)
                    if len(key.split()) >= TEMPLATE_PROSE_WORDS:
                        lines.add(key)
    return frozenset(lines)


_PROSE_MARKS_RE = re.compile(r"^\s*(?:>\s*)*(?:\[![^\]]*\][+-]?\s*)?(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?)?")


def prose_key(line: str) -> str:
    """A line as template_prose compares it: no quote, callout or list marks, lowercased, one space."""
    return " ".join(_PROSE_MARKS_RE.sub("", line, count=1).lower().split())


def attachment_folder(vault: str | os.PathLike | None, dialect: str) -> str | None:
    """Obsidian's `attachmentFolderPath` ("./x" is relative to each note, kept as written)."""
    if vault is None or dialect != "obsidian":
        return None
    return _str(read_json(os.path.join(str(vault), ".obsidian", "app.json")), "attachmentFolderPath")


def template_text(vault: str | os.PathLike, rel: str | None, limit: int = 20_000) -> str | None:
    """The text of a template named by a setting (the `.md` may be left off), or None."""
    if not rel:
        return None
    rel = rel.replace("\\", "/").strip("/")
    if ".." in rel.split("/"):
        return None
    for cand in (rel, rel + ".md"):
        path = os.path.join(str(vault), cand)
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    return f.read(limit)
            except OSError:
                return None
    return None


_EDN_FAVORITES_RE = re.compile(r":favorites\s*\[([^\]]*)\]")
_EDN_HOME_RE = re.compile(r":default-home\s*\{[^}]*?:page\s+\"([^\"]+)\"")


def _read(path: str, limit: int = 200_000) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(limit)
    except OSError:
        return ""


def entry_pages(vault: str, dialect: str) -> dict[str, list[str]]:
    """The pages the owner's app opens the vault on: {"home": [...], "favorites": [...]} (names or
    paths). Logseq's logseq/config.edn (:default-home, :favorites); Obsidian's bookmarks.json or
    starred.json and the Homepage plugin's settings; the page a Dendron workspace publishes as its
    site's home (dendron_site_index)."""
    out: dict[str, list[str]] = {"home": [], "favorites": []}
    if dialect == "dendron":
        out["home"] += dendron_site_index(vault)
    if dialect == "logseq":
        edn = "\n".join(l for l in _read(os.path.join(vault, "logseq", "config.edn")).split("\n")
                        if not l.lstrip().startswith(";"))
        m = _EDN_FAVORITES_RE.search(edn)
        if m:
            out["favorites"] = re.findall(r"\"([^\"]+)\"", m.group(1))
        m = _EDN_HOME_RE.search(edn)
        if m:
            out["home"].append(m.group(1))
    obs = os.path.join(vault, ".obsidian")
    if os.path.isdir(obs):
        def files(items):
            for it in items or []:
                if isinstance(it, dict):
                    if it.get("type") == "file" and isinstance(it.get("path"), str):
                        yield it["path"]
                    yield from files(it.get("items"))
        for name in ("bookmarks.json", "starred.json"):
            data = read_json(os.path.join(obs, name))
            if isinstance(data, dict):
                out["favorites"] += list(files(data.get("items")))
        home = read_json(os.path.join(obs, "plugins", "homepage", "data.json"))
        if isinstance(home, dict):  # Homepage plugin: {"homepages": {name: {"value": note}}} or older
            pages = home.get("homepages") if isinstance(home.get("homepages"), dict) else {"": home}
            for h in pages.values():
                if isinstance(h, dict):
                    v = h.get("value") or h.get("defaultNote")
                    if isinstance(v, str) and v.strip():
                        out["home"].append(v.strip())
    return out


def machinery_folders(vault: str, dialect: str) -> tuple[list[str], list[str]]:
    """(template folders, journal folders) by every setting that names one: the core Templates and
    Templater folders and Foam's `.foam/templates`; the daily-notes folder, each enabled Periodic
    Notes period's folder, Logseq's journals directory."""
    def folders(values) -> list[str]:
        return [str(f).strip().strip("/") for f in values if isinstance(f, str) and str(f).strip().strip("/")]

    def setting(*parts: str) -> dict:
        data = read_json(os.path.join(vault, ".obsidian", *parts))
        return data if isinstance(data, dict) else {}

    templates = folders([setting("templates.json").get("folder"),
                         setting("plugins", "templater-obsidian", "data.json").get("templates_folder"),
                         ".foam/templates"])
    journals = [setting("daily-notes.json").get("folder")]
    periodic = setting("plugins", "periodic-notes", "data.json")
    for period in ("daily", "weekly", "monthly", "quarterly", "yearly"):
        conf = periodic.get(period)
        if isinstance(conf, dict) and conf.get("enabled"):
            journals.append(conf.get("folder"))
    if dialect == "logseq":
        journals.append(logseq_config(vault).get(":journals-directory") or "journals")
    return templates, folders(journals)

