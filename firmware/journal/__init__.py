"""The record: the journal's store and schema, replay, the walls' seals, the device key."""
