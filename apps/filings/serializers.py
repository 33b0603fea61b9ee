"""Query declarations of the v2 filings endpoints (SEC EDGAR); their answers' members are
the records' (:mod:`marketdata.records.filings`)."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.params import DayParam, IntegerParam, TextParam
from apps.core.v2 import CursorParam, FieldsQuery, OrderedPageQuery, PageQuery, order_param
from marketdata.records import insiders
from marketdata.records.insiders import CODES, DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS

DEFAULT_TAXONOMY = "us-gaap"
# The concepts served when `concepts` is absent: the headline lines of the income
# statement, balance sheet and cash-flow statement.
DEFAULT_CONCEPTS = (
    "Revenues", "CostOfRevenue", "GrossProfit", "OperatingIncomeLoss", "NetIncomeLoss",
    "EarningsPerShareBasic", "EarningsPerShareDiluted", "Assets", "AssetsCurrent",
    "Liabilities", "LiabilitiesCurrent", "StockholdersEquity",
    "CashAndCashEquivalentsAtCarryingValue", "LongTermDebtNoncurrent",
    "NetCashProvidedByUsedInOperatingActivities", "NetCashProvidedByUsedInInvestingActivities",
    "NetCashProvidedByUsedInFinancingActivities")
MAX_SEARCH_SIZE = 100
# EDGAR's full-text search serves the first 10,000 hits of a query.
MAX_SEARCH_FROM = 9_999

_TAXONOMY = re.compile(r"[a-z][a-z0-9-]{0,31}")


def csv_items(text: str | None) -> list[str]:
    """The non-blank items of a comma list, trimmed, duplicates removed, order kept."""
    return list(dict.fromkeys(p.strip() for p in (text or "").split(",") if p.strip()))


_TAXONOMY_PATTERN = r"^\s*[a-z][a-z0-9-]{0,31}\s*$"


class V2FilingsQuery(OrderedPageQuery):
    """``cursor``/``limit`` page ``filings``; ``order`` orders them."""

    order = order_param("desc", "filings (EDGAR's order: by filing date and time)")


@extend_schema_field({"type": "string", "minLength": 1, "pattern": _TAXONOMY_PATTERN})
class TaxonomyParam(TextParam):
    """An XBRL taxonomy name (checked in :meth:`V2FactsQuery.validate_taxonomy`)."""


class V2FactsQuery(PageQuery):
    taxonomy = TaxonomyParam(
        required=False, default=DEFAULT_TAXONOMY,
        help_text="XBRL taxonomy: `us-gaap` (the default), `ifrs-full` (foreign filers "
                  "reporting in IFRS), `dei` (cover-page facts such as shares outstanding), "
                  "`srt`... Lower-case letters, digits and dashes")
    concepts = TextParam(
        required=False,
        help_text="Comma-separated concept names, exact (`NetIncomeLoss,Assets`); absent: "
                  "the 17 headline concepts (" + ", ".join(DEFAULT_CONCEPTS) + "). "
                  "Concepts the company never reported are left out")
    form = TextParam(
        required=False,
        help_text="Comma-separated form types (`10-K`, `10-Q`, `10-K/A`, `20-F`...; any "
                  "case): only values reported in those forms. Absent: every form")

    def validate_taxonomy(self, value: str) -> str:
        value = value.strip()
        if not _TAXONOMY.fullmatch(value):
            raise serializers.ValidationError(
                "Input should be a taxonomy name: lower-case letters, digits and dashes")
        return value


class V2FilingSearchQuery(FieldsQuery):
    q = TextParam(required=True, help_text="Words or a quoted phrase to find in filings' "
                                           "text (EDGAR full-text search syntax)")
    forms = TextParam(required=False,
                      help_text="Comma-separated form types to keep (`10-K,8-K`); absent: "
                                "every form")
    startDate = DayParam(required=False, help_text="Filed on or after, `YYYY-MM-DD`")  # noqa: N815
    endDate = DayParam(required=False, help_text="Filed on or before, `YYYY-MM-DD`")  # noqa: N815
    cursor = CursorParam(
        required=False, help_text="`hits.pageInfo.endCursor` of the previous page (opaque): "
                                  "the page after it (`from` is ignored with it)")
    limit = IntegerParam(
        required=False, min_value=1, max_value=MAX_SEARCH_SIZE,
        help_text=f"Hits per page, 1..{MAX_SEARCH_SIZE}; with `cursor` or `limit`, `hits` "
                  "is a connection `{edges, nodes, pageInfo}`, with neither a bare array "
                  "(`size` is ignored with it)")
    # `from` is a Python keyword: declared below under its query name.
    size = IntegerParam(required=False, min_value=1, max_value=MAX_SEARCH_SIZE,
                        help_text=f"Hits per page, 1..{MAX_SEARCH_SIZE} (default "
                                  f"{MAX_SEARCH_SIZE}); the same as `limit` but for the "
                                  "shape of `hits` (`limit` wins when both are given)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        start, end = attrs.get("startDate"), attrs.get("endDate")
        if start and end and start > end:
            raise serializers.ValidationError({"endDate": ["endDate is before startDate"]})
        # One window for both spellings: `offset` hits skipped, `size` per page; the
        # connection's names win over their numeric aliases when both are given.
        cursor = attrs.get("cursor")
        attrs["offset"] = cursor + 1 if cursor is not None else attrs.get("from", 0)
        attrs["size"] = next(v for v in (attrs.get("limit"), attrs.get("size"),
                                          MAX_SEARCH_SIZE) if v is not None)
        attrs["connection"] = cursor is not None or attrs.get("limit") is not None
        return attrs


V2FilingSearchQuery._declared_fields["from"] = IntegerParam(
    required=False, min_value=0, max_value=MAX_SEARCH_FROM,
    help_text=f"Hits to skip, 0..{MAX_SEARCH_FROM} (default 0; the numeric spelling of "
              "`cursor`, which wins when both are given): the next page's is `nextFrom` "
              "of this one")


# -- insider transactions ---------------------------------------------------------------------
_CODE_LIST = ", ".join(CODES)
_CODE = "[" + "".join(CODES) + "".join(CODES).lower() + "]"
MAX_INSIDER_LENGTH = 100
_INSIDER_CIK = re.compile(r"\d{1,10}", re.ASCII)


@extend_schema_field({"type": "string", "minLength": 1,
                      "pattern": rf"^[\s,]*{_CODE}([\s,]*,[\s,]*{_CODE})*[\s,]*$"})
class CodesParam(TextParam):
    """A comma list of the SEC's transaction codes, any case: 400 naming the unknown ones."""

    def to_internal_value(self, data: Any) -> frozenset[str]:  # type: ignore[override]
        items = csv_items(super().to_internal_value(data).upper())
        unknown = [item for item in items if item not in CODES]
        if unknown:
            raise serializers.ValidationError(
                f"Unknown transaction codes {', '.join(repr(u) for u in unknown[:5])}: the "
                f"SEC's codes are {_CODE_LIST}")
        if not items:
            raise serializers.ValidationError("Input should name at least one code")
        return frozenset(items)


class V2InsidersQuery(OrderedPageQuery):
    """``start``/``end`` (transaction dates, ISO days, inclusive), checked together before
    any upstream call: ``end`` not before ``start``, at most :data:`MAX_WINDOW_DAYS` apart;
    ``codes`` against the SEC's table; ``insider`` a name fragment or a CIK."""

    start = DayParam(required=False, help_text=(
        f"First transaction date, `YYYY-MM-DD` (inclusive); default `end` - "
        f"{DEFAULT_WINDOW_DAYS} days"))
    end = DayParam(required=False, help_text=(
        "Last transaction date, `YYYY-MM-DD` (inclusive); default today (UTC). At most "
        f"{MAX_WINDOW_DAYS} days (five years) after `start`, else a 400"))
    codes = CodesParam(required=False, help_text=(
        "Comma-separated SEC transaction codes to keep (any case), e.g. `P,S`: "
        f"{_CODE_LIST}. An unknown code is a 400. Absent: every code"))
    insider = TextParam(required=False, max_length=MAX_INSIDER_LENGTH, help_text=(
        "Only the transactions of filings whose reporting owners include this one: digits "
        "are an owner's CIK (`1214128`, leading zeros optional), anything else a piece of "
        "the owner's name, any case (`cook`)"))
    order = order_param("desc", "transactions (by transaction date)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        given_start, given_end = attrs.get("start"), attrs.get("end")
        end = date.fromisoformat(given_end) if given_end else insiders.current_day()
        start = date.fromisoformat(given_start) if given_start \
            else end - timedelta(days=DEFAULT_WINDOW_DAYS)
        if end < start:
            raise serializers.ValidationError({"end": ["end is before start"]})
        if end - start > timedelta(days=MAX_WINDOW_DAYS):
            raise serializers.ValidationError({"start": [
                f"The window may span at most {MAX_WINDOW_DAYS} days (five years, end - "
                "start)"]})
        attrs["start"], attrs["end"] = start, end
        who = attrs.get("insider")
        if who is not None:
            who = who.strip()
            attrs["insider"] = int(who) if _INSIDER_CIK.fullmatch(who) else who.casefold()
        return super().validate(attrs)
