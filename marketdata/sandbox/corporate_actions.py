"""The real split and dividend history of well-known US companies, for the sandbox.

Why: a demo or a test that asks for AAPL's splits must see what every user knows (7:1 on
2014-06-09, 4:1 on 2020-08-31), not a split the price generator made up. For the symbols
of :data:`ACTIONS` the sandbox's chart events (``events=split,div``), hence ``/v2/splits``,
``/v2/dividends`` and the chart's ``events``, the Tiingo sandbox's raw prices and
``splitFactor``, and quoteSummary's ``lastSplitFactor``/``lastSplitDate`` all come from
this table; every other symbol keeps the generated behaviour (``yahoo/chart.py``,
``prices.py``).

What is exact and what is approximate:

- **Splits are exact**: the ex-date (the first session traded split-adjusted) and the ratio
  ``numerator:denominator`` as the companies announced them. Only splits known for sure
  are listed: where a company's older history is not, ``complete_since`` says from when
  the list is complete, and no split before that date is given (none is invented either).
- **Dividends are approximate** (labelled so here and in the README): the ex-dates follow
  each company's usual months on an approximate day (the first session on or after it),
  and the amounts per share are approximately what was declared at the time (in the shares
  of that time; the sandbox divides them by the ratios of the later splits, as Yahoo's
  split-adjusted dividends are). The last amount continues into the future (the sandbox's
  grid runs to 2040). ``dividends=None`` means the company pays none; ``SYNTHETIC`` keeps
  the generated quarterly schedule (companies whose dividend history is not known well
  enough to write down).

The sandbox's synthetic prices are split-adjusted (as Yahoo's chart is), so a split leaves
no gap in them; the raw prices (Tiingo's ``close``) are the adjusted ones times the ratios
of the later splits, so they jump by the ratio on the ex-date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final, Literal


@dataclass(frozen=True)
class Split:
    """An N-for-D split going ex on ``day`` (a 3-for-2 split is ``Split(day, 3, 2)``)."""

    day: date
    numerator: int
    denominator: int = 1

    @property
    def factor(self) -> float:
        return self.numerator / self.denominator


@dataclass(frozen=True)
class Dividends:
    """A regular cash dividend schedule. APPROXIMATE: see the module's docstring.

    ``first`` is the first ex-date; after it, one ex-date in each of ``months`` on (the
    first session on or after) ``day``, skipping any within :data:`MIN_GAP` of ``first``.
    ``amounts``: ``(from, amount)``, the amount per share of each ex-date on or after
    ``from`` (until the next entry), as declared then (pre-split shares before a split).
    ``specials``: one-off ``(ex-date, amount)`` distributions."""

    first: date
    months: tuple[int, ...]
    day: int
    amounts: tuple[tuple[date, float], ...]
    specials: tuple[tuple[date, float], ...] = ()

    def amount_on(self, day: date) -> float:
        current = self.amounts[0][1]
        for since, amount in self.amounts:
            if since <= day:
                current = amount
        return current

    def ex_dates(self, last: date) -> list[tuple[date, float]]:
        """``(target ex-date, declared amount)`` up to ``last``, oldest first (the target
        moves to the first session on or after it)."""
        out = [(self.first, self.amount_on(self.first))]
        for year in range(self.first.year, last.year + 1):
            for month in self.months:
                target = date(year, month, self.day)
                if self.first + MIN_GAP <= target <= last:
                    out.append((target, self.amount_on(target)))
        out += [(day, amount) for day, amount in self.specials if day <= last]
        return sorted(out)


MIN_GAP = timedelta(days=45)
SYNTHETIC: Final = "synthetic"


@dataclass(frozen=True)
class CorporateActions:
    """A company's splits (oldest first), its dividends (``None``: it pays none;
    :data:`SYNTHETIC`: the generated schedule) and the date from which the split list is
    complete (``None``: over the sandbox's whole history, which starts in 1985)."""

    splits: tuple[Split, ...] = ()
    dividends: Dividends | Literal["synthetic"] | None = None
    complete_since: date | None = None

    def adjusted_amount(self, ex_day: date, amount: float) -> float:
        """A declared dividend in today's shares: divided by the later splits' ratios."""
        for split in self.splits:
            if split.day > ex_day:
                amount /= split.factor
        return amount


def _d(text: str) -> date:
    return date.fromisoformat(text)


def _amounts(*pairs: tuple[str, float]) -> tuple[tuple[date, float], ...]:
    return tuple((_d(since), amount) for since, amount in pairs)


_ALPHABET_DIVIDENDS = Dividends(  # APPROXIMATE amounts and days
    _d("2024-06-10"), (3, 6, 9, 12), 9, _amounts(("2024-06-01", 0.20), ("2025-06-01", 0.21)))

ACTIONS: dict[str, CorporateActions] = {
    "AAPL": CorporateActions(
        splits=(Split(_d("1987-06-16"), 2), Split(_d("2000-06-21"), 2),
                Split(_d("2005-02-28"), 2), Split(_d("2014-06-09"), 7),
                Split(_d("2020-08-31"), 4)),
        # The dividend reinstated in 2012 (the 1987-1995 dividends are left out).
        dividends=Dividends(_d("2012-08-09"), (2, 5, 8, 11), 10, _amounts(  # APPROXIMATE
            ("2012-08-01", 2.65), ("2013-05-01", 3.05), ("2014-05-01", 3.29),
            ("2014-08-01", 0.47), ("2015-05-01", 0.52), ("2016-05-01", 0.57),
            ("2017-05-01", 0.63), ("2018-05-01", 0.73), ("2019-05-01", 0.77),
            ("2020-05-01", 0.82), ("2020-08-01", 0.205), ("2021-05-01", 0.22),
            ("2022-05-01", 0.23), ("2023-05-01", 0.24), ("2024-05-01", 0.25),
            ("2025-05-01", 0.26)))),
    "MSFT": CorporateActions(
        splits=(Split(_d("1987-09-21"), 2), Split(_d("1990-04-16"), 2),
                Split(_d("1991-06-27"), 3, 2), Split(_d("1992-06-15"), 3, 2),
                Split(_d("1994-05-23"), 2), Split(_d("1996-12-09"), 2),
                Split(_d("1998-02-23"), 2), Split(_d("1999-03-29"), 2),
                Split(_d("2003-02-18"), 2)),
        # Quarterly since 2004 (the 2003 annual payments are left out), raised each
        # autumn; the $3.00 special dividend of November 2004.
        dividends=Dividends(_d("2004-08-23"), (2, 5, 8, 11), 15, _amounts(  # APPROXIMATE
            ("2004-08-01", 0.08), ("2006-08-01", 0.09), ("2006-11-01", 0.10),
            ("2007-11-01", 0.11), ("2008-11-01", 0.13), ("2010-11-01", 0.16),
            ("2011-11-01", 0.20), ("2012-11-01", 0.23), ("2013-11-01", 0.28),
            ("2014-11-01", 0.31), ("2015-11-01", 0.36), ("2016-11-01", 0.39),
            ("2017-11-01", 0.42), ("2018-11-01", 0.46), ("2019-11-01", 0.51),
            ("2020-11-01", 0.56), ("2021-11-01", 0.62), ("2022-11-01", 0.68),
            ("2023-11-01", 0.75), ("2024-11-01", 0.83), ("2025-11-01", 0.91)),
            specials=((_d("2004-11-15"), 3.00),))),
    "NVDA": CorporateActions(
        splits=(Split(_d("2000-06-27"), 2), Split(_d("2001-09-17"), 2),
                Split(_d("2006-04-07"), 2), Split(_d("2007-09-11"), 3, 2),
                Split(_d("2021-07-20"), 4), Split(_d("2024-06-10"), 10)),
        dividends=Dividends(_d("2012-11-20"), (3, 6, 9, 12), 5, _amounts(  # APPROXIMATE
            ("2012-11-01", 0.075), ("2013-11-01", 0.085), ("2015-03-01", 0.0975),
            ("2015-11-01", 0.115), ("2016-11-01", 0.14), ("2017-11-01", 0.15),
            ("2018-11-01", 0.16), ("2021-07-20", 0.04), ("2024-06-10", 0.01)))),
    # The Class C distribution of April 2014 is left out: the list starts after it.
    "GOOGL": CorporateActions(splits=(Split(_d("2022-07-18"), 20),),
                              dividends=_ALPHABET_DIVIDENDS,
                              complete_since=_d("2014-04-03")),
    "GOOG": CorporateActions(splits=(Split(_d("2022-07-18"), 20),),
                             dividends=_ALPHABET_DIVIDENDS,
                             complete_since=_d("2014-04-03")),
    "AMZN": CorporateActions(
        splits=(Split(_d("1998-06-02"), 2), Split(_d("1999-01-05"), 3),
                Split(_d("1999-09-02"), 2), Split(_d("2022-06-06"), 20))),
    "META": CorporateActions(
        dividends=Dividends(_d("2024-02-21"), (3, 6, 9, 12), 15, _amounts(  # APPROXIMATE
            ("2024-02-01", 0.50), ("2025-03-01", 0.525)))),
    "TSLA": CorporateActions(splits=(Split(_d("2020-08-31"), 5), Split(_d("2022-08-25"), 3))),
    "AVGO": CorporateActions(
        splits=(Split(_d("2024-07-15"), 10),),
        dividends=Dividends(_d("2011-03-20"), (3, 6, 9, 12), 20, _amounts(  # APPROXIMATE
            ("2011-03-01", 0.08), ("2012-03-01", 0.15), ("2013-03-01", 0.22),
            ("2014-03-01", 0.27), ("2015-03-01", 0.40), ("2016-03-01", 0.49),
            ("2016-12-01", 1.02), ("2017-12-01", 1.75), ("2018-12-01", 2.65),
            ("2019-12-01", 3.25), ("2020-12-01", 3.60), ("2021-12-01", 4.10),
            ("2022-12-01", 4.60), ("2023-12-01", 5.25), ("2024-07-15", 0.525),
            ("2024-12-01", 0.59)))),
    "WMT": CorporateActions(
        splits=(Split(_d("2024-02-26"), 3),), complete_since=_d("2000-01-01"),
        dividends=Dividends(_d("2000-03-15"), (3, 5, 8, 12), 15, _amounts(  # APPROXIMATE
            ("2000-01-01", 0.06), ("2002-01-01", 0.075), ("2004-01-01", 0.13),
            ("2006-01-01", 0.1675), ("2008-01-01", 0.2375), ("2010-01-01", 0.3025),
            ("2012-01-01", 0.3975), ("2014-01-01", 0.48), ("2016-01-01", 0.50),
            ("2018-01-01", 0.52), ("2020-01-01", 0.54), ("2022-01-01", 0.56),
            ("2023-01-01", 0.57), ("2024-02-26", 0.2075), ("2025-03-01", 0.235)))),
    "CMG": CorporateActions(splits=(Split(_d("2024-06-26"), 50),)),
    "BRK-B": CorporateActions(splits=(Split(_d("2010-01-21"), 50),)),
    "NFLX": CorporateActions(
        splits=(Split(_d("2004-02-12"), 2), Split(_d("2015-07-15"), 7),
                Split(_d("2025-11-17"), 10))),
    "V": CorporateActions(
        splits=(Split(_d("2015-03-19"), 4),),
        dividends=Dividends(_d("2008-06-04"), (2, 5, 8, 11), 10, _amounts(  # APPROXIMATE
            ("2008-06-01", 0.105), ("2009-11-01", 0.125), ("2010-11-01", 0.15),
            ("2011-11-01", 0.22), ("2012-11-01", 0.33), ("2013-11-01", 0.40),
            ("2014-11-01", 0.48), ("2015-03-19", 0.12), ("2015-11-01", 0.14),
            ("2016-11-01", 0.165), ("2017-11-01", 0.195), ("2018-11-01", 0.25),
            ("2019-11-01", 0.30), ("2020-11-01", 0.32), ("2021-11-01", 0.375),
            ("2022-11-01", 0.45), ("2023-11-01", 0.52), ("2024-11-01", 0.59),
            ("2025-11-01", 0.67)))),
    "MA": CorporateActions(
        splits=(Split(_d("2014-01-22"), 10),),
        dividends=Dividends(_d("2006-07-06"), (1, 4, 7, 10), 9, _amounts(  # APPROXIMATE
            ("2006-07-01", 0.09), ("2008-01-01", 0.15), ("2012-10-01", 0.30),
            ("2013-07-01", 0.60), ("2014-01-22", 0.11), ("2014-10-01", 0.16),
            ("2015-10-01", 0.19), ("2016-10-01", 0.22), ("2017-10-01", 0.25),
            ("2018-10-01", 0.33), ("2019-10-01", 0.40), ("2020-10-01", 0.44),
            ("2021-10-01", 0.49), ("2022-10-01", 0.57), ("2023-10-01", 0.66),
            ("2024-10-01", 0.76), ("2025-10-01", 0.87)))),
    "KO": CorporateActions(
        splits=(Split(_d("2012-08-13"), 2),), complete_since=_d("2000-01-01"),
        dividends=Dividends(_d("2000-03-14"), (3, 6, 9, 11), 14, _amounts(  # APPROXIMATE
            ("2000-01-01", 0.17), ("2001-01-01", 0.18), ("2002-01-01", 0.20),
            ("2003-01-01", 0.22), ("2004-01-01", 0.25), ("2005-01-01", 0.28),
            ("2006-01-01", 0.31), ("2007-01-01", 0.34), ("2008-01-01", 0.38),
            ("2009-01-01", 0.41), ("2010-01-01", 0.44), ("2011-01-01", 0.47),
            ("2012-01-01", 0.51), ("2012-08-13", 0.255), ("2013-01-01", 0.28),
            ("2014-01-01", 0.305), ("2015-01-01", 0.33), ("2016-01-01", 0.35),
            ("2017-01-01", 0.37), ("2018-01-01", 0.39), ("2019-01-01", 0.40),
            ("2020-01-01", 0.41), ("2021-01-01", 0.42), ("2022-01-01", 0.44),
            ("2023-01-01", 0.46), ("2024-01-01", 0.485), ("2025-01-01", 0.51)))),
    "JPM": CorporateActions(
        complete_since=_d("2001-01-01"),
        dividends=Dividends(_d("2001-01-04"), (1, 4, 7, 10), 5, _amounts(  # APPROXIMATE
            ("2001-01-01", 0.34), ("2009-04-01", 0.05), ("2011-04-01", 0.25),
            ("2012-04-01", 0.30), ("2013-04-01", 0.38), ("2014-04-01", 0.40),
            ("2015-04-01", 0.44), ("2016-07-01", 0.48), ("2017-07-01", 0.56),
            ("2018-07-01", 0.80), ("2019-07-01", 0.90), ("2021-10-01", 1.00),
            ("2023-07-01", 1.05), ("2024-01-01", 1.15), ("2024-10-01", 1.25),
            ("2025-07-01", 1.40)))),
    # No split since the date given; their dividends stay the generated schedule
    # (or none, for the companies that pay none).
    "AMD": CorporateActions(complete_since=_d("2001-01-01")),
    "INTC": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2001-01-01")),
    "DIS": CorporateActions(dividends=SYNTHETIC, complete_since=_d("1999-01-01")),
    "BABA": CorporateActions(dividends=SYNTHETIC),
    "LLY": CorporateActions(dividends=SYNTHETIC, complete_since=_d("1998-01-01")),
    "COST": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2001-01-01")),
    "XOM": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2002-01-01")),
    "ORCL": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2001-01-01")),
    "PG": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2005-01-01")),
    "JNJ": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2002-01-01")),
    "HD": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2001-01-01")),
    "UNH": CorporateActions(dividends=SYNTHETIC, complete_since=_d("2006-01-01")),
}


def actions_for(symbol: str) -> CorporateActions | None:
    """The real corporate actions of ``symbol`` (normalised), or None (generated ones)."""
    return ACTIONS.get(symbol)
