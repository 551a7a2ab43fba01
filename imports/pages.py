"""The one door out for an imported game: the replay page's content, built for its viewer.

The page shows the board after one step (0 is the empty board, step N the board after the
N-th line of the record), every turn with its checks and the best play beside it, and the
steps as JSON (:class:`ReplaySteps`) for ``replay.js`` to move between without a reload.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from engine import Board, format_position, get_ruleset
from imports.access import ImportedGameAccess
from imports.schemas import Replay, ReplayTile, ReplayTurn
from matches.visibility.grid import GridRow, board_grid

_ANALYSIS_TEXT = {
    "no_rack": "The record does not show this rack.",
    "bad_rack": "Not a rack of these rules: not analysed.",
    "over_budget": "Not analysed: the import's time for analysis ran out.",
}
#: What the page says of the analysis while it is not done, by the import's status.
_STATUS_TEXT = {
    "queued": "Finding the best play of each rack: this page shows them when it is done.",
    "running": "Finding the best play of each rack: this page shows them when it is done.",
    "failed": "The best plays could not be found for this game.",
}


def _over_cap_text(cap: int) -> str:
    return f"Not analysed: an import analyses its first {cap} moves."


_KIND_TEXT = {
    "pass": "passed",
    "withdrawn": "took back the last play (challenged off)",
    "challenge_bonus": "challenge bonus",
    "time_penalty": "time penalty",
}


class ReplaySteps(BaseModel):
    """What replay.js needs to show any step: the board rows (``.`` empty, lower case a
    blank), the squares the step's turn placed (``H8`` style), and both totals."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    boards: list[list[str]]
    placed: list[list[str]]
    totals: list[tuple[int, int]]


@dataclass(frozen=True)
class TurnLine:
    """One turn of the list: who, the move, the checks, and the best play beside it."""

    step: int
    line: int
    player: str
    rack: str
    what: str
    score: int
    total: int
    computed_score: int | None
    withdrawn: bool
    flags: tuple[str, ...]
    phonies: tuple[str, ...]
    best: str
    best_score: int | None
    best_gain: int
    #: The best play is the play that was made (the same tiles on the same squares), not
    #: merely one scoring the same.
    best_is_played: bool
    analysis: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ReplayPage:
    title: str
    game_id: int
    is_owner: bool
    ruleset: str
    lexicon: str
    recorded_lexicon: str | None
    players: tuple[str, str]
    notes: tuple[str, ...]
    step: int
    steps: int
    totals: tuple[int, int]
    columns: tuple[str, ...]
    grid: tuple[GridRow, ...]
    turns: tuple[TurnLine, ...]
    flagged: int
    data: ReplaySteps
    share_key: str | None
    #: The import's status (``ImportedGame.Status``) and what the page says of it, if
    #: anything; ``analysing`` while a worker is still to store the best plays.
    status: str
    status_text: str
    analysing: bool
    #: The moves analysed and those left out, when the record had more than an import
    #: analyses (else 0 and 0).
    analysed_cap: int
    over_cap: int


def _square(row: int, col: int) -> str:
    return format_position(row, col, across=False)


def replay_steps(replay: Replay) -> ReplaySteps:
    """The board and totals after every step, from the turns' placed and lifted tiles."""
    board = Board.empty(replay.board_size)
    boards: list[list[str]] = [list(board.rows())]
    placed: list[list[str]] = [[]]
    totals: list[tuple[int, int]] = [(0, 0)]
    for turn in replay.turns:
        squares = [(t.row, t.col) for t in turn.tiles]
        if turn.kind == "play":
            cells = list(board.cells)
            for tile in turn.tiles:
                cells[tile.row * board.size + tile.col] = tile.letter
            board = Board(board.size, tuple(cells))
            placed.append([_square(r, c) for r, c in squares])
        else:
            if turn.kind == "withdrawn":
                board = board.remove(squares)
            placed.append([])
        boards.append(list(board.rows()))
        totals.append(turn.totals)
    return ReplaySteps(boards=boards, placed=placed, totals=totals)


def _squares(tiles: list[ReplayTile]) -> set[tuple[int, int, str]]:
    return {(tile.row, tile.col, tile.letter) for tile in tiles}


def _turn_line(turn: ReplayTurn, players: tuple[str, str], *, cap: int) -> TurnLine:
    if turn.kind == "play":
        what = f"{turn.move}" + (" (withdrawn)" if turn.withdrawn else "")
    elif turn.kind == "exchange":
        what = f"exchanged {turn.move[1:]}"
    elif turn.kind == "end_rack":
        what = f"tiles left on the rack {turn.move}"
    else:
        what = _KIND_TEXT.get(turn.kind, turn.move)
    best, best_score, gain, is_played = "", None, 0, False
    if turn.best is not None:
        best = f"{turn.best.position} {turn.best.word}"
        best_score = turn.best.score
        played = turn.computed_score if turn.computed_score is not None else turn.score
        gain = turn.best.score - played if turn.kind == "play" else turn.best.score
        is_played = turn.kind == "play" and _squares(turn.best.tiles) == _squares(turn.tiles)
    elif turn.analysis == "done":
        best = "no play at all"
    return TurnLine(
        step=turn.number,
        line=turn.line,
        player=players[turn.seat],
        rack=turn.rack,
        what=what,
        score=turn.score,
        total=turn.total,
        computed_score=turn.computed_score,
        withdrawn=turn.withdrawn,
        flags=tuple(flag.message for flag in turn.flags),
        phonies=tuple(w.word.upper() for w in turn.words if not w.in_lexicon),
        best=best,
        best_score=best_score,
        best_gain=gain,
        best_is_played=is_played,
        analysis=(
            _over_cap_text(cap)
            if turn.analysis == "over_cap"
            else _ANALYSIS_TEXT.get(turn.analysis, "")
        ),
        notes=tuple(turn.notes),
    )


def replay_page(access: ImportedGameAccess, *, step: object = None) -> ReplayPage:
    """The page for ``access``'s viewer at ``step`` (the last step when absent or not a step)."""
    game = access.game
    replay = Replay.model_validate(game.replay)
    data = replay_steps(replay)
    last = len(replay.turns)
    try:
        at = int(str(step)) if step is not None else last
    except ValueError:
        at = last
    at = min(max(at, 0), last)
    rules = get_ruleset(replay.ruleset)
    grid = board_grid(ruleset=rules, board=data.boards[at], placed=set(data.placed[at]))
    names = (replay.players[0].name, replay.players[1].name)
    over_cap = replay.moves_over_cap
    # The cap is what the analysis stopped at: every move before the first left out.
    cap = sum(1 for turn in replay.turns if turn.analysis == "done") if over_cap else 0
    return ReplayPage(
        title=game.title,
        game_id=game.pk,
        is_owner=access.is_owner,
        ruleset=replay.ruleset,
        lexicon=replay.lexicon.upper(),
        recorded_lexicon=replay.recorded_lexicon,
        players=names,
        notes=tuple(replay.notes),
        step=at,
        steps=last,
        totals=data.totals[at],
        columns=tuple(chr(ord("A") + c) for c in range(replay.board_size)),
        grid=tuple(grid),
        turns=tuple(_turn_line(turn, names, cap=cap) for turn in replay.turns),
        flagged=replay.flagged_turns,
        data=data,
        share_key=game.share_key if access.is_owner else None,
        status=game.status,
        status_text=_STATUS_TEXT.get(game.status, ""),
        analysing=game.status in game.IN_PROGRESS,
        analysed_cap=cap,
        over_cap=over_cap,
    )
