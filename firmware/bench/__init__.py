"""`mjtable bench`: the benchmarks."""
