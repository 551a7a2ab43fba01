"""API routes, mounted at ``/api/`` by ``wordduel/urls.py``; and the GCG download beside the pages.

``export_urlpatterns`` holds ``matches/<id>/export.gcg`` for mounting at the site's root, so
the download sits next to the match page it exports.
"""

from django.urls import path

from matches import api

urlpatterns = [
    path("schema/", api.schema, name="api-schema"),
    path("matches/", api.match_list, name="api-matches"),
    path("matches/<int:match_id>/", api.match_state, name="api-match"),
    path("matches/<int:match_id>/replay", api.match_replay, name="api-match-replay"),
    path("matches/<int:match_id>/contribute", api.match_contribute, name="api-match-contribute"),
    path("matches/<int:match_id>/export.gcg", api.match_export_gcg, name="api-match-export-gcg"),
]

export_urlpatterns = [
    path("matches/<int:match_id>/export.gcg", api.match_export_gcg, name="match-export-gcg"),
]
