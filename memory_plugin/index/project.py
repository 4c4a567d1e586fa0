"""The current project: which of the vault's projects the session works on.

One matcher, `detect`, used by the brief (SessionStart), `query`, `remember` and `explain`. It
compares the working folder's name, its git top-level folder's name and its git remotes'
repository names (read from .git/config: a hook runs no git subprocess) with every name a project
goes by in the vault: its hub note's title and aliases, its `repo`/`repository` properties, its
folder under a Projects folder and the values of the notes' `project` property (plain or
`[[wikilink]]`). Names are compared ignoring case, `-`, `_` and spaces.

`catalog(conn)` lists the projects from the index (the brief stores it in brief.json, so that
SessionStart matches without opening SQLite). Standard library only.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata

from ..core.record import Record

PROJECT_FOLDERS = ("projects", "project", "1 - projects", "01 - projects", "1. projects", "01 projects")
REPO_PROPS = ("repo", "repository", "repos", "repositories")
_SEP = re.compile(r"[\s_\-]+")


def key(name: str) -> str:
    """The form names are compared in: case-folded, without `-`, `_` and whitespace."""
    return _SEP.sub("", unicodedata.normalize("NFC", str(name)).casefold())


def repo_name(url: str) -> str | None:
    """`git@github.com:acme/tollgate-api.git`, `https://host/acme/tollgate-api`, `/srv/tollgate-api.git`
    -> `tollgate-api`; a bare name stays itself."""
    s = str(url).strip().rstrip("/")
    if not s:
        return None
    s = re.split(r"[/:\\]", s)[-1]
    if s.endswith(".git"):
        s = s[:-4]
    return s or None


# ---------------------------------------------------------------- where the session is

def _git_dir(top: str) -> str | None:
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    try:  # a worktree or submodule: `.git` is a file "gitdir: PATH"
        with open(dot, encoding="utf-8", errors="replace") as f:
            line = f.read(4096).strip()
    except OSError:
        return None
    if line.startswith("gitdir:"):
        d = line[7:].strip()
        return os.path.normpath(os.path.join(top, d))
    return None


def _git_config(git_dir: str) -> str:
    for d in (git_dir, _common_dir(git_dir)):
        if not d:
            continue
        try:
            with open(os.path.join(d, "config"), encoding="utf-8", errors="replace") as f:
                return f.read(65536)
        except OSError:
            continue
    return ""


def _common_dir(git_dir: str) -> str | None:
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as f:
            return os.path.normpath(os.path.join(git_dir, f.read().strip()))
    except OSError:
        return None


_SECTION = re.compile(r'^\s*\[\s*remote\s+"([^"]*)"\s*\]', re.I)


def remote_urls(config_text: str) -> list[tuple[str, str]]:
    """(remote, url) from a git config file's text, `origin` first."""
    out: list[tuple[str, str]] = []
    remote = None
    for line in config_text.splitlines():
        m = _SECTION.match(line)
        if m:
            remote = m.group(1)
            continue
        if line.lstrip().startswith("["):
            remote = None
            continue
        if remote is not None:
            k, sep, v = line.partition("=")
            if sep and k.strip().lower() == "url" and v.strip():
                out.append((remote, v.strip().strip('"')))
    return sorted(out, key=lambda rv: rv[0] != "origin")


def git_top(path: str) -> str | None:
    """The top-level folder of the git checkout `path` lies in (at or above it), or None."""
    probe = os.path.abspath(path)
    for _ in range(64):
        if _git_dir(probe):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent
    return None


def candidates(cwd: str | None = None) -> list[tuple[str, str]]:
    """The names the session's folder goes by, best first, with where each came from: the working
    folder's name, the git top-level folder's name, each git remote's repository name (`origin`
    first); outside a git checkout, the parent folders' names, nearest first. `cwd` defaults to
    the current directory; $CLAUDE_PROJECT_DIR (the folder the session started in) follows it."""
    out: list[tuple[str, str]] = []
    starts = [cwd] if isinstance(cwd, str) and cwd else [os.getcwd()]
    if os.environ.get("CLAUDE_PROJECT_DIR"):
        starts.append(os.environ["CLAUDE_PROJECT_DIR"])
    later: list[tuple[str, str]] = []
    for start in starts:
        d = os.path.abspath(start)
        if os.path.basename(d):
            out.append((os.path.basename(d), f"working folder {d}"))
        probe, parents = d, []
        for _ in range(64):
            git = _git_dir(probe)
            if git:
                if os.path.basename(probe):
                    out.append((os.path.basename(probe), f"git top-level {probe}"))
                for remote, url in remote_urls(_git_config(git)):
                    name = repo_name(url)
                    if name:
                        out.append((name, f"git remote {remote} {url}"))
                parents = []
                break
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
            if os.path.basename(probe):
                parents.append((os.path.basename(probe), f"parent folder {probe}"))
        later += parents
    uniq: list[tuple[str, str]] = []
    for name, how in out + later:
        if all(name != n or how.split(" ")[0] != h.split(" ")[0] for n, h in uniq):
            uniq.append((name, how))
    return uniq


# ---------------------------------------------------------------- the vault's projects

def catalog(conn) -> list[dict]:
    """The vault's projects: [{"name", "keys", "hub", "values", "folders"}], one per project however
    many names it goes by. `name` is the `project` value most notes use (what query ranks by),
    else the project folder, else the hub's title; `keys` are all its names in `key` form."""
    parent: list[int] = []
    ents: list[dict] = []
    by_key: dict[str, int] = {}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def add(names: list[str], **info) -> None:
        keys = {key(n) for n in names if isinstance(n, str) and key(n)}
        if not keys:
            return
        i = len(ents)
        ents.append({"keys": keys, **info})
        parent.append(i)
        for k in keys:
            if k in by_key:
                a, b = find(by_key[k]), find(i)
                if a != b:
                    parent[b] = a
            else:
                by_key[k] = i

    counts = dict(conn.execute("SELECT project, count(*) FROM notes WHERE project IS NOT NULL AND private = 0 "
                               "GROUP BY project").fetchall())
    for value, n in counts.items():
        add([value], value=value, count=n)
    hubs: dict[str, tuple] = {}
    for path, title, display, aliases, props in conn.execute(
            """SELECT DISTINCT n.path, n.title, n.display_title, n.aliases, n.props FROM notes n
               WHERE n.private = 0 AND (n.path IN (SELECT l.target FROM links l WHERE l.prop = 'project'
                                                    AND l.target IS NOT NULL)
                                        OR n.props LIKE '%"repo%')"""):
        hubs[path] = (title, display, aliases, props)
    for (folder,) in conn.execute("SELECT DISTINCT folder FROM notes WHERE folder LIKE '%project%'"):
        parts = (folder or "").split("/")
        for i, part in enumerate(parts[:-1]):
            if part.lower() in PROJECT_FOLDERS:
                add([parts[i + 1]], folder="/".join(parts[: i + 2]))
    value_keys = set(by_key)
    for path, title, display, aliases, props, hub in conn.execute(
            "SELECT path, title, display_title, aliases, props, hub FROM notes WHERE private = 0 AND hub = 1"):
        if path not in hubs and (key(title) in value_keys or key(display) in value_keys):
            hubs[path] = (title, display, aliases, props)
    for path, (title, display, aliases, props) in hubs.items():
        names = [title, display]
        names += _json_list(aliases)
        p = _json_obj(props)
        for k in REPO_PROPS:
            for v in _as_list(p.get(k)):
                r = repo_name(v)
                if r:
                    names.append(r)
        add(names, hub=path, hub_title=display or title)
    groups: dict[int, list[dict]] = {}
    for i, e in enumerate(ents):
        groups.setdefault(find(i), []).append(e)
    out = []
    for members in groups.values():
        values = sorted(((e["count"], e["value"]) for e in members if "value" in e), key=lambda cv: (-cv[0], cv[1]))
        folders = sorted({e["folder"] for e in members if "folder" in e})
        hub = next((e for e in members if "hub" in e), None)
        name = values[0][1] if values else (folders[0].rsplit("/", 1)[-1] if folders else hub["hub_title"])
        out.append({"name": name, "title": hub["hub_title"] if hub else name,
                    "keys": sorted(set().union(*(e["keys"] for e in members))),
                    "hub": hub["hub"] if hub else None, "values": [v for _, v in values], "folders": folders})
    return sorted(out, key=lambda p: key(p["name"]))


def _json_list(s) -> list[str]:
    try:
        v = json.loads(s) if isinstance(s, str) else s
    except ValueError:
        return []
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _json_obj(s) -> dict:
    try:
        v = json.loads(s) if isinstance(s, str) else s
    except ValueError:
        return {}
    return {str(k).lower(): x for k, x in v.items()} if isinstance(v, dict) else {}


def _as_list(v) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        return [x for x in v if isinstance(x, str)]
    return []


# ---------------------------------------------------------------- the match

class Match(Record):
    _FIELDS = __match_args__ = ("project", "via", "ambiguous", "tried")

    def __init__(self, project: dict | None = None, via: str = "", ambiguous: list[str] | None = None,
                 tried: list[str] | None = None):
        self.project = project  # the catalog entry, when exactly one project matched
        self.via = via          # which name matched, and where it came from
        self.ambiguous = [] if ambiguous is None else ambiguous  # the projects' names, when several matched
        self.tried = [] if tried is None else tried              # the names compared

    @property
    def name(self) -> str | None:
        return self.project["name"] if self.project else None

    def describe(self) -> str:
        if self.project:
            return f"{self.project['title']} (matched {self.via})"
        if self.ambiguous:
            return f"several projects match {self.via}: {', '.join(self.ambiguous)}"
        return "no project in the vault matches " + (", ".join(f"`{t}`" for t in self.tried) or "this folder")


def detect(projects: list[dict], cwd: str | None = None, name: str | None = None) -> Match:
    """The project the session works on: `name` when given (as typed with --project), else the
    names of `cwd` (see `candidates`), best first, each matched against every name of every
    project; the first name that matches decides. A name matching several projects is ambiguous."""
    cands = [(name, "the name given")] if name else candidates(cwd)
    tried = list(dict.fromkeys(n for n, _ in cands))
    for cname, how in cands:
        k = key(cname)
        hits = [p for p in projects if k and k in p.get("keys", ())]
        if len(hits) == 1:
            return Match(project=hits[0], via=f"`{cname}`, the {how}", tried=tried)
        if hits:
            return Match(ambiguous=sorted(p["name"] for p in hits), via=f"`{cname}`, the {how}", tried=tried)
    return Match(tried=tried)


def detect_in_index(conn, cwd: str | None = None, name: str | None = None) -> Match:
    return detect(catalog(conn), cwd=cwd, name=name)


def resolve(conn, name: str | None, cwd: str | None = None) -> tuple[str | None, Match]:
    """The project name to store or rank by: `name` (any name the project goes by) mapped to the
    project's name, else the working folder's project. Unknown names stay as given."""
    m = detect_in_index(conn, cwd=cwd, name=name or None)
    if m.project:
        return m.project["name"], m
    return (name or None), m
