"""The simulated Alpha Vantage (``www.alphavantage.co``): OVERVIEW and EARNINGS."""
