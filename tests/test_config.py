from pathlib import Path

import pytest
import yaml

from memory_plugin.core.config import SCHEMA, load_config
from memory_plugin.core.errors import ConfigError

from conftest import ROOT, run_cli


def test_config_yaml_documents_every_key_with_its_default():
    doc = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert set(doc) == set(SCHEMA)
    for key, (_, default) in SCHEMA.items():
        assert doc[key] == default, key


def test_brief_chars_bounds_are_accepted(tmp_path, monkeypatch):
    from memory_plugin.core.config import BRIEF_HARD_CAP, BRIEF_MIN_CHARS

    f = tmp_path / "c.yaml"
    monkeypatch.setenv("MEMORY_PLUGIN_CONFIG", str(f))
    for value in (BRIEF_MIN_CHARS, BRIEF_HARD_CAP):
        f.write_text(f"brief_chars: {value}\n")
        assert load_config().brief_chars == value


def test_precedence_defaults_file_env_cli(tmp_path, monkeypatch):
    f = tmp_path / "c.yaml"
    f.write_text("hub_count: 3\nvault: /from/file\nbrief_chars: 4000\n")
    monkeypatch.setenv("MEMORY_PLUGIN_CONFIG", str(f))
    cfg = load_config()
    assert cfg.hub_count == 3 and str(cfg.vault) == "/from/file" and cfg.brief_chars == 4000
    monkeypatch.setenv("MEMORY_PLUGIN_VAULT", "/from/env")
    monkeypatch.setenv("MEMORY_PLUGIN_CACHE_DIR", str(tmp_path / "envcache"))
    cfg = load_config()
    assert str(cfg.vault) == "/from/env" and cfg.cache_dir == tmp_path / "envcache"
    cfg = load_config(vault="/from/cli", cache_dir=tmp_path / "clicache")
    assert str(cfg.vault) == "/from/cli" and cfg.cache_dir == tmp_path / "clicache"
    assert cfg.sources["vault"] == "command line" and cfg.sources["hub_count"] == str(f)


def test_default_user_config_path(isolated_home):
    p = isolated_home / ".config" / "memory-plugin" / "config.yaml"
    p.parent.mkdir(parents=True)
    p.write_text("hub_count: 7\n")
    assert load_config().hub_count == 7


@pytest.mark.parametrize("text,needle", [
    ("hub_cuont: 3\n", "unknown key `hub_cuont`"),
    ("hub_count: many\n", "key `hub_count` must be int"),
    ("hub_count: true\n", "key `hub_count` must be int"),
    ("exclude: notalist\n", "key `exclude` must be list"),
    ("brief_chars: 20000\n", "brief_chars"),
    ("brief_chars: 200\n", "key `brief_chars` must be at least 1200"),
    ("[unclosed\n", "not valid YAML"),
    ("journal_folder: ../out\n", "key `journal_folder` must be a folder inside the vault"),
    ("journal_folder: /tmp/out\n", "key `journal_folder` must be a folder inside the vault"),
])
def test_bad_config_is_one_line_error_naming_key_and_file(tmp_path, monkeypatch, text, needle):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    monkeypatch.setenv("MEMORY_PLUGIN_CONFIG", str(f))
    with pytest.raises(ConfigError) as e:
        load_config()
    assert needle in str(e.value) and str(f) in str(e.value)
    r = run_cli("--vault", str(tmp_path), "status")
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error:") and str(f) in err[0]
    assert "Traceback" not in r.stderr


def test_the_config_file_is_parsed_by_yaml_once_per_text(tmp_path, monkeypatch, isolated_home):
    import sys

    from memory_plugin.core import config as C

    f = tmp_path / "c.yaml"
    monkeypatch.setenv("MEMORY_PLUGIN_CONFIG", str(f))
    f.write_text("hub_count: 3\nexclude: [a, b]\ntype_folders: {decision: D}\nprompt_recall: yes\n")
    first = load_config()
    assert (C.cache_root() / C.PARSED_CONFIG).exists()
    monkeypatch.setitem(sys.modules, "yaml", None)  # importing yaml now fails: the kept parse answers
    again = load_config()
    assert again.values == first.values and again.sources == first.sources and again.prompt_recall is True
    f.write_text("hub_count: 4\n")  # another text: yaml again
    with pytest.raises(ImportError):
        load_config()
    monkeypatch.delitem(sys.modules, "yaml")
    assert load_config().hub_count == 4
    f.write_text("hub_count: 5\nexclude: [2024-01-02]\n")  # a date: not kept as JSON, parsed each time
    with pytest.raises(ConfigError):
        load_config()
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(ImportError):
        load_config()
