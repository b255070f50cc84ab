"""The simulated world and players, and `mjtable simulate`."""
