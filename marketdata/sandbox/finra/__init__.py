"""FINRA simulator: the daily short sale volume files and the Query API's consolidated short
interest, wired in router.py (README.md says what is simulated)."""
