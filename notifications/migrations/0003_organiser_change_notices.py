"""The notices of an organiser's change (a kick-off moved, a substitution), each keyed by
the organiser's action it tells of."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0010_withdrawal'),
        ('notifications', '0002_calendar_feed'),
    ]

    operations = [
        migrations.AddField(
            model_name='notice',
            name='organiser_action',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='notices', to='matches.organiseraction'),
        ),
        migrations.AlterField(
            model_name='notice',
            name='kind',
            field=models.CharField(choices=[('your_move', 'Your move'), ('fixture', 'Fixture scheduled or changed'), ('kickoff', 'Kick-off in one hour'), ('forfeit', 'Forfeit warning'), ('result', 'Result'), ('digest', 'Daily digest'), ('moved', 'Kick-off moved'), ('substitute', 'Player substituted')], max_length=10),
        ),
    ]
