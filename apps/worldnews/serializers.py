"""Query declaration and response schema of the v2 world news endpoint."""

from __future__ import annotations

from typing import Any

from apps.core.v2 import (
    OrderedPageQuery,
    connection_schema,
    nullable,
    object_schema,
    order_param,
)
from marketdata.sentiment import LABEL_THRESHOLD, NEGATIVE, NEUTRAL, POSITIVE

NEWS_MEMBERS = ("title", "link", "source", "img", "time", "sentiment")


class V2WorldNewsQuery(OrderedPageQuery):
    """`cursor`/`limit` page over the articles; `fields` picks members of each article."""

    order = order_param("desc", "articles (by the time GDELT saw them)")


SENTIMENT_SCHEMA = object_schema({
    "label": {"type": "string", "enum": [POSITIVE, NEGATIVE, NEUTRAL],
              "description": f"positive when score >= {LABEL_THRESHOLD}, negative when "
                             f"score <= -{LABEL_THRESHOLD}, else neutral"},
    "score": {"type": "number", "minimum": -1, "maximum": 1,
              "description": "VADER compound blended with the finance term polarity"},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1,
                   "description": "|score| for positive/negative; for neutral, how flat the "
                                  "score is times the share of plain words"},
}, "Sentiment of the headline, scored by this service", required=("label", "score",
                                                                  "confidence"))

NEWS_ITEM_SCHEMA = object_schema({
    "title": {"type": "string"},
    "link": {"type": "string", "description": "The article's URL"},
    "source": nullable("string", description="The publisher's domain"),
    "img": nullable("string", description="The article's social image URL; null when none"),
    "time": nullable("string", format="date-time",
                     description="When GDELT first saw the article, ISO 8601 UTC "
                                 "(`2024-01-15T16:30:00Z`); null when unreadable"),
    "sentiment": SENTIMENT_SCHEMA,
}, "News item (GqlNews); `fields` selects these members")

WORLD_NEWS_RESPONSE: dict[str, Any] = connection_schema(
    NEWS_ITEM_SCHEMA, "articles, newest first (`order=desc`, the default) or oldest first "
                      "(`order=asc`)")
