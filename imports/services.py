"""Every change to an imported game, one keyword-only function each (DESIGN.md "one way in").

A refusal is an :mod:`imports.errors` class with a stable code, raised before anything is
written; nothing else writes an :class:`ImportedGame`. Only its owner changes a game: to
anyone else it does not exist (a 404, as for a match one may not see).

An import is bounded per member: only approved members import, one import at a time, at
most ``IMPORT_DAILY_LIMIT`` a day. Its request only reads, checks and places the record (a
few milliseconds); the move generator, which costs seconds, runs in a Celery task on a queue
of its own (:func:`analyse_import`), for at most ``IMPORT_ANALYSIS_MAX_MOVES`` racks and
``IMPORT_ANALYSIS_SECONDS``.
"""

from __future__ import annotations

import codecs
import logging
import re
import secrets
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import ratelimit
from accounts.models import Member
from common.errors import SignInRequired
from engine import GcgError, GcgRecord, Ruleset, UnknownRuleset, get_ruleset, parse_gcg
from imports.errors import (
    ImportedGameMissing,
    ImportInProgress,
    ImportLimitReached,
    MembersOnlyImport,
    NotText,
    RecordTooBig,
    UnknownChoice,
    UnreadableRecord,
)
from imports.models import ImportedGame
from imports.replay import build_replay
from imports.schemas import Replay
from lexicon.lexicon import Lexicon, UnknownLexicon, available_lexicons, get_lexicon
from matches.visibility.access import is_club_member

logger = logging.getLogger(__name__)

#: The largest record taken, in bytes (characters, when pasted). A real game's record is a
#: few kilobytes, tens with long notes.
MAX_IMPORT_BYTES = 256 * 1024
#: Workers that took an import's analysis and died before it ended: after this many, it fails.
MAX_ANALYSIS_ATTEMPTS = 3
#: Characters no text file holds: C0 controls other than tab, line and page breaks (and the
#: old end-of-file mark, 0x1A), and lone surrogates (which no database can store).
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x19\x1b-\x1f\ud800-\udfff]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FOLD = re.compile(r"[\s\x7f-\x9f]+")
_UTF16 = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def daily_imports() -> ratelimit.Limit:
    """The imports one member may make in a day (the shared cache counts them)."""
    return ratelimit.Limit("imports", settings.IMPORT_DAILY_LIMIT, 24 * 3600, "")


def import_game(
    *,
    owner: Any,
    data: bytes | str,
    ruleset: str,
    lexicon: str,
    title: str = "",
    file_name: str = "",
) -> ImportedGame:
    """Read a GCG record, replay it under ``ruleset`` and ``lexicon`` (every play placed and
    checked), keep it for ``owner``, and queue its analysis after the commit.

    Locks the owner's member row, so that two imports of one member at once are taken one
    after the other. Refuses, changing nothing: a visitor not signed in, an account that is
    not an approved member (MembersOnlyImport), a record over ``MAX_IMPORT_BYTES``
    (RecordTooBig), one that is not text (NotText, with the line), one the reader or the
    replay cannot go past (UnreadableRecord, with the line), an unknown ruleset or lexicon
    (UnknownChoice); an owner whose last import is still being analysed (ImportInProgress)
    or who has used the day's imports (ImportLimitReached). A refused record costs none of
    the day's imports.
    """
    if not getattr(owner, "is_authenticated", False):
        raise SignInRequired("Sign in to import a game.")
    if not is_club_member(owner):
        raise MembersOnlyImport(MembersOnlyImport.MESSAGE)
    rules, words = _choices(ruleset, lexicon)
    _check_size(data)
    _check_text(data)
    try:
        record = parse_gcg(data)
        text = _text_of(data, record)
        replay = build_replay(
            record, ruleset=rules, lexicon=words, lexicon_name=lexicon, analyse=False
        )
    except GcgError as error:
        where = f"line {error.line}: " if error.line is not None else ""
        raise UnreadableRecord(f"Cannot read {where}{error.reason}.", line=error.line) from None
    names = " vs ".join(player.name for player in replay.players)
    with transaction.atomic():
        Member.objects.select_for_update().filter(pk=owner.pk).values_list("pk").first()
        busy = ImportedGame.objects.filter(owner_id=owner.pk, status__in=ImportedGame.IN_PROGRESS)
        if busy.exists():
            raise ImportInProgress(ImportInProgress.MESSAGE)
        allowance = daily_imports()
        if not ratelimit.allow(allowance, str(owner.pk)):
            raise ImportLimitReached(
                f"You have used today's imports ({allowance.count} imports a day). "
                "Try again tomorrow."
            )
        game = ImportedGame.objects.create(
            owner=owner,
            title=_one_line(title) or _one_line(record.title or "") or names,
            ruleset=rules.name,
            lexicon=lexicon,
            file_name=_one_line(file_name)[:255],
            record_text=text,
            encoding=record.encoding or "",
            replay=replay.model_dump(mode="json"),
            status=ImportedGame.Status.QUEUED,
            queued_at=timezone.now(),
        )
        transaction.on_commit(lambda: _queue_analysis(game.pk), robust=True)
    return game


def analyse_import(*, game_id: int, now: datetime | None = None) -> str:
    """Find the best play of each recorded rack of the import ``game_id`` and store it.

    Takes the import only while it waits for this (``QUEUED``), or when the worker that took
    it has not finished for ``IMPORT_STALLED_AFTER_SECONDS`` (it died): locks its row
    (``skip_locked``: one another worker is taking is left to it) just long enough to mark
    it ``RUNNING``, runs the move generator holding no lock, and stores the result only if
    no other worker has taken it since. Safe to run twice, or twice at once. Says what came
    of it: ``done``, ``failed`` (the checked replay is kept) or ``not queued``.
    """
    now = now or timezone.now()
    stalled = now - timedelta(seconds=settings.IMPORT_STALLED_AFTER_SECONDS)
    with transaction.atomic():
        game = (
            ImportedGame.objects.select_for_update(skip_locked=True)
            .filter(
                Q(status=ImportedGame.Status.QUEUED)
                | Q(status=ImportedGame.Status.RUNNING, started_at__lt=stalled),
                pk=game_id,
            )
            .first()
        )
        if game is None:
            return "not queued"
        if game.attempts >= MAX_ANALYSIS_ATTEMPTS:
            game.status = ImportedGame.Status.FAILED
            game.analysed_at = now
            game.save(update_fields=["status", "analysed_at"])
            return "failed"
        game.status = ImportedGame.Status.RUNNING
        game.started_at = now
        game.attempts += 1
        game.save(update_fields=["status", "started_at", "attempts"])
    taken = ImportedGame.objects.filter(
        pk=game_id, status=ImportedGame.Status.RUNNING, started_at=now
    )
    try:
        replay = _analysed_replay(game)
    except Exception:  # whatever it was, the member is not left waiting
        logger.exception("the analysis of imported game %s failed", game_id)
        taken.update(status=ImportedGame.Status.FAILED, analysed_at=timezone.now())
        return "failed"
    stored = taken.update(
        replay=replay.model_dump(mode="json"),
        status=ImportedGame.Status.DONE,
        analysed_at=timezone.now(),
    )
    return "done" if stored else "not queued"


def requeue_stalled_imports(*, now: datetime | None = None) -> list[int]:
    """Queue again the analysis of each import waiting or running for longer than
    ``IMPORT_STALLED_AFTER_SECONDS`` (its task was lost, or its worker died); beat's sweep.

    Marks each as queued now (under its row lock, ``skip_locked``), so it is queued again at
    most once a period however long the queue is; the task itself decides by state.
    """
    now = now or timezone.now()
    stalled = now - timedelta(seconds=settings.IMPORT_STALLED_AFTER_SECONDS)
    with transaction.atomic():
        ids = list(
            ImportedGame.objects.select_for_update(skip_locked=True)
            .filter(
                Q(status=ImportedGame.Status.QUEUED, queued_at__lt=stalled)
                | Q(status=ImportedGame.Status.RUNNING, started_at__lt=stalled)
            )
            .order_by("queued_at", "id")
            .values_list("pk", flat=True)[:200]
        )
        ImportedGame.objects.filter(pk__in=ids).update(queued_at=now)
    for game_id in ids:
        _queue_analysis(game_id)
    return ids


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


def _choices(ruleset: str, lexicon: str) -> tuple[Ruleset, Lexicon]:
    """The ruleset and word list chosen; UnknownChoice when either does not exist."""
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
    return rules, words


def _analysed_replay(game: ImportedGame) -> Replay:
    """The kept record replayed again, with the move generator's budget."""
    rules, words = _choices(game.ruleset, game.lexicon)
    return build_replay(
        parse_gcg(game.record_text),
        ruleset=rules,
        lexicon=words,
        lexicon_name=game.lexicon,
        analysis_seconds=settings.IMPORT_ANALYSIS_SECONDS,
        max_analysed_moves=settings.IMPORT_ANALYSIS_MAX_MOVES,
    )


def _queue_analysis(game_id: int) -> None:
    """Hand the import's analysis to Celery (its own queue); if the broker is away, beat's
    sweep queues it again later."""
    try:
        # By its registered name (imports/tasks.py imports this module).
        current_app.tasks["imports.analyse"].delay(game_id)
    except Exception:  # the broker is away: requeue_stalled_imports will
        logger.exception("could not queue the analysis of imported game %s", game_id)


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
