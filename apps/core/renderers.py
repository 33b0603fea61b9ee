"""orjson rendering: several times faster than the stdlib encoder for large price maps; and
CSV of the tabular endpoints (:mod:`apps.core.tabular`), from the same JSON-ready data."""

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework.renderers import BaseRenderer

from apps.core import tabular


class ORJSONRenderer(BaseRenderer):
    media_type = "application/json"
    format = "json"
    charset = None  # JSON is UTF-8 by definition; no '; charset=' parameter needed

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        if data is None:
            return b""
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


class CSVRenderer(BaseRenderer):
    """The view's table (its ``csv_table``) as RFC 4180 text with a header row.

    Only tabular views list it, after the JSON renderer; they switch their errors back to
    JSON before rendering (:class:`apps.core.tabular.TableMixin`), so this writes 2xx
    answers only."""

    media_type = tabular.CSV_MEDIA_TYPE
    format = tabular.CSV
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        context = renderer_context or {}
        view, request = context.get("view"), context.get("request")
        table = tabular.table_of(view)
        if table is None:
            raise TypeError(f"{type(view).__name__} declares no csv_table")
        response = context.get("response")
        if response is not None:
            # DRF wrote "text/csv; charset=utf-8"; RFC 4180's header parameter says more.
            response["Content-Type"] = tabular.CSV_CONTENT_TYPE
        fields = request.query_params.get("fields") if request is not None else None
        return tabular.render_table(data, table, fields, tabular.declared_columns(view, table))
