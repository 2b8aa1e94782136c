"""The README's first command (``streamlit run app.py``, which reads .streamlit/config.toml)
serves a class with the same settings as a deployed replica (deploy/streamlit.env)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def _env_settings() -> dict[str, str]:
    out = {}
    for line in (ROOT / "deploy" / "streamlit.env").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            out[name.strip()] = value.strip()
    return out


def _env_name(option: str) -> str:
    """Streamlit's environment variable for an option: server.fileWatcherType ->
    STREAMLIT_SERVER_FILE_WATCHER_TYPE."""
    return "STREAMLIT_" + re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", option).replace(".", "_").upper()


def _toml_settings() -> dict[str, object]:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return {_env_name(f"{section}.{key}"): value
            for section, values in config.items() for key, value in values.items()}


@pytest.mark.parametrize("name, value", sorted(_env_settings().items()))
def test_config_toml_carries_every_deploy_setting(name, value):
    toml = _toml_settings()
    assert name in toml, f"{name} is in deploy/streamlit.env but not in .streamlit/config.toml"
    shown = str(toml[name]).lower() if isinstance(toml[name], bool) else str(toml[name])
    assert shown == value, (name, toml[name], value)


def test_every_option_name_is_streamlits():
    from streamlit import config

    known = {_env_name(key) for key in config._config_options_template}
    assert set(_toml_settings()) <= known
    assert set(_env_settings()) <= known
