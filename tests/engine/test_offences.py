"""Offences and their penalties at the table (RULES.md 3.5-3.13; CCM 4.14-4.15 below).

Each refused input names the rule it broke and proposes the rule book's penalty; the referee
applies or waives it with a Ruling; applied penalties take away what the rule book says.
"""

from engine import events as ev
from tests.support.tablekit import E, Game, N, S, W, chicken_game, of, wsom_game, wsom_with


def rule_on(game: Game, alert: ev.Alert, apply=True) -> list[ev.Event]:
    return game.apply(ev.Ruling, None, alert=alert.id, apply=apply)


def test_drawing_twice_is_big_wrong_count_and_takes_win_and_calls(wsom):
    """RULES.md 3.10: too many tiles (大相公): no win and no call or kong for the rest of the
    hand, once the referee confirms it."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    alert = game.refused(ev.TileDrawn, E)
    assert alert.penalty["offence"] == "wrong_count_high" and alert.needs_ruling
    assert alert.penalty["effect"] == "dead_hand" and alert.penalty["rule"] == "RULES.md 3.10"
    applied = rule_on(game, alert)
    assert of(applied, ev.PenaltyApplied)[0].effect == "dead_hand"
    assert game.table.referee.no_win[E] and game.table.referee.no_calls[E]
    assert "lost the right to win" in game.refused(ev.WinDeclared, E).message
    game.discard(E, "C")
    assert (
        "lost the right to call"
        in game.refused(ev.ClaimDeclared, E, claim="pung", tiles=game.table.hands[E][:2]).message
    )


def test_a_waived_penalty_takes_nothing(wsom):
    """RULES.md 3.10: the referee may find the count right after all: waived, nothing lost."""
    game = wsom_game(wsom)
    alert = game.refused(ev.TileDrawn, E)
    assert rule_on(game, alert, apply=False) == [ev.PenaltyWaived(game.clock, E, alert.id)]
    assert not game.table.referee.no_win[E]
    assert "no penalty awaits" in rule_on(game, alert)[0].message  # ruled once only


def test_discarding_out_of_turn_is_small_wrong_count(wsom):
    """RULES.md 3.6, 3.10: a discard before one's draw leaves too few tiles (小相公): no win."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    game.discard(E, "C")
    game.close()
    alert = game.refused(ev.TileDiscarded, S, tile=game.table.hands[S][0])
    assert alert.penalty["offence"] == "wrong_count_low"
    rule_on(game, alert)
    assert game.table.referee.no_win[S] and not game.table.referee.no_calls[S]


def test_reaching_for_the_wall_out_of_turn(wsom):
    """RULES.md 3.6: never reach for the wall before one's turn (may be judged 大相公)."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    game.discard(E, "C")
    game.close()
    alert = game.refused(ev.TileDrawn, N)
    assert alert.rule == "RULES.md 3.6" and alert.penalty["offence"] == "early_draw"


def test_empty_call_makes_two_penalty_tiles_live_then_dead(wsom):
    """RULES.md 3.11 空鳴, 3.9: a call without the tiles exposes 2 penalty tiles; they may go
    at the next discard; once another tile is discarded the rest are dead, never discarded,
    and no penalty tile goes into a called set."""
    game = wsom_game(wsom, hands=["C 5p", "9s 9s 1m 2m", "", ""])
    game.discard(E, "C")
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())
    assert alert.penalty["offence"] == "empty_call" and alert.penalty["rule"] == "RULES.md 3.11"
    applied = of(rule_on(game, alert), ev.PenaltyApplied)[0]
    marked = applied.penalty_tiles
    assert len(marked) == 2 and game.table.referee.penalty_tiles[S] == {t: "live" for t in marked}
    game.close()
    game.draw(S)
    game.ok(ev.TileDiscarded, S, tile=marked[0])  # a live penalty tile may go
    assert game.table.referee.penalty_tiles[S] == {marked[1]: "dead"}
    game.close()
    game.play_through(until=lambda g: g.table.turn == S)
    assert game.refused(ev.TileDiscarded, S, tile=marked[1]).rule == "RULES.md 3.9"


def test_false_win_makes_the_exposed_hand_penalty_tiles_and_play_goes_on(wsom):
    """RULES.md 3.11 錯和 (A-W12 strict): a false win declared with the hand shown is refused,
    the exposed tiles become penalty tiles, and the hand goes on."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    alert = game.refused(ev.WinDeclared, E, shown=True)
    assert alert.penalty["offence"] in ("false_win", "incomplete_win")
    applied = of(rule_on(game, alert), ev.PenaltyApplied)[0]
    assert sorted(applied.penalty_tiles) == sorted(game.table.hands[E])
    game.ok(ev.TileDiscarded, E, tile=game.table.hands[E][0])
    assert game.table.state == "claim_window"


def test_empty_kong_is_noted_without_penalty(wsom):
    """RULES.md 3.11 空槓: a self-kong called and cancelled is normally free."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    alert = game.refused(ev.KongDeclared, E, tiles=game.table.hands[S][:4])
    assert alert.penalty["offence"] == "empty_kong" and alert.penalty["points"] == 0
    assert not game.table.referee.pending


def test_call_after_its_window(wsom):
    """RULES.md 3.6: a call on a discard that is already dead is refused and noted."""
    game = wsom_game(wsom, hands=["C", "C C", "", ""])
    game.discard(E, "C")
    game.close()
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=game.own(S, "C C"))
    assert alert.penalty["offence"] == "late_call"


def test_overtime_penalty_applies_at_once(wsom):
    """RULES.md 3.12: East discards 16 s after his free preparation: one started block over
    the 15-s limit, 5 points deducted without waiting for the referee."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    game.clock += 15 + 16 - 1
    out = game.apply(ev.TileDiscarded, E, tile=game.own(E, "C")[0])
    assert of(out, ev.Discarded)
    applied = of(out, ev.PenaltyApplied)
    assert [(p.offence, p.points, p.rule) for p in applied] == [
        ("overtime_discard", 5, "RULES.md 3.12")
    ]
    assert not of(out, ev.Alert)[0].needs_ruling


def test_serious_overtime_asks_the_referee_about_a_forfeit(wsom):
    """RULES.md 3.12, A-W15: 85 points of time penalties in one hand: forfeit unless the
    referee finds it justified; the points themselves apply at once."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    game.clock += 15 + 15 + 16 * 15 - 1  # 16 started blocks over: 80 points
    out = game.apply(ev.TileDiscarded, E, tile=game.own(E, "C")[0])
    # 255 s counted: 240 over the turn (16 blocks) and 75 over the hand budget (5 blocks)
    assert sum(p.points for p in of(out, ev.PenaltyApplied)) == 80 + 25
    forfeit = [a for a in of(out, ev.Alert) if a.penalty["offence"] == "serious_overtime"]
    assert forfeit and forfeit[0].needs_ruling and forfeit[0].rule == "RULES.md 3.12 (A-W15)"
    assert forfeit[0].id in game.table.referee.pending


def test_paused_clocks_do_not_run(wsom):
    """RULES.md 3.13 (暫停): while the referee pauses the clocks nobody runs over."""
    game = wsom_game(wsom, hands=["C", "", "", ""])
    assert game.apply(ev.ClocksPaused, None) == []
    game.clock += 300
    assert game.apply(ev.ClocksResumed, None) == []
    assert not of(game.discard(E, "C"), ev.PenaltyApplied)
    assert game.apply(ev.ClocksResumed, None)[0].message == "the clocks are already running"


def test_referee_reports_naming_the_discard(wsom):
    """RULES.md 3.6: naming a discard aloud is seen by the referee, not by the sensors."""
    game = wsom_game(wsom)
    alert = game.apply(ev.ViolationReported, W, offence="naming_discard")[0]
    assert alert.rule == "RULES.md 3.6" and alert.penalty["offence"] == "naming_discard"


def marked_game(wsom, hands, draws=None):
    """South has two live penalty tiles (an empty call on East's first discard, ruled)."""
    game = wsom_game(wsom, hands=hands, draws=draws)
    game.discard(E, "C")
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())
    rule_on(game, alert)
    return game


def test_penalty_tile_never_goes_into_a_called_set(wsom):
    """RULES.md 3.9: penalty tiles are used only in concealed sets; a call with one is handled
    as a false claim. South's empty call made his two C penalty tiles; he may not pung C."""
    game = marked_game(wsom, ["C", "C C", "", ""])
    marked = tuple(game.table.referee.penalty_tiles[S])
    assert sorted(game.kinds(S)[:2]) == [31, 31] and set(marked) == set(game.own(S, "C C"))
    alert = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=marked)
    assert alert.penalty["offence"] == "wrong_call" and "penalty tile" in alert.message


def test_changing_a_call_is_free(wsom):
    """RULES.md 3.11 改鳴: a player may switch his call before it is granted, at no cost."""
    game = wsom_game(wsom, hands=["3m", "2m 4m 3m 3m", "", ""])
    game.discard(E, "3m")
    game.claim(S, "chow", "2m 4m")
    game.claim(S, "pung", "3m 3m")
    assert game.table.calls[S].claim == "pung" and len(game.table.calls) == 1
    assert not game.table.referee.pending


def test_claimed_discard_starts_the_claimers_clock(wsom):
    """RULES.md 3.12: a claimer's time runs from the discard he claimed, not from his call."""
    game = wsom_game(wsom, hands=["C", "C C", "", ""])
    game.discard(E, "C")
    discarded_at = game.clock
    game.claim(S, "pung", "C C")
    game.clock += 10
    game.close()
    assert game.table.clocks.started[S] == discarded_at


def test_kong_replacement_starts_a_new_turn(wsom):
    """RULES.md 3.12: after a kong the supplement starts a new turn for the clock."""
    game = wsom_game(wsom, hands=["EEEE C", "", "", ""])
    game.kong(E, "E E E E")
    game.clock += 40
    drew = game.draw(E)
    assert drew.replacement and game.table.clocks.started[E] == game.clock


def test_penalty_tile_may_not_complete_a_pair_on_a_discard(wsom):
    """RULES.md 3.9: a penalty tile never makes the pair a discard completes: South, ready
    on 7m with a 7m penalty tile, may not win on West's 7m."""
    game = marked_game(wsom, ["C", "7m 1m 1m 2m 2m 3m 3m 4m 4m 5m 5m 6m 6m", "7m", ""])
    assert game.kinds(S)[0] == 6 and game.table.hands[S][0] in game.table.referee.penalty_tiles[S]
    game.close()
    game.draw(S)
    game.ok(ev.TileDiscarded, S, tile=game.table.hands[S][-1])
    game.close()
    game.draw(W)
    game.discard(W, "7m")
    alert = game.refused(ev.ClaimDeclared, S, claim="win")
    assert alert.rule == "RULES.md 3.9" and "penalty tile" in alert.message


def test_penalty_tile_used_in_a_concealed_kong_stops_being_one(wsom):
    """RULES.md 3.9: a penalty tile used in a concealed kong is no longer a penalty tile."""
    game = marked_game(wsom, ["C", "E E E", "", ""], draws=["E"])
    game.close()
    game.draw(S)
    game.kong(S, "E E E E")
    assert not any(t in game.table.referee.penalty_tiles[S] for t in game.table.melds[S][0].tiles)


def chicken_call(ruleset) -> ev.Alert:
    """South pungs East's W (not his wind), then calls win on West's 5m with
    123m 456p 789s 55m [WWW]: a complete hand without a pattern (RULES.md 1.1)."""
    return chicken_game(ruleset)[1]


def test_chicken_hand_is_a_false_win_unless_assisted(wsom):
    """A-W12: "strict" (the default) makes a chicken hand a false win with penalty tiles
    (3.11): 錯和 laid out, 空和 not shown (issue 30 item 1); "assisted" turns it down before it
    is laid down, without penalty."""
    assert chicken_call(wsom).penalty["offence"] == "empty_win"
    assert chicken_game(wsom, shown=True)[1].penalty["offence"] == "false_win"
    quiet = chicken_call(wsom_with(lambda c: c["options"].update(chicken_declaration="assisted")))
    assert quiet.penalty is None and "complete but may not win" in quiet.message


def test_win_on_a_kong_replacement_that_is_the_seabed(wsom):
    """A-W10: the kong supplement that is the seabed earns Final Draw and Win on Kong; with
    the option off, Win on Kong only."""
    for ruleset, flags in (
        (wsom, {"kong_replacement", "final_draw"}),
        (
            wsom_with(lambda c: c["wall"].update(final_draw_with_win_on_kong=False)),
            {"kong_replacement"},
        ),
    ):
        game = wsom_game(ruleset)
        table = game.table
        table.last_tile_drawn, table.last_draw, table.calls_made = True, "kong", True
        assert table.winning.flags(E, None, False) == flags


def test_a_second_empty_call_exposes_two_more_penalty_tiles(wsom):
    """Seed 000 錯鳴 3 空鳴 (RULES.md 3.11): 「在取消鳴牌的同時﹐必須揭露兩張牌作為罰張」 — each
    empty call exposes two tiles of its own: South's second, on East's next discard, makes
    two more penalty tiles, four in all (issue 12 item 4)."""
    game = wsom_game(wsom, hands=["C 5p", "9s 9s 1m 2m", "", ""])
    game.discard(E, "C")
    first = of(
        rule_on(game, game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())), ev.PenaltyApplied
    )[0]
    game.close()
    game.play_through(until=lambda g: g.table.turn == E and g.table.state == "discard")
    game.discard(E, "5p")
    second = game.refused(ev.ClaimDeclared, S, claim="pung", tiles=())
    marked = of(rule_on(game, second), ev.PenaltyApplied)[0].penalty_tiles
    assert len(marked) == 2 and not set(marked) & set(first.penalty_tiles)
    assert len(game.table.referee.penalty_tiles[S]) == 4
