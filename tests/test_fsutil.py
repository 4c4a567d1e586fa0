"""The two atomic writers every plugin file goes through: all or nothing, the old file's mode kept,
no temp file left behind, temp names the scan recognises."""
import os
import stat

import pytest

from memory_plugin.core import fsutil
from memory_plugin.vault.scan import TEMP_RE


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def _leftovers(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(".tmp"))


def test_atomic_write_writes_skips_unchanged_and_keeps_mode(tmp_path):
    p = tmp_path / "sub" / "a.md"
    assert fsutil.atomic_write(p, "one\n") is True
    assert p.read_text() == "one\n"
    umask = os.umask(0)
    os.umask(umask)
    assert _mode(p) == 0o666 & ~umask  # a new file: the usual mode, not the temp file's 0600
    os.chmod(p, 0o640)
    assert fsutil.atomic_write(p, "one\n") is False  # the same bytes: not rewritten
    assert fsutil.atomic_write(p, b"two\n") is True
    assert p.read_bytes() == b"two\n"
    assert _mode(p) == 0o640
    assert _leftovers(p.parent) == []


def test_atomic_write_that_cannot_replace_leaves_target_and_no_temp(tmp_path):
    target = tmp_path / "note.md"
    target.mkdir()  # a directory where the file should go: os.replace fails
    with pytest.raises(OSError):
        fsutil.atomic_write(target, "text")
    assert target.is_dir() and list(target.iterdir()) == []
    assert _leftovers(tmp_path) == []


def test_atomic_stream_error_keeps_old_file(tmp_path):
    p = tmp_path / "graph.json"
    p.write_text("old")
    os.chmod(p, 0o600)
    with pytest.raises(RuntimeError):
        with fsutil.atomic_stream(p) as f:
            f.write("half of the new")
            names = _leftovers(tmp_path)
            assert len(names) == 1 and names[0].startswith(".graph.json.")
            raise RuntimeError("stop")
    assert p.read_text() == "old"
    assert _leftovers(tmp_path) == []
    with fsutil.atomic_stream(p) as f:
        f.write("new é\r\n")  # text as given: utf-8, no newline translation
    assert p.read_bytes() == "new é\r\n".encode()
    assert _mode(p) == 0o600


def test_temp_names_are_the_ones_the_scan_skips(tmp_path):
    fd, tmp = fsutil._temp_beside(tmp_path / "Some note.md")
    os.close(fd)
    assert TEMP_RE.fullmatch(os.path.basename(tmp))
    assert _mode(tmp) == 0o600


def test_atomic_write_through_symlinks_only_when_asked(tmp_path):
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("old")
    os.chmod(real, 0o600)
    hop = tmp_path / "hop"
    hop.symlink_to("dotfiles/settings.json")  # relative, and a chain: link -> link -> file
    link = tmp_path / "link"
    link.symlink_to(hop)
    assert fsutil.atomic_write(link, "new", follow_symlinks=True) is True
    assert link.is_symlink() and hop.is_symlink() and real.read_text() == "new" and _mode(real) == 0o600
    assert _leftovers(real.parent) == [] and _leftovers(tmp_path) == []
    # by default a link is replaced, never written through (a note linked out of the vault stays unwritten)
    assert fsutil.atomic_write(link, "plain") is True
    assert not link.is_symlink() and link.read_text() == "plain" and real.read_text() == "new"
