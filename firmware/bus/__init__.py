"""The venue bus, both ends: its contract (topics, envelope, limits, payloads, the signed
form), the commands' signature and a table's [uplink] settings."""
