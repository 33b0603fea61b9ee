"""Options analytics: pricing and greeks (BSM, Bjerksund-Stensland 2002), implied
volatility, rates from the Treasury curve, and the volatility surface. numpy only, no
framework; conventions in README.md beside this file."""
