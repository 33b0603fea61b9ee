"""Provider-neutral records: what the apps serve, whichever provider answered.

A provider's fetcher (in its own module under :mod:`marketdata.providers`) maps a query to
its upstream call, reads the answer and transforms it into one of these records; the
capability functions (:mod:`marketdata.capabilities`) return them; the apps shape them into
the spec's bodies. Records carry values as the source sent them (numbers unrounded, nulls
kept), so every presentation rule lives in one place, the app.

Records depend on nothing above the core: not on providers, not on Django.
"""
