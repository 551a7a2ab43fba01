"""``{% computer_level match_id %}``: on a match's page, the computer's level form for the member
it plays, or for an organiser the form that seats it in an empty seat of a scheduled fixture
(nothing for anyone else); ``{% play_computer_form %}``: the home page's start form;
``{% practice_review match_id key %}``: after a game against the computer, its member's
moves beside the computer's best (``matches.visibility.moves_review``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import template

from accounts import guests
from engine.ladder import with_rating
from matches import services, visibility
from matches.models import Match
from matches.schemas import ReviewedMove, WordView
from matches.visibility.access import is_club_member
from practice.models import LEVELS, ComputerOpponent
from practice.services import MEMBERS_PRACTISE

register = template.Library()


def _rated(ruleset: str | None) -> list[tuple[str, str]]:
    """Each level's name with its measured rating on the club's scale (engine/ladder.py):
    in ``ruleset``, or over every ruleset when the match's is not known."""
    if ruleset is None:
        return [(value, with_rating(label, value)) for value, label in LEVELS]
    return [(value, with_rating(label, value, ruleset=ruleset)) for value, label in LEVELS]


@register.inclusion_tag("practice/_level.html", takes_context=True)
def computer_level(context: dict[str, Any], match_id: int) -> dict[str, Any]:
    request = context.get("request")
    user = guests.viewer(request) if request is not None else None  # a guest's game too
    opponent = (
        ComputerOpponent.objects.filter(match_id=match_id)
        .select_related("match")
        .order_by("position")
        .first()
    )
    plays_it = (
        opponent is not None
        and user is not None
        and user.is_authenticated
        and _plays_the_computer(opponent.match, user)
    )
    return {
        "opponent": opponent if plays_it else None,
        "levels": _rated(opponent.match.ruleset if opponent is not None else None),
        "csrf_token": context.get("csrf_token"),
        "match_id": match_id,
        "free_seats": _free_seats(match_id, user) if opponent is None else [],
    }


def _plays_the_computer(match: Match, user: Any) -> bool:
    """Whether ``user`` sits in ``match`` in a seat that is not a computer's."""
    return (
        match.seats.filter(member_id=user.pk)
        .exclude(position__in=match.computers.values_list("position", flat=True))
        .exists()
    )


def _free_seats(match_id: int, user: Any) -> list[tuple[int, str]]:
    """For an organiser: the empty seats of a scheduled, unrated fixture the computer may
    fill, as (position, label)."""
    if user is None or not user.is_authenticated or not user.is_organiser:
        return []
    match = Match.objects.filter(pk=match_id, status=Match.Status.SCHEDULED, rated=False).first()
    if match is None:
        return []
    return [
        (seat.position, seat.get_position_display())
        for seat in match.seats.filter(member__isnull=True).order_by("position")
    ]


#: The practice form's challenge rules, in words (docs/RULES.md, "Challenges").
CHALLENGE_RULE_CHOICES = [
    ("void", "None: a phony is refused"),
    ("single", "Single: a wrong challenge costs nothing"),
    ("double", "Double: a wrong challenge loses a turn"),
    ("five_point", "5 points to the player on a wrong challenge"),
    ("ten_point", "10 points to the player on a wrong challenge"),
]


@register.inclusion_tag("practice/_start.html", takes_context=True)
def play_computer_form(context: dict[str, Any]) -> dict[str, Any]:
    """The home page's "Play the computer" form (a level, then the board at once); for a
    visitor, "Play the computer now" as a guest; for an account that is not an approved
    member, why not instead."""
    request = context.get("request")
    user = getattr(request, "user", None)
    return {
        "practice_levels": _rated("word-duel"),  # a practice game's ruleset
        "csrf_token": context.get("csrf_token"),
        "allowed": is_club_member(user),
        # A visitor plays at once as a guest (practice/guests.py).
        "guest": user is None or not user.is_authenticated,
        "refusal": MEMBERS_PRACTISE,
        "challenge_rules": CHALLENGE_RULE_CHOICES,
    }


@register.inclusion_tag("practice/_review.html", takes_context=True)
def practice_review(context: dict[str, Any], match_id: int, key: str = "") -> dict[str, Any]:
    """For the member the computer played: once the match is over, their own moves, each
    beside the computer's best from the same rack, and the points left on the board; while
    it is played, a hidden link to it that practice/review.js shows if it ends on the page.
    Who may see a review is the core's to say (``visibility.moves_review``: a seated
    player, after the end); here only the matches it is offered on: the computer's."""
    request = context.get("request")
    user = guests.viewer(request) if request is not None else None
    opponent = (
        ComputerOpponent.objects.filter(match_id=match_id)
        .select_related("match")
        .order_by("position")
        .first()
    )
    if (
        opponent is None
        or user is None
        or not user.is_authenticated
        or not _plays_the_computer(opponent.match, user)
    ):
        return {"review": None}
    if not opponent.match.is_over:
        # During the game: only the promise, shown (practice/review.js) if it ends here.
        return {"review": None, "upcoming": True}
    try:
        access = services.look_at_match(user=user, match_id=match_id, key=key or None)
    except visibility.MatchNotFound:
        return {"review": None}
    review = visibility.moves_review(access)
    if review is None:
        return {"review": None}
    return {"review": review, "rows": [_row(move) for move in review.moves]}


@dataclass(frozen=True)
class ReviewRow:
    """One line of the table, in words."""

    number: int
    rack: str
    yours: str
    score: int
    best: str
    best_score: int
    lost: int


def _play_words(words: list[WordView]) -> str:
    """A play as the move list writes it: its words (main word first) and where it went."""
    return f"{', '.join(word.tiles for word in words)} at {words[0].position}"


def _row(move: ReviewedMove) -> ReviewRow:
    if move.kind == "play" and move.words:
        yours = _play_words(move.words)
    elif move.kind == "swap":
        yours = f"swapped {move.swap_count} tile{'s' if move.swap_count != 1 else ''}"
    else:
        yours = "passed" if move.kind == "pass" else "played"
    best = move.best
    return ReviewRow(
        number=move.number,
        rack=move.rack,
        yours=yours,
        score=move.score,
        best=_play_words(best.words) if best is not None and best.words else "no play",
        best_score=best.score if best is not None else 0,
        lost=move.points_lost,
    )
