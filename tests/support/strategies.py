"""Hypothesis strategies shared by the property tests."""

from collections import Counter

from hypothesis import strategies as st

from engine import tiles


@st.composite
def a_set(draw, used: Counter):
    """One set as (type, tile kinds, how it is held), using only tiles still left in `used`:
    a set has four of each kind (RULES.md 3.1)."""
    kind = draw(st.sampled_from(["chow", "pung", "kong"]))
    if kind == "chow":
        first = draw(
            st.sampled_from(
                [
                    9 * suit + r
                    for suit in range(3)
                    for r in range(7)
                    if all(used[9 * suit + r + i] < 4 for i in range(3))
                ]
            )
        )
        kinds = [first, first + 1, first + 2]
    else:
        size = 3 if kind == "pung" else 4
        kinds = [
            draw(st.sampled_from([k for k in range(tiles.KINDS) if used[k] + size <= 4]))
        ] * size
    used.update(kinds)
    # A kong exists only when declared (RULES.md 3.7): exposed or a concealed kong.
    held = draw(
        st.sampled_from(["exposed", "concealed kong"] if kind == "kong" else ["exposed", "in hand"])
    )
    return kind, kinds, held
