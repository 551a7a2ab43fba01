"""Web push through a stand-in push service on loopback: the test decrypts what pywebpush
sent with the browser's private key and checks the payload and the VAPID signature; a
410 answer removes the subscription; subscriptions are validated when stored."""

from __future__ import annotations

import base64
import json

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.test import Client

from notifications.models import Delivery, PushSubscription
from notifications.schemas import PushPayload
from tests.matches.helpers import commit_move, opening_play, rack_of, title_of

pytestmark = pytest.mark.django_db


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _subscribe(member, push_service, browser_keys, path="/push/browser-1"):
    client = Client()
    client.force_login(member)
    answer = client.post(
        "/notifications/push/subscribe/",
        json.dumps(
            {
                "endpoint": f"{push_service.url}{path}",
                "expirationTime": None,
                "keys": {"p256dh": browser_keys.p256dh, "auth": browser_keys.auth},
            }
        ),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.content
    return client


def _verify_vapid(authorization: str, public_key_b64: str) -> dict:
    """Check the ``vapid t=JWT, k=KEY`` header: the key is ours and signed the token."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == public_key_b64
    header, claims, signature = fields["t"].split(".")
    raw = _unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(fields["k"]))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    return json.loads(_unb64(claims))


def test_a_your_move_push_decrypts_to_the_payload(
    live_match,
    alice,
    bob,
    vapid,
    push_service,
    browser_keys,
    eager_tasks,
    django_capture_on_commit_callbacks,
):
    _subscribe(bob, push_service, browser_keys)
    with django_capture_on_commit_callbacks(execute=True):
        commit_move(
            match_id=live_match.id,
            member=alice,
            against_turn=0,
            client_id="c1",
            move=opening_play(rack_of(live_match, 0)),
        )

    [request] = push_service.requests
    assert request.path == "/push/browser-1"
    assert request.headers["content-encoding"] == "aes128gcm"
    assert int(request.headers["ttl"]) > 0
    claims = _verify_vapid(request.headers["authorization"], vapid["VAPID_PUBLIC_KEY"])
    assert claims["aud"] == push_service.url
    assert claims["sub"] == "mailto:admin@wordduel.test"
    plain = http_ece.decrypt(
        request.body,
        private_key=browser_keys.private_key,
        auth_secret=browser_keys.auth_secret,
        version="aes128gcm",
    )
    payload = PushPayload.model_validate_json(plain)
    assert payload.kind == "your_move"
    assert payload.title == f"Your move: {title_of(live_match)}"
    assert payload.body.startswith(f"alice has moved in {title_of(live_match)}.")
    assert payload.url == f"http://127.0.0.1:8000/matches/{live_match.id}/"
    assert set(json.loads(plain)) == set(PushPayload.model_fields)
    assert Delivery.objects.get(notice__member=bob, channel="push").status == "sent"


def test_a_410_from_the_push_service_removes_the_subscription(
    live_match,
    alice,
    bob,
    vapid,
    push_service,
    browser_keys,
    eager_tasks,
    django_capture_on_commit_callbacks,
):
    _subscribe(bob, push_service, browser_keys)
    assert PushSubscription.objects.filter(member=bob).count() == 1
    push_service.status = 410
    with django_capture_on_commit_callbacks(execute=True):
        commit_move(
            match_id=live_match.id,
            member=alice,
            against_turn=0,
            client_id="c1",
            move=opening_play(rack_of(live_match, 0)),
        )
    assert len(push_service.requests) == 1
    assert not PushSubscription.objects.filter(member=bob).exists()
    delivery = Delivery.objects.get(notice__member=bob, channel="push")
    assert (delivery.status, delivery.detail) == ("skipped", "no subscription left")


def test_a_failing_push_service_is_tried_again_later(
    live_match,
    alice,
    bob,
    vapid,
    push_service,
    browser_keys,
    eager_tasks,
    django_capture_on_commit_callbacks,
):
    _subscribe(bob, push_service, browser_keys)
    push_service.status = 503
    with django_capture_on_commit_callbacks(execute=True):
        commit_move(
            match_id=live_match.id,
            member=alice,
            against_turn=0,
            client_id="c1",
            move=opening_play(rack_of(live_match, 0)),
        )
    delivery = Delivery.objects.get(notice__member=bob, channel="push")
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert PushSubscription.objects.filter(member=bob).exists()


def test_one_row_per_browser_and_only_push_services_hosts(
    bob, alice, vapid, push_service, browser_keys
):
    client = _subscribe(bob, push_service, browser_keys)
    _subscribe(alice, push_service, browser_keys)  # the same browser, now alice's
    assert list(PushSubscription.objects.values_list("member__username", flat=True)) == ["alice"]

    def post(body: object) -> tuple[int, dict]:
        answer = client.post(
            "/notifications/push/subscribe/", body, content_type="application/json"
        )
        return answer.status_code, answer.json()

    evil = {
        "endpoint": "https://169.254.169.254/latest",
        "keys": {"p256dh": browser_keys.p256dh, "auth": browser_keys.auth},
    }
    assert post(json.dumps(evil)) == (
        400,
        {
            "ok": False,
            "code": "bad_subscription",
            "message": "That is not a push service this server sends to.",
        },
    )
    assert post("{not json")[0] == 400
    assert post(json.dumps({"endpoint": f"{push_service.url}/x", "keys": {}}))[1]["code"] == (
        "notification_error"
    )
    assert post("x" * 5000)[0] == 400
    assert PushSubscription.objects.count() == 1
    assert (
        client.post(
            "/notifications/push/unsubscribe/",
            json.dumps({"endpoint": f"{push_service.url}/push/browser-1"}),
            content_type="application/json",
        ).status_code
        == 200
    )
    assert PushSubscription.objects.count() == 1  # not bob's to remove


def test_the_service_worker_may_control_the_whole_site():
    answer = Client().get("/notifications/sw.js")
    assert answer.status_code == 200
    assert answer["Service-Worker-Allowed"] == "/"
    assert answer["Content-Type"].startswith("text/javascript")
    assert b"showNotification" in answer.content
