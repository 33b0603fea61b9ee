"""Financial Modeling Prep's ``/stable`` API, simulated: analyst grades and price targets,
press releases and the three index constituent lists (see README.md in this package)."""
