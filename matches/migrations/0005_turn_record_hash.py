"""Turn.record_hash: the hash-chained turn log (matches/chain.py), backfilled for every turn
already played, from each match's bag commitment, in turn order."""

from django.db import migrations, models

from matches.chain import chain_hashes


def backfill_chain(apps, schema_editor):
    """Chain every match's existing turns, as if each hash had been published when made."""
    Match = apps.get_model("matches", "Match")
    Turn = apps.get_model("matches", "Turn")
    for match in Match.objects.filter(turns__isnull=False).distinct().iterator():
        turns = list(Turn.objects.filter(match=match).order_by("number"))
        for turn, value in zip(turns, chain_hashes(turns, match.bag_commitment), strict=True):
            turn.record_hash = value
        Turn.objects.bulk_update(turns, ["record_hash"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0004_resign"),
    ]

    operations = [
        migrations.AddField(
            model_name="turn",
            name="record_hash",
            field=models.CharField(default="", editable=False, max_length=64),
            preserve_default=False,
        ),
        migrations.RunPython(backfill_chain, migrations.RunPython.noop),
    ]
