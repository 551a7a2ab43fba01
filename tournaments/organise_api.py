"""The organisers' member picker over HTTP: ``GET /api/organise/members/?q=``.

A form's member field asks it as the organiser types (a ``<datalist>`` filled by
``member_picker.js``); without JavaScript the field takes a username and the form checks
it. Only organisers may ask (anyone else gets the API's 403), and only approved members are
offered.
"""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest
from ninja import Query, Router

from matches.schemas import ApiError, MemberOption, MemberOptions
from matches.services.common import require_organiser
from tournaments.organise_selectors import PICKER_LIMIT, member_options

router = Router(tags=["organise"])

Prefix = Annotated[
    str,
    Query(description="The start of a username or display name (any case); empty for the first."),
]


@router.get(
    "/members/",
    response={200: MemberOptions, 403: ApiError},
    url_name="organise-members",
    summary="Find members as you type",
)
def members_search(request: HttpRequest, q: Prefix = "") -> MemberOptions:
    """Approved members whose username or display name starts with ``q``: organisers only."""
    require_organiser(request.user)  # NotAllowed: the API's 403 with its own words
    return MemberOptions(
        limit=PICKER_LIMIT,
        results=[
            MemberOption(username=member.username, name=str(member)) for member in member_options(q)
        ],
    )
