"""The challenges page and the match page's rematch panel, as an approved member, a pending
one and a visitor see them; plain form posts, no JavaScript."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from challenges import services
from challenges.models import Challenge, RematchOffer
from matches.models import Match

pytestmark = pytest.mark.django_db

LIST = "/challenges/"


def _client(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_a_visitor_is_sent_to_sign_in(client) -> None:
    answer = client.get(LIST)
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("accounts:sign-in"))
    answer = client.post("/challenges/post/", {"ruleset": "word-duel", "rated": "no"})
    assert answer.status_code == 302
    assert Challenge.objects.count() == 0


def test_a_pending_member_sees_why_and_no_challenges(alice, pending) -> None:
    services.challenge_post(member=alice)
    client = _client(pending)
    answer = client.get(LIST)
    assert answer.status_code == 403
    page = answer.content.decode()
    assert services.MEMBERS_CHALLENGE in page
    assert "post-challenge" not in page
    assert "data-challenge-id" not in page
    answer = client.post("/challenges/post/", {"ruleset": "word-duel", "rated": "no"})
    assert answer.status_code == 403
    assert Challenge.objects.count() == 1


def test_the_nav_links_to_the_challenges(alice) -> None:
    page = _client(alice).get(reverse("home")).content.decode()
    assert f'href="{LIST}"' in page


def test_a_member_posts_a_challenge_and_another_accepts_it(alice, bob) -> None:
    poster = _client(alice)
    page = poster.get(LIST).content.decode()
    assert 'name="ruleset"' in page
    assert 'value="word-duel"' in page
    answer = poster.post(
        "/challenges/post/", {"ruleset": "word-duel", "rated": "yes", "opponent": ""}
    )
    assert answer.status_code == 302
    challenge = Challenge.objects.get()
    assert challenge.rated is True
    assert "Withdraw" in poster.get(LIST).content.decode()

    accepter = _client(bob)
    page = accepter.get(LIST).content.decode()
    assert f'data-challenge-id="{challenge.pk}"' in page
    assert f'action="/challenges/{challenge.pk}/accept/"' in page
    answer = accepter.post(f"/challenges/{challenge.pk}/accept/")
    match = Match.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == reverse("match", args=[match.id])
    assert match.status == Match.Status.LIVE
    assert "data-challenge-id" not in accepter.get(LIST).content.decode()
    page = poster.get(LIST).content.decode()
    assert 'id="accepted-challenges"' in page
    assert f'href="{reverse("match", args=[match.id])}"' in page
    assert 'id="accepted-challenges"' not in accepter.get(LIST).content.decode()


def test_a_refused_acceptance_shows_why(alice, bob, carol) -> None:
    challenge = services.challenge_post(member=alice, opponent_username="bob")
    client = _client(carol)
    assert "data-challenge-id" not in client.get(LIST).content.decode()  # not hers to see
    answer = client.post(f"/challenges/{challenge.pk}/accept/")
    assert answer.status_code == 409
    assert services.NOT_FOR_YOU in answer.content.decode()
    assert Match.objects.count() == 0


def test_bad_form_input_is_a_form_error(alice) -> None:
    client = _client(alice)
    answer = client.post("/challenges/post/", {"ruleset": "speedy", "rated": "maybe"})
    assert answer.status_code == 400
    assert "Select a valid choice" in answer.content.decode()
    answer = client.post(
        "/challenges/post/", {"ruleset": "word-duel", "rated": "no", "opponent": "nobody"}
    )
    assert answer.status_code == 400
    assert services.NO_SUCH_OPPONENT in answer.content.decode()
    assert Challenge.objects.count() == 0


def test_the_poster_withdraws_from_the_page(alice) -> None:
    challenge = services.challenge_post(member=alice)
    client = _client(alice)
    answer = client.post(f"/challenges/{challenge.pk}/withdraw/")
    assert answer.status_code == 302
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.WITHDRAWN


def test_an_expired_challenge_is_not_listed(alice, bob) -> None:
    challenge = services.challenge_post(member=alice)
    assert f'data-challenge-id="{challenge.pk}"' in _client(bob).get(LIST).content.decode()
    Challenge.objects.filter(pk=challenge.pk).update(expires_at=challenge.posted_at)
    assert "data-challenge-id" not in _client(bob).get(LIST).content.decode()


# ------------------------------------------------------------------ the rematch panel


def test_the_rematch_buttons_show_to_the_players_only(finished_friendly, alice, bob, carol):
    url = reverse("match", args=[finished_friendly.id])
    offer_action = f'action="/challenges/rematch/{finished_friendly.id}/offer/"'
    assert offer_action in _client(alice).get(url).content.decode()
    assert offer_action in _client(bob).get(url).content.decode()
    assert 'id="rematch"' not in _client(carol).get(url).content.decode()
    assert 'id="rematch"' not in Client().get(url).content.decode()


def test_on_a_live_friendly_the_rematch_panel_waits_hidden_without_buttons(
    live_match, alice, carol
) -> None:
    """The players' page holds the panel, hidden, for board.js to show when the game ends
    (tests/e2e/test_end_of_game_live.py); nobody else's does."""
    url = reverse("match", args=[live_match.id])
    page = _client(alice).get(url).content.decode()
    [panel] = re.findall(r'<section[^>]*id="rematch"[^>]*>.*?</section>', page, flags=re.DOTALL)
    assert 'data-state="not_yet"' in panel
    assert " hidden>" in panel
    assert "<form" not in panel
    assert "<button" not in panel
    assert 'id="rematch"' not in _client(carol).get(url).content.decode()


def test_a_rematch_offered_and_accepted_through_the_page(finished_friendly, alice, bob) -> None:
    url = reverse("match", args=[finished_friendly.id])
    offerer, other = _client(bob), _client(alice)
    answer = offerer.post(f"/challenges/rematch/{finished_friendly.id}/offer/")
    assert answer.status_code == 302
    assert answer["Location"] == url
    assert 'id="rematch-offered-by-you"' in offerer.get(url).content.decode()
    page = other.get(url).content.decode()
    assert 'id="rematch-offered-to-you"' in page
    assert f'action="/challenges/rematch/{finished_friendly.id}/accept/"' in page
    answer = other.post(f"/challenges/rematch/{finished_friendly.id}/accept/")
    rematch = RematchOffer.objects.get().rematch
    assert rematch is not None
    assert answer["Location"] == reverse("match", args=[rematch.id])
    assert [s.member_id for s in rematch.seats.order_by("position")] == [bob.pk, alice.pk]
    assert 'id="rematch-accepted"' in other.get(url).content.decode()


def test_a_refused_rematch_shows_its_message(finished_friendly, alice, carol) -> None:
    client = _client(carol)
    answer = client.post(f"/challenges/rematch/{finished_friendly.id}/offer/", follow=True)
    assert services.ONLY_PLAYERS_REMATCH in answer.content.decode()
    assert RematchOffer.objects.count() == 0


def test_a_declined_rematch_says_so(finished_friendly, alice, bob) -> None:
    services.rematch_offer(match_id=finished_friendly.id, member=alice)
    _client(bob).post(f"/challenges/rematch/{finished_friendly.id}/decline/")
    url = reverse("match", args=[finished_friendly.id])
    page = _client(alice).get(url).content.decode()
    assert 'id="rematch-declined"' in page
    assert f'action="/challenges/rematch/{finished_friendly.id}/offer/"' not in page


def test_no_rematch_panel_after_a_practice_match(alice) -> None:
    from matches import services as match_services
    from practice.services import start_practice

    match = start_practice(member=alice)
    match_services.match_resign(match_id=match.id, member=alice, client_id="giving-up")
    page = _client(alice).get(reverse("match", args=[match.id])).content.decode()
    assert "Unrated" in page  # (the page is the finished match's)
    assert 'id="rematch"' not in page


def test_no_rematch_panel_when_the_opponent_left_the_club(finished_friendly, alice, bob) -> None:
    bob.membership = bob.Membership.REMOVED
    bob.save(update_fields=["membership"])
    page = _client(alice).get(reverse("match", args=[finished_friendly.id])).content.decode()
    assert 'id="rematch"' not in page
