"""Golden Swiss tournaments, worked by hand from the rules (tournaments/swiss.py, RULES.md
section 3) and checked round by round. Players are numbered by rating (1 the highest).

Six players, four rounds (no byes):

- R1, one group of six, top half v bottom half: 1-4, 2-5, 3-6; nobody has gone First, so
  the higher-ranked is First on boards 1 and 3, the lower on board 2: (1,4) (5,2) (3,6).
  Results: 1 beats 4 by 100, 2 beats 5 by 50, 3 beats 6 by 30.
- R2, groups [1,2,3] and [6,5,4] (by spread): 1-2 in the group; 3 has met 6, so 3 floats
  down to 5; 6-4. Whoever went Second goes First: (2,1) (5,3) equal, so board 2 gives
  First to the lower-ranked; (6,4) equal, board 3 to the higher-ranked.
  Results: 2 beats 1 by 20, 3 beats 5 by 45, 4 beats 6 by 60.
- R3, standings 3 (2, +75), 2 (2, +70), 1 (1, +80), 4 (1, -40), 6 (0, -90), 5 (0, -95).
  [3,2] pair; 1-4 would be a rematch, so 1 floats to 6 and 4 to 5: no rematch at the cost
  of two crossings (a rematch is avoided first). (3,2) (6,1) (4,5).
  Results: 3 beats 2 by 100, 1 beats 6 by 50, 4 beats 5 by 10.
- R4, standings 3 (3), 1 (2, +130), 2 (2, -30), 4 (2, -30; below 2 on rating), 5, 6 (0).
  No Gibson: 1, 2 and 4 can still reach 3 points. 3 meets the top of the next group, 1;
  2-4; 5-6. (1,3) (4,2) (5,6).

Seven players, four rounds (a bye a round, a win and +50):

- R1: the bye to 7 (the lowest-ranked); then as above: (1,4) (5,2) (3,6), same results.
- R2, standings 1, 2, 7 (1, +50, below 2 on rating), 3, 6, 5, 4: the bye to 4 (the
  lowest-ranked without one); [1,2,7,3]: 1-7, 2-3; 6-5. (7,1) (2,3) (6,5).
  Results: 1 beats 7 by 200, 2 beats 3 by 10, 6 beats 5 by 20.
- R3, standings 1 (2), 2 (2), 3, 6, 4, 7 (1), 5 (0): the bye to 5; 1-2; [3,6,4,7]: 3-4,
  6-7. (1,2) (4,3) (6,7). Results: 1 beats 2 by 150, 4 beats 3 by 10, 6 beats 7 by 30.
- R4, standings 1 (3), 6, 4, 2 (2), 3, 5, 7 (1): the bye to 3 (the only one of the lowest
  without one); 1 meets the top of the next group, 6; 4-2; 5-7. (1,6) (2,4) (5,7).
"""

from __future__ import annotations

from tests.tournaments.swiss_sim import Field

RATINGS = [2000.0 - 100 * i for i in range(1, 8)]

SIX_ROUNDS = [
    ([(1, 4), (5, 2), (3, 6)], [(1.0, 100), (0.0, -50), (1.0, 30)]),
    ([(2, 1), (5, 3), (6, 4)], [(1.0, 20), (0.0, -45), (0.0, -60)]),
    ([(3, 2), (6, 1), (4, 5)], [(1.0, 100), (0.0, -50), (1.0, 10)]),
    ([(1, 3), (4, 2), (5, 6)], None),
]

SEVEN_ROUNDS = [
    ([(1, 4), (5, 2), (3, 6)], 7, [(1.0, 100), (0.0, -50), (1.0, 30)]),
    ([(7, 1), (2, 3), (6, 5)], 4, [(0.0, -200), (1.0, 10), (1.0, 20)]),
    ([(1, 2), (4, 3), (6, 7)], 5, [(1.0, 150), (1.0, 10), (1.0, 30)]),
    ([(1, 6), (2, 4), (5, 7)], 3, None),
]


def test_six_players_over_four_rounds() -> None:
    field = Field.of(RATINGS[:6], rounds=4)
    for number, (pairs, results) in enumerate(SIX_ROUNDS, start=1):
        pairing = field.pair()
        assert list(pairing.pairs) == pairs, f"round {number}"
        assert pairing.bye is None
        assert pairing.gibson is None
        assert pairing.rematches == 0
        if results is not None:
            field.play(pairing, results)
    assert field.history[2].crossings == 2  # R3: two floats rather than the 1-4 rematch


def test_seven_players_over_four_rounds() -> None:
    field = Field.of(RATINGS, rounds=4)
    for number, (pairs, bye, results) in enumerate(SEVEN_ROUNDS, start=1):
        pairing = field.pair()
        assert list(pairing.pairs) == pairs, f"round {number}"
        assert pairing.bye == bye, f"round {number}"
        assert pairing.gibson is None
        if results is not None:
            field.play(pairing, results)
    assert sorted(p.bye for p in field.history if p.bye) == [3, 4, 5, 7]
