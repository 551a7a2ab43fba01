"""A match's ``name`` becomes the fixture's own label; titles add the players seated now.

Until now a round robin's fixtures, practice matches, challenges and rematches were stored
with their players' names baked in (``Cup · Round 1: alice v bob``, ``Practice: alice v the
computer``), so a substitute played under the old name and a deleted account's username
stayed in titles. Titles are now written from the seats (``matches/visibility/titles.py``);
this keeps only each fixture's own label:

- a tournament's fixture named ``<tournament> · Round N: ...``: ``<tournament> · Round N``;
- a practice match, challenge or rematch (in no tournament, made by one of its players):
  ``Practice``, ``Challenge``, ``Rematch``;
- an organiser's name ending in the players seated (``Final: alice v bob``): the part before
  them (``Final``); a name that is only the players: ``Fixture``.

Any other name is the organiser's own and is kept. Going back keeps the labels.
"""

import re

from django.db import migrations

_MADE_BY_A_PLAYER = re.compile(r"^(Practice|Challenge|Rematch): .+ v .+$", re.DOTALL)


def _written_forms(member) -> set[str]:
    """Every way the code of that time wrote a member in a name."""
    if member is None:
        return set()
    forms = {member.username}
    if member.display_name:
        forms |= {member.display_name, f"{member.display_name} ({member.username})"}
    if member.username == "wordduel-computer":
        forms.add("the computer")
    return forms


def label_of(name: str, *, tournament_name: str | None, round_number: int | None,
             made_by_a_player: bool, seated: list) -> str:  # fmt: skip
    """The fixture's own label, from a name stored with its players."""
    if tournament_name is not None and round_number is not None:
        prefix = f"{tournament_name} · Round {round_number}"
        if name.startswith(prefix):
            return prefix
    if tournament_name is None and made_by_a_player:
        found = _MADE_BY_A_PLAYER.match(name)
        if found:
            return found.group(1)
    if len(seated) == 2:
        for first in _written_forms(seated[0]):
            for second in _written_forms(seated[1]):
                players = f"{first} v {second}"
                if name == players:
                    return "Fixture"
                if name.endswith(f": {players}") and len(name) > len(players) + 2:
                    return name[: -len(players) - 2]
    return name


def _relabel(apps, schema_editor) -> None:
    Match = apps.get_model("matches", "Match")
    Seat = apps.get_model("matches", "Seat")
    for match in Match.objects.select_related("tournament").iterator():
        seats = list(Seat.objects.filter(match=match).select_related("member").order_by("position"))
        seated = [seat.member for seat in seats]
        label = label_of(
            match.name,
            tournament_name=match.tournament.name if match.tournament_id else None,
            round_number=match.round_number,
            made_by_a_player=match.created_by_id in {s.member_id for s in seats if s.member_id},
            seated=seated,
        )
        if label != match.name:
            match.name = label
            match.save(update_fields=["name"])


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0008_position_only"),
        ("accounts", "0004_existing_accounts_are_members"),
    ]

    operations = [
        migrations.RunPython(_relabel, migrations.RunPython.noop),
    ]
