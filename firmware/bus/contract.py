"""The venue bus contract: what both ends agree on."""

MIN_KEY_BYTES = 16  # a shorter venue key is a guessable one
MAX_MINUTES = 600  # a sitting's time limit: RULES.md 4.3 has 1 h and 2 h
NAME_LENGTH = 60  # a player's or a referee's name, in characters
FEDERATION_ID_LENGTH = 32
