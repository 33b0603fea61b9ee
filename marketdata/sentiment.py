"""Headline sentiment: VADER blended with a small finance term list of our own. Pure, no
Django, no I/O after the first call.

Why a blend: VADER (Hutto & Gilbert, 2014; the ``vaderSentiment`` package and the lexicon it
ships) reads general English well but market headlines badly. "Apple beats estimates" has no
VADER word at all, "Tesla shares plunge after recall" comes out *positive* (``shares`` is a
positive word to VADER, ``plunge`` and ``recall`` are unknown to it), and "Nvidia hits record
high" is neutral. So the score is VADER's compound, adjusted for the domain, blended with a
polarity read from :data:`FINANCE_TERMS`, a short curated list written for this project
(Loughran-McDonald *style*: words and short phrases with a polarity, not a copy of that
dictionary).

The model, stated once (the /docs description repeats it):

- **score** in [-1, 1]: ``(1 - w) * vader + w * finance`` where ``vader`` is VADER's compound
  (its own normalisation of the summed word valences into [-1, 1]), ``finance`` is
  ``(P - N) / (P + N)`` over the finance terms found (P positive, N negative, a term preceded
  within three words by a negation such as "not", "no", "without", "avoids" counts for the
  other side), and ``w = k / (k + 1)`` with ``k = P + N``: no term, VADER alone; one term,
  half and half; more terms, the finance reading weighs more. Rounded to 4 decimals.
- **label**: ``positive`` when score >= 0.05, ``negative`` when score <= -0.05, else
  ``neutral`` (VADER's own published thresholds).
- **confidence** in [0, 1]: for ``positive``/``negative``, ``|score|`` (how far the evidence
  leans that way); for ``neutral``, ``(1 - |score| / 0.05) * q`` where ``q`` is the share of
  the headline's words that carry no sentiment in either list (a flat headline of plain
  words is confidently neutral; one whose positive and negative words cancel out is not).
  A headline without words (empty, only symbols) is neutral with confidence 0.

Domain adjustments to VADER's lexicon (on this process's analyzer only): words that are
nouns without sentiment in market news (``share``, ``interest``, ``credit``, ``trust``,
``security``...) are removed, and the words of the company's own name can be left out per
call (``ignore``), so "Best Buy" or "Trust Financial" do not make every one of their
headlines positive.

The analyzer is built once per process (under a lock); scoring only reads it, so any number
of threads may score at once. English only: words VADER and the finance list do not know
count as neutral.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vaderSentiment.vaderSentiment import NEGATE, SentimentIntensityAnalyzer

POSITIVE, NEGATIVE, NEUTRAL = "positive", "negative", "neutral"
LABEL_THRESHOLD = 0.05
NEGATION_WINDOW = 3
_DECIMALS = 4


def _terms(polarity: int, text: str) -> dict[tuple[str, ...], int]:
    """``"beat, beats, record high"`` -> {("beat",): p, ("beats",): p, ("record", "high"): p}."""
    return {tuple(term.split()): polarity for term in (t.strip() for t in text.split(","))
            if term}


# Our own list (inflections spelled out; no stemmer). Phrases are matched before words, the
# longest first, so "falls short" is one negative term and "record low" is not "record".
FINANCE_TERMS: dict[tuple[str, ...], int] = {
    **_terms(+1, """
        beat, beats, beating, tops, topped, topping, exceed, exceeds, exceeded,
        surpass, surpasses, surpassed, outperform, outperforms, outperformed, overweight,
        upgrade, upgrades, upgraded, bullish, upbeat,
        soar, soars, soared, soaring, surge, surges, surged, surging, jump, jumps, jumped,
        rally, rallies, rallied, rebound, rebounds, rebounded, climb, climbs, climbed,
        rise, rises, rose, rising, gain, gains, gained, recover, recovers, recovered,
        recovery, profitable, buyback, buybacks, repurchase, approves, wins,
        record high, record highs, all time high, all time highs, record profit,
        record profits, record revenue, record sales, record earnings, record quarter,
        better than expected, stronger than expected, higher than expected,
        raises guidance, raised guidance, lifts guidance, boosts guidance,
        raises forecast, raised forecast, lifts forecast, boosts forecast,
        raises outlook, raised outlook, lifts outlook, boosts outlook,
        raises dividend, raised dividend, lifts dividend, hikes dividend, dividend hike,
        dividend increase, raises price target, lifts price target, buy rating,
        strong demand, wins contract, secures contract
    """),
    **_terms(-1, """
        miss, misses, missed, underperform, underperforms, underperformed, underweight,
        downgrade, downgrades, downgraded, bearish, slashes, slashed,
        plunge, plunges, plunged, plunging, plummet, plummets, plummeted, tumble, tumbles,
        tumbled, slump, slumps, slumped, sink, sinks, sank, sinking, slide, slides, slid,
        drop, drops, dropped, fall, falls, fell, falling, decline, declines, declined,
        slip, slips, slipped, selloff, sell off, crash, crashes, crashed, downturn,
        slowdown, headwinds, shortfall,
        layoff, layoffs, lay off, lays off, laid off, job cuts, cuts jobs, cut jobs,
        cutting jobs, lawsuit, lawsuits, sue, sues, sued, probe, probes, investigation,
        subpoena, antitrust, recall, recalls, recalled, bankruptcy, bankrupt, insolvency,
        default, defaults, defaulted, delist, delisted, delisting, halt, halts, halted,
        fined, penalty, fraud, writedown, write down, impairment, profit warning,
        record low, record lows, record loss, wider loss, loss widens, net loss,
        worse than expected, weaker than expected, lower than expected, falls short,
        fell short, cuts guidance, cut guidance, lowers guidance, lowered guidance,
        cuts forecast, cut forecast, lowers forecast, lowered forecast, cuts outlook,
        lowers outlook, cuts dividend, suspends dividend, dividend cut,
        cuts price target, lowers price target, sell rating, weighs on
    """),
}
_LONGEST_TERM = max(len(term) for term in FINANCE_TERMS)
# A finance term right after one of these counts for the other side ("avoids layoffs").
NEGATIONS = frozenset(NEGATE) | {"no", "avoid", "avoids", "avoided", "averts", "averted"}
# VADER words that are plain nouns in market news ("Tesla shares plunge", "interest income").
VADER_NEUTRAL_IN_FINANCE = ("share", "shares", "interest", "interests", "credit", "credits",
                            "trust", "trusts", "security", "securities", "demand", "united")

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_analyzer: SentimentIntensityAnalyzer | None = None
_analyzer_lock = threading.Lock()


@dataclass(frozen=True)
class Sentiment:
    """One headline's sentiment (see the module doc for the definitions)."""

    label: str
    score: float
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "score": self.score, "confidence": self.confidence}


def analyzer() -> SentimentIntensityAnalyzer:
    """This process's VADER analyzer with the finance adjustments (built on first use)."""
    global _analyzer
    if _analyzer is None:
        with _analyzer_lock:
            if _analyzer is None:
                built = SentimentIntensityAnalyzer()
                for word in VADER_NEUTRAL_IN_FINANCE:
                    built.lexicon.pop(word, None)
                _analyzer = built
    return _analyzer


def words_of(text: str) -> list[str]:
    """Lower-case words (hyphens split: "all-time" -> all, time; "isn't" stays one word)."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def finance_hits(words: list[str]) -> tuple[int, int, set[int]]:
    """(positive, negative, positions of the words that matched) for the finance terms."""
    positive = negative = 0
    matched: set[int] = set()
    i = 0
    while i < len(words):
        for size in range(min(_LONGEST_TERM, len(words) - i), 0, -1):
            polarity = FINANCE_TERMS.get(tuple(words[i:i + size]))
            if polarity is None:
                continue
            if any(w in NEGATIONS for w in words[max(0, i - NEGATION_WINDOW):i]):
                polarity = -polarity
            if polarity > 0:
                positive += 1
            else:
                negative += 1
            matched.update(range(i, i + size))
            i += size
            break
        else:
            i += 1
    return positive, negative, matched


def _without(text: str, ignore: Iterable[str]) -> str:
    names = sorted({w for w in ignore if w}, key=len, reverse=True)
    if not names:
        return text
    pattern = r"\b(?:" + "|".join(re.escape(name) for name in names) + r")\b"
    return re.sub(pattern, " ", text, flags=re.IGNORECASE)


def label_for(score: float) -> str:
    if score >= LABEL_THRESHOLD:
        return POSITIVE
    if score <= -LABEL_THRESHOLD:
        return NEGATIVE
    return NEUTRAL


def score_headline(title: str | None, ignore: Iterable[str] = ()) -> Sentiment:
    """The sentiment of one headline; ``ignore``: words left out before scoring (the
    company's own name). Never raises on text: anything without words is neutral, 0."""
    text = _without(title or "", ignore)
    words = words_of(text)
    if not words:
        return Sentiment(NEUTRAL, 0.0, 0.0)
    model = analyzer()
    vader = model.polarity_scores(text)["compound"]
    positive, negative, matched = finance_hits(words)
    hits = positive + negative
    if hits:
        weight = hits / (hits + 1)
        score = (1 - weight) * vader + weight * (positive - negative) / hits
    else:
        score = vader
    score = max(-1.0, min(1.0, score))
    label = label_for(score)
    if label == NEUTRAL:
        bearing = sum(1 for i, w in enumerate(words)
                      if i in matched or model.lexicon.get(w, 0.0) != 0.0)
        plain_share = 1 - bearing / len(words)
        confidence = (1 - abs(score) / LABEL_THRESHOLD) * plain_share
    else:
        confidence = abs(score)
    return Sentiment(label, round(score, _DECIMALS), round(max(0.0, min(1.0, confidence)),
                                                           _DECIMALS))
