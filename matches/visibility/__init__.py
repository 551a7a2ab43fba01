"""What one viewer may see of a match: the only door out for match data.

Every page, websocket frame, API answer and export is built here, for one viewer:

- :mod:`~matches.visibility.policy`: the secrecy policy, what each viewer may know and until
  when (written once; the builders ask it, and ``tests/secrecy`` proves them to it);
- :mod:`~matches.visibility.access`: who may watch, and :func:`access_match`, the one way in
  to read a match (pages, the API and the socket alike);
- :mod:`~matches.visibility.payloads`: snapshots, news and acknowledgements
  (the shapes of :mod:`matches.schemas`);
- :mod:`~matches.visibility.pages`: lists and the board page, made readable;
- :mod:`~matches.visibility.exports`: the API's rows and states, replays, GCG, the bag's proof;
- :mod:`~matches.visibility.record`: after the end, the whole record is public (the one place
  that decides it);
- :mod:`~matches.visibility.review`: after the end, a player's own moves beside the best play
  from each rack (the replay's analysis, all at once).

While a match is played, a rack's letters go only to the seat that holds them, the tiles a
swap returned only to the swapper, and the bag's contents, order and seed to nobody. Once it
is over, every rack, draw and swap and the seed are public to whoever may see the match.
"""

from matches.visibility.access import (
    MatchAccess,
    MatchHidden,
    MatchNotFound,
    Role,
    Viewer,
    access_match,
    can_rotate_key,
    can_share,
    can_watch,
    is_club_member,
    key_is_valid,
    viewer_for,
    viewing_key,
)
from matches.visibility.exports import (
    TurnNotPlayed,
    api_match_row,
    api_match_state,
    bag_proof,
    gcg_for,
    replay,
)
from matches.visibility.fairness import fairness_record, finished_record, verification_file
from matches.visibility.pages import (
    MatchLine,
    MatchPage,
    can_view_tournament,
    match_line,
    match_page,
    result_text,
    visible_matches,
)
from matches.visibility.payloads import (
    challenge_news,
    challenged,
    commit_accepted,
    match_view,
    no_news,
    public_match,
    rack_news,
    rematch_news,
    result_news,
    seat_views,
    seats_news,
    turn_news,
)
from matches.visibility.record import record_is_public, seats_shown
from matches.visibility.review import moves_review
from matches.visibility.titles import match_title

__all__ = [
    "MatchAccess",
    "MatchHidden",
    "MatchLine",
    "MatchNotFound",
    "MatchPage",
    "Role",
    "TurnNotPlayed",
    "Viewer",
    "access_match",
    "api_match_row",
    "api_match_state",
    "bag_proof",
    "can_rotate_key",
    "can_share",
    "can_view_tournament",
    "can_watch",
    "challenge_news",
    "challenged",
    "commit_accepted",
    "fairness_record",
    "finished_record",
    "gcg_for",
    "is_club_member",
    "key_is_valid",
    "match_line",
    "match_page",
    "match_title",
    "match_view",
    "moves_review",
    "no_news",
    "public_match",
    "rack_news",
    "record_is_public",
    "rematch_news",
    "replay",
    "result_news",
    "result_text",
    "seat_views",
    "seats_news",
    "seats_shown",
    "turn_news",
    "verification_file",
    "viewer_for",
    "viewing_key",
    "visible_matches",
]
