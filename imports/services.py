"""Every change to an imported game, one keyword-only function each (DESIGN.md "one way in").

A refusal is an :mod:`imports.errors` class with a stable code, raised before anything is
written; nothing else writes an :class:`ImportedGame`. Only its owner changes a game: to
anyone else it does not exist (a 404, as for a match one may not see).
"""

from __future__ import annotations

import codecs
import re
import secrets
from typing import Any

from django.db import transaction

from imports.errors import (
    ImportedGameMissing,
    NotText,
    RecordTooBig,
    UnknownChoice,
    UnreadableRecord,
)
from imports.models import ImportedGame
from imports.replay import build_replay
from lexicon.lexicon import UnknownLexicon, available_lexicons, get_lexicon
from matches.engine import GcgError, GcgRecord, UnknownRuleset, get_ruleset, parse_gcg
from matches.services.errors import SignInRequired

#: The largest record taken, in bytes (characters, when pasted). A real game's record is a
#: few kilobytes, tens with long notes.
MAX_IMPORT_BYTES = 256 * 1024
#: The move generator's time for one import, in seconds (see ``build_replay``).
ANALYSIS_SECONDS = 20.0
#: Characters no text file holds: C0 controls other than tab, line and page breaks (and the
#: old end-of-file mark, 0x1A), and lone surrogates (which no database can store).
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x19\x1b-\x1f\ud800-\udfff]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FOLD = re.compile(r"[\s\x7f-\x9f]+")
_UTF16 = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def import_game(
    *,
    owner: Any,
    data: bytes | str,
    ruleset: str,
    lexicon: str,
    title: str = "",
    file_name: str = "",
    analysis_seconds: float = ANALYSIS_SECONDS,
) -> ImportedGame:
    """Read a GCG record, replay it under ``ruleset`` and ``lexicon``, and keep it for ``owner``.

    Locks nothing: it only inserts one new row, private to its owner. Refuses, changing
    nothing: a record over ``MAX_IMPORT_BYTES`` (RecordTooBig), one that is not text (NotText,
    with the line), one the reader or the replay cannot go past (UnreadableRecord, with the
    line), an unknown ruleset or lexicon (UnknownChoice), a visitor not signed in.
    """
    if not getattr(owner, "is_authenticated", False):
        raise SignInRequired("Sign in to import a game.")
    try:
        rules = get_ruleset(ruleset)
    except UnknownRuleset:
        raise UnknownChoice(f"No ruleset is called {ruleset!r}.") from None
    if lexicon not in available_lexicons():
        raise UnknownChoice(f"No lexicon is called {lexicon!r}.")
    try:
        words = get_lexicon(lexicon, max_len=rules.lexicon_max_len)
    except UnknownLexicon:
        raise UnknownChoice(f"No lexicon is called {lexicon!r}.") from None
    _check_size(data)
    _check_text(data)
    try:
        record = parse_gcg(data)
        text = _text_of(data, record)
        replay = build_replay(
            record,
            ruleset=rules,
            lexicon=words,
            lexicon_name=lexicon,
            analysis_seconds=analysis_seconds,
        )
    except GcgError as error:
        where = f"line {error.line}: " if error.line is not None else ""
        raise UnreadableRecord(f"Cannot read {where}{error.reason}.", line=error.line) from None
    names = " vs ".join(player.name for player in replay.players)
    with transaction.atomic():
        return ImportedGame.objects.create(
            owner=owner,
            title=_one_line(title) or _one_line(record.title or "") or names,
            ruleset=rules.name,
            lexicon=lexicon,
            file_name=_one_line(file_name)[:255],
            record_text=text,
            encoding=record.encoding or "",
            replay=replay.model_dump(mode="json"),
        )


def rotate_share_key(*, game_id: int, member: Any) -> str:
    """Give the game a new share link (its first, or in place of the old one, which stops
    working at once). Locks the game's row; its owner only."""
    with transaction.atomic():
        game = _owned_locked(game_id, member)
        game.share_key = secrets.token_urlsafe(32)
        game.save(update_fields=["share_key"])
        return game.share_key


def stop_sharing(*, game_id: int, member: Any) -> None:
    """Make the game private again: the share link stops working. Locks the game's row; its
    owner only."""
    with transaction.atomic():
        game = _owned_locked(game_id, member)
        game.share_key = None
        game.save(update_fields=["share_key"])


def delete_imported_game(*, game_id: int, member: Any) -> None:
    """Delete the game and its record. Locks the game's row; its owner only."""
    with transaction.atomic():
        _owned_locked(game_id, member).delete()


# ---------------------------------------------------------------- helpers


def _owned_locked(game_id: int, member: Any) -> ImportedGame:
    """The game's row, locked, when ``member`` owns it; to anyone else it does not exist."""
    game = ImportedGame.objects.select_for_update().filter(pk=game_id).first()
    if game is None or not (
        getattr(member, "is_authenticated", False) and game.owner_id == member.pk
    ):
        raise ImportedGameMissing("There is no such imported game.")
    return game


def _check_size(data: bytes | str) -> None:
    size, unit = (len(data), "bytes") if isinstance(data, bytes) else (len(data), "characters")
    if size > MAX_IMPORT_BYTES:
        raise RecordTooBig(
            f"The record is {size:,} {unit}; the limit is {MAX_IMPORT_BYTES // 1024} KiB."
        )
    if not size:
        raise UnreadableRecord("The record is empty.")


def _check_text(data: bytes | str) -> None:
    """Refuse a binary file by the first character no text holds, naming its line."""
    if isinstance(data, bytes):
        codec = next((codec for bom, codec in _UTF16 if data.startswith(bom)), None)
        # Every other encoding GCG allows is an ASCII superset: the control bytes are the same.
        text = data.decode(codec, errors="replace") if codec else data.decode("iso8859-1")
    else:
        text = data
    found = _NOT_TEXT.search(text)
    if found is not None:
        line = len(_LINE_BREAK.findall(text, 0, found.start())) + 1
        raise NotText(
            f"This is not a text file: line {line} holds the control character "
            f"U+{ord(found[0]):04X}.",
            line=line,
        )


def _text_of(data: bytes | str, record: GcgRecord) -> str:
    """The record as text, decoded as the reader decoded it."""
    if isinstance(data, str):
        return data
    return data.decode(record.encoding or "utf-8").lstrip("\ufeff")


def _one_line(text: str) -> str:
    return _FOLD.sub(" ", text).strip()[:200]
