"""What outsiders check offline: the exports, verify, the shuffle watch."""
