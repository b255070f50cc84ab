"""`mjtable score`: the referee's calculator."""
