"""Simulated Frankfurter API (the ECB's euro reference rates): see README.md."""
