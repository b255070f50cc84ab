"""The technician's commands: selftest, enrol, update, support bundles."""
