"""The figures every `mjtable bench` reports from its samples: one definition of the p99."""

import statistics


def percentiles(samples: list[float], digits: int = 2) -> tuple[float, float, float]:
    """(median, p99, max) of the samples, rounded; the p99 is the sample at 99 % of the
    sorted run, without interpolation."""
    ordered = sorted(samples)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    return (
        round(statistics.median(ordered), digits),
        round(p99, digits),
        round(ordered[-1], digits),
    )
