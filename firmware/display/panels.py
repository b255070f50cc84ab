"""The screens the display is made for (issue 33): each supported size in pixels and the panel
it is assumed to be on, so sizes on screen can be said in millimetres. display.css's --mm is a
millimetre on these panels; a text legible at two metres stands about 3 mm, a finger needs 8 mm.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Panel:
    """A screen: its pixels, its diagonal, and the width of its picture in millimetres."""

    width_px: int
    height_px: int
    inches: float
    width_mm: float

    @property
    def mm_per_px(self) -> float:
        return self.width_mm / self.width_px

    def mm(self, px: float) -> float:
        return px * self.mm_per_px


PANELS = {
    # the usual panels of a table's side (their makers' active areas)
    (800, 480): Panel(800, 480, 7.0, 154.08),
    (1024, 600): Panel(1024, 600, 10.1, 222.72),
    (1280, 800): Panel(1280, 800, 10.1, 216.96),
    # the hall's: the smallest full-HD screen it puts up (a monitor by a feature table)
    (1920, 1080): Panel(1920, 1080, 21.5, 476.64),
}

CLOCK_DIGITS_MM = 4.0  # the turn clock's digits, read by the player across the table
TEXT_MM = 3.0  # alerts, the sheet, the side's text: about the limit of sight at 2 m
TOUCH_MM = 8.0  # a button's height and width: the usual 7-9 mm for a finger
