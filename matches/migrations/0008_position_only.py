"""Keep a match's position once: ``game_state`` drops the history and the parts with columns.

Format 1 of ``Match.game_state`` was the engine's whole game: the board, racks, bag, scores and
draw stream, and every turn again (the ``Turn`` rows already log them). Format 2 holds only
what has no column of its own (matches/position.py): the board, the bag, how far the draw
stream has run, the scoreless run, and the ending with its rack adjustments. The racks and
scores are the seats' (copied here from format 1, which was their source), the turn number
the match's. Going back leaves format 2 in place, which this migration skips when applied
again.
"""

from django.db import migrations


class SeedDisagrees(Exception):
    """A stored game whose draw stream is not the match's own: not converted silently."""


def _to_position(apps, schema_editor) -> None:
    Match = apps.get_model("matches", "Match")
    Seat = apps.get_model("matches", "Seat")
    for match in Match.objects.exclude(game_state=None).iterator():
        state = match.game_state
        if state.get("format") != 1:
            continue
        seats = list(Seat.objects.filter(match=match).order_by("position"))
        salt = b"".join(bytes.fromhex(seat.contribution) for seat in seats)
        seed = bytes.fromhex(match.bag_seed)
        if bytes.fromhex(state["seed"]) != seed or bytes.fromhex(state["salt"]) != salt:
            raise SeedDisagrees(f"match {match.pk}: its stored game was not dealt from its seed")
        for seat in seats:
            rack, score = state["racks"][seat.position], int(state["scores"][seat.position])
            if (seat.rack, seat.score) != (rack, score):
                seat.rack, seat.score = rack, score
                seat.save(update_fields=["rack", "score"])
        match.game_state = {
            "format": 2,
            "board": state["board"],
            "bag": state["bag"],
            "draws": int(state["counter"]),
            "scoreless_streak": int(state["scoreless_streak"]),
            "end_reason": state["end_reason"],
            "result": state["result"],
            "adjustments": state["adjustments"],
        }
        match.turn_number = len(state["turns"])
        match.bag_count = len(state["bag"])
        match.save(update_fields=["game_state", "turn_number", "bag_count"])


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0007_organiser_substitute_postpone"),
    ]

    operations = [
        migrations.RunPython(_to_position, migrations.RunPython.noop),
    ]
