from typing import Any

from rest_framework import serializers

from apps.core.params import QuerySerializer


class GivenCharField(serializers.CharField):
    """An optional string that, when present, must not be empty.

    DRF reads an empty optional query value (``symbol=``) as "not given", which here would
    silently turn a request for one symbol's news into general news; an empty value is a
    422 instead, like a blank one (``symbol=%20``).
    """

    def get_value(self, dictionary: Any) -> Any:
        if self.field_name in dictionary and dictionary.get(self.field_name) == "":
            return ""
        return super().get_value(dictionary)


class NewsQuery(QuerySerializer):
    symbol = GivenCharField(
        required=False,
        help_text="Ticker symbol, e.g. AAPL, BRK-B, BTC-USD; general market news when omitted "
                  "(an empty value is a 422)")


class News(serializers.Serializer):
    title = serializers.CharField()
    link = serializers.URLField(help_text="URL of the article")
    source = serializers.CharField(help_text="Publisher")
    img = serializers.URLField(help_text="URL of the article's image")
    time = serializers.CharField(
        help_text="Publication time relative to now: 'just now', '1 minute ago', "
                  "'5 minutes ago', '2 hours ago', '3 days ago', '1 month ago', '2 years ago'")
