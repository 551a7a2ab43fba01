"""A client's request id: the answer to it kept once, and given again to a retry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from common.errors import ServiceError
from matches.models import CommitReceipt, Match
from matches.services.errors import RequestIdTaken


def receipt_for(*, match_id: int, member_id: int, client_id: str) -> CommitReceipt | None:
    """The receipt this member holds for ``client_id`` in the match, if they sent it before."""
    return CommitReceipt.objects.filter(
        match_id=match_id, member_id=member_id, client_id=client_id
    ).first()


def replayed_answer(
    receipt: CommitReceipt,
    *,
    kind: str,
    refused: Callable[[dict[str, Any]], ServiceError],
) -> dict[str, Any]:
    """The accepted answer first given under this id. A refusal is raised again (``refused``
    rebuilds it from the stored answer), and an id first sent for another kind of request
    raises :class:`RequestIdTaken`: a retry answers the same and changes nothing."""
    if receipt.kind != kind:
        raise RequestIdTaken(RequestIdTaken.MESSAGE)
    if not receipt.accepted:
        raise refused(receipt.response)
    response: dict[str, Any] = receipt.response
    return response


def keep_receipt(
    *,
    match: Match,
    member: Any,
    kind: str,
    client_id: str,
    accepted: bool,
    response: dict[str, Any],
) -> None:
    """Keep the answer to ``client_id``, in the transaction that made the change it
    reports, so the retry that finds it finds the change too."""
    receipt_row(
        match=match,
        member=member,
        kind=kind,
        client_id=client_id,
        accepted=accepted,
        response=response,
    ).save(force_insert=True)


def receipt_row(
    *,
    match: Match,
    member: Any,
    kind: str,
    client_id: str,
    accepted: bool,
    response: dict[str, Any],
) -> CommitReceipt:
    """The receipt :func:`keep_receipt` writes, unsaved: for a caller that writes it with
    the other rows of its change in one statement (:mod:`matches.services.rows_at_once`)."""
    return CommitReceipt(
        match=match,
        member=member,
        kind=kind,
        client_id=client_id,
        accepted=accepted,
        response=response,
    )
