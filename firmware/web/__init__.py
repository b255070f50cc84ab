"""The HTTP pieces the table's display and the venue's dashboard share: guard, login, SSE,
settings."""
