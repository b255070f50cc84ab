"""The simulated world's copy of the table's scoreboard (firmware/sim/world.py): its own
dealer and scores to play the next hand on, sharing the rule book and the sheet's rows. A
deep copy at every hand copied the whole sheet again each hand and kept a second sheet alive
(issue 32 item 4: `mjtable bench soak`'s slope)."""

from engine.session import Session
from firmware.sim.world import scoreboard
from tests.support.sessionkit import finished, won


def east_wins(session: Session):
    return finished(session, won(0, [30, -10, -10, -10]))


def test_the_world_plays_on_its_own_copy_of_the_scoreboard(wsom):
    """RULES.md 3.1 and 3.8 on the world's copy: a hand recorded there passes its deal and
    adds its row; the table's session is as it was. The rule book and the rows already on
    the sheet are the table's own objects, not copies."""
    session = Session(wsom)
    for _ in range(3):
        session.record(east_wins(session))
    board = scoreboard(session)
    assert board.ruleset is session.ruleset
    assert all(mine is its for mine, its in zip(board.sheet, session.sheet, strict=True))

    scores = list(session.scores)
    board.record(east_wins(board))
    assert (len(board.sheet), board.dealer, board.scores != scores) == (4, 0, True)
    assert (len(session.sheet), session.dealer, session.scores) == (3, 3, scores)
