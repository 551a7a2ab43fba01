"""Browser: the notification settings page saves what a member chooses."""

from __future__ import annotations

import pytest

from notifications.models import NotificationSettings

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_settings_page_saves(open_page, make_member):
    from tests.e2e.browser import expect

    member = make_member("carla")
    page = open_page("/notifications/settings/", member, wait=False)
    page.get_by_label("Result by email").uncheck()
    page.get_by_label("Forfeit warning by web push").uncheck()
    page.get_by_label("Forfeit warnings by email, hours before").fill("8, 4, 1")
    page.get_by_label("Your-move emails").select_option("digest")
    page.get_by_label("Digest at").select_option("7")
    page.get_by_label("Your time zone").select_option("Europe/Lisbon")
    page.get_by_label("Quiet from").select_option("22")
    page.get_by_label("until").select_option("6")
    page.get_by_role("button", name="Save").click()

    expect(page.get_by_role("status").first).to_contain_text("saved")
    prefs = NotificationSettings.objects.get(member=member)
    assert prefs.email_warning_hours == [8, 4, 1]
    assert "result" not in prefs.email_kinds
    assert "forfeit" not in prefs.push_kinds
    assert (prefs.your_move_email, prefs.digest_hour, prefs.time_zone) == (
        "digest",
        7,
        "Europe/Lisbon",
    )
    assert (prefs.quiet_start, prefs.quiet_end) == (22, 6)
    # The page shows what was saved.
    page.reload()
    expect(page.get_by_label("Forfeit warnings by email, hours before")).to_have_value("8, 4, 1")
    expect(page.get_by_label("Result by email")).not_to_be_checked()
    expect(page.get_by_label("Your time zone")).to_have_value("Europe/Lisbon")


def test_a_bad_value_is_refused_on_the_page(open_page, make_member):
    from tests.e2e.browser import expect

    member = make_member("dora")
    page = open_page("/notifications/settings/", member, wait=False)
    page.get_by_label("Forfeit warnings by email, hours before").fill("soon")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert").first).to_contain_text("Write whole hours")
    assert NotificationSettings.objects.get(member=member).email_warning_hours == [24, 2]
