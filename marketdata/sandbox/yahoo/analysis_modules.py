"""quoteSummary modules for analysis and holders: recommendationTrend,
upgradeDowngradeHistory, financialData, earningsTrend, earningsHistory, esgScores,
majorHoldersBreakdown, institutionOwnership, fundOwnership, insiderTransactions,
netSharePurchaseActivity and insiderHolders.

Why: the analysis and holders endpoints parse these modules; the sandbox must answer them
in Yahoo's shapes, deterministically per symbol (and day, since dates run back from the
clock). Only equities have them (Yahoo answers funds, indices, FX and crypto with the 404
"No fundamentals data found"); esgScores exists for US-listed equities only.

Shapes follow the recordings, including Yahoo's mix: with ``formatted=false`` the
breakdown, purchase activity, recommendation and financialData modules are bare numbers
(built with ``fmt.V`` so ``formatted=true`` renders objects), while earningsTrend,
earningsHistory, the ownership lists and the insider modules always carry ``{raw, fmt}``
objects (built literally here). Values agree with the rest of the sandbox: the
recommendation mean is the v7 quote's averageAnalystRating, the current-quarter estimate is
calendarEvents' earningsAverage, the ownership fractions are defaultKeyStatistics'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from marketdata.sandbox.instruments import (
    EQUITY,
    ETF,
    MUTUALFUND,
    US_EXCHANGES,
    pick,
    stable_hash,
    unit,
)
from marketdata.sandbox.yahoo import fmt
from marketdata.sandbox.yahoo.market import MarketView

DAY = 86400
_FIRMS = ("Northbridge Securities", "Harbor Point Capital", "Summit Ridge Research",
          "Granite & Co", "Bluewater Partners", "Meridian Equity Research",
          "Ironwood Securities", "Crescent Bay Capital", "Lakeshore Research", "Redstone Markets",
          "Atlas Peak Advisors", "Silverline Securities")
# Rating scales, best to worst; each firm uses one.
_SCALES = (("Strong Buy", "Buy", "Hold", "Sell"), ("Buy", "Neutral", "Sell"),
           ("Overweight", "Equal-Weight", "Underweight"),
           ("Outperform", "Market Perform", "Underperform"),
           ("Outperform", "Peer Perform", "Underperform"))
_INSTITUTIONS = ("Northbridge Group Inc", "Harbor Point Asset Management", "Summit Street Corp",
                 "Granite Capital Management, LLC", "Bluewater Advisors Inc.",
                 "Meridian Investment Management", "Ironwood Holdings, Inc",
                 "Crescent Bay Associates Inc", "Lakeshore Trust Company",
                 "Redstone Global Investors", "Atlas Peak Management LLC",
                 "Silverline Capital Partners")
_FUNDS = ("Northbridge Total Stock Market Index Fund", "Harbor Point 500 Index Fund",
          "Summit Growth Fund of America", "Granite Large Cap Growth Fund",
          "Bluewater Institutional Index Fund", "Meridian Select Sector Fund",
          "Ironwood Contrafund", "Crescent Bay Balanced Fund", "Lakeshore Dividend Growth Fund",
          "Redstone Blue Chip Fund", "Atlas Peak Equity Income Fund",
          "Silverline Mid-Cap Index Fund")
_ESG_PEERS = {"Technology": "Technology Hardware", "Healthcare": "Pharmaceuticals",
              "Financial Services": "Banks", "Energy": "Oil & Gas Producers",
              "Consumer Cyclical": "Retailing", "Communication Services": "Media"}
_ESG_FLAGS = ("adult", "alcoholic", "animalTesting", "catholic", "controversialWeapons",
              "smallArms", "furLeather", "gambling", "gmo", "militaryContract", "nuclear",
              "pesticides", "palmOil", "coal", "tobacco")
_FIRST_NAMES = ("JAMES", "MARIA", "ROBERT", "LINDA", "DAVID", "SUSAN", "DANIEL", "KAREN",
                "PAUL", "NANCY", "ARTHUR", "MONICA")
_LAST_NAMES = ("WALKER", "CHEN", "GARCIA", "PATEL", "MILLER", "NOVAK", "OKAFOR", "ROSSI",
               "KLEIN", "TANAKA", "LEVINE", "AUSTIN")
_RELATIONS = ("Chief Executive Officer", "Chief Financial Officer", "General Counsel",
              "Chief Operating Officer", "Director", "Director", "Director", "Officer")


# -- Yahoo's {raw, fmt} objects (sent even with formatted=false for these modules) ----------
def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def _short(x: float) -> str:
    """'94.08B', '95.9B', '47.16k', '190': two decimals at most, trailing zeros dropped."""
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= limit:
            return _trim(f"{x / limit:.2f}") + suffix
    return _trim(f"{x:.2f}")


def _o_num(x: float | None) -> dict[str, Any]:
    return {} if x is None else {"raw": x, "fmt": _trim(f"{x:.2f}")}


def _o_big(x: int | float | None) -> dict[str, Any]:
    if x is None:
        return {}
    return {"raw": x, "fmt": _short(x) if x else None, "longFmt": f"{round(x):,}"}


def _o_pct(x: float | None) -> dict[str, Any]:
    return {} if x is None else {"raw": x, "fmt": f"{x * 100:.2f}%"}


def _o_date(epoch: int) -> dict[str, Any]:
    return {"raw": epoch, "fmt": datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d")}


def _epoch(d: date) -> int:
    return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())


def _today(view: MarketView) -> date:
    return datetime.fromtimestamp(view.now, UTC).date()


def _equity(view: MarketView) -> bool:
    return view.inst.kind == EQUITY


# -- calendar: quarters are numbered year * 4 + (quarter - 1) ---------------------------------
def _quarter_end(q: int) -> date:
    year, month = q // 4, 3 * (q % 4 + 1)
    return date(year, month + 1, 1) - timedelta(days=1) if month < 12 else date(year, 12, 31)


def _last_reported_quarter(view: MarketView) -> int:
    """The quarter covered by the last earnings report (reports come a month after)."""
    last, _ = view.earnings_dates()
    day = datetime.fromtimestamp(last, UTC).date() if last else _today(view)
    return day.year * 4 + (day.month - 1) // 3 - 1


def _fiscal_year_end(q: int) -> date:
    """Fiscal years end on Sep 30 (defaultKeyStatistics' lastFiscalYearEnd is late Sep)."""
    year = q // 4 + (1 if q % 4 == 3 else 0)
    return date(year, 9, 30)


def _currency(view: MarketView) -> str:
    return "GBP" if view.inst.currency == "GBp" else view.inst.currency


# -- analysts ----------------------------------------------------------------------------------
def _analyst_count(view: MarketView) -> int:
    return 4 + int(unit("analysts", view.inst.symbol) * 40)


def _rating_mean(view: MarketView) -> float:
    return float(view.rating.split()[0])


def _counts(mean: float, total: int) -> list[int]:
    """Analysts per bucket (1 strong buy .. 5 strong sell) around a mean rating."""
    weights = [math.exp(-((k - mean) ** 2) / 1.3) for k in range(1, 6)]
    scale = total / sum(weights)
    counts = [int(w * scale) for w in weights]
    counts[round(mean) - 1] += total - sum(counts)
    return counts


def recommendation_trend(view: MarketView) -> dict[str, Any] | None:
    if not _equity(view):
        return None
    sym, trend = view.inst.symbol, []
    for k in range(4):  # this month, then 1..3 months ago (drifting a little)
        mean, total = _rating_mean(view), _analyst_count(view)
        if k:
            mean += 0.25 * (unit("rt", sym, k) - 0.5)
            total = max(1, total - int(unit("rn", sym, k) * 3))
        c = _counts(min(max(mean, 1.0), 5.0), total)
        trend.append({"period": f"{-k}m" if k else "0m", "strongBuy": c[0], "buy": c[1],
                      "hold": c[2], "sell": c[3], "strongSell": c[4]})
    return {"trend": trend, "maxAge": 86400}


def upgrade_downgrade_history(view: MarketView) -> dict[str, Any] | None:
    """Rating changes, oldest generated first so each firm's grades follow on, then listed
    newest first as Yahoo does. A firm's first appearance is an initiation."""
    if not _equity(view):
        return None
    sym, today = view.inst.symbol, _today(view)
    count = 6 + stable_hash("udn", sym) % 30
    days_back = [3 + int(unit("udd", sym, i) * 20) for i in range(count)]
    start = today - timedelta(days=sum(days_back) + 1)  # the newest is yesterday's
    grades: dict[str, int] = {}
    targets: dict[str, float] = {}
    # Price targets scatter around the consensus financialData reports, taken from the
    # previous close so that the history stays the same all day.
    consensus = _consensus_target(view, view.snap.prev_close)
    rows, day = [], start
    for i in range(count):
        day += timedelta(days=days_back[i])
        firm = pick(_FIRMS[: 4 + stable_hash("udf", sym) % 8], "udfirm", sym, i)
        scale = pick(_SCALES, "scale", firm)
        roll = unit("uda", sym, i)
        before = grades.get(firm)
        if before is None:
            action, after = "init", int(unit("udg", sym, firm) * (len(scale) - 1))
        elif roll < 0.12 and before > 0:
            action, after = "up", before - 1
        elif roll < 0.24 and before < len(scale) - 1:
            action, after = "down", before + 1
        else:
            action, after = ("reit" if roll > 0.9 else "main"), before
        grades[firm] = after
        stamp = _epoch(day) + 43200 + stable_hash("udt", sym, i) % 30000
        prior = targets.get(firm, 0.0)
        target = prior if action in ("main", "reit") and prior and unit("udk", sym, i) < 0.5 \
            else _round_target(consensus * (0.8 + 0.4 * unit("udpt", sym, i)))
        targets[firm] = target
        change = ("Announces" if not prior else "Raises" if target > prior
                  else "Lowers" if target < prior else "Maintains")
        rows.append({"epochGradeDate": stamp, "firm": firm, "toGrade": scale[after],
                     "fromGrade": "" if before is None else scale[before], "action": action,
                     "priceTargetAction": change, "currentPriceTarget": target,
                     "priorPriceTarget": prior})
    return {"history": rows[::-1], "maxAge": 86400}


def _consensus_target(view: MarketView, base: float | None = None) -> float:
    """The mean price target financialData reports (one formula for both modules)."""
    base = base or view.snap.avg50 or view.snap.prev_close
    return round(base * (0.95 + 0.3 * unit("tgt", view.inst.symbol)), 5)


def _round_target(value: float) -> float:
    """Analysts name round targets: whole units, cents below 20."""
    return round(value, 2) if value < 20 else float(round(value))


def _revenue(view: MarketView) -> float:
    """Annual revenue, as defaultKeyStatistics and calendarEvents derive it."""
    return view.eps * view.shares * (4 + 6 * unit("ps", view.inst.symbol))


def financial_data(view: MarketView) -> dict[str, Any] | None:
    if not _equity(view):
        return None
    sym, snap, dp = view.inst.symbol, view.snap, view.dp
    mean = _consensus_target(view)
    median = round(mean * (0.97 + 0.06 * unit("tmed", sym)), 2)
    rating = _rating_mean(view)
    key = ("strong_buy" if rating < 1.5 else "buy" if rating < 2.5 else "hold" if rating < 3.5
           else "underperform")
    revenue = int(_revenue(view))
    net_income = view.eps * view.shares
    ebitda = int(revenue * (0.15 + 0.25 * unit("ebitda", sym)))
    cash = int(revenue * (0.05 + 0.3 * unit("cash", sym)))
    debt = int(revenue * (0.1 + 0.5 * unit("debt", sym)))
    gross = int(revenue * (0.25 + 0.45 * unit("gross", sym)))
    operating_cf = int(ebitda * 0.8)
    equity_value = view.book_value * view.shares
    return {
        "maxAge": 86400, "currentPrice": fmt.price(snap.price, dp),
        "targetHighPrice": fmt.price(round(mean * (1.2 + 0.3 * unit("thi", sym)), dp), dp),
        "targetLowPrice": fmt.price(round(mean * (0.6 + 0.2 * unit("tlo", sym)), dp), dp),
        "targetMeanPrice": fmt.price(mean, dp), "targetMedianPrice": fmt.price(median, dp),
        "recommendationMean": fmt.num(rating), "recommendationKey": key,
        "numberOfAnalystOpinions": fmt.integer(_analyst_count(view)),
        "totalCash": fmt.big(cash), "totalCashPerShare": fmt.num(round(cash / view.shares, 3)),
        "ebitda": fmt.big(ebitda), "totalDebt": fmt.big(debt),
        "quickRatio": fmt.num(round(0.6 + 1.5 * unit("qr", sym), 3)),
        "currentRatio": fmt.num(round(0.8 + 1.8 * unit("cr", sym), 3)),
        "totalRevenue": fmt.big(revenue),
        "debtToEquity": fmt.num(round(debt / equity_value * 100, 3) if equity_value else None),
        "revenuePerShare": fmt.num(round(revenue / view.shares, 3)),
        "returnOnAssets": fmt.pct(round(net_income / (revenue * 1.5), 5)),
        "returnOnEquity": fmt.pct(round(net_income / equity_value, 5) if equity_value else None),
        "grossProfits": fmt.big(gross), "freeCashflow": fmt.big(int(operating_cf * 0.85)),
        "operatingCashflow": fmt.big(operating_cf),
        "earningsGrowth": fmt.pct(round(-0.1 + 0.4 * unit("eg", sym), 3)),
        "revenueGrowth": fmt.pct(round(-0.05 + 0.25 * unit("rg", sym), 3)),
        "grossMargins": fmt.pct(round(gross / revenue, 5)),
        "ebitdaMargins": fmt.pct(round(ebitda / revenue, 5)),
        "operatingMargins": fmt.pct(round(ebitda / revenue * 0.85, 5)),
        "profitMargins": fmt.pct(round(net_income / revenue, 5)),
        "financialCurrency": _currency(view),
    }


def _estimate_block(avg: float, year_ago: float, analysts: int, spread: float, ccy: str,
                    revenue: bool) -> dict[str, Any]:
    growth = round(avg / year_ago - 1, 4) if year_ago else None

    def value(x: float) -> dict[str, Any]:
        return _o_big(int(x)) if revenue else _o_num(round(x, 5))

    out: dict[str, Any] = {"avg": value(avg), "low": value(avg * (1 - spread)),
                           "high": value(avg * (1 + spread))}
    count = {"raw": analysts, "fmt": str(analysts), "longFmt": str(analysts)}
    if revenue:
        out.update(numberOfAnalysts=count, yearAgoRevenue=value(year_ago),
                   growth=_o_pct(growth), revenueCurrency=ccy)
    else:
        out.update(yearAgoEps=value(year_ago), numberOfAnalysts=count, growth=_o_pct(growth),
                   earningsCurrency=ccy)
    return out


def earnings_trend(view: MarketView) -> dict[str, Any] | None:
    """Current and next quarter, current and next fiscal year. The current quarter's EPS
    average is calendarEvents' earningsAverage (forwardEps / 4)."""
    if not _equity(view):
        return None
    sym, ccy = view.inst.symbol, _currency(view)
    q0 = _last_reported_quarter(view) + 1
    eps_q, rev_q = view.forward_eps / 4, _revenue(view) / 4
    analysts = _analyst_count(view)
    rows = []
    specs = (("0q", _quarter_end(q0), 1.0), ("+1q", _quarter_end(q0 + 1), 1.02),
             ("0y", _fiscal_year_end(q0), 4.0), ("+1y", _fiscal_year_end(q0 + 4), 4.3))
    for k, (period, end, factor) in enumerate(specs):
        eps = round(eps_q * factor * (1 + 0.03 * (unit("et", sym, k) - 0.5)) if k else eps_q, 5)
        ago_eps = round(view.eps / 4 * factor * (0.85 + 0.2 * unit("ea", sym, k)), 4)
        rev = rev_q * factor * (1 + 0.02 * unit("er", sym, k))
        ago_rev = rev / (1.02 + 0.1 * unit("era", sym, k))
        n_eps = max(1, analysts - (2 if period.endswith("q") else 0))
        earnings = _estimate_block(eps, ago_eps, n_eps, 0.06, ccy, revenue=False)
        trend_eps = [_o_num(round(eps * (1 + 0.01 * d * (unit("tr", sym, k) - 0.4)), 5))
                     for d in (0, 1, 3, 6, 9)]
        ups = [stable_hash("up", sym, k, j) % (n_eps // 2 + 1) for j in range(2)]
        downs = [stable_hash("dn", sym, k, j) % (n_eps // 3 + 1) for j in range(2)]
        rows.append({
            "maxAge": 1, "period": period, "endDate": end.isoformat(),
            "growth": earnings["growth"], "earningsEstimate": earnings,
            "revenueEstimate": _estimate_block(rev, ago_rev, n_eps + 1, 0.04, ccy, revenue=True),
            "epsTrend": {"current": trend_eps[0], "7daysAgo": trend_eps[1],
                         "30daysAgo": trend_eps[2], "60daysAgo": trend_eps[3],
                         "90daysAgo": trend_eps[4], "epsTrendCurrency": ccy},
            "epsRevisions": {
                "upLast7days": _count(ups[0]), "upLast30days": _count(ups[1]),
                "downLast30days": _count(downs[1]), "downLast7Days": _count(downs[0]),
                "downLast90days": {}, "epsRevisionsCurrency": ccy},
        })
    # Today's Yahoo names the EPS basis of the estimates (the recordings predate it).
    return {"trend": rows, "maxAge": 1, "defaultMethodology": "nongaap"}


def _count(n: int) -> dict[str, Any]:
    return {"raw": n, "fmt": str(n) if n else None, "longFmt": str(n)}


def earnings_history(view: MarketView) -> dict[str, Any] | None:
    """The last four reported quarters, oldest first, with surprises."""
    if not _equity(view):
        return None
    sym, ccy = view.inst.symbol, _currency(view)
    last = _last_reported_quarter(view)
    rows = []
    for k in range(4, 0, -1):
        q = last - k + 1
        estimate = round(view.eps / 4 * (0.9 + 0.2 * unit("eh", sym, q)), 5)
        actual = round(estimate * (1 + 0.12 * (unit("ehs", sym, q) - 0.35)), 2)
        diff = round(actual - estimate, 2)
        rows.append({"maxAge": 1, "epsActual": _o_num(actual), "epsEstimate": _o_num(estimate),
                     "epsDifference": _o_num(diff),
                     "surprisePercent": _o_pct(round(diff / estimate, 4) if estimate else None),
                     "quarter": _o_date(_epoch(_quarter_end(q))), "currency": ccy,
                     "period": f"-{k}q"})
    return {"history": rows, "maxAge": 86400, "defaultMethodology": "nongaap"}


def esg_scores(view: MarketView) -> dict[str, Any] | None:
    """No recording exists; the shape is Yahoo's esgScores module (Sustainalytics risk
    scores, lower is better) as documented by the clients that read it."""
    inst = view.inst
    if not _equity(view) or inst.exchange.code not in US_EXCHANGES:
        return None
    sym = inst.symbol
    env, soc, gov = (round(0.5 + 12 * unit(tag, sym), 2) for tag in ("esge", "esgs", "esgg"))
    total = round(env + soc + gov, 2)
    today = _today(view)
    rated = date(today.year, today.month, 1) - timedelta(days=1 + 31 * (inst.seed % 4))

    def peer(lo: float, hi: float, tag: str) -> dict[str, float]:
        low = round(lo * (0.5 + unit(tag, "lo", sym)), 2)
        return {"min": low, "avg": round((low + hi) / 2, 2), "max": round(hi, 2)}

    performance = ("LEAD_PERF", "OUT_PERF", "AVG_PERF", "UNDER_PERF", "LAG_PERF")
    out: dict[str, Any] = {
        "maxAge": 86400, "totalEsg": _o_num(total), "environmentScore": _o_num(env),
        "socialScore": _o_num(soc), "governanceScore": _o_num(gov),
        "ratingYear": rated.year, "ratingMonth": rated.month,
        "highestControversy": int(unit("esgc", sym) * 5), "peerCount": 20 + inst.seed % 80,
        "esgPerformance": performance[min(4, int(total / 8))],
        "peerGroup": _ESG_PEERS.get(inst.sector or "", inst.industry or "Diversified"),
        "relatedControversy": [],
        "peerEsgScorePerformance": peer(8.0, 40.0, "pe"),
        "peerGovernancePerformance": peer(3.0, 12.0, "pg"),
        "peerSocialPerformance": peer(3.0, 15.0, "ps"),
        "peerEnvironmentPerformance": peer(0.5, 16.0, "pen"),
        "peerHighestControversyPerformance": peer(0.5, 4.0, "ph"),
        "percentile": _o_num(round(100 * unit("esgp", sym), 2)),
        "environmentPercentile": None, "socialPercentile": None, "governancePercentile": None,
    }
    out.update((flag, False) for flag in _ESG_FLAGS)
    return out


# -- holders ---------------------------------------------------------------------------------
def _insiders_fraction(view: MarketView) -> float:
    return round(0.3 * unit("ins", view.inst.symbol), 5)  # defaultKeyStatistics' value


def _institutions_fraction(view: MarketView) -> float:
    return round(0.4 + 0.5 * unit("inst", view.inst.symbol), 5)  # defaultKeyStatistics'


def _held_by_institutions(view: MarketView) -> bool:
    """Stocks and ETFs are in institutions' and funds' filings; a mutual fund's holders
    are only summarised (no insiders: a fund has no officers holding it)."""
    return view.inst.kind in (EQUITY, ETF)


def major_holders_breakdown(view: MarketView) -> dict[str, Any] | None:
    if not (_held_by_institutions(view) or view.inst.kind == MUTUALFUND):
        return None
    insiders = _insiders_fraction(view) if _equity(view) else 0.0
    institutions = _institutions_fraction(view)
    count = int(math.exp(math.log(50) + unit("instn", view.inst.symbol) * math.log(150)))
    return {"maxAge": 1, "insidersPercentHeld": fmt.pct(insiders),
            "institutionsPercentHeld": fmt.pct(institutions),
            "institutionsFloatPercentHeld": fmt.pct(round(institutions / (1 - insiders), 5)),
            "institutionsCount": fmt.integer(count)}


def _ownership(view: MarketView, names: tuple[str, ...], tag: str, first: float,
               report_days: list[date]) -> dict[str, Any]:
    """Ten holders, largest first: the first name leads everywhere (as one index giant
    does on Yahoo), the others come in a per-symbol order."""
    sym, rows = view.inst.symbol, []
    order = [names[0], *sorted(names[1:], key=lambda n: stable_hash(tag, sym, n))]
    share = first
    for k, name in enumerate(order[:10]):
        report = report_days[stable_hash(tag, "rd", sym, k) % len(report_days)]
        position = int(view.shares * share)
        close = view.close_at_or_before(_epoch(report) + DAY) or view.snap.price
        rows.append({"maxAge": 1, "reportDate": _o_date(_epoch(report)), "organization": name,
                     "pctHeld": _o_pct(round(share, 4)), "position": _o_big(position),
                     "value": _o_big(int(position * close)),
                     "pctChange": _o_pct(round(0.3 * (unit(tag, "chg", sym, k) - 0.45), 4))})
        share *= 0.55 + 0.35 * unit(tag, "step", sym, k)
    return {"maxAge": 1, "ownershipList": rows}


def _quarter_ends_before(day: date, count: int) -> list[date]:
    q = day.year * 4 + (day.month - 1) // 3 - 1
    return [_quarter_end(q - k) for k in range(count)]


def institution_ownership(view: MarketView) -> dict[str, Any] | None:
    if not _held_by_institutions(view):
        return None
    report = _quarter_ends_before(_today(view) - timedelta(days=30), 1)
    first = _institutions_fraction(view) * (0.1 + 0.08 * unit("io1", view.inst.symbol))
    return _ownership(view, _INSTITUTIONS, "io", first, report)


def fund_ownership(view: MarketView) -> dict[str, Any] | None:
    if not _held_by_institutions(view):
        return None
    today = _today(view)
    month_ends = [date(today.year, today.month, 1) - timedelta(days=1)]
    for _ in range(3):
        month_ends.append(date(month_ends[-1].year, month_ends[-1].month, 1) - timedelta(days=1))
    first = _institutions_fraction(view) * (0.03 + 0.03 * unit("fo1", view.inst.symbol))
    return _ownership(view, _FUNDS, "fo", first, month_ends[1:])


@dataclass(frozen=True)
class _Insider:
    name: str
    relation: str
    holding: int
    indirect: bool


@dataclass(frozen=True)
class _Trade:
    insider: _Insider
    day: date
    kind: str  # Sale, Purchase, Stock Gift, or "" (grant / option exercise)
    shares: int
    price: float


def _insiders(view: MarketView) -> list[_Insider]:
    sym = view.inst.symbol
    people = []
    for k in range(5 + stable_hash("insn", sym) % 6):
        name = (f"{pick(_LAST_NAMES, 'il', sym, k)} {pick(_FIRST_NAMES, 'if', sym, k)} "
                f"{chr(65 + stable_hash('im', sym, k) % 26)}")
        holding = int(view.shares * 0.0004 * unit("ih", sym, k) ** 2) + 1000
        people.append(_Insider(name, _RELATIONS[k] if k < len(_RELATIONS) else "Director",
                               holding, unit("ii", sym, k) < 0.15))
    unique = {p.name: p for p in people}
    return list(unique.values())


def _trades(view: MarketView) -> list[_Trade]:
    """Insider filings over about a year, newest first."""
    sym, day = view.inst.symbol, _today(view)
    people = _insiders(view)
    trades = []
    for k in range(12 + stable_hash("itn", sym) % 30):
        day -= timedelta(days=1 + stable_hash("itd", sym, k) % 14)
        who = people[stable_hash("itw", sym, k) % len(people)]
        roll = unit("itk", sym, k)
        kind = "Sale" if roll < 0.45 else "" if roll < 0.8 else "Stock Gift" if roll < 0.9 \
            else "Purchase"
        shares = max(1, int(who.holding * (0.01 + 0.2 * unit("its", sym, k))))
        price = view.close_at_or_before(_epoch(day) + DAY) or view.snap.price
        trades.append(_Trade(who, day, kind, shares, round(price, 2)))
    return trades


def insider_transactions(view: MarketView) -> dict[str, Any] | None:
    if not _equity(view):
        return None
    rows = []
    for t in _trades(view):
        row: dict[str, Any] = {"maxAge": 1, "shares": _o_big(t.shares)}
        if t.kind in ("Sale", "Purchase"):
            row["value"] = _o_big(int(t.shares * t.price))
        text = (f"{t.kind} at price {t.price:.2f} per share." if t.kind in ("Sale", "Purchase")
                else "Stock Gift at price 0.00 per share." if t.kind == "Stock Gift" else "")
        row.update(filerUrl="", transactionText=text, filerName=t.insider.name,
                   filerRelation=t.insider.relation, moneyText="",
                   startDate=_o_date(_epoch(t.day)),
                   ownership="I" if t.insider.indirect else "D")
        rows.append(row)
    return {"transactions": rows, "maxAge": 1}


def net_share_purchase_activity(view: MarketView) -> dict[str, Any] | None:
    """The last six months of insider filings: acquisitions (purchases, grants) against
    sales; the optional keys are left out when zero, as Yahoo does."""
    if not _equity(view):
        return None
    cutoff = _today(view) - timedelta(days=182)
    recent = [t for t in _trades(view) if t.day > cutoff]
    buys = [t for t in recent if t.kind in ("Purchase", "")]
    sells = [t for t in recent if t.kind == "Sale"]
    buy_shares, sell_shares = sum(t.shares for t in buys), sum(t.shares for t in sells)
    total = sum(p.holding for p in _insiders(view))
    out: dict[str, Any] = {"maxAge": 1, "period": "6m", "buyInfoCount": fmt.integer(len(buys)),
                           "buyInfoShares": fmt.big(buy_shares)}
    if buy_shares:
        out["buyPercentInsiderShares"] = fmt.pct(round(buy_shares / total, 3))
    out["sellInfoCount"] = fmt.integer(len(sells))
    if sell_shares:
        out.update(sellInfoShares=fmt.big(sell_shares),
                   sellPercentInsiderShares=fmt.pct(round(sell_shares / total, 3)))
    out.update(netInfoCount=fmt.integer(len(buys) + len(sells)),
               netInfoShares=fmt.big(buy_shares - sell_shares))
    if buy_shares != sell_shares:
        out["netPercentInsiderShares"] = fmt.pct(round((buy_shares - sell_shares) / total, 3))
    out["totalInsiderShares"] = fmt.big(total)
    return out


_DESCRIPTIONS = {"Sale": "Sale", "Purchase": "Purchase", "Stock Gift": "Stock Gift",
                 "": "Conversion of Exercise of derivative security"}


def insider_holders(view: MarketView) -> dict[str, Any] | None:
    """The insider roster, by name; each member's latest filing from insiderTransactions."""
    if not _equity(view):
        return None
    latest: dict[str, _Trade] = {}
    for t in _trades(view):
        latest.setdefault(t.insider.name, t)
    rows = []
    for person in sorted(_insiders(view), key=lambda p: p.name):
        trade = latest.get(person.name)
        when = _epoch(trade.day) if trade else _epoch(_today(view) - timedelta(days=400))
        position = "positionIndirect" if person.indirect else "positionDirect"
        rows.append({"maxAge": 1, "name": person.name, "relation": person.relation, "url": "",
                     "transactionDescription": _DESCRIPTIONS[trade.kind] if trade else "Bought",
                     "latestTransDate": _o_date(when), position: _o_big(person.holding),
                     f"{position}Date": _o_date(when)})
    return {"holders": rows, "maxAge": 1}


BUILDERS = {
    "recommendationTrend": recommendation_trend,
    "upgradeDowngradeHistory": upgrade_downgrade_history,
    "financialData": financial_data,
    "earningsTrend": earnings_trend,
    "earningsHistory": earnings_history,
    "esgScores": esg_scores,
    "majorHoldersBreakdown": major_holders_breakdown,
    "institutionOwnership": institution_ownership,
    "fundOwnership": fund_ownership,
    "insiderTransactions": insider_transactions,
    "netSharePurchaseActivity": net_share_purchase_activity,
    "insiderHolders": insider_holders,
}
