"""The venue bus contract, both ends: signing and the [uplink] settings."""
