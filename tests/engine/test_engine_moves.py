"""The wire parser: good shapes round-trip, everything else is a clear MalformedMove."""

from __future__ import annotations

from typing import Any

import pytest

from engine import (
    BlankNeedsLetter,
    Game,
    MalformedMove,
    Pass,
    PlacedTile,
    Play,
    Swap,
    move_from_dict,
)


def tile(**overrides: Any) -> dict[str, Any]:
    return {"row": 7, "col": 7, "letter": "A", "blank": False, **overrides}


@pytest.mark.parametrize(
    ("data", "move"),
    [
        ({"kind": "pass"}, Pass()),
        ({"kind": "swap", "tiles": ["A", "?"]}, Swap(("A", "?"))),
        ({"kind": "play", "tiles": [tile()]}, Play((PlacedTile(7, 7, "A", False),))),
        (
            {"kind": "play", "tiles": [tile(letter="Q", blank=True), tile(col=8, letter="I")]},
            Play((PlacedTile(7, 7, "Q", True), PlacedTile(7, 8, "I", False))),
        ),
        ({"kind": "play", "tiles": [{"row": 0, "col": 14, "letter": "Z"}]}, None),
    ],
)
def test_good_shapes(data: dict[str, Any], move: object) -> None:
    parsed = move_from_dict(data)
    if move is not None:
        assert parsed == move
    assert move_from_dict(parsed.to_dict()) == parsed


MALFORMED = [
    None,
    [],
    "pass",
    {},
    {"kind": "resign"},
    {"kind": "PASS"},
    {"kind": "pass", "extra": 1},
    {"kind": "swap"},
    {"kind": "swap", "tiles": []},
    {"kind": "swap", "tiles": "AB"},
    {"kind": "swap", "tiles": ["a"]},
    {"kind": "swap", "tiles": ["AB"]},
    {"kind": "swap", "tiles": [1]},
    {"kind": "swap", "tiles": list("ABCDEFGH")},
    {"kind": "swap", "tiles": ["A"], "player": 0},
    {"kind": "play"},
    {"kind": "play", "tiles": []},
    {"kind": "play", "tiles": {}},
    {"kind": "play", "tiles": [tile() for _ in range(8)]},
    {"kind": "play", "tiles": ["A"]},
    {"kind": "play", "tiles": [tile(row=15)]},
    {"kind": "play", "tiles": [tile(col=-1)]},
    {"kind": "play", "tiles": [tile(row="7")]},
    {"kind": "play", "tiles": [tile(row=7.0)]},
    {"kind": "play", "tiles": [tile(row=True)]},
    {"kind": "play", "tiles": [tile(row=None)]},
    {"kind": "play", "tiles": [tile(letter="a")]},
    {"kind": "play", "tiles": [tile(letter="AB")]},
    {"kind": "play", "tiles": [tile(letter="?")]},
    {"kind": "play", "tiles": [tile(letter="É")]},
    {"kind": "play", "tiles": [tile(letter=1)]},
    {"kind": "play", "tiles": [{"row": 7, "col": 7, "blank": False}]},
    {"kind": "play", "tiles": [{"col": 7, "letter": "A"}]},
    {"kind": "play", "tiles": [tile(blank="yes")]},
    {"kind": "play", "tiles": [tile(blank=1)]},
    {"kind": "play", "tiles": [tile(), tile()]},
    {"kind": "play", "tiles": [tile(colour="red")]},
    {"kind": "play", "tiles": [tile()], "turn": 3},
]


@pytest.mark.parametrize("data", MALFORMED)
def test_malformed(data: object) -> None:
    with pytest.raises(MalformedMove) as caught:
        move_from_dict(data)
    assert caught.value.message
    assert str(caught.value) == caught.value.message


@pytest.mark.parametrize(
    "blank_tile",
    [
        {"row": 7, "col": 7, "blank": True},
        tile(letter="", blank=True),
        tile(letter="?", blank=True),
        tile(letter=None, blank=True),
        tile(letter="ab", blank=True),
    ],
)
def test_blank_without_a_letter(blank_tile: dict[str, Any]) -> None:
    with pytest.raises(BlankNeedsLetter) as caught:
        move_from_dict({"kind": "play", "tiles": [blank_tile]})
    assert caught.value.message == "Choose a letter for the blank."
    assert isinstance(caught.value, MalformedMove)


def test_board_size_is_respected() -> None:
    data = {"kind": "play", "tiles": [tile(row=11)]}
    assert move_from_dict(data, board_size=15)
    with pytest.raises(MalformedMove, match="off the board"):
        move_from_dict(data, board_size=11)


def test_messages_say_what_is_wrong() -> None:
    with pytest.raises(MalformedMove, match="off the board"):
        move_from_dict({"kind": "play", "tiles": [tile(row=99)]})
    with pytest.raises(MalformedMove, match="same square"):
        move_from_dict({"kind": "play", "tiles": [tile(), tile()]})
    with pytest.raises(MalformedMove, match="'turn'"):
        move_from_dict({"kind": "pass", "turn": 1})
    with pytest.raises(MalformedMove, match="1 to 7 tiles"):
        move_from_dict({"kind": "play", "tiles": []})


@pytest.mark.parametrize(
    "move",
    [
        "pass",
        None,
        {"kind": "pass"},
        Play([PlacedTile(7, 7, "A")]),  # type: ignore[arg-type]
        Play(()),
        Play((PlacedTile(7, 7, "A"), PlacedTile(7, 7, "B"))),
        Play((PlacedTile(7, 15, "A"),)),
        Play((PlacedTile(7, 7, "a"),)),
        Play(("A",)),  # type: ignore[arg-type]
        Swap(()),
        Swap(("A",) * 8),
        Swap(["A"]),  # type: ignore[arg-type]
        Swap(("AB",)),
    ],
)
def test_hand_built_moves_are_held_to_the_same_standard(move: object) -> None:
    game = Game.new(seed=bytes(32))
    with pytest.raises(MalformedMove):
        game.apply(move, player=0, lexicon=None)  # type: ignore[arg-type]
