"""Flood control counts frames as they arrive: a steady flood is closed, a pausing client not."""

from __future__ import annotations

from matches.live.floodgate import FloodGate, Verdict


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def gate(clock: Clock) -> FloodGate:
    return FloodGate(burst=30, per_second=10, close_after=100, clock=clock)


def test_a_steady_flood_is_closed_even_with_the_allowance_trickling_back() -> None:
    """400 frames a second: the allowance lets one through every tenth of a second, which
    must not wipe the count (it did, when a read reset it: such a flood was never closed)."""
    clock = Clock()
    flood = gate(clock)
    verdicts = []
    for _ in range(1000):
        clock.now += 1 / 400
        verdicts.append(flood.arrive())
        if verdicts[-1] is Verdict.CLOSE:
            break
    assert verdicts[-1] is Verdict.CLOSE
    assert verdicts.count(Verdict.REFUSE) == 100  # exactly the documented number of answers
    assert Verdict.READ in verdicts[30:]  # reads did trickle in between


def test_a_client_that_pauses_to_refill_is_never_closed() -> None:
    clock = Clock()
    flood = gate(clock)
    for _ in range(20):  # bursts of 90 frames, then 3 s of quiet: 60 refusals each time
        for _ in range(90):
            assert flood.arrive() is not Verdict.CLOSE
        clock.now += 3.0


def test_within_the_allowance_everything_is_read() -> None:
    clock = Clock()
    flood = gate(clock)
    assert [flood.arrive() for _ in range(30)] == [Verdict.READ] * 30
    for _ in range(100):
        clock.now += 0.11  # a little under ten a second
        assert flood.arrive() is Verdict.READ
