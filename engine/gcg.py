"""GCG game records (https://www.poslfit.com/scrabble/gcg/): read, write, re-score.

GCG is to this engine what PGN is to chess: the exchange format for finished games. The
reader takes bytes or text, decodes bytes by the ``#character-encoding`` pragma (the format's
historical default is ISO-8859-1), keeps every pragma and note, and reads the lines that the
main writers (Quackle, Macondo and the Woogles site, older tournament software) really emit.
``format_gcg`` writes a record back; ``export_gcg`` writes a game of this engine, showing a
rack's letters only for the seats it is told may see them, with every piece of free text
folded onto one line so that no name or title can add a line. ``verify_records`` replays the
plays of records onto a board and checks each recorded score against the engine's scoring,
and each cumulative total against the scores before it.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from .board import Board, format_position, parse_position
from .errors import GcgError, MoveError
from .game import FIVE_POINT, SINGLE, TEN_POINT, VOID, ChallengeRule, Game
from .moves import LETTERS, Move, Pass, PlacedTile, Play, StealTake, Swap, SwapTake, Take, TakePlay
from .reword import apply_takes
from .rulesets import Ruleset, get_ruleset
from .scoring import evaluate_play

PLAY = "play"
EXCHANGE = "exchange"
PASS = "pass"  # noqa: S105 - an event kind, not a password
WITHDRAWN = "withdrawn"
CHALLENGE_BONUS = "challenge_bonus"
END_RACK = "end_rack"
TIME_PENALTY = "time_penalty"
#: Reword's extension: a take-play is written as one line per take, then its play's line.
SWAP_TAKE = "swap_take"
STEAL_TAKE = "steal_take"
TAKES = (SWAP_TAKE, STEAL_TAKE)

#: The most seats a record names (``#player1``.. ``#player4``): a table of 2 to 4.
MAX_SEATS = 4

#: The largest record the reader takes, in bytes (in characters when given text). Real games
#: are a few kilobytes; the limit keeps a hostile upload from costing memory and time.
MAX_GCG_SIZE = 1 << 20

#: Encodings a ``#character-encoding`` pragma may name (as ``codecs.lookup`` names them):
#: ASCII supersets only, so the pragma line itself reads the same in each.
_ENCODINGS = frozenset(
    {"utf-8", "ascii", "mac-roman"}
    | {f"iso8859-{n}" for n in (*range(1, 12), *range(13, 17))}
    | {f"cp{n}" for n in range(1250, 1259)}
)
_DECLARED = re.compile(rb"(?:^|[\r\n])[ \t]*#character-encoding[ \t]+([^\s]{1,40})", re.IGNORECASE)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")

_LETTER = r"[^\W\d_]"  # any letter, in any script
_EVENT = re.compile(r"^>([^:]*):(.*)$")
_TOKEN = re.compile(r"\S+")
_RACK = re.compile(rf"^(?:{_LETTER}|\?)+$")
_TILES = re.compile(rf"^(?:{_LETTER}|\?)*$")
_POSITION = re.compile(r"^(?:\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})$")
#: A played word: letters (lower case = blank), ``.`` for a tile already on the board, or
#: letters already on the board in parentheses, ``(O)UTDANcE``.
_WORD = re.compile(rf"^(?:{_LETTER}|\.|\({_LETTER}+\))+$")
_NUMBER = re.compile(r"^[+-]?\d{1,9}$")
#: Reword's take lines: ``~8H Z(e)`` swaps a Z onto 8H for the blank-E there; ``^8K (S)``
#: steals the S on 8K (a lower-case letter: a blank, as it stood on the board).
_TAKE_HEAD = re.compile(r"^([~^])(\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})$")
_SWAP_TILES = re.compile(r"^[A-Za-z]\([A-Za-z]\)$")
_STEAL_TILES = re.compile(r"^\([A-Za-z]\)$")
_EXCHANGE = re.compile(rf"^-((?:{_LETTER}|\?)+|\d{{1,3}})$")
_PARENS = re.compile(rf"^\(((?:{_LETTER}|\?)*|\d{{1,3}})\)$")
_NICK_UNSAFE = re.compile(r"[\s:\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+")
#: Control characters (C0, DEL, C1 including U+0085), line and paragraph separators, and lone
#: surrogates: none of them may reach a written line.
_CONTROL_RUN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+")


@dataclass(frozen=True, slots=True)
class GcgPlayer:
    """A ``#player1``/``#player2`` pragma: the nick used on move lines and the full name."""

    nick: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GcgEvent:
    """One ``>`` line of a record.

    Two events are equal when they say the same thing: where they were read from (``line``,
    ``text``) does not count, so a record written out and read back compares equal.
    """

    kind: str
    nick: str
    #: The rack as written before the move (``?`` is a blank); empty when not shown.
    rack: str
    score: int
    total: int
    #: Play: the position (``8H`` across, ``H8`` down) and the word as written.
    position: str | None = None
    word: str | None = None
    #: Exchange: the letters returned, or None when only a count was recorded.
    exchanged: str | None = None
    exchange_count: int | None = None
    #: End-rack line: the tiles counted (None when only a count was written), and how many.
    end_rack: str | None = None
    end_rack_count: int | None = None
    #: Text after the cumulative total; Quackle writes the cross-words of a play there.
    comment: str = ""
    notes: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)
    text: str = field(default="", compare=False)

    @property
    def move_text(self) -> str:
        """A short form of the move for reports: ``8D WINDY``, ``-ABC``, ``--``."""
        if self.kind == PLAY:
            return f"{self.position} {self.word}"
        if self.kind in TAKES:
            return f"{_TAKE_MARK[self.kind]}{self.position} {self.word}"
        if self.kind == EXCHANGE:
            return f"-{self.exchanged if self.exchanged is not None else self.exchange_count}"
        if self.kind == END_RACK:
            return f"({self.end_rack if self.end_rack is not None else self.end_rack_count})"
        return _FIXED_MOVES.get(self.kind, self.kind)


_TAKE_MARK = {SWAP_TAKE: "~", STEAL_TAKE: "^"}

_FIXED_MOVES = {
    WITHDRAWN: "--",
    PASS: "-",
    CHALLENGE_BONUS: "(challenge)",
    TIME_PENALTY: "(time)",
}


@dataclass(frozen=True, slots=True)
class GcgRecord:
    """A parsed record: every pragma in order, the notes before the first move, the events.

    The pragmas are the source of truth; ``players``, ``title`` and the rest read them (the
    last one of a name wins, as when a header is given twice).
    """

    pragmas: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]
    events: tuple[GcgEvent, ...]
    #: The codec the bytes were decoded with (``utf-8``, ``iso8859-1``); None for text.
    encoding: str | None = field(default=None, compare=False)

    def pragma(self, name: str) -> str | None:
        """The value of the last ``#name`` pragma, or None when there is none."""
        name = name.lower()
        return next((value for key, value in reversed(self.pragmas) if key == name), None)

    @property
    def players(self) -> tuple[GcgPlayer | None, ...]:
        """The seats as ``#player1``.. ``#player4`` name them (None when not named): two at
        least, and as many as the highest ``#playerN`` names (a table of 3 or 4)."""
        named = [_player(self.pragma(f"player{n}")) for n in range(1, MAX_SEATS + 1)]
        count = max([2, *(n + 1 for n, player in enumerate(named) if player is not None)])
        return tuple(named[:count])

    @property
    def title(self) -> str | None:
        """``#title``."""
        return self.pragma("title")

    @property
    def description(self) -> str | None:
        """``#description``."""
        return self.pragma("description")

    @property
    def lexicon(self) -> str | None:
        """``#lexicon``: the word list the game was played with (NWL2018, CSW21, ...)."""
        return self.pragma("lexicon")

    @property
    def racks(self) -> tuple[str | None, ...]:
        """``#rack1``.. ``#rackN``: the racks held when an unfinished record stops, one per
        seat of ``players``."""
        return tuple(self.pragma(f"rack{n}") for n in range(1, len(self.players) + 1))

    @property
    def incomplete(self) -> bool:
        """``#incomplete``: the record stops before the end of the game."""
        return self.pragma("incomplete") is not None

    @property
    def plays(self) -> tuple[GcgEvent, ...]:
        """The tile placements, including ones later withdrawn."""
        return tuple(event for event in self.events if event.kind == PLAY)


def _player(value: str | None) -> GcgPlayer | None:
    if not value:
        return None
    nick, _, name = value.partition(" ")
    return GcgPlayer(nick, name.strip() or nick)


# -- reading ---------------------------------------------------------------------------------


def parse_gcg(data: str | bytes) -> GcgRecord:
    """Read a GCG record from bytes (decoded by its pragma) or from text.

    Raises GcgError, and nothing else, for whatever it cannot read: the error names the line
    and why. Bytes are decoded as the ``#character-encoding`` pragma says; without one, as
    UTF-8 when they are valid UTF-8, else as ISO-8859-1 (the format's historical default).
    """
    if isinstance(data, str):
        if len(data) > MAX_GCG_SIZE:
            raise GcgError(f"the record is larger than {MAX_GCG_SIZE} characters")
        text, encoding = data, None
    else:
        text, encoding = _decode(bytes(data))
    return _Reader(text, encoding).read()


def _decode(data: bytes) -> tuple[str, str]:
    """The text of a record and the codec used (see ``parse_gcg``)."""
    if len(data) > MAX_GCG_SIZE:
        raise GcgError(f"the record is larger than {MAX_GCG_SIZE} bytes")
    for bom, codec in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return _decoded(data[len(bom) :], codec, codec, offset=len(bom)), codec
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
        codec = "utf-8"
    elif declared := _DECLARED.search(data):
        name = declared[1].decode("iso8859-1")
        line = _line_of(data, declared.start(1))
        codec = _codec(name, line)
        return _decoded(data, codec, name, offset=0), codec
    else:
        try:
            return data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            return data.decode("iso8859-1"), "iso8859-1"
    return _decoded(data, codec, codec, offset=len(codecs.BOM_UTF8)), codec


def _codec(name: str, line: int) -> str:
    try:
        codec = codecs.lookup(name).name
    except (LookupError, ValueError):
        codec = ""
    if codec not in _ENCODINGS:
        raise GcgError(f"unsupported character encoding {name!r}", line=line)
    return codec


def _decoded(data: bytes, codec: str, name: str, *, offset: int) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        bad = data[error.start]
        raise GcgError(
            f"not valid {name}: byte 0x{bad:02x} at byte {error.start + offset}",
            line=_line_of(data, error.start),
        ) from None


def _line_of(data: bytes, index: int) -> int:
    """The 1-based line of a byte offset, counting line breaks as the reader does."""
    return len(_LINE_BREAK_BYTES.findall(data, 0, index)) + 1


class _Reader:
    """One pass over the lines; a note is kept as its lines until the end (no quadratic joins)."""

    def __init__(self, text: str, encoding: str | None) -> None:
        self.text = text
        self.encoding = encoding
        self.pragmas: list[tuple[str, str]] = []
        self.notes: list[list[str]] = []
        self.events: list[tuple[GcgEvent, list[list[str]]]] = []
        self.in_note = False

    def read(self) -> GcgRecord:
        for number, raw in enumerate(_LINE_BREAK.split(self.text), start=1):
            line = raw.lstrip("\ufeff").rstrip() if number == 1 else raw.rstrip()
            if line.strip():
                self.line(line, number)
        events = tuple(
            replace(event, notes=_joined(notes)) if notes else event for event, notes in self.events
        )
        return GcgRecord(tuple(self.pragmas), _joined(self.notes), events, self.encoding)

    def line(self, line: str, number: int) -> None:
        if line[0] not in "#>" and self.in_note:
            # A line that is neither a pragma nor an event goes on with the note above it.
            (self.events[-1][1] if self.events else self.notes)[-1].append(line)
            return
        stripped = line.lstrip()
        if stripped.startswith("#"):
            self.pragma(stripped, number)
        elif stripped.startswith(">"):
            self.in_note = False
            self.events.append((_event(stripped, number), []))
        else:
            raise GcgError(
                "not a pragma (#...), a move line (>...) or part of a #note", line=number
            )

    def pragma(self, line: str, number: int) -> None:
        parts = line[1:].split(None, 1)
        name = parts[0].lower() if parts else ""
        value = parts[1].strip() if len(parts) > 1 else ""
        if name == "note":
            (self.events[-1][1] if self.events else self.notes).append([value])
            self.in_note = True
            return
        self.in_note = False
        if re.fullmatch(r"player[1-4]", name) and not value:
            raise GcgError(f"#{name} needs a nick and a name", line=number)
        self.pragmas.append((name, value))


def _joined(notes: list[list[str]]) -> tuple[str, ...]:
    return tuple("\n".join(lines) for lines in notes)


def _event(line: str, number: int) -> GcgEvent:
    """A ``>nick: [RACK] MOVE SCORE TOTAL [comment]`` line."""
    match = _EVENT.match(line)
    if match is None:
        raise GcgError("a move line starts with '>nick:'", line=number)
    nick, body = match[1].strip(), match[2]
    if not nick:
        raise GcgError("a move line needs a nick before the ':'", line=number)
    tokens = list(_TOKEN.finditer(body))

    def token(index: int, what: str) -> str:
        if index >= len(tokens):
            raise GcgError(f"a move line needs {what}", line=number)
        return tokens[index][0]

    # The rack is optional; no move starts with a letter or '?', so a rack is never mistaken.
    has_rack = bool(tokens) and _RACK.match(tokens[0][0]) is not None
    index = 1 if has_rack else 0
    head = token(index, "a move, a score and a total")
    index += 1
    position = word = None
    if take := _TAKE_HEAD.match(head):
        kind = SWAP_TAKE if take[1] == "~" else STEAL_TAKE
        word = token(index, "the tiles after a take's square")
        index += 1
        if not (_SWAP_TILES if kind == SWAP_TAKE else _STEAL_TILES).match(word):
            raise GcgError(f"cannot read the take {head} {word}", line=number)
        try:
            parse_position(take[2], size=26)
        except ValueError as error:
            raise GcgError(str(error), line=number) from None
        position, tiles, count = take[2].upper(), None, None
    elif _POSITION.match(head):
        word = token(index, "a word after the position")
        index += 1
        if not _WORD.match(word):
            raise GcgError(f"cannot read the word {word!r}", line=number)
        try:
            parse_position(head, size=26)
        except ValueError as error:
            raise GcgError(str(error), line=number) from None
        position = head.upper()
        kind, tiles, count = PLAY, None, None
    else:
        kind, tiles, count = _other_move(head, number)
    score_text = token(index, "a score and a total after the move")
    total_text = token(index + 1, "a total after the score")
    if not _NUMBER.match(score_text) or not _NUMBER.match(total_text):
        raise GcgError(f"bad score or total: {score_text} {total_text}", line=number)
    return GcgEvent(
        kind=kind,
        nick=nick,
        rack=tokens[0][0] if has_rack else "",
        score=int(score_text),
        total=int(total_text),
        position=position,
        word=word,
        exchanged=tiles if kind == EXCHANGE else None,
        exchange_count=count if kind == EXCHANGE else None,
        end_rack=tiles if kind == END_RACK else None,
        end_rack_count=count if kind == END_RACK else None,
        # Whatever follows the total is kept: Quackle lists the cross-words of a play there.
        comment=body[tokens[index + 1].end() :].strip(),
        line=number,
        text=line,
    )


def _other_move(head: str, number: int) -> tuple[str, str | None, int | None]:
    """Any move but a play, as (kind, tiles, count): ``--``, ``-``, ``-ABC``, ``-3``, ...

    ... ``(challenge)``, ``(time)``, and the end-of-game rack ``(ABC)`` or ``(3)``.
    """
    if head == "--":
        return WITHDRAWN, None, None
    if head in ("-", "-0"):  # Quackle reads an exchange of no tiles as a pass
        return PASS, None, None
    # Lower case only, as every writer has them: "(TIME)" is an end rack of T, I, M and E.
    if head == "(challenge)":
        return CHALLENGE_BONUS, None, None
    if head == "(time)":
        return TIME_PENALTY, None, None
    for kind, pattern in ((EXCHANGE, _EXCHANGE), (END_RACK, _PARENS)):
        if match := pattern.match(head):
            tiles = match[1]
            return (kind, None, int(tiles)) if tiles.isdigit() else (kind, tiles, len(tiles))
    raise GcgError(f"cannot read the move {head!r}", line=number)


def play_from_gcg(board: Board, position: str, word: str) -> Play:
    """The tiles a GCG play places; a tile already on the board is played through.

    A square already holding a tile is written ``.``, as its letter, or as its letter in
    parentheses (``(O)UTDANcE``); lower-case letters are blanks. Raises GcgError when the word
    runs off the board, disagrees with a tile already on it, or places nothing.
    """
    try:
        row, col, across = parse_position(position, size=board.size)
    except ValueError as error:
        raise GcgError(str(error)) from None
    d_row, d_col = (0, 1) if across else (1, 0)
    tiles: list[PlacedTile] = []
    for offset, (char, through) in enumerate(_cells(word, position)):
        r, c = row + d_row * offset, col + d_col * offset
        if not (r < board.size and c < board.size):
            raise GcgError(f"{position} {word} runs off the board")
        there = board.get(r, c)
        if there is None and (through or char == "."):
            raise GcgError(f"{position} {word}: plays through an empty square")
        if char == ".":
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


def _cells(word: str, position: str) -> list[tuple[str, bool]]:
    """Each square of a word: its character, and whether parentheses say it is on the board."""
    cells: list[tuple[str, bool]] = []
    inside = False
    for char in word:
        if char in "()":
            if inside == (char == "("):
                raise GcgError(f"{position} {word}: unbalanced parentheses")
            inside = char == "("
        else:
            cells.append((char, inside))
    if inside:
        raise GcgError(f"{position} {word}: unbalanced parentheses")
    return cells


# -- writing ---------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    """Free text folded onto one line: a run of control characters, with the spaces around
    it, becomes one space. A split rather than one regex, to stay linear on long runs of spaces.
    """
    return " ".join(part for part in map(str.strip, _CONTROL_RUN.split(text)) if part)


def _nick_token(nick: str) -> str:
    """A nick as one token of a move line: no space, no ':', no control character."""
    return _NICK_UNSAFE.sub("_", nick.strip()) or "_"


def _safe_nick(name: str) -> str:
    """A nick from a display name: letters, digits, ``_``, ``-`` and ``.`` only, and at least
    one letter or digit (else none: the caller numbers the player)."""
    kept = "".join(c if (c.isalnum() and c.isprintable()) or c in "-." else "_" for c in name)
    nick = re.sub(r"_+", "_", kept).strip("_")
    return nick if any(c.isalnum() for c in nick) else ""


def _signed(points: int) -> str:
    return f"+{points}" if points >= 0 else str(points)


def _checked(value: str | None, pattern: re.Pattern[str], what: str) -> str:
    if value is None or not pattern.match(value):
        raise ValueError(f"cannot write {what} {value!r}")
    return value


def _note_lines(note: str) -> list[str]:
    """``#note`` and its continuation lines; none of them can read as a pragma or a move."""
    first, *rest = note.split("\n")
    lines = [f"#note {_one_line(first)}".rstrip()]
    for piece in rest:
        clean = _CONTROL_RUN.sub(" ", piece).rstrip()
        if clean.strip():
            lines.append(f" {clean}" if clean[0] in "#>" else clean)
    return lines


def _pragma_line(name: str, value: str) -> str:
    name = _NICK_UNSAFE.sub("_", name).lower()
    if re.fullmatch(r"player\d", name):
        nick, _, full = value.strip().partition(" ")
        value = f"{_nick_token(nick)} {_one_line(full) or _nick_token(nick)}"
    return f"#{name} {_one_line(value)}".rstrip()


def _move_text(event: GcgEvent) -> str:
    if event.kind in TAKES:
        position = _checked(event.position, _POSITION, "the square")
        tiles = _SWAP_TILES if event.kind == SWAP_TAKE else _STEAL_TILES
        return f"{_TAKE_MARK[event.kind]}{position} {_checked(event.word, tiles, 'the take')}"
    if event.kind == PLAY:
        position = _checked(event.position, _POSITION, "the position")
        return f"{position} {_checked(event.word, _WORD, 'the word')}"
    if event.kind == EXCHANGE:
        if event.exchanged is not None:
            return f"-{_checked(event.exchanged, _RACK, 'the exchanged tiles')}"
        return f"-{event.exchange_count or 0}"
    if event.kind == END_RACK:
        if event.end_rack is not None:
            return f"({_checked(event.end_rack, _TILES, 'the end rack')})"
        return f"({event.end_rack_count or 0})"
    if event.kind not in _FIXED_MOVES:
        raise ValueError(f"cannot write an event of kind {event.kind!r}")
    return _FIXED_MOVES[event.kind]


def format_gcg(record: GcgRecord) -> str:
    """Write a record as UTF-8 GCG text (the first line says so); ``parse_gcg`` reads it back.

    Free text (pragma values, notes, the comment after a total) is written with every control
    character folded to a space, so nothing in it can start a line of its own; a note keeps its
    line breaks as continuation lines, none of which starts with ``#`` or ``>``.
    """
    lines = ["#character-encoding UTF-8"]
    lines += [
        _pragma_line(name, value)
        for name, value in record.pragmas
        if name.lower() != "character-encoding"
    ]
    for note in record.notes:
        lines += _note_lines(note)
    for event in record.events:
        rack = _checked(event.rack, _TILES, "the rack")
        line = (
            f">{_nick_token(event.nick)}: {rack} {_move_text(event)} "
            f"{_signed(event.score)} {event.total}"
        )
        comment = _one_line(event.comment)
        lines.append(f"{line} {comment}" if comment else line)
        for note in event.notes:
            lines += _note_lines(note)
    return "\n".join(lines) + "\n"


def _nicks(names: tuple[str, ...]) -> tuple[str, ...]:
    """A nick per seat, from its name (else ``playerN``), no two alike ignoring case."""
    nicks: list[str] = []
    for seat, name in enumerate(names):
        nick = _safe_nick(name) or f"player{seat + 1}"
        if nick.casefold() in (taken := {n.casefold() for n in nicks}):
            nick = next(
                f"{nick}_{n}" for n in range(2, 99) if f"{nick}_{n}".casefold() not in taken
            )
        nicks.append(nick)
    return tuple(nicks)


def export_gcg(
    game: Game,
    *,
    player_names: tuple[str, ...],
    visible_racks: frozenset[int] | None = None,
    title: str | None = None,
    game_id: tuple[str, str] | None = None,
    notes: Sequence[str] = (),
    pragmas: Sequence[tuple[str, str]] = (),
) -> str:
    """Write a game as GCG, showing rack letters only for the seats in ``visible_racks``.

    A hidden player's rack field is left empty, their exchanges are written as a count
    (``-3``) and their end-of-game rack as a count in parentheses (``(3)``). Blanks are lower
    case; the end-of-game rack adjustments follow the last turn. ``game_id`` is written as
    ``#id AUTHORITY ID``; ``notes`` (why the game ended, say) follow the last line. Names, the
    title and notes are folded onto one line each, and nicks are made of safe characters only,
    so a display name cannot add a line to the record. ``pragmas`` (name, value) follow the
    header's own, in order (the server's ``#turn-hash`` lines). The game must hold its whole
    history (not one resumed from a position): ValueError otherwise.

    Every seat is a ``#playerN`` (``player_names`` has one name per seat; ``visible_racks``
    defaults to all). A challenged play is followed by the standard's line for its outcome: a
    withdrawn phony by ``--`` (minus its score), a challenge bonus by ``(challenge)``; a turn
    lost to a double challenge is a pass.
    """
    if game.turns_before:
        raise ValueError("a record needs the whole game: replay it from its moves")
    if len(player_names) != game.players:
        raise ValueError("a record names every seat's player")
    if visible_racks is None:
        visible_racks = frozenset(range(game.players))
    names = tuple(_one_line(name) for name in player_names)
    nicks = _nicks(names)
    header = [
        (f"player{seat + 1}", f"{nicks[seat]} {names[seat] or nicks[seat]}")
        for seat in range(game.players)
    ]
    if title and _one_line(title):
        header.append(("title", _one_line(title)))
    header.append(("description", f"Word Duel, ruleset {game.ruleset.name}"))
    header.append(("lexicon", game.ruleset.lexicon_name.upper()))
    if game_id is not None:
        header.append(("id", f"{_nick_token(game_id[0])} {_nick_token(game_id[1])}"))
    header += pragmas

    def rack_text(seat: int, rack: tuple[str, ...]) -> str:
        return "".join(rack) if seat in visible_racks else ""

    events: list[GcgEvent] = []
    for turn in game.turns:
        seat = turn.player
        event = GcgEvent(
            kind=PASS,
            nick=nicks[seat],
            rack=rack_text(seat, turn.rack_before),
            score=turn.score,
            total=turn.totals[seat],
        )
        move = turn.move
        if isinstance(move, TakePlay):
            take_events, rack_after = _take_events(event, move, turn.taken, turn.score)
            events += take_events
            event = replace(event, rack=rack_text(seat, rack_after))
        if isinstance(move, Play | TakePlay):
            main = turn.words[0]
            placed = {(tile.row, tile.col) for tile in move.tiles}
            d_row, d_col = (0, 1) if main.across else (1, 0)
            word = "".join(
                char if (main.row + d_row * i, main.col + d_col * i) in placed else "."
                for i, char in enumerate(main.tiles)
            )
            event = replace(event, kind=PLAY, position=main.position, word=word)
        elif isinstance(move, Swap):
            shown = "".join(sorted(move.tiles)) if seat in visible_racks else None
            event = replace(event, kind=EXCHANGE, exchanged=shown, exchange_count=len(move.tiles))
        challenge = turn.challenge
        if challenge is None:
            events.append(event)
            continue
        # The play's line says what it scored then; the challenge's line what it changed.
        events.append(replace(event, total=turn.totals[seat] - challenge.points))
        if challenge.withdrawn or challenge.points:
            kind = WITHDRAWN if challenge.withdrawn else CHALLENGE_BONUS
            events.append(
                replace(event, kind=kind, score=challenge.points, position=None, word=None)
            )
    for adjustment in game.adjustments:
        seat, owner = adjustment.player, adjustment.rack_owner
        events.append(
            GcgEvent(
                kind=END_RACK,
                nick=nicks[seat],
                rack=rack_text(seat, adjustment.rack) if seat == owner else "",
                score=adjustment.points,
                total=adjustment.totals[seat],
                end_rack="".join(adjustment.rack) if owner in visible_racks else None,
                end_rack_count=len(adjustment.rack),
            )
        )
    closing = tuple(note for note in map(_one_line, notes) if note)
    record_notes: tuple[str, ...] = ()
    if closing and events:
        events[-1] = replace(events[-1], notes=events[-1].notes + closing)
    else:
        record_notes = closing
    return format_gcg(GcgRecord(tuple(header), record_notes, tuple(events)))


def _take_events(
    play_event: GcgEvent, move: TakePlay, taken: tuple[str, ...], score: int
) -> tuple[list[GcgEvent], tuple[str, ...]]:
    """Reword: one line per take of a take-play (before its play's line), and the rack the
    play is made from. Each take line shows the rack before that take (hidden: empty, as the
    play's), scores +0, and repeats the total before the turn."""
    rack = list(play_event.rack)
    events = []
    for take, face in zip(move.takes, taken, strict=True):
        square = format_position(take.row, take.col, across=True)
        if isinstance(take, SwapTake):
            kind, word = SWAP_TAKE, f"{take.placed.board_char}({face})"
        else:
            kind, word = STEAL_TAKE, f"({face})"
        shown = "".join(sorted(rack))
        events.append(
            replace(
                play_event,
                kind=kind,
                rack=shown if play_event.rack else "",
                score=0,
                total=play_event.total - score,
                position=square,
                word=word,
            )
        )
        if isinstance(take, SwapTake) and take.placed.rack_tile in rack:
            rack.remove(take.placed.rack_tile)
        rack.append("?" if face.islower() else face)
    return events, tuple(sorted(rack))


# -- importing a game ------------------------------------------------------------------------


class _Everything:
    """The verdict a ``(challenge)`` line records, when no lexicon is given: every word good."""

    def __contains__(self, word: object) -> bool:
        return True


class _Nothing:
    """The verdict a ``--`` line records, when no lexicon is given: every word a phony."""

    def __contains__(self, word: object) -> bool:
        return False


#: The rebuilt stream's seed: a record holds no seed, and its draws are forced from its racks.
_IMPORT_SEED = bytes(32)


def _minus(whole: Iterable[str], part: Iterable[str]) -> tuple[str, ...] | None:
    """``whole`` less ``part`` as a sorted multiset, or None when ``part`` is not in it."""
    left = Counter(whole)
    left.subtract(part)
    if any(count < 0 for count in left.values()):
        return None
    return tuple(sorted(left.elements()))


def _rack_letters(text: str) -> tuple[str, ...]:
    """A GCG rack as the engine's rack tiles (``?`` for a blank, letters in upper case)."""
    return tuple(sorted(char if char == "?" else char.upper() for char in text))


def _infer_rule(record: GcgRecord) -> ChallengeRule:
    """The challenge rule a record shows: its bonus lines' points, else ``single`` when a
    phony was withdrawn, else ``void``."""
    bonuses = {event.score for event in record.events if event.kind == CHALLENGE_BONUS}
    if bonuses == {10}:
        return TEN_POINT
    if bonuses:
        return FIVE_POINT
    if any(event.kind == WITHDRAWN for event in record.events):
        return SINGLE
    return VOID


def record_seats(record: GcgRecord) -> tuple[str, ...]:
    """The nick of each seat: ``#player1``.. ``#player4`` in order, else the move lines' nicks
    in order of first appearance. GcgError when a move line names another nick."""
    named = tuple(player.nick for player in record.players if player is not None)
    if len(named) < len(record.players):
        missing = record.players.index(None) + 1
        raise GcgError(f"#player{missing} is missing: a record names every seat")
    if not named:
        named = tuple(dict.fromkeys(event.nick for event in record.events))
    for event in record.events:
        if event.nick not in named:
            raise GcgError(f"{event.nick!r} is not a #player of the record", line=event.line)
    return named


def game_from_gcg(
    record: GcgRecord,
    *,
    ruleset: Ruleset | str,
    lexicon: Container[str] | None,
    challenge: ChallengeRule | None = None,
    finish_line: int | None = None,
) -> Game:
    """The game a record tells, rebuilt move by move through ``Game.apply`` and
    ``Game.challenge`` at a table of the record's 2-4 ``#playerN`` seats.

    A record holds no seed: every draw is forced to what the racks on the move lines (and the
    end-of-game lines, or ``#rackN``) show, so the record must show each rack a move is made
    from. A play followed by its player's ``--`` line is challenged off; one followed by a
    ``(challenge)`` line is challenged and stands (the bonus must be the rule's). Who
    challenged is not written in GCG: the next seat in order is credited. A challenge of a
    good play under ``single`` or ``double`` leaves no line, so it reads as no challenge (and
    a double's lost turn as a pass). ``lexicon`` judges the plays (under ``void``) and the
    challenges; None takes the record's word (every word of a withdrawn play is a phony).
    ``challenge`` defaults to the rule the record shows (``_infer_rule``). Every score,
    total and end-of-game line is checked against the rebuilt game; anything that disagrees
    or that the engine would refuse raises GcgError naming the line.
    """
    rules = get_ruleset(ruleset)
    seats = record_seats(record)
    if len(seats) not in rules.seat_counts:
        raise GcgError(f"the {rules.name} ruleset does not seat {len(seats)} players")
    events = record.events
    moves = [event for event in events if event.kind in (PLAY, EXCHANGE, PASS, *TAKES)]
    if not moves:
        raise GcgError("the record has no move lines (>nick: ...)")
    if any(event.kind == TIME_PENALTY for event in events):
        line = next(event.line for event in events if event.kind == TIME_PENALTY)
        raise GcgError("the engine has no time penalties", line=line)
    rule = _infer_rule(record) if challenge is None else challenge
    game = Game.new(
        ruleset=rules,
        seed=_IMPORT_SEED,
        players=len(seats),
        challenge=rule,
        finish_line=finish_line,
    )
    first = seats.index(moves[0].nick)
    starting = tuple(_next_rack(record, seats, seat, -1) for seat in range(len(seats)))
    if None in starting:
        nick = seats[starting.index(None)]
        raise GcgError(
            f"{nick}'s first rack is not shown: a game is rebuilt from its racks",
            line=_first_line(moves, nick),
        )
    racks = tuple(rack or () for rack in starting)
    for nick, rack in zip(seats, racks, strict=True):
        if len(rack) != rules.rack_size:
            raise GcgError(
                f"{nick}'s first rack shows {len(rack)} tiles, not a whole rack",
                line=_first_line(moves, nick),
            )
    bag = _minus(rules.full_bag, (tile for rack in racks for tile in rack))
    if bag is None:
        raise GcgError("the first racks shown are not a deal from the ruleset's bag")
    game = replace(game, racks=racks, bag=bag, first=first, to_move=first, first_draws=())
    for index, event in enumerate(events):
        seat = seats.index(event.nick)
        if event.kind == END_RACK:
            continue
        try:
            game = _import_event(game, record, seats, index, seat, lexicon)
        except MoveError as error:
            raise GcgError(error.message, line=event.line) from None
        except GcgError as error:
            raise GcgError(error.reason, line=event.line) from None
        # A challenged play's line gives the total before the challenge's own line.
        total = game.scores_before_adjustments[seat]
        if total != event.total:
            raise GcgError(f"the total is {total}, not {event.total}", line=event.line)
    _check_end(game, record, seats)
    return game


def _first_line(moves: Sequence[GcgEvent], nick: str) -> int | None:
    """The line of ``nick``'s first move, if it has one."""
    return next((event.line for event in moves if event.nick == nick), None)


def _next_rack(
    record: GcgRecord, seats: tuple[str, ...], seat: int, after: int
) -> tuple[str, ...] | None:
    """The rack ``seat`` holds after event ``after`` (and its draw), as the record shows it:
    the rack of its next move line, else of its own end-of-game line, else ``#rackN``; None
    when the record does not show it."""
    nick = seats[seat]
    for event in record.events[after + 1 :]:
        if event.nick != nick or event.kind in (WITHDRAWN, CHALLENGE_BONUS):
            continue
        if event.kind in (PLAY, EXCHANGE, PASS, *TAKES):
            return _rack_letters(event.rack) if event.rack else None
        if event.kind == END_RACK and event.rack and event.rack == event.end_rack:
            return _rack_letters(event.rack)
    pragma = record.racks[seat] if seat < len(record.racks) else None
    return None if pragma is None else _rack_letters(pragma)


def _import_event(
    game: Game,
    record: GcgRecord,
    seats: tuple[str, ...],
    index: int,
    seat: int,
    lexicon: Container[str] | None,
) -> Game:
    """The game after one line of the record (not an end-of-game line)."""
    event = record.events[index]
    if event.kind in (WITHDRAWN, CHALLENGE_BONUS):
        if game.open_play is None or game.turns[-1].player != seat:
            raise GcgError(f"{event.move_text} follows no play of {event.nick}")
        withdrawn = event.kind == WITHDRAWN
        judge: Container[str] = (
            lexicon if lexicon is not None else (_Nothing() if withdrawn else _Everything())
        )
        game = game.challenge(by=game.next_seat(seat), lexicon=judge)
        result = game.turns[-1 if withdrawn else _turn_index(game, seat)].challenge
        assert result is not None
        if result.withdrawn != withdrawn:
            verdict = "withdraws a play the lexicon holds" if withdrawn else "lets a phony stand"
            raise GcgError(f"the record {verdict}")
        if result.points != event.score:
            raise GcgError(f"the challenge moved {result.points} points, not {event.score}")
        return game
    if game.to_move != seat:
        raise GcgError(f"{event.nick} moves out of turn")
    if not event.rack:
        raise GcgError("the rack is not shown: a game is rebuilt from the racks it shows")
    takes = _takes_before(record, index)
    first = record.events[index - len(takes)]
    if event.kind in TAKES:
        later = next((e for e in record.events[index + 1 :] if e.kind not in TAKES), None)
        if later is None or later.kind != PLAY or later.nick != event.nick:
            raise GcgError(f"{event.move_text} is not followed by {event.nick}'s play")
        if event.score != 0:
            raise GcgError(f"a take scores +0, not {_signed(event.score)}")
        return game
    rack = _rack_letters(first.rack)
    if rack != game.racks[seat]:
        raise GcgError(f"{event.nick} holds {''.join(game.racks[seat])}, not {first.rack}")
    move: Move
    if event.kind == PLAY and takes:
        after = apply_takes(game.board, rack, takes, lexicon=None)
        if _rack_letters(event.rack) != tuple(sorted(after.rack)):
            raise GcgError(f"after its takes {event.nick} holds {''.join(sorted(after.rack))}")
        placed = play_from_gcg(after.board, event.position or "", event.word or "")
        move = TakePlay(takes, placed.tiles)
        kept_rack = _minus(after.rack, (tile.rack_tile for tile in move.tiles))
    elif event.kind == PLAY:
        move = play_from_gcg(game.board, event.position or "", event.word or "")
        kept_rack = _minus(rack, (tile.rack_tile for tile in move.tiles))
    elif event.kind == EXCHANGE:
        if event.exchanged is None:
            raise GcgError("the exchanged tiles are not shown")
        move = Swap(_rack_letters(event.exchanged))
        kept_rack = _minus(rack, move.tiles)
    else:
        move = Pass()
        kept_rack = rack
    before = game
    game = game.apply(move, player=seat, lexicon=lexicon)
    turn = before.turn_number
    if event.kind == PLAY and game.turns[turn].score != event.score:
        raise GcgError(f"the play scores {game.turns[turn].score}, not {event.score}")
    later = record.events[index + 1] if index + 1 < len(record.events) else None
    if event.kind == PLAY and later is not None and later.kind == WITHDRAWN:
        return game  # the draw goes back into the bag with the tiles
    if event.kind == PASS or kept_rack is None:
        return game
    shown = _next_rack(record, seats, seat, index)
    if shown is None:
        return game
    return _redeal(before, game, turn, seat, kept_rack, shown, returned=move)


def _takes_before(record: GcgRecord, index: int) -> tuple[Take, ...]:
    """Reword: the takes on the lines just before line ``index`` (its player's take-play)."""
    start = index
    while start > 0 and record.events[start - 1].kind in TAKES:
        start -= 1
    return tuple(_take(event) for event in record.events[start:index])


def _take(event: GcgEvent) -> Take:
    """A take line as the engine's take (``~8H Z(e)``, ``^8K (S)``)."""
    row, col, _ = parse_position(event.position or "", size=26)
    word = event.word or ""
    if event.kind == STEAL_TAKE:
        return StealTake(row, col)
    return SwapTake(row, col, word[0].upper(), blank=word[0].islower())


def _turn_index(game: Game, seat: int) -> int:
    """The index of ``seat``'s last turn that was not a lost one."""
    return max(i for i, turn in enumerate(game.turns) if turn.player == seat and not turn.lost_turn)


def _redeal(
    before: Game,
    after: Game,
    turn: int,
    seat: int,
    kept: tuple[str, ...],
    shown: tuple[str, ...],
    *,
    returned: Move,
) -> Game:
    """``after`` with the tiles ``seat`` drew on turn ``turn`` made the ones the record shows
    it holding next (the end-of-game racks counted again if the turn ended the game)."""
    drawn = _minus(shown, kept)
    count = len(after.turns[turn].drawn)
    if drawn is None or len(drawn) != count:
        raise GcgError(f"the next rack shown, {''.join(shown)}, does not follow from this move")
    bag = _minus(before.bag, drawn)
    if bag is None:
        raise GcgError(f"{''.join(drawn)} are not left in the bag")
    if isinstance(returned, Swap):
        bag = tuple(sorted((*bag, *returned.tiles)))
    turns = list(after.turns)
    turns[turn] = replace(turns[turn], drawn=drawn)
    redealt = replace(after, racks=_replaced(after.racks, seat, shown), bag=bag, turns=tuple(turns))
    if after.end_reason is None or not after.adjustments:
        return redealt
    unfinished = replace(
        redealt,
        scores=after.scores_before_adjustments,
        end_reason=None,
        result=None,
        adjustments=(),
    )
    return unfinished.finish(after.end_reason, out_player=seat if not shown else None)


def _replaced(
    racks: tuple[tuple[str, ...], ...], seat: int, rack: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return (*racks[:seat], rack, *racks[seat + 1 :])


def _check_end(game: Game, record: GcgRecord, seats: tuple[str, ...]) -> None:
    """The record's end-of-game lines are the rebuilt game's adjustments, line for line."""
    lines = [event for event in record.events if event.kind == END_RACK]
    made = [(seats[a.player], a.points, a.totals[a.player]) for a in game.adjustments]
    for position, event in enumerate(lines):
        expected = made[position] if position < len(made) else None
        if expected != (event.nick, event.score, event.total):
            made_text = (
                "none"
                if expected is None
                else " ".join((expected[0], _signed(expected[1]), str(expected[2])))
            )
            raise GcgError(
                f"the end-of-game line is not the rebuilt game's ({made_text})", line=event.line
            )
    if len(made) > len(lines) and not record.incomplete:
        raise GcgError(f"the record lacks {len(made) - len(lines)} end-of-game line(s)")


# -- verification ----------------------------------------------------------------------------


#: What a :class:`Mismatch` is about: a play's score (or legality), or a running total.
SCORE = "score"
TOTAL = "total"


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A play whose record disagrees with the engine (score, or legality when ``reason``),
    or, of kind ``total``, a cumulative total that is not the player's previous total plus
    the line's score (``recorded`` the total written, ``computed`` the running one)."""

    file: str
    line: int
    move: str
    recorded: int
    computed: int | None
    reason: str | None = None
    kind: str = SCORE

    def __str__(self) -> str:
        if self.kind == TOTAL:
            return (
                f"{self.file}:{self.line}: {self.move}: total recorded {self.recorded}, "
                f"running total {self.computed}"
            )
        computed = "?" if self.computed is None else _signed(self.computed)
        text = f"{self.file}:{self.line}: {self.move}: recorded {_signed(self.recorded)}, "
        text += f"computed {computed}"
        return f"{text} ({self.reason})" if self.reason else text


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``verify_records`` found: counts, mismatches (scores and running totals), files
    it could not read."""

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

    Racks are not needed. Bingo means the ruleset's bingo tiles placed (seven). A play later
    withdrawn (``--``) is scored, then lifted off the board, and is not word-checked (it was a
    phony). ``--`` takes back the player's last turn only when that turn was a play. Every
    line's cumulative total must be the player's previous total (0 at first) plus the line's
    score; a wrong one is reported once, and the totals after it are read from it.
    """
    rules = get_ruleset(ruleset)
    board = Board.empty(rules.board_size)
    last_play: dict[str, Play] = {}
    totals: dict[str, int] = {}
    plays = 0
    mismatches: list[Mismatch] = []
    events = record.events
    for index, event in enumerate(events):
        running = totals.get(event.nick, 0) + event.score
        if event.total != running:
            mismatches.append(
                Mismatch(file, event.line, event.move_text, event.total, running, kind=TOTAL)
            )
        totals[event.nick] = event.total
        if event.kind == WITHDRAWN:
            withdrawn = last_play.pop(event.nick, None)
            if withdrawn is not None:
                board = board.remove((tile.row, tile.col) for tile in withdrawn.tiles)
            continue
        if event.kind in (PLAY, EXCHANGE, PASS):
            last_play.pop(event.nick, None)
        if event.kind in TAKES:
            board = _taken_on(board, event)
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
                board, play.tiles, ruleset=rules, bingo=len(play.tiles) >= rules.bingo_tiles
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


def _taken_on(board: Board, event: GcgEvent) -> Board:
    """The board after a take line, unchecked (a re-score needs the board, not the rules)."""
    try:
        row, col, _ = parse_position(event.position or "", size=board.size)
    except ValueError:
        return board
    emptied = board.remove([(row, col)])
    if event.kind == STEAL_TAKE:
        return emptied
    word = event.word or "?"
    return emptied.place([PlacedTile(row, col, word[0].upper(), blank=word[0].islower())])


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
            record = parse_gcg(Path(path).read_bytes())
        except (OSError, GcgError) as error:
            failures.append((name, str(error)))
            continue
        count, found = verify_record(record, ruleset=rules, lexicon=lexicon, file=name)
        games += 1
        plays += count
        mismatches.extend(found)
    return VerifyReport(games, plays, tuple(mismatches), tuple(failures))
