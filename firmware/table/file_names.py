"""File names in a table's profile that no file system holds (issue 32 item 9): refused with
the key that names them, before any lookup raises "File name too long" as a traceback."""

from engine.schema import Section

# The keys naming a file or folder, relative to the profile's folder (issue 32 item 9).
FILE_KEYS = {
    "display": ("tls_cert", "tls_key"),
    "journal": ("device_key", "data_dir"),
    "tags": ("registry",),
    "uplink": ("ca_file", "password_file", "key_file"),
}
NAME_MAX, PATH_MAX = 255, 4096  # bytes: Linux's longest file name, and path


def refuse_long_file_names(top: Section, error: type[Exception]) -> None:
    """A file name no file system holds is refused before anything looks it up: the lookup
    raises "File name too long" where a missing file is expected, and the name itself
    (100 000 characters, say) is too long to quote."""
    for name, keys in FILE_KEYS.items():
        section = top.data.get(name)
        if not isinstance(section, dict):
            continue  # absent, or refused by its own reading
        for key in keys:
            value = section.get(key)
            if not isinstance(value, str):
                continue  # the section's own reading says what it expects
            longest = max(len(part.encode()) for part in value.split("/"))
            if longest > NAME_MAX or len(value.encode()) > PATH_MAX:
                raise Section(section, name, top.origin, error).error(
                    key,
                    f"a file name of {len(value)} characters ({value[:40]!r}...): a file "
                    f"system holds names of {NAME_MAX} bytes and paths of {PATH_MAX} at most",
                )
