"""The two notice families added side by side (an organiser's change; friendly games) joined:
the notice kinds are every kind of both."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("notifications", "0003_friendly_notices"),
        ("notifications", "0003_organiser_change_notices"),
    ]

    operations = [
        migrations.AlterField(
            model_name='notice',
            name='kind',
            field=models.CharField(choices=[('your_move', 'Your move'), ('fixture', 'Fixture scheduled or changed'), ('kickoff', 'Kick-off in one hour'), ('forfeit', 'Forfeit warning'), ('result', 'Result'), ('digest', 'Daily digest'), ('moved', 'Kick-off moved'), ('substitute', 'Player substituted'), ('challenge', 'A challenge to you'), ('rematch', 'A rematch offered')], max_length=10),
        ),
    ]
