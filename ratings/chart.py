"""A rating history drawn as an SVG on the server: geometry only, the template writes it.

Readable without colour: the line is the page's text colour, each game's mark is a shape
(▲ a win, ▼ a loss, ◆ a draw, ● the start) named in a legend, every mark has a title, and
the chart is summarised in words for screen readers (the page also has the numbers as a
table). The x axis counts games (evenly spaced, as a long idle stretch says nothing about
strength); the y axis is the rating, with gridlines on round numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ratings.selectors import HistoryLine

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 36
#: Gridline steps to choose from, smallest first: the first giving at most 6 lines is used.
STEPS = (10, 20, 25, 50, 100, 200, 250, 500)
MARK = 5.0

SHAPES = {"start": "●", "won": "▲", "lost": "▼", "drew": "◆"}


@dataclass(frozen=True)
class Mark:
    """One point of the line: its place, its shape's path and a title for it."""

    x: float
    y: float
    kind: str
    path: str
    title: str


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    line: str
    marks: tuple[Mark, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    plot_left: int
    plot_right: int
    plot_top: int
    plot_bottom: int
    summary: str


def _shape(kind: str, x: float, y: float) -> str:
    """An SVG path for the mark: a triangle up or down, a diamond, or a square-ish dot."""
    m = MARK
    if kind == "won":
        return f"M{x:.1f},{y - m:.1f}L{x + m:.1f},{y + m * 0.8:.1f}L{x - m:.1f},{y + m * 0.8:.1f}Z"
    if kind == "lost":
        return f"M{x:.1f},{y + m:.1f}L{x + m:.1f},{y - m * 0.8:.1f}L{x - m:.1f},{y - m * 0.8:.1f}Z"
    if kind == "drew":
        return f"M{x:.1f},{y - m:.1f}L{x + m:.1f},{y:.1f}L{x:.1f},{y + m:.1f}L{x - m:.1f},{y:.1f}Z"
    r = m * 0.8
    return (
        f"M{x - r:.1f},{y:.1f}a{r:.1f},{r:.1f} 0 1,0 {2 * r:.1f},0"
        f"a{r:.1f},{r:.1f} 0 1,0 {-2 * r:.1f},0Z"
    )


def _step(low: float, high: float) -> int:
    span = max(high - low, 1.0)
    return next((step for step in STEPS if span / step <= 6), STEPS[-1])


def history_chart(lines: Sequence[HistoryLine]) -> Chart | None:
    """The chart of a player's history in one ruleset (oldest first), or None without games."""
    if not lines:
        return None
    values = [lines[0].before.rating] + [line.after.rating for line in lines]
    step = _step(min(values), max(values))
    low = math.floor(min(values) / step) * step
    high = math.ceil(max(values) / step) * step
    if high == low:
        low, high = low - step, high + step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    count = len(values) - 1  # games

    def x_of(index: int) -> float:
        return LEFT + plot_w * index / count

    def y_of(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    marks = [
        Mark(
            x_of(0),
            y_of(values[0]),
            "start",
            _shape("start", x_of(0), y_of(values[0])),
            f"Start: {lines[0].before_shown}",
        )
    ]
    for index, line in enumerate(lines, start=1):
        x, y = x_of(index), y_of(line.after.rating)
        title = (
            f"Game {index}, {line.played_at:%d %b %Y}: {line.outcome} against "
            f"{line.opponent}, {line.before_shown} to {line.after_shown} ({line.change:+d})"
        )
        marks.append(Mark(x, y, line.outcome, _shape(line.outcome, x, y), title))
    y_ticks = tuple(Tick(y_of(value), str(value)) for value in range(int(low), int(high) + 1, step))
    every = max(1, math.ceil(count / 8))
    x_ticks = tuple(Tick(x_of(i), str(i)) for i in range(0, count + 1, every))
    final = lines[-1]
    summary = (
        f"Rating over {count} rated game{'s' if count != 1 else ''}: from "
        f"{lines[0].before_shown} to {final.after_shown}; highest {round(max(values))}, "
        f"lowest {round(min(values))}."
    )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        line=" ".join(f"{mark.x:.1f},{mark.y:.1f}" for mark in marks),
        marks=tuple(marks),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        plot_left=LEFT,
        plot_right=WIDTH - RIGHT,
        plot_top=TOP,
        plot_bottom=HEIGHT - BOTTOM,
        summary=summary,
    )
