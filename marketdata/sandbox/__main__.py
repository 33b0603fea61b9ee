"""``python -m marketdata.sandbox --port 9000``: serve the sandbox without Django."""

from marketdata.sandbox.cli import main

if __name__ == "__main__":
    main()
