"""The hall's dashboard, its own process: `mjtable venue`."""
