"""Name keys recomputed now that punctuation, symbols and spaces count for nothing in them
(``alice.`` is ``alice``), and a look-alike of a look-alike is the same name.

The data check: every member's keys are computed afresh, in the order the accounts were made.
Where two existing names now clash, the earlier member keeps the key and the later one keeps
none: nobody new can take a name like either, the later member still signs in and saves
everything but their names (a key follows its name: ``Member.save``), and an organiser can
rename them in the admin. Nothing is refused and no row is lost.
"""

from django.db import migrations

from accounts.names import skeleton


def fill_keys(apps, schema_editor):
    Member = apps.get_model("accounts", "Member")
    # First every key cleared, so that no key is refused for clashing with a stale one.
    Member.objects.update(username_key=None, display_key=None)
    taken: set[str] = set()
    changed = []
    for member in Member.objects.order_by("pk").only("pk", "username", "display_name"):
        username_key = skeleton(member.username)
        display_key = skeleton(member.display_name) if member.display_name else None
        free = username_key not in taken
        member.username_key = username_key if free else None
        taken.add(username_key)
        if display_key is not None:
            # A display name may look like its own username (the same name, written otherwise).
            own = {username_key} if free else set()
            member.display_key = display_key if display_key not in taken - own else None
            taken.add(display_key)
        changed.append(member)
    Member.objects.bulk_update(changed, ["username_key", "display_key"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_pending_email"),
    ]

    operations = [
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
    ]
