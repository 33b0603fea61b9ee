from rest_framework import serializers


class MarketSector(serializers.Serializer):
    sector = serializers.CharField()
    dayReturn = serializers.CharField(help_text="e.g. +0.45%")  # noqa: N815
    ytdReturn = serializers.CharField()  # noqa: N815
    yearReturn = serializers.CharField()  # noqa: N815
    threeYearReturn = serializers.CharField()  # noqa: N815
    fiveYearReturn = serializers.CharField()  # noqa: N815


class MarketSectorDetails(MarketSector):
    marketCap = serializers.CharField(help_text="e.g. 20.2T")  # noqa: N815
    marketWeight = serializers.CharField(  # noqa: N815
        help_text="Share of the whole market, e.g. 29.28%")
    industries = serializers.IntegerField(help_text="Number of industries in the sector")
    companies = serializers.IntegerField(help_text="Number of companies in the sector")
    topIndustries = serializers.ListField(  # noqa: N815
        child=serializers.CharField(),
        help_text="Up to 10 'Industry: weight%' strings, largest weight first")
    topCompanies = serializers.ListField(  # noqa: N815
        child=serializers.CharField(), help_text="Up to 10 symbols, largest weight first")
