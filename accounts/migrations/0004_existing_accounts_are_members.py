"""Every account that existed before membership had a state stays a member (issue 19)."""

from django.db import migrations


def approve_existing(apps, schema_editor):
    Member = apps.get_model("accounts", "Member")
    Member.objects.exclude(membership="approved").update(membership="approved")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_membership_and_profile")]

    operations = [migrations.RunPython(approve_existing, migrations.RunPython.noop)]
