"""The current project: which of the vault's projects the session works on.

One matcher, `detect`, used by the brief (SessionStart), `query`, `remember` and `explain`. It
compares the working folder's name, its git top-level folder's name and its git remotes'
repository names (read from .git/config: a hook runs no git subprocess) with every name a project
goes by in the vault (see `catalog`: the notes, folders, hierarchies, properties and lists the vault
marks its projects with). Names are compared ignoring case, `-`, `_` and spaces; the folder's own
names also match a run of whole words of a project note's title (see `contains`), alone or with the
words of the project's owner, organisation, app or parts around it (see `with_context`).

`catalog(conn)` lists the projects from the index (the brief stores it in brief.json, so that
SessionStart matches without opening SQLite). Standard library only.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata

from ..core.paths import _git_dir, git_top  # noqa: F401 - git_top: the hooks' and project's
from ..core.record import Record
from ..core.textutil import LazyPattern

# The spellings of a projects folder that reorganize compares with; is_projects_folder is the rule
# (any number or punctuation prefix: `1 Projects`, `02 - PROJECTS`, `1-Projects`).
PROJECT_FOLDERS = ("projects", "project", "1 - projects", "01 - projects", "1. projects", "01 projects")
_SEP = LazyPattern(r"[\s_\-]+")


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


_SECTION = LazyPattern(r'^\s*\[\s*remote\s+"([^"]*)"\s*\]', re.I)


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

# The words a vault names its projects, or a list of them, with: a `Projects` folder (`1 Projects`,
# `02 - PROJECTS`), `type: project`, `categories: [[Projects]]`, a `#Type/Project` tag, `project.foo`.
PROJECT_WORDS = ("project", "projects", "proj", "projs", "prj")  # with the usual abbreviations (`proj.foo`)
# Properties that say what kind of note a note is: it is a project when one names the word.
KIND_PROPS = ("type", "types", "kind", "category", "categories", "tags", "tag")
# Properties naming the project's repository: any value is its name or address (`repo: tollgate-api`).
REPO_PROPS = ("repo", "repository", "repos", "repositories")
# Properties that may hold a web address: the project's repository when the address is one (see
# repo_url), never any page (`url: https://minimal.guide` names no repository).
URL_PROPS = ("url", "urls", "uri", "link", "github", "gitlab", "source", "homepage", "git", "code")  # (`uri`:
# a Dendron proxy note's address)
# Code hosts: their `https://HOST/OWNER/NAME` addresses are repositories. `git@HOST:…`, `ssh://…` and
# `….git` addresses are repositories on any host.
CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht", "gitea.com")
# The first parts of a code host's addresses that are the host's own pages, not an owner's
# (`https://github.com/login/oauth`, `https://github.com/orgs/acme/people`, `https://gitlab.com/-/ide`).
HOST_PAGES = ("login", "logout", "join", "signup", "session", "sessions", "settings", "orgs", "organizations",
              "features", "marketplace", "topics", "sponsors", "apps", "about", "pricing", "site", "explore",
              "collections", "search", "notifications", "new", "users", "groups", "trending", "readme",
              "enterprise", "security", "customer-stories", "contact", "dashboard", "help", "-")
# Properties naming the note's project(s), in any case, one value or a list, a link (to a note or to
# none: `projects: ["[[tollgate-api]]"]`) or text (`project: tollgate`).
PROJECT_PROPS = ("project", "projects")
# A repository the notes of a project cite (in their text or properties) is one of its names when it
# is the one they cite most (in the most notes, then the most times; a tie names none), or when at
# least this many of them cite it. A repository that all its citing notes cite from one branch of the
# project (a hierarchy child `a.projects.x.cli`, a subfolder `Projects/x/cli/`) names that branch, a
# project of its own, when at least this many notes there cite it. One mention in one note among
# others (a dependency, an article) names nothing.
REPO_NOTES = 2
# A note that lists projects is named for them in a few words ("Projects", "Active Projects", "Projects
# Shelf"); a longer title holding the word ("Projects I read about in 2023") is about something else.
LIST_TITLE_WORDS = 3
# The types a note may have and be a project by where it is (in a projects folder, listed in a note
# that lists projects): untyped, a hub or a project. A decision or pitfall there is a project's note.
PROJECT_TYPES = ("note", "hub", "project")
# The names of a folder's own note (`Projects/README.md`, `Projects/foo/index.md`).
FOLDER_NOTE_NAMES = ("readme", "index", "home")
# ... as files are named (a folder's note looked up by its path)
FOLDER_NOTE_FILES = ("README", "readme", "Readme", "index", "Index", "home", "Home")
# A working folder is often named for the project together with its owner's, organisation's or app's
# name, or the part of it the folder holds, before or after the project's own words (`obsidian-minimal`
# for "Minimal Theme" with `org: [[Obsidian]]`, `scholarbee-backend` for the `sb-backend` notes whose
# `organization:` is `[[scholarbee]]`, `csly-generator` for `Perso.projects.CSLY.generator`). Those
# words are the project's context (see context_words): the notes its note's property links point to,
# the owner or site of its `repo`/`url`, the area its title starts with, the levels of its hierarchy
# or folder above and below it, and the property links that more than this share of the notes naming
# it in `project:` carry (`organization: [[scholarbee]]` on most `projects: [[sb-backend]]` notes).
CONTEXT_SHARE = 0.5
# A working folder's name matches inside a longer project title ("PowerShell - PSProfileTools Module")
# only when it is at least this long (letters and digits): shorter names ("api", "app", "cli", "web")
# are the generic words titles are made of.
MIN_CONTAINED = 4

_LEAD = LazyPattern(r"^[\W\d_]+")  # "02 - ", "1-", "1. ", "_", an emoji
_WORD = LazyPattern(r"[^\W_]+")
_LIST_LINE = LazyPattern(r"^\s*(?:[-*+]\s|\d+[.)]\s|\|)")  # a list item or a table row
_TABLE_ROW = LazyPattern(r"^\s*(?:[-*+]\s+)?\|")
_PROJECT_CELL = LazyPattern(r"\|[ \t*_]*projects?[ \t*_]*\|", re.I)  # a table's `| Project |` cell
_REPO_URL = LazyPattern(r"^https?://(?:www\.)?([^/\s]+)/([^/\s?#]+)/([^/\s?#]+)/?(?:[?#]\S*)?$", re.I)
_HEAD_PROP = LazyPattern(r"^\s*(?:-\s+)?([\w-]+)::[ \t]*(.*)$")
_WIKI = LazyPattern(r"\[\[([^\[\]\n]+)\]\]")
# A repository's address on a code host, anywhere in a note's text: HOST, OWNER, NAME (`/issues/3`,
# `/blob/…` and `.git` after it)
_HOSTS = "|".join(re.escape(h) for h in CODE_HOSTS)
_CITED_REPO = LazyPattern(r"https?://(?:www\.)?(" + _HOSTS + r")/([\w.~-]+)/([\w.-]+)", re.I)
# A folder of a repository by its address (`…/acme/mono/tree/main/packages/tollgate-api`): a package of a
# monorepo, a sample of a samples repository, a folder someone works in on its own; its last part
_CITED_FOLDER = LazyPattern(r"https?://(?:www\.)?(?:" + _HOSTS + r")/[\w.~-]+/[\w.-]+/tree/[\w.-]+/(?:[\w.-]+/)*([\w.-]+)",
                            re.I)
# A file or folder of a repository by its address (`…/acme/mono/blob/dev/packages/engine-server/src/x.ts`):
# OWNER/NAME and the folders on the way (`packages/engine-server/src/`); each names a working folder by its
# place nearest the repository's root, when one place is (`engine-server` under `packages/`, beside a
# tests' mirror of it further down; never `src`, one in every package: see named_notes)
_CITED_PATH = LazyPattern(r"https?://(?:www\.)?(?:" + _HOSTS + r")/([\w.~-]+/[\w.-]+)/(?:tree|blob)/[\w.-]+/"
                          r"((?:[\w.-]+/)+)", re.I)
# The FTS5 query finding the notes that may cite one: each host as a phrase of its words
_CITED_MATCH = "{body props} : (" + " OR ".join('"' + h.replace(".", " ") + '"' for h in CODE_HOSTS) + ")"
_MDLINK = LazyPattern(r"\[([^\[\]\n]+)\]\(\s*<?([^\s()<>]+)>?[^()\n]*\)")


def words(name: str) -> list[str]:
    """A name's words: runs of letters and digits, case-folded ("PowerShell - PSProfileTools Module" ->
    powershell, psprofiletools, module)."""
    return _WORD.findall(unicodedata.normalize("NFC", str(name)).casefold())


def bare(name: str) -> str:
    """A folder's or note's name without its number and punctuation prefix, case-folded:
    `02 - PROJECTS`, `1-Projects`, `_README` -> `projects`, `projects`, `readme`."""
    return _LEAD.sub("", unicodedata.normalize("NFC", str(name)).casefold()).strip()


def is_projects_folder(name: str) -> bool:
    return bare(name) in PROJECT_WORDS


def repo_url(value: str) -> str | None:
    """The repository a web address names, else None: a `git@`, `ssh://` or `….git` address, or
    `https://HOST/OWNER/NAME` on a code host (CODE_HOSTS)."""
    s = str(value).strip().strip("<>")
    if s.startswith(("git@", "ssh://", "git://")) or (s.endswith(".git") and "/" in s):
        return repo_name(s)
    m = _REPO_URL.match(s)
    if m and m.group(1).lower() in CODE_HOSTS:
        return repo_name(m.group(3))
    return None


def says_project(value) -> bool:
    """A kind property's value (or a tag) names the project category: `project`, `Projects`,
    `[[Projects]]`, `#Type/Project`, `[[Categories/Projects|Projects]]`, a comma list holding one."""
    for v in _as_list(value):
        for part in v.split(","):
            s = part.strip().strip("\"'")
            m = re.fullmatch(r"!?\[\[([^\[\]|#]*)[^\[\]]*\]\]", s)
            if m:
                s = m.group(1)
            s = s.strip().lstrip("#").strip().rstrip("/")
            if s and bare(s.rsplit("/", 1)[-1]) in PROJECT_WORDS:
                return True
    return False


def head_props(text: str) -> dict:
    """The `key:: value` lines a note opens with (Logseq's page properties, a Dataview field block)."""
    out: dict = {}
    for line in (text or "").split("\n", 40)[:40]:
        if not line.strip():
            if out:
                break
            continue
        m = _HEAD_PROP.match(line)
        if not m:
            break
        out[m.group(1).lower()] = m.group(2).strip()
    return out


def names_projects(title: str) -> bool:
    """A title naming the projects ("Projects", "Active Projects", "Projects MOC"): its note lists
    projects or is their category, and is none of them."""
    if "project" not in str(title).casefold():
        return False
    return "projects" in words(title) or bare(title) in PROJECT_WORDS


def is_list_title(title: str) -> bool:
    """A note named for the vault's projects in a few words ("Projects", "Active Projects", "Projects
    Shelf"): its list items name projects."""
    if "projects" not in str(title).casefold():
        return False
    ws = words(bare(title))
    return 0 < len(ws) <= LIST_TITLE_WORDS and "projects" in ws


CATALOG_FILE = "projects.json"  # beside the index: the catalog of its last state, for the next process


def catalog(conn) -> list[dict]:
    """_catalog of the index as it is now, made once per index state (index/derived.py): `remember`
    asks for it three times, and the next command reads `projects.json` instead of reading every note
    that may be a project again."""
    from . import derived

    return derived.cached(conn, CATALOG_FILE, lambda: _catalog(conn))


def _catalog(conn) -> list[dict]:
    """The vault's projects: [{"name", "title", "keys", "titles", "hub", "list", "values", "folders",
    "prefixes"}], one per project however many names it goes by. A project is known by:
    - a value of notes' `project:` / `projects:` properties (see project_values; the notes naming it
      are its notes, a note of that name need not exist), the note such a link points to, a note
      with a `repo`-like property (`repo`, `repository`; `url`, `github`, `source`… holding a
      repository's address);
    - a note the vault marks as one: a kind property or tag naming the project category (`type:
      project`, `categories: [[Projects]]`, `tags: project`, `#Type/Project`, Logseq `type:: project`);
      a note directly in a projects folder (`Projects/`, `1 Projects/`, `02 - PROJECTS/`, at any
      depth); a subfolder of one (its folder note is its note); a Dendron hierarchy level named for
      projects at any depth (`project.foo`, `work.projects.foo`: project `foo`, its notes `….foo.*`);
    - an item of a note that lists projects (`Projects`, `Active Projects`; see is_list_title): the
      first link of each list item or table row, to a note, or to a web address (then the list note
      is that project's note, and a repository's address names it); a note linked in the `Project`
      column of any note's table.
    A project also goes by the repositories its notes cite (see _cited), and a branch of one whose
    notes cite a repository of their own is a project too.
    `name` is the `project` value most notes use, else the project folder, else the hierarchy level,
    else its note's title; `keys` are all its names in `key` form; `titles` the names a working
    folder's name may match a part of (see detect): the titles of the notes the vault marks as
    projects and the names `project:` properties give. `hub` is its note, `list` true when that note
    lists other projects too."""
    parent: list[int] = []
    ents: list[dict] = []
    by_key: dict[str, int] = {}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def add(names: list[str], weak: list[str] = (), **info) -> None:
        """A project by `names`: entries sharing a name are one project. `weak` names (the heading a
        note opens with: "Description", "Goal") are names of this entry only, never a reason to join
        two."""
        keys = {key(n) for n in names if isinstance(n, str) and key(n)}
        if not keys:
            return
        i = len(ents)
        ents.append({"keys": keys, "weak": {key(n) for n in weak if isinstance(n, str)} - {""}, **info})
        parent.append(i)
        for k in keys:
            if k in by_key:
                a, b = find(by_key[k]), find(i)
                if a != b:
                    parent[b] = a
            else:
                by_key[k] = i

    values_of, targets = project_values(conn)
    counts: dict[str, int] = {}
    for vs in values_of.values():
        for v in vs:
            counts[v] = counts.get(v, 0) + 1
    for value, n in counts.items():  # a link's value goes by its note's name too (`[[Projects/Tollgate]]`)
        t = targets.get(value)
        add([value, os.path.splitext(t.rsplit("/", 1)[-1])[0] if t else ""], value=value, count=n,
            titles=[value.rsplit("/", 1)[-1]])
    linked = set(targets.values())
    # one pass over the notes that may be projects or list them: their path, title, properties or
    # tags say "project" (or an abbreviation of it), a property may hold a repository, a `project:`
    # link points to them
    rows = conn.execute(
        """SELECT path, folder, title, display_title, type, aliases, tags, props FROM notes
           WHERE private = 0 AND type != 'journal' AND (path LIKE '%proj%' OR path LIKE '%prj%'
             OR display_title LIKE '%proj%' OR props LIKE '%proj%' OR props LIKE '%prj%' OR tags LIKE '%proj%'
             OR tags LIKE '%prj%' OR props LIKE '%"repo%' OR props LIKE '%://%'
             OR props LIKE '%git@%'
             OR path IN (SELECT target FROM links WHERE prop IN ('project', 'projects') AND target IS NOT NULL))""").fetchall()
    noted: set[str] = set()
    lists: list[str] = []
    dendron: dict[str, dict] = {}
    for path, folder, title, display, ntype, aliases, tags, props in rows:
        p = _json_obj(props)
        title, display = title or "", display or title or ""
        names = [title, display] + _as_list(p.get("aliases", p.get("alias")))
        weak = _json_list(aliases)  # with the opening H1 (vault.dialect): no reason to join two projects
        repos = [r for k in REPO_PROPS for r in map(repo_name, _as_list(p.get(k))) if r]
        repos += [r for k in URL_PROPS for r in map(repo_url, _as_list(p.get(k))) if r]
        if path in linked or repos:
            noted.add(path)
            add(names + repos, weak, hub=path, hub_title=display, prio=0)
        stem = path.rsplit("/", 1)[-1][:-3]
        segs = stem.split(".")
        at = next((j for j in range(len(segs) - 1) if segs[j + 1] and bare(segs[j]) in PROJECT_WORDS), None)
        if at is not None:  # Dendron: a level named for projects, at any depth: project.foo[.bar], a.projects.foo
            pre = (folder + "/" if folder else "") + ".".join(segs[:at + 2]) + "."
            d = dendron.setdefault(pre, {"name": segs[at + 1], "hub": None})
            if len(segs) == at + 2:
                d["hub"] = (path, display, names + repos, weak)
            continue
        if names_projects(title) or names_projects(display):  # the projects' list or category
            if is_list_title(title) or is_list_title(display):
                lists.append(path)
            continue
        # properties only: a `#projects` written in the text mentions them, it marks no note
        own = any(says_project(p.get(k)) for k in KIND_PROPS)
        parts = folder.split("/") if folder else []
        if parts and is_projects_folder(parts[-1]) and bare(stem) not in FOLDER_NOTE_NAMES \
                and ntype in PROJECT_TYPES:
            own = True  # directly in a projects folder
        for i, part in enumerate(parts[:-1]):
            if is_projects_folder(part):  # in a project's folder, `Projects/foo/…`: its folder note
                sub = "/".join(parts[: i + 2])
                add([parts[i + 1]], folder=sub, titles=[parts[i + 1]])
                if folder == sub and key(stem) == key(parts[i + 1]):
                    add([parts[i + 1]] + names, weak, hub=path, hub_title=display, prio=0)
                elif folder == sub and bare(stem) in FOLDER_NOTE_NAMES:
                    add([parts[i + 1]], hub=path, hub_title=parts[i + 1], prio=1)
                break
        if own:
            add(names + repos, weak, hub=path, hub_title=display, prio=0, titles=[title, display])
    for pre, d in dendron.items():
        if d["hub"]:
            path, display, names, weak = d["hub"]
            add([d["name"]] + names, weak, hub=path, hub_title=display, prio=0, prefix=pre, level=d["name"],
                titles=[d["name"], display])
        else:
            add([d["name"]], prefix=pre, level=d["name"], titles=[d["name"]], hub_title=d["name"])
    _text_marked(conn, add)
    for path in lists:
        _listed(conn, path, add)
    value_keys = set(by_key)
    for path, title, display in conn.execute(
            "SELECT path, title, display_title FROM notes WHERE private = 0 AND hub = 1"):
        if path not in noted and (key(title) in value_keys or key(display) in value_keys):
            add([title, display], hub=path, hub_title=display or title, prio=0)
    areas = shared_areas(conn)
    groups: dict[int, list[dict]] = {}
    for i, e in enumerate(ents):
        groups.setdefault(find(i), []).append(e)
    out = []
    for members in groups.values():
        values = sorted(((e["count"], e["value"]) for e in members if "value" in e), key=lambda cv: (-cv[0], cv[1]))
        folders = sorted({e["folder"] for e in members if "folder" in e})
        prefixes = sorted({e["prefix"] for e in members if "prefix" in e})
        hub = min((e for e in members if e.get("hub")), key=lambda e: e["prio"], default=None)
        title = hub["hub_title"] if hub else next((e["hub_title"] for e in members if e.get("hub_title")), None)
        levels = sorted(e["level"] for e in members if "level" in e)
        name = values[0][1] if values else folders[0].rsplit("/", 1)[-1] if folders else \
            levels[0] if levels else title
        titles = sorted({t for e in members for t in e.get("titles", ()) if t})
        out.append({"name": name, "title": title or name,
                    "keys": sorted(set().union(*(e["keys"] | e["weak"] for e in members))),
                    "titles": titles, "words": [name_words(t, areas) for t in titles],
                    "hub": hub["hub"] if hub else None, "list": bool(hub and hub.get("list")),
                    "values": [v for _, v in values], "folders": folders, "prefixes": prefixes})
    _cited(conn, out, values_of)
    _context(conn, out, values_of, areas)
    return sorted(out, key=lambda p: key(p["name"]))


def project_values(conn) -> tuple[dict[str, list[str]], dict[str, str]]:
    """What each note's `project:` / `projects:` properties (any case, one value or a list) name, by
    path, in the order written: a text value as written, a link's target as the index read it (in the
    app's order of target and label; the note it names may not exist). And the note each linked value
    is, when it exists: {value: path}."""
    values: dict[str, list[str]] = {}
    linking: list[str] = []
    for path, props in conn.execute("SELECT path, props FROM notes WHERE private = 0 AND props LIKE '%proj%'"):
        p = _json_obj(props)
        got = [v.strip() for k in PROJECT_PROPS for v in _flat(p.get(k))]
        if any("[[" in v for v in got):
            linking.append(path)
        got = [v for v in got if v and "[[" not in v]
        if got:
            values[path] = got
    targets: dict[str, str] = {}
    for i in range(0, len(linking), 500):
        chunk = linking[i:i + 500]
        for src, linkpath, target in conn.execute(
                f"SELECT src, linkpath, target FROM links WHERE src IN ({','.join('?' * len(chunk))}) "
                f"AND kind = 'property' AND prop IN ({','.join('?' * len(PROJECT_PROPS))}) ORDER BY src, rowid",
                (*chunk, *PROJECT_PROPS)):
            if linkpath.strip():
                values.setdefault(src, []).append(linkpath.strip())
                if target:
                    targets.setdefault(linkpath.strip(), target)
    return {k: list(dict.fromkeys(v)) for k, v in values.items()}, targets


def note_projects(props: dict) -> list[str]:
    """Every project a note's `project:` / `projects:` properties name (any case, one value or a list),
    in the order written: a text value as written, a link as its target (`["[[aq-client]]",
    "[[aq-backend]]"]` -> aq-client, aq-backend), as project_values reads them from the index."""
    out = []
    for k, v in (props or {}).items():
        if str(k).lower() in PROJECT_PROPS:
            for x in _flat(v):
                m = _WIKI.search(x)
                name = (m.group(1).split("|", 1)[0].split("#", 1)[0] if m else x).strip()
                if name:
                    out.append(name)
    return list(dict.fromkeys(out))


def _flat(v) -> list[str]:
    """A property's text values, however nested (`projects: [[tollgate]]` unquoted is a list in a list
    to YAML: the text `tollgate`)."""
    out, stack = [], [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, list):
            stack.extend(reversed(x))
    return out


def cited_repos(text: str) -> list[tuple[str, str, str]]:
    """The repositories a text cites by their address on a code host (CODE_HOSTS), once per mention:
    (host, owner, name); `https://github.com/acme/tollgate/issues/17` -> (github.com, acme, tollgate). The
    host's own pages (HOST_PAGES: `github.com/login/oauth`) are none."""
    out = []
    for m in _CITED_REPO.finditer(text or ""):
        owner, name = m.group(2), m.group(3).rstrip(".")
        if name.lower().endswith(".git"):
            name = name[:-4]
        if name and owner.lower() not in HOST_PAGES:
            out.append((m.group(1).lower(), owner, name))
    return out


def _cited(conn, projects: list[dict], values_of: dict[str, list[str]]) -> None:
    """The repositories the notes of each project cite, as the project's names (catalog entries
    changed in place, sub-projects appended; see REPO_NOTES): a project's notes are its note, the notes
    under its folders and hierarchy prefixes, and the notes whose `project:` names it; a list of
    projects cites every project's repository, so it counts for none. A repository that several
    projects cite, or that is another project's name, names none of them."""
    own: dict[str, list[int]] = {}
    bases: dict[str, list[tuple[int, str, str]]] = {}  # lower-cased prefix -> (project, prefix, separator)
    by_value: dict[str, list[int]] = {}
    for i, p in enumerate(projects):
        if p["list"]:
            continue
        if p["hub"]:
            own.setdefault(p["hub"], []).append(i)
        for pre in p["prefixes"]:
            bases.setdefault(pre.lower(), []).append((i, pre, "."))
        for f in p["folders"]:
            bases.setdefault(f.lower() + "/", []).append((i, f + "/", "/"))
        for v in p["values"]:
            by_value.setdefault(v.lower(), []).append(i)
    if not (own or bases or by_value):
        return
    members: dict[int, dict[int, tuple]] = {}  # note rowid -> {project: where in it}
    for rowid, path in conn.execute(
            "SELECT f.rowid, n.path FROM fts f JOIN notes n ON n.id = f.rowid "
            "WHERE fts MATCH ? AND n.private = 0 AND n.type != 'journal'", (_CITED_MATCH,)):
        where: dict[int, tuple] = {i: () for i in own.get(path, ())}
        for v in values_of.get(path, ()):
            for i in by_value.get(v.lower(), ()):
                where.setdefault(i, ())
        stem = path[:-3] if path.lower().endswith(".md") else path
        low = stem.lower()
        for i, _, _ in bases.get(low + ".", []) + bases.get(low + "/", []):
            where.setdefault(i, ())  # the note of a hierarchy (`a.projects.x.md`) or folder
        for j, ch in enumerate(low):
            if ch in "/." and low[:j + 1] in bases:
                for i, base, sep in bases[low[:j + 1]]:
                    where.setdefault(i, (base, sep, tuple(stem[len(base):].split(sep))))
        if where:
            members[rowid] = where
    stats: dict[int, dict[tuple, list]] = {}  # project -> repository -> [notes, mentions, where]
    ids = sorted(members)
    for k in range(0, len(ids), 500):
        chunk = ids[k:k + 500]
        for rowid, body, props in conn.execute(
                f"SELECT rowid, body, props FROM fts WHERE rowid IN ({','.join('?' * len(chunk))})", chunk):
            cited = cited_repos((body or "") + "\n" + (props or ""))
            for i, where in members[rowid].items():
                for host, owner, name in cited:
                    st = stats.setdefault(i, {}).setdefault((host, owner.lower(), name), [set(), 0, []])
                    if rowid not in st[0]:
                        st[0].add(rowid)
                        st[2].append(where)
                    st[1] += 1
    claims: dict[str, list[tuple[int, tuple]]] = {}
    for i, st in stats.items():
        ranked = sorted(st.items(), key=lambda kv: (-len(kv[1][0]), -kv[1][1]))
        score = [(len(v[0]), v[1]) for _, v in ranked[:2]]
        top = ranked[0][0] if len(score) == 1 or score[0] != score[1] else None
        for repo, (notes, _, wheres) in ranked:
            if repo != top and len(notes) < REPO_NOTES:
                continue
            node = () if repo == top else _common(wheres)
            claims.setdefault(key(repo[2]), []).append((i, node))
    named = {k: i for i, p in enumerate(projects) for k in p["keys"]}
    # projects only `project:` values name: a branch of that name is theirs (`remember` from a
    # branch's folder writes its name)
    bare_values = {j for j, p in enumerate(projects) if not (p["hub"] or p["folders"] or p["prefixes"] or p["list"])}
    subs: dict[tuple, set[str]] = {}
    for k, cl in claims.items():
        if not k or len({i for i, _ in cl}) > 1:
            continue
        i, nodes = cl[0][0], {n for _, n in cl}
        node = nodes.pop() if len(nodes) == 1 else ()
        j = named.get(k, i)
        if node and k not in projects[i]["keys"] and (j == i or j in bare_values):
            subs.setdefault((i, node), set()).add(k)  # (a branch citing the project's own name is the project)
        elif j == i and k not in projects[i]["keys"]:
            projects[i]["keys"] = sorted(projects[i]["keys"] + [k])
    for (i, (base, sep, parts)), keys in sorted(subs.items()):
        b = _branch(conn, base, sep, parts, keys)
        into = next((named[k] for k in [key(b["name"]), *sorted(keys)] if named.get(k) in bare_values), None)
        if into is None:
            projects.append(b)
        else:
            p = projects[into]
            p.update(hub=b["hub"], title=b["title"], folders=b["folders"], prefixes=b["prefixes"],
                     keys=sorted(set(p["keys"]) | keys))


def _common(wheres: list[tuple]) -> tuple:
    """The branch of a project all of `wheres` lie in: (base, separator, its parts), or () for the
    project itself (a note of the project's own, notes in different branches, or under different
    prefixes)."""
    if any(not w for w in wheres) or len({w[:2] for w in wheres}) > 1:
        return ()
    parts = wheres[0][2]
    for w in wheres[1:]:
        n = 0
        while n < min(len(parts), len(w[2])) and parts[n] == w[2][n]:
            n += 1
        parts = parts[:n]
    return (wheres[0][0], wheres[0][1], parts) if parts else ()


def _branch(conn, base: str, sep: str, parts: tuple, keys: set[str]) -> dict:
    """A branch of a project as a project of its own, known by its repositories' names (`keys`; a
    branch's own name, `cli`, names no project): the hierarchy `base` + parts (its note `….md`) or
    the folder (its folder note)."""
    node = base + sep.join(parts)
    cands = [node + ".md"]
    if sep == "/":
        cands += [f"{node}/{parts[-1]}.md"] + [f"{node}/{n}.md" for n in FOLDER_NOTE_FILES]
    row = conn.execute(f"SELECT path, title, display_title FROM notes WHERE private = 0 AND path IN "
                       f"({','.join('?' * len(cands))}) ORDER BY length(path) LIMIT 1", cands).fetchone()
    title = (row[2] or row[1]) if row else parts[-1]
    return {"name": parts[-1], "title": title, "keys": sorted(keys), "titles": [], "words": [],
            "hub": row[0] if row else None, "list": False, "values": [],
            "folders": [node] if sep == "/" else [], "prefixes": [node + "."] if sep == "." else []}


def _text_marked(conn, add) -> None:
    """What the text of the notes that mention projects says: a note that opens with `type:: project`
    / `tags:: project` lines (Logseq's page properties, when the index does not hold them as
    properties), and the notes a table's `Project` column links to, one project per row."""
    for path, title, display, text in conn.execute(
            """SELECT n.path, n.title, n.display_title, f.body FROM fts f JOIN notes n ON n.id = f.rowid
               WHERE fts MATCH 'body : (project OR projects)' AND n.private = 0"""):
        text = text or ""
        if "|" in text and _PROJECT_CELL.search(text):
            _table_projects(conn, path, text, add)
        display = display or title
        if "::" not in text[:2000] or names_projects(title) or names_projects(display):
            continue
        hp = head_props(text[:2000])
        if any(says_project(hp.get(k)) for k in KIND_PROPS):
            names = [title, display] + [a.strip() for a in hp.get("alias", hp.get("aliases", "")).split(",")]
            names += [r for k in REPO_PROPS if hp.get(k) for r in [repo_name(hp[k])] if r]
            names += [r for k in URL_PROPS if hp.get(k) for r in [repo_url(hp[k])] if r]
            add(names, hub=path, hub_title=display, prio=0, titles=[title, display])


def _cells(line: str) -> list[str]:
    return re.split(r"(?<!\\)\|", line.strip().removeprefix("- ").removeprefix("* ").strip())


def _table_projects(conn, path: str, text: str, add) -> None:
    """The notes linked in the `Project` column of a table: `|#|Project|Progress|` then `|3| [[SnapTessSCAD]] | 80 |`."""
    col, targets = None, None
    for line in text.split("\n"):
        if not _TABLE_ROW.match(line):
            col = None
            continue
        cells = _cells(line)
        if col is None:
            heads = [bare(re.sub(r"[*_`]", "", c)) for c in cells]
            col = next((i for i, h in enumerate(heads) if h in PROJECT_WORDS), None)
            continue
        if col >= len(cells) or not _WIKI.search(cells[col]):
            continue
        if targets is None:
            targets = _link_targets(conn, path)
        _add_linked(conn, path, _WIKI.search(cells[col]).group(1), targets, add)


def _link_targets(conn, path: str) -> dict[str, str]:
    return {lp.lower(): t for lp, t in conn.execute(
        "SELECT linkpath, target FROM links WHERE src = ? AND target IS NOT NULL", (path,))}


def _add_linked(conn, src: str, inner: str, targets: dict, add) -> None:
    """The note a `[[link]]` of a list of projects points to, as a project (exact names only): not a
    decision or pitfall (a project's note), not a note that names the projects."""
    inner = inner.replace("\\|", "|")
    target = next((targets[s] for s in (x.split("#", 1)[0].strip().lower() for x in inner.split("|"))
                   if s in targets), None)
    if not target or target == src:
        return
    n = conn.execute("SELECT title, display_title, type, aliases FROM notes WHERE path = ? AND private = 0",
                     (target,)).fetchone()
    if n and n[2] in PROJECT_TYPES and not names_projects(n[0]) and not names_projects(n[1] or n[0]):
        add([n[0], n[1]], _json_list(n[3]), hub=target, hub_title=n[1] or n[0], prio=1)


def _listed(conn, path: str, add) -> None:
    """The projects a note that lists them names: the first link of each list item or table row (a
    Logseq block, a Markdown table row): a note, or a web address, the list note then being that
    project's note (`- **[Denoflow](https://github.com/denoflow/denoflow)**`)."""
    row = conn.execute("SELECT f.body FROM fts f JOIN notes n ON n.id = f.rowid WHERE n.path = ?", (path,)).fetchone()
    if not row or not row[0]:
        return
    targets = _link_targets(conn, path)
    for line in row[0].split("\n"):
        if not _LIST_LINE.match(line) or "[" not in line:
            continue
        w, m = _WIKI.search(line), _MDLINK.search(line)
        if w and (not m or w.start() < m.start()):
            _add_linked(conn, path, w.group(1), targets, add)
        elif m:
            label, dest = re.sub(r"[*_`]", "", m.group(1)).strip(), m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*://", dest, re.I):
                add([label, repo_url(dest)], hub=path, hub_title=label, prio=2, list=True)
            else:
                # a written `#` starts the heading; an escaped one (`%23`) is part of the name
                _add_linked(conn, path, _unquote(dest.split("#", 1)[0]), targets, add)


def _unquote(s: str) -> str:
    from urllib.parse import unquote

    return unquote(s)


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
    _FIELDS = __match_args__ = ("project", "via", "ambiguous", "tried", "own")

    def __init__(self, project: dict | None = None, via: str = "", ambiguous: list[str] | None = None,
                 tried: list[str] | None = None, own: list[str] | None = None):
        self.project = project  # the catalog entry, when exactly one project matched
        self.via = via          # which name matched, and where it came from
        self.ambiguous = [] if ambiguous is None else ambiguous  # the projects' names, when several matched
        self.tried = [] if tried is None else tried              # the names compared
        self.own = [] if own is None else own  # those of them the folder itself goes by (not its parents')

    @property
    def name(self) -> str | None:
        return self.project["name"] if self.project else None

    def describe(self) -> str:
        if self.project:
            return f"{self.project['title']} (matched {self.via})"
        if self.ambiguous:
            return f"several projects match {self.via}: {', '.join(self.ambiguous)}"
        return "no project in the vault matches " + (", ".join(f"`{t}`" for t in self.tried) or "this folder")


# What separates the area or kind a title starts with from the project's own name: "PowerShell -
# PSProfileTools Module", "Client: Website Relaunch".
_AREA_SEP = LazyPattern(r"\s[-–—]\s|:\s")


def name_words(title: str, areas: set[str] | None = None) -> list[str]:
    """The words of a title's name part: after the area it starts with, if any (what precedes its
    last ` - ` or `: `: "PowerShell - PSProfileTools Module" -> psprofiletools, module). Given the
    vault's `areas` (see shared_areas), what precedes a `: ` is an area only when other titles start
    with it too ("Client: Website Relaunch" beside "Client: Onboarding"); else it is the name, what
    follows a subtitle, and the whole title is the name ("Title As Link Text: automatic note titles")."""
    seps = list(_AREA_SEP.finditer(str(title)))
    if not seps:
        return words(title)
    head, last = str(title)[:seps[-1].start()], seps[-1].group()
    if areas is not None and last.startswith(":") and key(head) not in areas:
        return words(title)
    return words(str(title)[seps[-1].end():])


def area_of(title: str) -> str:
    """What a title starts with before its last ` - ` or `: ` ("" when neither)."""
    seps = list(_AREA_SEP.finditer(str(title)))
    return str(title)[:seps[-1].start()] if seps else ""


def shared_areas(conn) -> set[str]:
    """The areas (see area_of, in `key` form) at least two notes' titles start with."""
    seen: dict[str, int] = {}
    for t, d in conn.execute("SELECT title, display_title FROM notes WHERE private = 0"):
        for a in {key(area_of(x)) for x in (t, d) if x} - {""}:
            seen[a] = seen.get(a, 0) + 1
    return {a for a, n in seen.items() if n > 1}


# How deep below a project's hierarchy level or folder its parts' names are context (`csly.generator`,
# `dendron.topic.cli`): a part of a part names the same thing as its parent.
CONTEXT_DEPTH = 2
_HOST = LazyPattern(r"^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/\s]+@)?(?:www\.)?([^/\s:]+)[/:]?([^/\s?#]*)", re.I)


def _context(conn, projects: list[dict], values_of: dict[str, list[str]], areas: set[str]) -> None:
    """Each project's `context` (catalog entries changed in place; see CONTEXT_SHARE): the words a
    working folder's name may hold beside the project's own."""
    naming: dict[str, list[str]] = {}
    for path, vs in values_of.items():
        for v in vs:
            naming.setdefault(v.lower(), []).append(path)
    for p in projects:
        ctx: set[str] = set()
        for t in {p["title"], *p["titles"]}:
            if name_words(t, areas) != words(t):  # the area a title starts with ("PowerShell - ")
                ctx.update(words(area_of(t)))
        if p["hub"]:
            ctx |= _link_words(conn, [p["hub"]], 0)
            row = conn.execute("SELECT props FROM notes WHERE path = ? AND private = 0", (p["hub"],)).fetchone()
            props = _json_obj(row[0]) if row else {}
            for v in (v for k in REPO_PROPS + URL_PROPS for v in _as_list(props.get(k))):
                m = _HOST.match(v.strip().strip("<>"))
                if m and m.group(1).lower() in CODE_HOSTS:
                    ctx.update(words(m.group(2)))  # the repository's owner
                elif m and "." in m.group(1):
                    ctx.update(words(m.group(1).rsplit(".", 1)[0]))  # the site's name: minimal.guide
        notes = sorted({n for v in p["values"] for n in naming.get(v.lower(), ())})
        if notes:
            ctx |= _link_words(conn, notes, CONTEXT_SHARE)
        for pre in p["prefixes"]:
            ctx.update(w for s in pre.rsplit("/", 1)[-1].split(".")[:-2] if bare(s) not in PROJECT_WORDS
                       for w in words(s))
            for (path,) in conn.execute("SELECT path FROM notes WHERE private = 0 AND substr(path, 1, ?) = ?",
                                        (len(pre), pre)):
                ctx.update(w for s in path[len(pre):-3].split(".")[:CONTEXT_DEPTH] for w in words(s))
        for f in p["folders"]:
            for (folder,) in conn.execute("SELECT DISTINCT folder FROM notes WHERE private = 0 AND "
                                          "substr(folder, 1, ?) = ?", (len(f) + 1, f + "/")):
                ctx.update(w for s in folder[len(f) + 1:].split("/")[:CONTEXT_DEPTH] for w in words(s))
        p["context"] = sorted(ctx - set(PROJECT_WORDS))


def _link_words(conn, paths: list[str], share: float) -> set[str]:
    """The words of the notes the property links of `paths` point to (their titles, or the link's name
    when no note is there), of those more than `share` of them carry; never the projects' category
    (`categories: [[Projects]]`) nor a `project:` link."""
    seen: dict[str, set[str]] = {}
    for i in range(0, len(paths), 500):
        chunk = paths[i:i + 500]
        for src, linkpath, title in conn.execute(
                f"SELECT l.src, l.linkpath, coalesce(n.display_title, n.title) FROM links l "
                f"LEFT JOIN notes n ON n.path = l.target AND n.private = 0 WHERE l.kind = 'property' "
                f"AND l.src IN ({','.join('?' * len(chunk))}) AND lower(l.prop) NOT IN "
                f"({','.join('?' * len(PROJECT_PROPS))})", (*chunk, *PROJECT_PROPS)):
            name = title or linkpath.split("#", 1)[0].rsplit("/", 1)[-1]
            if name.strip() and not says_project(name):
                seen.setdefault(name, set()).add(src)
    return {w for name, srcs in seen.items() if len(srcs) > share * len(paths) for w in words(name)}


def contains(title: str, name: str) -> bool:
    """`name` is a run of whole words of `title`'s name part, case and separators folded:
    "PSProfileTools" and "ps-profile-tools" are in "PowerShell - PSProfileTools Module", "dotfiles"
    in "Development - dotfiles". No part of a word matches ("tools"), nor the area a title starts
    with ("PowerShell": what precedes the last ` - ` or `: ` is shared by the area's other notes,
    the name comes after it), nor a name shorter than MIN_CONTAINED letters and digits."""
    return _run_of(name_words(title), "".join(words(name)))


def _run_of(ws: list[str], k: str) -> bool:
    if len(k) < MIN_CONTAINED or k not in "".join(ws):
        return False
    for i in range(len(ws)):
        run = ""
        for w in ws[i:]:
            run += w
            if run == k:
                return True
            if len(run) >= len(k) or not k.startswith(run):
                break
    return False


def detect(projects: list[dict], cwd: str | None = None, name: str | None = None) -> Match:
    """The project the session works on: `name` when given (as typed with --project), else the
    names of `cwd` (see `candidates`), best first. First each name of the folder itself (the working
    folder, its git top-level, its remotes' repositories) against every name of every project (see
    `key`); then each of them as a run of whole words of the title of a note the vault marks as a
    project (see `contains`: `PSProfileTools` is "PowerShell - PSProfileTools Module"); then each of
    them as one of those with the project's context words around it (see `with_context`:
    `obsidian-minimal`); last the parent folders' names, whole. The first name that matches decides; a name matching several
    projects is ambiguous."""
    cands = [(name, "the name given")] if name else candidates(cwd)
    tried = list(dict.fromkeys(n for n, _ in cands))
    own = [c for c in cands if not c[1].startswith("parent folder")]
    passes = [(own, ""), (own, "inside"), (own, "context"), ([c for c in cands if c not in own], "")]
    for group, how_matched in passes:
        for cname, how in group:
            if how_matched == "inside":  # `words` are precomputed (brief.json): no tokenizing on the SessionStart path
                k = "".join(words(cname))
                hits = [p for p in projects if any(_run_of(ws, k) for ws in _words_of(p))]
            elif how_matched == "context":
                ws = words(cname)
                hits = [p for p in projects if p.get("context") and with_context(ws, p)]
            else:
                k = key(cname)
                hits = [p for p in projects if k and k in p.get("keys", ())]
            via = f"`{cname}`, the {how}" + {"inside": " (part of its title)", "context": (
                " (its words beside the project's)"), "": ""}[how_matched]
            if len(hits) == 1:
                return Match(project=hits[0], via=via, tried=tried)
            if hits:
                return Match(ambiguous=sorted(p["name"] for p in hits), via=via, tried=tried)
    return Match(tried=tried, own=list(dict.fromkeys(n for n, _ in own)))


def _words_of(p: dict) -> list[list[str]]:
    return p.get("words") or [name_words(t) for t in p.get("titles", ())]


def with_context(ws: list[str], p: dict) -> bool:
    """The words of a folder's name `ws` are project `p`'s context words (see CONTEXT_SHARE), at
    least one, around a name of the project or a run of whole words of its title (see `contains`):
    `obsidian-minimal` is "Minimal Theme" of `org: [[Obsidian]]`, `csly-generator` is the project
    `Perso.projects.CSLY` with its `generator` part. The project's own part is at least
    MIN_CONTAINED letters and digits long."""
    ctx = set(p.get("context") or ())
    n = len(ws)
    for i in range(n):
        if i and ws[i - 1] not in ctx:
            break
        for j in range(n, i, -1):
            if (i, j) != (0, n) and all(w in ctx for w in ws[j:]):
                k = "".join(ws[i:j])
                if len(k) >= MIN_CONTAINED and (k in p.get("keys", ()) or any(_run_of(t, k) for t in _words_of(p))):
                    return True
    return False


# A working folder no project of the vault is named for may still be what some of its notes are about
# (named_notes): a note named for it, in its file name or its Dendron hierarchy's last level
# ("Obsidian Headless" for `obsidian-headless`, `notes.daily.2022-11-16.stock-trading-spreadsheet`)
# when that name has at least NAMED_MIN_WORDS words (one word, "Sync" or "Dendron", names a topic, not
# a repository), and the notes that cite a repository of that name by its address on a code host
# (cited_repos: `github.com/SkepticMystic/breadcrumbs`), or a folder of one (`…/tree/main/lsp-sample`,
# _CITED_FOLDER; a folder on the way to a cited file, by its place nearest the root: _CITED_PATH), at least
# REPO_NOTES times in all. A note of a
# one-word name names the folder too when it cites the repository of that name itself (Dendron's
# `soln.typedb` with `hasRepository https://github.com/vaticle/typedb`): named for it and citing it, it
# is about that repository. The brief lists at most NAMED_NOTES of them.
NAMED_MIN_WORDS = 2
NAMED_NOTES = 5


def property_targets(conn, keys: tuple[str, ...]) -> set[str]:
    """The notes that properties named `keys` (lowercase; any case in the notes) link to."""
    return {t for (t,) in conn.execute(
        "SELECT DISTINCT target FROM links WHERE kind = 'property' AND target IS NOT NULL AND lower(prop) IN "
        f"({','.join('?' * len(keys))})", keys)}


def named_notes(conn, dialect: str = "") -> dict[str, list[str]]:
    """Folder names (as `key` forms them) -> the notes that name them, best first: notes named so (in
    Dendron with the notes of their hierarchy), then the notes citing that repository, the most
    mentions first (a journal's too: "worked on github.com/acme/x today"). Private notes name
    nothing; the catalog's projects are detect's. A name of digits only (a date) names no folder."""
    own: dict[str, list[str]] = {}
    one_word: dict[str, list[str]] = {}  # named in one word: a folder's note only if it cites that repository
    paths: list[str] = []  # every public note, sorted: a Dendron note's children follow it (`x.md`, `x.y.md`)
    kinds = property_targets(conn, KIND_PROPS)
    for (path,) in conn.execute("SELECT path FROM notes WHERE private = 0 ORDER BY path"):
        paths.append(path)
        stem = path.rsplit("/", 1)[-1][:-3]
        if dialect == "dendron":
            stem = stem.rsplit(".", 1)[-1]
        ws = words(stem)
        # a kind (`type: [[Software Project]]`, a note named for projects) is no working folder's note
        if ws and any(not w.isdigit() for w in ws) and path not in kinds and not any(w in PROJECT_WORDS for w in ws):
            (own if len(ws) >= NAMED_MIN_WORDS else one_word).setdefault(key(stem), []).append(path)
    cited: dict[str, dict[str, int]] = {}
    in_paths: dict[str, dict[tuple, dict[str, int]]] = {}  # a folder's name (key) -> where -> citing notes
    for path, body, props in conn.execute(
            "SELECT n.path, f.body, f.props FROM fts f JOIN notes n ON n.id = f.rowid "
            "WHERE fts MATCH ? AND n.private = 0", (_CITED_MATCH,)):
        text = (body or "") + "\n" + (props or "")
        names = [name for _, _, name in cited_repos(text)]
        if "/tree/" in text:
            names += [m.group(1).rstrip(".") for m in _CITED_FOLDER.finditer(text)]  # a sentence's full stop
        for name in names:
            k = key(name)
            if k:
                by = cited.setdefault(k, {})
                by[path] = by.get(path, 0) + 1
        if "/tree/" in text or "/blob/" in text:
            for m in _CITED_PATH.finditer(text):
                parts = m.group(2).split("/")[:-1]
                for i, part in enumerate(parts):
                    k = key(part)
                    if k and not k.isdigit():
                        by = in_paths.setdefault(k, {}).setdefault((m.group(1).lower(), *map(key, parts[:i])), {})
                        by[path] = by.get(path, 0) + 1
    for k, places in in_paths.items():
        # the name's place nearest the repository's root, when it has one (`packages/engine-server`, not
        # the tests' mirror of it further down), not a name every package has at one depth (`src`)
        top = min(len(w) for w in places)
        nearest = [w for w in places if len(w) == top]
        if len(nearest) == 1:
            into = cited.setdefault(k, {})
            for p, n in places[nearest[0]].items():
                into[p] = max(into.get(p, 0), n)
    for k, ps in one_word.items():
        citing = [p for p in ps if p in cited.get(k, ())]
        if citing:
            own.setdefault(k, []).extend(citing)
    if dialect == "dendron":  # a note named for the folder brings its hierarchy (`….stock-trading-spreadsheet.q1`)
        import bisect

        for k, ps in own.items():
            for p in list(ps):
                prefix = p[:-3] + "."
                i = bisect.bisect_left(paths, prefix)
                while i < len(paths) and paths[i].startswith(prefix) and len(ps) < NAMED_NOTES:
                    if paths[i] not in ps:
                        ps.append(paths[i])
                    i += 1
    out = {}
    for k in [k for k, by in cited.items() if sum(by.values()) < REPO_NOTES]:
        del cited[k]  # one mention in passing (a reading list's link) names nothing: see REPO_NOTES
    for k in own.keys() | cited.keys():
        first = own.get(k, [])
        rest = sorted((p for p in cited.get(k, {}) if p not in first), key=lambda p: (-cited[k][p], p))
        out[k] = (first + rest)[:NAMED_NOTES]
    return out


def detect_in_index(conn, cwd: str | None = None, name: str | None = None) -> Match:
    return detect(catalog(conn), cwd=cwd, name=name)


def resolve(conn, name: str | None, cwd: str | None = None) -> tuple[str | None, Match]:
    """The project name to store or rank by: `name` (any name the project goes by) mapped to the
    project's name, else the working folder's project. Unknown names stay as given."""
    m = detect_in_index(conn, cwd=cwd, name=name or None)
    if m.project:
        return m.project["name"], m
    return (name or None), m
