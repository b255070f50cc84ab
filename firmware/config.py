"""Reading config/ files: TOML parse errors and schema errors both name the file."""

import tomllib
from pathlib import Path

from engine.rulesets import ConfigError, Ruleset, build

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"


def load_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None


def ruleset_path(name: str) -> Path:
    """A ruleset by name (config/rules/<name>.toml) or by the path of its file."""
    if name.endswith(".toml") or "/" in name:
        return Path(name)
    path = CONFIG_DIR / "rules" / f"{name}.toml"
    if not path.exists():
        known = sorted(p.stem for p in (CONFIG_DIR / "rules").glob("*.toml"))
        raise ConfigError(f"unknown ruleset {name!r} (known: {', '.join(known)})")
    return path


def load_ruleset(name: str) -> Ruleset:
    path = ruleset_path(name)
    try:
        return build(load_toml(path))
    except ConfigError as err:
        message = str(err)
        raise ConfigError(
            message if message.startswith(str(path)) else f"{path}: {message}"
        ) from None
