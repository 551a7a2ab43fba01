"""The ladder bench (``bench/bots.py``) at a tiny size: it plays whole games of each level
against the greedy reference and against the level below, and reports score, win rate,
spread and rating with intervals; the ratings it ships are read back by ``engine.ladder``."""

from __future__ import annotations

import math

import pytest

from bench.bots import (
    LEVELS,
    PERIOD,
    STEPS,
    Series,
    ladder_data,
    play_series,
    pooled,
    rate_games,
    report,
)
from engine.computer import EASY, GREEDY, HARD, NORMAL
from engine.errors import LevelNotMeasured
from engine.ladder import ALL_RULESETS, Ladder, ladder, level_rating, with_rating
from ratings.policy import START


@pytest.fixture(scope="module")
def tiny(enable) -> list[Series]:
    """Two games (one deal from both seats) of every series, in outspell (the quickest)."""
    pairs = [(level, GREEDY) for level in LEVELS] + list(STEPS)
    return [
        play_series(
            ruleset="outspell", level=level, against=against, games=2, seed=7, lexicon=enable
        )
        for level, against in pairs
    ]


def test_the_ladder_bench_runs_at_a_tiny_size(tiny: list[Series], enable) -> None:
    assert [(s.level, s.opponent) for s in tiny] == [
        ("easy", "greedy"),
        ("normal", "greedy"),
        ("hard", "greedy"),
        ("normal", "easy"),
        ("hard", "normal"),
    ]
    for s in tiny:
        assert s.games == 2
        assert len(s.scores) == len(s.spreads) == len(s.results) == 2
        assert all(score > 0 for score in s.scores)
        assert all(value in (0.0, 0.5, 1.0) for value in s.results)
        # A spread's sign is the result: won games are ahead, lost ones behind.
        for spread, result in zip(s.spreads, s.results, strict=True):
            assert (spread > 0, spread == 0, spread < 0) == (
                result == 1,
                result == 0.5,
                result == 0,
            )
        low, high = s.win_interval()
        assert 0.0 <= low <= s.win_rate <= high <= 1.0
        assert s.average == sum(s.scores) / 2
    # The same seed gives the same games.
    again = play_series(ruleset="outspell", level=HARD, games=2, seed=7, lexicon=enable)
    assert again == tiny[2]


def test_the_report_and_the_shipped_ratings_say_what_the_games_say(tiny: list[Series]) -> None:
    text = report(tiny, games=2, seed=7, command="bench/bots.py --games 2")
    assert "| outspell | hard |" in text
    assert "| outspell | hard v normal |" in text
    assert "| all | hard |" in text
    assert "Glicko-2" in text
    hard = tiny[2]
    assert f"{hard.win_rate:.1%}" in text
    data = ladder_data(tiny, games=2, seed=7, command="bench/bots.py --games 2")
    assert set(data.ratings) == {
        (ruleset, level.name) for ruleset in ("outspell", ALL_RULESETS) for level in LEVELS
    }
    for s in tiny[:3]:
        rated = data.rating(s.level, ruleset="outspell")
        assert rated.games == 2
        assert rated.win_rate == s.win_rate
        assert rated.rating == s.rating().rating
        assert rated.deviation < START.deviation
    # Outspell is the only ruleset here, so "all" is the same games.
    assert data.rating(HARD).rating == data.rating(HARD, ruleset="outspell").rating
    # Shipped as JSON (rounded as a page shows it), read back the same.
    assert Ladder.from_json(data.to_json()).to_json() == data.to_json()
    with pytest.raises(LevelNotMeasured):
        data.rating(HARD, ruleset="classic")
    with pytest.raises(ValueError, match="not the reference"):
        tiny[3].rating()  # Normal against Easy is no game against the reference


def test_pooling_keeps_every_game_of_the_level(tiny: list[Series]) -> None:
    together = pooled(tiny, level=EASY.name)
    assert together.ruleset == ALL_RULESETS
    assert sorted(together.results) == sorted(tiny[0].results)
    assert together.games == 2


def test_ratings_follow_the_win_rate_and_narrow_with_more_games() -> None:
    few = Series("classic", "hard", "greedy", 10, (400,) * 10, (20, -20) * 5, (1.0, 0.0) * 5)
    many = Series(
        "classic", "hard", "greedy", 1000, (400,) * 1000, (20, -20) * 500, (1.0, 0.0) * 500
    )
    assert few.win_rate == many.win_rate == 0.5
    few_low, few_high = few.win_interval()
    many_low, many_high = many.win_interval()
    assert few_low < many_low < 0.5 < many_high < few_high
    assert many.mean_interval(many.spreads)[1] < few.mean_interval(few.spreads)[1]
    assert math.isclose(many.rating().rating, 1500, abs_tol=40)
    assert many.rating().deviation < few.rating().deviation
    # Winning 3 games in 4 against the anchor puts a level well above it; 1 in 4, below.
    strong = rate_games([1.0, 1.0, 1.0, 0.0] * 250)
    weak = rate_games([0.0, 0.0, 0.0, 1.0] * 250)
    assert strong.rating > 1600
    assert weak.rating < 1400
    assert math.isclose(strong.rating - 1500, 1500 - weak.rating, rel_tol=0.05)
    assert PERIOD > 1


def test_the_shipped_ladder_rates_every_level_in_order() -> None:
    shipped = ladder()
    for ruleset in ("word-duel", "classic", "outspell", ALL_RULESETS):
        easy, normal, hard = (level_rating(level, ruleset=ruleset) for level in LEVELS)
        assert easy.rating < normal.rating < hard.rating
        assert easy.games == normal.games == hard.games >= shipped.games
        low, high = hard.interval
        assert low < hard.rating < high
        assert hard.shown == f"{round(hard.rating, -1):.0f}"
    assert level_rating("normal") == shipped.rating(NORMAL)
    assert with_rating("Hard", "hard") == f"Hard · {level_rating(HARD).shown}"
    assert with_rating("Hard", "hard", ruleset="scrabble-ish") == "Hard"
    with pytest.raises(ValueError, match="No level is called"):
        level_rating("greedy")  # the reference is not a level a member may choose


def test_a_run_keeps_each_game_and_goes_on_where_it_stopped(tmp_path, monkeypatch) -> None:
    """The games of a series are kept as they are played: a run stopped short (here, a lost
    line, and a run given no time) plays only what is missing, and the series is the same as
    one played in one go."""
    from bench import bots

    monkeypatch.setattr(bots, "KEPT", tmp_path)
    with pytest.raises(bots.Unfinished):
        bots.run(games=2, seed=7, rulesets=["outspell"], minutes=0)
    assert list(tmp_path.iterdir()) == []  # no time: nothing played
    whole = bots.run(games=2, seed=7, rulesets=["outspell"])
    kept = sorted(tmp_path.iterdir())
    assert len(kept) == len(LEVELS) + len(STEPS)
    assert all(len(path.read_text().splitlines()) == 2 for path in kept)
    hard = bots.kept_path(seed=7, ruleset="outspell", level="hard", against="greedy")
    first, _second = hard.read_text().splitlines()
    hard.write_text(first + "\n1,12")  # the second game lost, its line cut short by a kill
    again = bots.run(games=2, seed=7, rulesets=["outspell"], workers=2)
    assert again == whole
    assert len(bots.kept_games(hard)) == 2
    assert whole[2] == bots.play_series(
        ruleset="outspell", level=HARD, games=2, seed=7, lexicon=bots_lexicon()
    )


def bots_lexicon():
    from engine import get_ruleset
    from lexicon.lexicon import get_lexicon

    return get_lexicon("enable", max_len=get_ruleset("outspell").lexicon_max_len)


def test_the_bench_and_the_ratings_policy_import_without_django() -> None:
    """The bench runs as a plain script (``make bench``'s bots step, or by hand): nothing it
    imports, the ratings' pure policy included, may need Django's settings."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)}
    code = "import bench.bots, ratings.policy, sys; sys.exit('django.conf' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, cwd=root, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr.decode()
