"""docs/RULES.md, docs/PROTOCOL.md and the code give every refusal the same words.

The refusals are found in the code, not listed here: every ``MoveError`` and ``ServiceError``
subclass by introspection, and every message the code builds one of them with by reading the
source (a string, an f-string, a constant, or a text forwarded from a function that returns
refusal texts). So a new rule, a new refusal or a reworded one fails here until the documents
say it word for word: every text in docs/RULES.md, and every text and code the websocket can
send in docs/PROTOCOL.md as well.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from django.conf import settings

from accounts import models as account_models
from accounts import ratelimit
from accounts import views as account_views
from common import text as wordduel_text
from engine import errors as engine_errors
from matches.live import consumer as consumers
from matches.services import errors as service_errors

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "RULES.md"
PROTOCOL = ROOT / "docs" / "PROTOCOL.md"
API = ROOT / "docs" / "API.md"

#: Where each service refusal can be sent, so where its code must be documented:
#: "socket" in PROTOCOL.md, "api" in API.md (every one of them is in RULES.md). The organiser's
#: and the seat's page forms show the message only. A new ServiceError subclass must be
#: added here, which is the moment to document it.
SENT_BY: dict[str, frozenset[str]] = {
    "MoveRefused": frozenset({"socket"}),  # its codes are the engine's (checked per MoveError)
    "RequestIdTaken": frozenset({"socket"}),
    "SeatUnavailable": frozenset({"socket"}),
    "MatchMissing": frozenset({"socket", "api"}),
    "SignInRequired": frozenset({"api"}),
    "NotAllowed": frozenset({"socket", "api"}),  # (a resignation by a non-player)
    "ContributionRefused": frozenset({"api"}),
    "InvalidFixture": frozenset(),
    "FixtureUnchangeable": frozenset(),  # the organiser's pages only
    "RoundsOutOfOrder": frozenset(),  # the organiser's fixture list only
    "OwnMatch": frozenset(),  # the organiser's fixture list and member removal only
    # A Swiss's next round: the tournament page's button only.
    "NotASwiss": frozenset(),
    "SwissRoundUnfinished": frozenset(),
    "SwissComplete": frozenset(),
    "SwissTooSmall": frozenset(),
    # A league's seasons and withdrawals: the league page's forms only.
    "NotALeague": frozenset(),
    "LeagueSeasonUnfinished": frozenset(),
    "LeagueSeasonClosed": frozenset(),
    "NotInLeague": frozenset(),
    # A knockout's "advance now": the tournament page's button only.
    "NotAKnockout": frozenset(),
    # A director's tools: the director page and the members import page only.
    "OptionsRefused": frozenset(),
    "EntryRefused": frozenset(),
    "EntriesRefused": frozenset(),
    "TournamentMissing": frozenset(),
    "MembersImportRefused": frozenset(),
    # Membership (a seat over the socket; the rest on the account and members pages).
    "MembershipRequired": frozenset({"socket"}),
    "SignUpRefused": frozenset(),
    "InvitationUnusable": frozenset(),
    "MembershipRefused": frozenset(),
    "AccountRefused": frozenset(),
    # A guest's games on sign-up: the sign-up page's message only.
    "GuestUnknown": frozenset(),
    "GuestRefused": frozenset(),
    # Imported games: the import pages only.
    "ImportRefused": frozenset(),
    "RecordTooBig": frozenset(),
    "NotText": frozenset(),
    "UnreadableRecord": frozenset(),
    "UnknownChoice": frozenset(),
    "MembersOnlyImport": frozenset(),
    "ImportInProgress": frozenset(),
    "ImportLimitReached": frozenset(),
    "ImportedGameMissing": frozenset(),
    "NotTheOwner": frozenset(),
    # Vacations: the vacation and allowance pages only.
    "VacationRefused": frozenset(),
    "VacationMissing": frozenset(),
    "AllowanceRefused": frozenset(),
    "AllowanceNotAllowed": frozenset(),
    # Challenges and rematches: their pages and /api/challenges/.
    "InvalidChallenge": frozenset({"api"}),
    "ChallengeUnavailable": frozenset({"api"}),
    "RematchUnavailable": frozenset({"api"}),
    # Word Skill rounds: /api/rounds/ and /ws/rounds/<id>/ (docs/PROTOCOL.md section 9).
    "RoundsMatchMissing": frozenset({"api"}),
    "InvalidRoundsMatch": frozenset({"api"}),
    "JoinRefused": frozenset({"api"}),
    "HostOnly": frozenset({"api"}),
    "NotEnoughPlayers": frozenset({"api"}),
    "NotOpen": frozenset({"api"}),
    "NotLive": frozenset({"socket", "api"}),
    "StaleRound": frozenset({"socket", "api"}),
    "RoundsMembersOnly": frozenset({"socket", "api"}),
    "RoundRefused": frozenset({"socket", "api"}),  # its codes are the engine's (section 19)
    # A Word Skill tournament: its pages, and /api/series/<id> (not_found only).
    "InvalidSeries": frozenset(),
    "SeriesMissing": frozenset({"api"}),
    "NotEntered": frozenset(),
    "SessionClosed": frozenset(),
}

#: The socket answers these refusals as acks with the service's own message (a MatchMissing
#: becomes the consumer's own "not_found" error, whose text PROTOCOL.md lists).
SOCKET_TEXTS = frozenset({"RequestIdTaken", "SeatUnavailable"})

#: A refusal raised with a text the code does not spell out at that spot: where the text
#: comes from instead. Each entry names the functions whose texts they are (module, name, and
#: whether the texts are what it returns or what it raises), or none when the text is checked
#: another way. A message expression that cannot be read and is not here fails the test, and
#: so does an entry here that no longer occurs.
FORWARDED: dict[tuple[str, str], tuple[tuple[str, str, str], ...]] = {
    # NotAWord builds its own text from the word (checked per class below).
    ("engine.scoring", "word"): (),
    # The bag's refusals of a malformed value.
    ("matches.services.bag", "reason"): (
        ("matches.services.bag", "contribution_refusal", "return"),
    ),
    # A seat that cannot be taken, and why.
    ("matches.services.seating", "refusal"): (
        ("matches.services.seating", "_seat_refusal", "return"),
    ),
    # A display name refused on the profile page, and why.
    ("accounts.services", "refusal"): (("accounts.names", "display_name_refusal", "return"),),
    # An unknown ruleset: UnknownRuleset's own text, raised by get_ruleset.
    ("tournaments.services.fixtures", "str(error)"): (("engine.rulesets", "get_ruleset", "raise"),),
    # A league's rules or a season's players refused by the pure rules (tournaments/league.py).
    ("tournaments.services.league", "str(error)"): (
        ("tournaments.league", "__post_init__", "raise"),
        ("tournaments.league", "cut", "raise"),
        ("tournaments.league", "_unique", "raise"),
        ("tournaments.league", "next_season", "raise"),
    ),
    # One practice match too many.
    ("practice.services", "unfinished_practice_message(limit)"): (
        ("practice.services", "unfinished_practice_message", "return"),
    ),
    # An unknown level of the computer, or a vocabulary cap out of range.
    ("practice.services", "str(error)"): (
        ("engine.computer", "get_level", "raise"),
        ("lexicon.difficulty", "check_cap", "raise"),
    ),
}

#: Functions whose returned strings are refusal texts of their own (not through a class).
OTHER_SOURCES = (("accounts.names", "display_name_refusal", "return"),)


def _flat(text: str) -> str:
    """Text with every run of white space as one space (the documents wrap their lines)."""
    return " ".join(text.split())


@cache
def _doc(path: Path) -> str:
    return _flat(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ reading the code


@dataclass(frozen=True)
class Text:
    """A refusal text as the code builds it: exact, or a pattern where a value is filled in."""

    where: str
    text: str  # the text, with "…" where a value the code computes goes
    pattern: str | None = None  # a regex for the document, when the text has such a value

    def found_in(self, document: str) -> bool:
        if self.pattern is None:
            return _flat(self.text) in document
        return re.search(self.pattern, document) is not None


def _packages() -> list[Path]:
    """The project's own packages (the tests, benches and scripts are not the server)."""
    return sorted(
        path.parent
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "bench", "scripts"} and path.parent.name[0] != "."
    )


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


@cache
def _sources() -> dict[str, ast.Module]:
    """Every module of the project's packages, parsed (migrations excepted)."""
    trees: dict[str, ast.Module] = {}
    for package in _packages():
        for path in sorted(package.rglob("*.py")):
            if "migrations" in path.parts:
                continue
            trees[_module_name(path)] = ast.parse(path.read_text(encoding="utf-8"))
    return trees


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


def _evaluate(node: ast.expr, module: str) -> object:
    """The value of ``node`` in the module's namespace (its constants), or raise."""
    code = compile(ast.Expression(node), f"<{module}>", "eval")
    return eval(code, vars(_module(module)))  # noqa: S307 (our own source, parsed above)


def _text_of(node: ast.expr, module: str, where: str) -> list[Text] | None:
    """The texts ``node`` can evaluate to; None when it cannot be read from the source."""
    if isinstance(node, ast.Constant):
        return [Text(where, node.value)] if isinstance(node.value, str) else []
    if isinstance(node, ast.IfExp):
        both = [_text_of(node.body, module, where), _text_of(node.orelse, module, where)]
        return None if None in both else [text for side in both for text in side or []]
    if isinstance(node, ast.JoinedStr):
        shown, pattern = [], []
        for part in node.values:
            if isinstance(part, ast.Constant):
                shown.append(str(part.value))
                pattern.append(re.escape(re.sub(r"\s+", " ", str(part.value))))
                continue
            assert isinstance(part, ast.FormattedValue)
            try:  # a module constant (a limit, a length) is filled in exactly
                value = _evaluate(part.value, module)
            except (NameError, AttributeError, KeyError, TypeError):
                shown.append("…")
                pattern.append("[^`]+?")
            else:
                shown.append(str(value) if part.conversion == -1 else repr(value))
                pattern.append(re.escape(shown[-1]))
        return [Text(where, "".join(shown), "".join(pattern))]
    try:
        value = _evaluate(node, module)
    except (NameError, AttributeError, KeyError, TypeError, IndexError):
        return None
    return [Text(where, value)] if isinstance(value, str) else None


def _returned_texts(module: str, function: str, kind: str) -> list[Text]:
    """The strings ``function`` returns (``kind`` "return"), or raises an exception with
    ("raise")."""
    tree = _sources()[module]
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
    ]
    assert found, f"{module}.{function} is gone: update FORWARDED / OTHER_SOURCES"
    texts: list[Text] = []
    for node in ast.walk(found[0]):
        value = None
        if kind == "return" and isinstance(node, ast.Return) and node.value is not None:
            value = node.value
        elif kind == "raise" and isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            value = node.exc.args[0] if node.exc.args else None
        if value is None:
            continue
        read = _text_of(value, module, f"{module}.{function}")
        assert read is not None, f"{module}.{function} returns a text that cannot be read"
        texts += read
    assert texts, f"{module}.{function} returns no text"
    return texts


def _subclasses(base: type) -> list[type]:
    found: list[type] = []
    for cls in base.__subclasses__():
        found += [cls, *_subclasses(cls)]
    return found


#: The bases of every refusal: the engine's, the services', the notification services', the
#: practice services'. The last two are raised themselves too, with texts of their own.
REFUSAL_BASES = ("MoveError", "ServiceError", "NotificationError", "PracticeRefused")
RAISED_BASES = frozenset({"NotificationError", "PracticeRefused"})


@cache
def _refusal_classes() -> dict[str, type]:
    """Every subclass of the refusal bases (and the bases raised themselves), with every module
    that defines one imported first (a class defined anywhere is found)."""
    bases = set(REFUSAL_BASES)
    while True:  # classes of classes: repeat until no new name appears
        more = {
            node.name
            for tree in _sources().values()
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            and any(getattr(b, "id", getattr(b, "attr", None)) in bases for b in node.bases)
        }
        if more <= bases:
            break
        bases |= more
    roots: list[type] = []
    for module, tree in _sources().items():
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        if defined & bases:
            imported = _module(module)
            roots += [getattr(imported, name) for name in defined & set(REFUSAL_BASES)]
    assert {root.__name__ for root in roots} == set(REFUSAL_BASES), roots
    classes = [cls for root in roots for cls in _subclasses(root)]
    classes += [root for root in roots if root.__name__ in RAISED_BASES]
    return {cls.__name__: cls for cls in classes}


def _move_errors() -> list[type[engine_errors.MoveError]]:
    return [c for c in _refusal_classes().values() if issubclass(c, engine_errors.MoveError)]


def _service_errors() -> list[type[service_errors.ServiceError]]:
    return [c for c in _refusal_classes().values() if issubclass(c, service_errors.ServiceError)]


def _calls() -> Iterator[tuple[str, str, ast.Call]]:
    """(module, class name, call) for every call of a refusal class in the project."""
    names = set(_refusal_classes())
    for module, tree in _sources().items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in names:
                yield module, name, node


@cache
def _raised_texts() -> tuple[dict[str, list[Text]], frozenset[tuple[str, str]]]:
    """Every text each refusal class is raised with, by class name; and the forwarded
    expressions met on the way (to check FORWARDED is neither short nor stale)."""
    texts: dict[str, list[Text]] = {name: [] for name in _refusal_classes()}
    forwarded: set[tuple[str, str]] = set()
    for module, name, call in _calls():
        if name == "MoveRefused":
            continue  # (code, message) of an engine refusal: the engine's texts
        message = call.args[0] if call.args else None
        message = next((k.value for k in call.keywords if k.arg == "message"), message)
        if message is None:
            continue  # the class's own default text, checked per class
        where = f"{module}:{call.lineno}"
        read = _text_of(message, module, where)
        if read is None:
            key = (module, ast.unparse(message))
            assert key in FORWARDED, (
                f"{where} raises {name} with {key[1]!r}, a text this test cannot read: add "
                f"where it comes from to FORWARDED"
            )
            forwarded.add(key)
            for source in FORWARDED[key]:
                read = (read or []) + _returned_texts(*source)
        texts[name] += read or []
    return texts, frozenset(forwarded)


def _default_text(cls: type[engine_errors.MoveError]) -> str:
    """The text an instance says when raised as the code raises it."""
    needed = [
        p
        for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
        if p.default is inspect.Parameter.empty
    ]
    return str(cls(*["oxq"] * len(needed)))


# ------------------------------------------------------------------ the checks


def test_the_refusal_classes_are_found() -> None:
    """The discovery itself works (a broken search must not pass everything)."""
    names = set(_refusal_classes())
    assert {"NotInLine", "NotAWord", "BagTooSmall", "MalformedMove", "BlankNeedsLetter"} <= names
    assert {"SeatUnavailable", "MoveRefused", "ContributionRefused", "SignInRequired"} <= names
    texts, _ = _raised_texts()
    assert any(t.text == "Both seats are taken." for t in texts["SeatUnavailable"])
    assert any(t.pattern and "off the board" in t.text for t in texts["MalformedMove"])
    assert any(t.pattern and "No level is called" in t.text for t in texts["PracticeRefused"])
    assert {"NotificationError", "PracticeRefused"} <= names


@pytest.mark.parametrize("cls", _move_errors(), ids=lambda cls: cls.__name__)
def test_every_move_refusal_is_in_the_rules_and_the_protocol(cls) -> None:
    text = _default_text(cls)
    assert _flat(text) in _doc(RULES), f"{cls.__name__}: {text!r} is not in docs/RULES.md"
    assert f"`{cls.code}`" in _doc(RULES), f"{cls.__name__}'s code is not in docs/RULES.md"
    assert f"`{cls.code}`" in _doc(PROTOCOL), f"{cls.__name__}'s code is not in PROTOCOL.md"
    if cls is not engine_errors.MalformedMove:  # raised bare only where it cannot happen
        assert _flat(text) in _doc(PROTOCOL), f"{cls.__name__}: {text!r} not in PROTOCOL.md"


@pytest.mark.parametrize("name", sorted(_refusal_classes()))
def test_every_text_a_refusal_is_raised_with_is_in_the_rules(name) -> None:
    texts, _ = _raised_texts()
    missing = [t for t in texts[name] if not t.found_in(_doc(RULES))]
    assert not missing, "\n".join(f"{t.where}: {t.text!r} is not in docs/RULES.md" for t in missing)


def test_forwarded_texts_are_all_still_forwarded() -> None:
    _, seen = _raised_texts()
    assert set(FORWARDED) == seen, "FORWARDED names a text the code no longer forwards"


def test_every_service_refusal_is_classified_and_its_code_documented() -> None:
    classes = {cls.__name__: cls for cls in _service_errors()}
    new = sorted(set(classes) - set(SENT_BY))
    assert not new, (
        f"new ServiceError subclasses {new}: say in SENT_BY where each can be sent, and "
        "document its code and texts in docs/RULES.md (and PROTOCOL.md / API.md)"
    )
    documents = {"socket": _doc(PROTOCOL), "api": _doc(API)}
    for name, cls in classes.items():
        if name in {"MoveRefused", "RoundRefused"}:
            continue  # they carry the engine's codes
        assert f"`{cls.code}`" in _doc(RULES), f"{name}'s code {cls.code} not in RULES.md"
        for channel in SENT_BY[name]:
            assert f"`{cls.code}`" in documents[channel], f"{name}: {cls.code} ({channel})"


@pytest.mark.parametrize("name", sorted(SOCKET_TEXTS))
def test_the_socket_sends_its_refusals_in_the_protocols_words(name) -> None:
    texts, _ = _raised_texts()
    assert texts[name]
    missing = [t for t in texts[name] if not t.found_in(_doc(PROTOCOL))]
    assert not missing, "\n".join(f"{t.where}: {t.text!r} not in PROTOCOL.md" for t in missing)


def test_the_consumers_refusals_to_players_are_in_the_rules() -> None:
    for code, message in (
        consumers.SIGNED_OUT,
        consumers.SIGN_IN_TO_PLAY,
        consumers.RATE_LIMITED,
        consumers.KEY_REVOKED,
        consumers.NO_SUCH_MATCH,
    ):
        assert _flat(message) in _doc(RULES), (code, message)


def test_sign_up_and_sign_in_refusals_are_in_the_rules() -> None:
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    texts = [
        Text("accounts.views.LOCKED_OUT", account_views.LOCKED_OUT.format(minutes=minutes)),
        Text("accounts.ratelimit.SIGN_UP", ratelimit.SIGN_UP.message),
        Text("accounts.models.NAME_TAKEN", account_models.NAME_TAKEN),
        Text("common.text.NOT_ONE_LINE", wordduel_text.NOT_ONE_LINE),
    ]
    for source in OTHER_SOURCES:
        texts += _returned_texts(*source)
    missing = [t for t in texts if not t.found_in(_doc(RULES))]
    assert not missing, "\n".join(f"{t.where}: {t.text!r} is not in docs/RULES.md" for t in missing)
    limits = _doc(RULES)
    assert f"after {settings.AXES_FAILURE_LIMIT} failed sign-ins" in limits
    assert f"{settings.SIGN_IN_ADDRESS_FAILURE_LIMIT} failed sign-ins" in limits
    assert f"{ratelimit.SIGN_UP.count} new accounts an hour" in limits


def test_the_rules_numbers_are_the_settings() -> None:
    """The clock's numbers in docs/RULES.md are the settings' (the rulesets' are data)."""
    rules = _doc(RULES)
    assert f"{int(settings.NO_SHOW_WINDOW.total_seconds() // 60)} minutes unless" in rules
    assert f"has {settings.FORFEIT_AFTER.days} days (`FORFEIT_AFTER`)" in rules
