from rest_framework import serializers

from apps.core.params import QuerySerializer, SymbolParam


class NewsQuery(QuerySerializer):
    # An empty or blank ``symbol=`` is a 422 (like every empty value), never silently
    # general news.
    symbol = SymbolParam(
        required=False,
        help_text="Ticker symbol, e.g. AAPL, BRK-B, BTC-USD; general market news when omitted "
                  "(an empty or blank value is a 422; a malformed symbol is a 404)")


class News(serializers.Serializer):
    title = serializers.CharField()
    link = serializers.URLField(help_text="URL of the article")
    source = serializers.CharField(help_text="Publisher")
    img = serializers.URLField(help_text="URL of the article's image")
    time = serializers.CharField(
        help_text="Publication time relative to now: 'just now', '1 minute ago', "
                  "'5 minutes ago', '2 hours ago', '3 days ago', '1 month ago', '2 years ago'")
