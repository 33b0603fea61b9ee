"""The simulated alternative.me Fear & Greed Index API, wired in router.py."""
