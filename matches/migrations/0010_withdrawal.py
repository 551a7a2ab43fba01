"""A player withdrawn by an organiser: the ending ``withdrawn`` and the audit kind ``withdraw``."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0009_match_labels'),
    ]

    operations = [
        migrations.AlterField(
            model_name='match',
            name='end_reason',
            field=models.CharField(blank=True, choices=[('', 'Not over'), ('played_out', 'Played out'), ('six_scoreless', 'Six scoreless turns'), ('forfeit', 'Forfeit'), ('no_show', 'No-show'), ('abandoned', 'Both seats empty'), ('resigned', 'Resignation'), ('cancelled', 'Cancelled by an organiser'), ('adjudicated', 'Adjudicated by an organiser'), ('voided', 'Voided by an organiser'), ('withdrawn', 'Withdrawn by an organiser')], default='', max_length=14),
        ),
        migrations.AlterField(
            model_name='organiseraction',
            name='kind',
            field=models.CharField(choices=[('reschedule', 'Kick-off rescheduled'), ('cancel', 'Fixture cancelled'), ('adjudicate', 'Result adjudicated'), ('void', 'Match voided'), ('substitute', 'Player substituted'), ('postpone', 'Round postponed'), ('withdraw', 'Player withdrawn')], max_length=12),
        ),
    ]
