"""The table service: one actor, the hand's lifecycle, faults, status, assembly, sessions,
storage."""
