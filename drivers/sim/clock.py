"""The simulated table's clock, which the simulated devices and the service read."""


class SimClock:
    """Table time: the simulated table advances it; the service and the drivers read it."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t
