"""Every change a tournament or its fixtures go through, one function each, one transaction
each, as the matches core's services (docs/DESIGN.md, "one way in").

- :mod:`.fixtures`: scheduling fixtures and round robins;
- :mod:`.organising`: an organiser reschedules, cancels, adjudicates or voids a fixture,
  substitutes a player, postpones a round or withdraws a player;
- :mod:`.swiss`: a Swiss tournament, created, then paired round by round;
- :mod:`.league`: a league of divisions, created, its seasons closed and the next built
  (promotion and relegation), members withdrawn between seasons;
- :mod:`.knockout`: a knockout, created with its bracket, then advanced as games finish.
"""

from tournaments.services.fixtures import create_fixture, create_round_robin, round_robin_pairings
from tournaments.services.knockout import (
    NotAKnockout,
    advance_knockout,
    advance_knockout_now,
    create_knockout,
)
from tournaments.services.league import (
    LeagueSeasonClosed,
    LeagueSeasonUnfinished,
    NotALeague,
    NotInLeague,
    close_season,
    create_league,
    start_next_season,
    withdraw_from_league,
)
from tournaments.services.organising import (
    fixture_cancel,
    fixture_reschedule,
    fixture_substitute,
    match_adjudicate,
    round_postpone,
)
from tournaments.services.swiss import (
    NotASwiss,
    SwissComplete,
    SwissRoundUnfinished,
    SwissTooSmall,
    create_swiss,
    pair_completed_round,
    pair_next_round,
)

__all__ = [
    "LeagueSeasonClosed",
    "LeagueSeasonUnfinished",
    "NotAKnockout",
    "NotALeague",
    "NotASwiss",
    "NotInLeague",
    "SwissComplete",
    "SwissRoundUnfinished",
    "SwissTooSmall",
    "advance_knockout",
    "advance_knockout_now",
    "close_season",
    "create_fixture",
    "create_knockout",
    "create_league",
    "create_round_robin",
    "create_swiss",
    "fixture_cancel",
    "fixture_reschedule",
    "fixture_substitute",
    "match_adjudicate",
    "pair_completed_round",
    "pair_next_round",
    "round_postpone",
    "round_robin_pairings",
    "start_next_season",
    "withdraw_from_league",
]
