"""Query declarations of the v2 institutional-ownership endpoints (SEC Form 13F); their
answers' members are the records' (:mod:`marketdata.records.institutions`)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import extend_schema_field

from apps.core.params import AnyTextParam, choice
from apps.core.v2 import ORDERS, OrderedPageQuery, PageQuery
from marketdata.records.institutions import PERIOD_PATTERN, is_period

# What a query value may have around it (AnyTextParam trims ASCII white space only).
_AROUND = r"[\t-\r\x1c-\x20]*"
MAX_NAME_LENGTH = 100
_NAME = rf"[A-Za-z0-9][A-Za-z0-9&.,'()/ -]{{0,{MAX_NAME_LENGTH - 1}}}"
_NAME_TEXT = re.compile(_NAME, re.ASCII)


@extend_schema_field({"type": "string", "pattern": f"^{_AROUND}{PERIOD_PATTERN}{_AROUND}$"})
class PeriodParam(AnyTextParam):
    """A report quarter: its last day, ``YYYY-MM-DD`` (``2024-06-30``)."""

    default_error_messages = {"invalid": "Input should be a calendar quarter's last day, "
                                         "YYYY-MM-DD (03-31, 06-30, 09-30 or 12-31), e.g. "
                                         "2024-06-30"}

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data)
        if not is_period(text):
            self.fail("invalid")
        return text


@extend_schema_field({"type": "string", "pattern": f"^{_AROUND}{_NAME}{_AROUND}$"})
class ManagerNameParam(AnyTextParam):
    """A manager's name or part of it: letters, digits, spaces and ``& . , ' ( ) / -``,
    starting with a letter or digit, at most 100 characters."""

    default_error_messages = {"invalid": f"Input should be a name: letters, digits, spaces "
                                         f"and & . , ' ( ) / -, starting with a letter or "
                                         f"digit, at most {MAX_NAME_LENGTH} characters"}

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data)
        if not _NAME_TEXT.fullmatch(text):
            self.fail("invalid")
        return " ".join(text.split())


class V2InstitutionalHoldingsQuery(OrderedPageQuery):
    """``period`` chooses the report; ``cursor``/``limit`` page ``holdings``, ``order``
    orders them by value."""

    period = PeriodParam(
        required=False,
        help_text="The report quarter, by its last day: `YYYY-MM-DD` with `03-31`, `06-30`, "
                  "`09-30` or `12-31` (e.g. `2024-06-30`); absent: the latest quarter "
                  "reported. The answer's `periods` lists those available")
    order = choice(ORDERS, required=False, default="desc", help_text=(
        "Order of `holdings` by `value`: `desc` largest first (the default), `asc` smallest "
        "first (ties by issuer, then CUSIP, then table order). With `cursor`/`limit`, "
        "walking the pages of one order gives exactly the other order's list reversed; a "
        "cursor belongs to the order of the page that gave it (with the other order it is "
        "a 400)"))


class V2InstitutionalFilersQuery(PageQuery):
    name = ManagerNameParam(
        required=True,
        help_text="The manager's name or words of it (`berkshire`, `Scion Asset`): every "
                  "word must start a word of the filer's EDGAR name (any case)")
