"""Reading config/ files: TOML parse errors and schema errors both name the file.

The rule books and table profiles are package data (DESIGN.md, "Resources ... are package
data"): found through importlib.resources, so an installed wheel runs anywhere, not only a
checkout. A user's own file (`--ruleset x.toml`, `--profile my.toml`) stays a path.
"""

import tomllib
from importlib import resources
from pathlib import Path

from engine.rulebook import Ruleset
from engine.rulesets import build
from engine.schema import ConfigError


def package_folder(package: str) -> Path:
    """The folder of one of our packages, through importlib.resources. A checkout and an
    installed wheel both have it on disk, which the readers of a profile's registry and the
    display's static files need."""
    folder = resources.files(package)
    if not isinstance(folder, Path):
        raise RuntimeError(f"mjtable's package {package} is not a folder on disk: {folder}")
    return folder


def config_dir() -> Path:
    """config/: rules/ and tables/, installed as the package data `firmware.config_data`."""
    return package_folder("firmware.config_data")


def load_toml(path: Path) -> dict:
    """The parsed file; every way it can fail to be a config is a ConfigError naming it."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as err:  # a directory, a parent that is a file, no permission
        raise ConfigError(f"{path}: cannot read: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text (byte {err.start}), so not TOML") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except RecursionError:  # tomllib parses nested arrays and tables by recursion
        raise ConfigError(f"{path}: values nested too deep for a config") from None


def ruleset_path(name: str) -> Path:
    """A ruleset by name (config/rules/<name>.toml) or by the path of its file."""
    if name.endswith(".toml") or "/" in name:
        return Path(name)
    rules = config_dir() / "rules"
    path = rules / f"{name}.toml"
    if not path.exists():
        known = sorted(p.stem for p in rules.glob("*.toml"))
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
