"""Rule books (rules/) and table profiles (tables/): package data installed as
`firmware.config_data` (pyproject.toml), found by `firmware.resources.config_dir()`. This file
makes the folder a regular package, which an editable install maps; it holds no code."""
