"""GCG game records (https://www.poslfit.com/scrabble/gcg/): read, write, re-score.

GCG is to this engine what PGN is to chess: the exchange format for finished games. The
reader keeps every pragma and note; the writer shows a rack's letters only for the seats it
is told may see them; ``verify_records`` replays the plays of records onto a board and checks
each recorded score against the engine's scoring.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .board import Board, format_position, parse_position
from .errors import GcgError, MoveError
from .game import Game
from .moves import LETTERS, PlacedTile, Play, Swap
from .rulesets import Ruleset, get_ruleset
from .scoring import evaluate_play

PLAY = "play"
EXCHANGE = "exchange"
PASS = "pass"  # noqa: S105 - an event kind, not a password
WITHDRAWN = "withdrawn"
CHALLENGE_BONUS = "challenge_bonus"
END_RACK = "end_rack"
TIME_PENALTY = "time_penalty"

_EVENT = re.compile(r"^>([^:]+):(.*)$")
_RACK = re.compile(r"^[A-Za-z?]+$")
_SCORE = re.compile(r"^[+-]?\d+$")
_TOTAL = re.compile(r"^-?\d+$")
_PARENS = re.compile(r"^\(([A-Za-z?]*|\d+)\)$")
_EXCHANGE = re.compile(r"^-([A-Za-z?]+|\d+)$")
_WORD = re.compile(r"^[A-Za-z.]+$")


@dataclass(frozen=True, slots=True)
class GcgPlayer:
    """A ``#player1``/``#player2`` pragma: the nick used on move lines and the full name."""

    nick: str
    name: str


@dataclass(frozen=True, slots=True)
class GcgEvent:
    """One ``>`` line of a record."""

    line: int
    kind: str
    nick: str
    rack: str
    score: int
    total: int
    text: str
    position: str | None = None
    word: str | None = None
    #: Exchange: the letters returned, or None when only a count was recorded.
    exchanged: str | None = None
    exchange_count: int | None = None
    #: End-rack line: the tiles counted (None when only a count was written).
    end_rack: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def move_text(self) -> str:
        """A short form of the move for reports: ``8D WINDY``, ``-ABC``, ``--``."""
        if self.kind == PLAY:
            return f"{self.position} {self.word}"
        return self.text.split(":", 1)[1].strip()


@dataclass(frozen=True, slots=True)
class GcgRecord:
    """A parsed record: players, known pragmas, every pragma in order, and the events."""

    players: tuple[GcgPlayer | None, GcgPlayer | None]
    title: str | None
    lexicon: str | None
    pragmas: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    events: tuple[GcgEvent, ...]

    @property
    def plays(self) -> tuple[GcgEvent, ...]:
        """The tile placements, including ones later withdrawn."""
        return tuple(event for event in self.events if event.kind == PLAY)


@dataclass
class _Pending:
    fields: dict[str, object]
    notes: list[str] = field(default_factory=list)


def _event_fields(nick: str, body: str, line: int) -> dict[str, object]:
    tokens = body.split()
    rack = tokens.pop(0) if tokens and _RACK.match(tokens[0]) else ""
    if len(tokens) < 3:
        raise GcgError("a move line needs a move, a score and a total", line=line)
    *move, score_text, total_text = tokens
    if not _SCORE.match(score_text) or not _TOTAL.match(total_text):
        raise GcgError(f"bad score or total: {score_text} {total_text}", line=line)
    result: dict[str, object] = {
        "nick": nick,
        "rack": rack,
        "score": int(score_text),
        "total": int(total_text),
    }
    head = move[0]
    if len(move) == 2 and _WORD.match(move[1]):
        try:
            parse_position(head, size=26)
        except ValueError as error:
            raise GcgError(str(error), line=line) from None
        result.update(kind=PLAY, position=head.upper(), word=move[1])
        return result
    if len(move) != 1:
        raise GcgError(f"cannot read the move {' '.join(move)!r}", line=line)
    if head == "--":
        result["kind"] = WITHDRAWN
    elif head == "-":
        result["kind"] = PASS
    elif match := _EXCHANGE.match(head):
        tiles = match[1]
        if tiles.isdigit():
            result.update(kind=EXCHANGE, exchange_count=int(tiles))
        else:
            result.update(kind=EXCHANGE, exchanged=tiles, exchange_count=len(tiles))
    elif head.lower() == "(challenge)":
        result["kind"] = CHALLENGE_BONUS
    elif head.lower() == "(time)":
        result["kind"] = TIME_PENALTY
    elif match := _PARENS.match(head):
        counted = match[1]
        result.update(kind=END_RACK, end_rack=None if counted.isdigit() else counted)
    else:
        raise GcgError(f"cannot read the move {head!r}", line=line)
    return result


def parse_gcg(text: str) -> GcgRecord:
    """Parse a GCG record; raises GcgError (with the line number) on a line it cannot read."""
    players: list[GcgPlayer | None] = [None, None]
    title = lexicon = None
    pragmas: list[tuple[str, str]] = []
    notes: list[str] = []
    pending: list[_Pending] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if number == 1:
            line = line.lstrip("\ufeff")
        if not line.strip():
            continue
        if line.startswith("#"):
            name, _, value = line[1:].partition(" ")
            value = value.strip()
            if name == "note":
                (pending[-1].notes if pending else notes).append(value)
                continue
            pragmas.append((name, value))
            if name in ("player1", "player2"):
                nick, _, full = value.partition(" ")
                players[int(name[-1]) - 1] = GcgPlayer(nick, full.strip() or nick)
            elif name == "title":
                title = value
            elif name == "lexicon":
                lexicon = value
            continue
        if match := _EVENT.match(line):
            fields = _event_fields(match[1].strip(), match[2], number)
            fields.update(line=number, text=line.strip())
            pending.append(_Pending(fields))
            continue
        # Any other line continues the last note (notes may span lines).
        target = pending[-1].notes if pending else notes
        if target:
            target[-1] = f"{target[-1]}\n{line}"
        else:
            target.append(line)
    events = tuple(GcgEvent(**item.fields, notes=tuple(item.notes)) for item in pending)  # type: ignore[arg-type]
    return GcgRecord(
        players=(players[0], players[1]),
        title=title,
        lexicon=lexicon,
        pragmas=tuple(pragmas),
        notes=tuple(notes),
        events=events,
    )


def play_from_gcg(board: Board, position: str, word: str) -> Play:
    """The tiles a GCG play places: ``.`` (or the letter already there) is played through.

    Lower-case letters are blanks. Raises GcgError when the word runs off the board or
    disagrees with a tile already on it.
    """
    try:
        row, col, across = parse_position(position, size=board.size)
    except ValueError as error:
        raise GcgError(str(error)) from None
    d_row, d_col = (0, 1) if across else (1, 0)
    tiles: list[PlacedTile] = []
    for offset, char in enumerate(word):
        r, c = row + d_row * offset, col + d_col * offset
        if not (r < board.size and c < board.size):
            raise GcgError(f"{position} {word} runs off the board")
        there = board.get(r, c)
        if char == ".":
            if there is None:
                raise GcgError(f"{position} {word}: plays through an empty square")
            continue
        if there is not None:
            if there.upper() != char.upper():
                raise GcgError(
                    f"{position} {word}: {format_position(r, c, across=True)} holds {there}"
                )
            continue
        if char.upper() not in LETTERS:
            raise GcgError(f"{position} {word}: bad letter {char!r}")
        tiles.append(PlacedTile(r, c, char.upper(), blank=char.islower()))
    if not tiles:
        raise GcgError(f"{position} {word} places no tile")
    return Play(tuple(tiles))


# -- writing ---------------------------------------------------------------------------------


def _nicks(names: tuple[str, str]) -> tuple[str, str]:
    nicks = [
        re.sub(r"[\s:]+", "_", name.strip()) or f"player{i + 1}" for i, name in enumerate(names)
    ]
    if nicks[0] == nicks[1]:
        nicks[1] += "_2"
    return (nicks[0], nicks[1])


def _signed(points: int) -> str:
    return f"+{points}" if points >= 0 else str(points)


def export_gcg(
    game: Game,
    *,
    player_names: tuple[str, str],
    visible_racks: frozenset[int] = frozenset({0, 1}),
    title: str | None = None,
) -> str:
    """Write a game as GCG, showing rack letters only for the seats in ``visible_racks``.

    A hidden player's rack field is left empty, their exchanges are written as a count
    (``-3``) and their end-of-game rack as a count in parentheses (``(3)``). Blanks are lower
    case; the end-of-game rack adjustments follow the last turn.
    """
    nicks = _nicks(player_names)
    lines = ["#character-encoding UTF-8"]
    for seat in (0, 1):
        lines.append(f"#player{seat + 1} {nicks[seat]} {player_names[seat].strip() or nicks[seat]}")
    if title:
        lines.append(f"#title {title}")
    lines.append(f"#description Word Duel, ruleset {game.ruleset.name}")
    lines.append(f"#lexicon {game.ruleset.lexicon_name.upper()}")

    def rack_text(seat: int, rack: tuple[str, ...]) -> str:
        return "".join(rack) if seat in visible_racks else ""

    for turn in game.turns:
        seat = turn.player
        head = f">{nicks[seat]}: {rack_text(seat, turn.rack_before)} "
        total = turn.totals[seat]
        move = turn.move
        if isinstance(move, Play):
            main = turn.words[0]
            placed = {(tile.row, tile.col) for tile in move.tiles}
            d_row, d_col = (0, 1) if main.across else (1, 0)
            word = "".join(
                char if (main.row + d_row * i, main.col + d_col * i) in placed else "."
                for i, char in enumerate(main.tiles)
            )
            lines.append(f"{head}{main.position} {word} {_signed(turn.score)} {total}")
        elif isinstance(move, Swap):
            swapped = "".join(sorted(move.tiles)) if seat in visible_racks else len(move.tiles)
            lines.append(f"{head}-{swapped} +0 {total}")
        else:
            lines.append(f"{head}- +0 {total}")
    for adjustment in game.adjustments:
        seat, owner = adjustment.player, adjustment.rack_owner
        counted = "".join(adjustment.rack) if owner in visible_racks else str(len(adjustment.rack))
        own = rack_text(seat, adjustment.rack) if seat == owner else ""
        lines.append(
            f">{nicks[seat]}: {own} ({counted}) {_signed(adjustment.points)} "
            f"{adjustment.totals[seat]}"
        )
    return "\n".join(lines) + "\n"


# -- verification ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A play whose record disagrees with the engine (score, or legality when ``reason``)."""

    file: str
    line: int
    move: str
    recorded: int
    computed: int | None
    reason: str | None = None

    def __str__(self) -> str:
        computed = "?" if self.computed is None else _signed(self.computed)
        text = f"{self.file}:{self.line}: {self.move}: recorded {_signed(self.recorded)}, "
        text += f"computed {computed}"
        return f"{text} ({self.reason})" if self.reason else text


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``verify_records`` found: counts, score mismatches, files it could not read."""

    games: int
    plays: int
    mismatches: tuple[Mismatch, ...]
    #: (file, reason) for each file that could not be read or parsed.
    failures: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        """No mismatch and every file read."""
        return not self.mismatches and not self.failures

    @property
    def summary(self) -> str:
        """The one-line total: ``N games, M plays, K mismatches``."""
        return f"{self.games} games, {self.plays} plays, {len(self.mismatches)} mismatches"


def verify_record(
    record: GcgRecord,
    *,
    ruleset: Ruleset | str = "classic",
    lexicon: Container[str] | None = None,
    file: str = "",
) -> tuple[int, list[Mismatch]]:
    """Re-score every play of one record on a board; returns (plays, mismatches).

    Racks are not needed. Bingo means seven tiles placed. A play later withdrawn (``--``) is
    scored, then lifted off the board, and is not word-checked (it was a phony).
    """
    rules = get_ruleset(ruleset)
    board = Board.empty(rules.board_size)
    last_play: dict[str, Play] = {}
    plays = 0
    mismatches: list[Mismatch] = []
    events = record.events
    for index, event in enumerate(events):
        if event.kind == WITHDRAWN:
            withdrawn = last_play.pop(event.nick, None)
            if withdrawn is not None:
                board = board.remove((tile.row, tile.col) for tile in withdrawn.tiles)
            continue
        if event.kind != PLAY:
            continue
        plays += 1
        later = events[index + 1] if index + 1 < len(events) else None
        phony = later is not None and later.kind == WITHDRAWN and later.nick == event.nick

        def mismatch(
            computed: int | None, reason: str | None = None, event: GcgEvent = event
        ) -> None:
            mismatches.append(
                Mismatch(file, event.line, event.move_text, event.score, computed, reason)
            )

        try:
            play = play_from_gcg(board, event.position or "", event.word or "")
        except GcgError as error:
            mismatch(None, error.reason)
            continue
        try:
            outcome = evaluate_play(
                board, play.tiles, ruleset=rules, bingo=len(play.tiles) == rules.rack_size
            )
        except MoveError as error:
            mismatch(None, error.message)
        else:
            bad = None
            if lexicon is not None and not phony:
                bad = next((w.word for w in outcome.words if w.word not in lexicon), None)
            if bad is not None:
                mismatch(outcome.score, f"{bad} is not in the dictionary.")
            elif outcome.score != event.score:
                mismatch(outcome.score)
        board = board.place(play.tiles)
        last_play[event.nick] = play
    return plays, mismatches


def verify_records(
    paths: Iterable[str | Path],
    *,
    ruleset: Ruleset | str = "classic",
    lexicon: Container[str] | None = None,
) -> VerifyReport:
    """Re-score every play of every record; unreadable files are listed, not raised."""
    rules = get_ruleset(ruleset)
    games = plays = 0
    mismatches: list[Mismatch] = []
    failures: list[tuple[str, str]] = []
    for path in paths:
        name = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
            record = parse_gcg(text)
        except (OSError, UnicodeDecodeError, GcgError) as error:
            failures.append((name, str(error)))
            continue
        count, found = verify_record(record, ruleset=rules, lexicon=lexicon, file=name)
        games += 1
        plays += count
        mismatches.extend(found)
    return VerifyReport(games, plays, tuple(mismatches), tuple(failures))
