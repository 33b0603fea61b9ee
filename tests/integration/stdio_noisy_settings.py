"""The service's settings, loudly: a line on stdout and a warning while Django starts, which
``manage.py mcp`` must keep off the protocol (tests/integration/test_mcp_stdio.py)."""

import sys
import warnings

from config.settings import *  # noqa: F403

print("stdio-noise: a line printed on stdout while the settings load")
sys.stdout.flush()
warnings.warn("stdio-noise: a warning while Django starts", UserWarning, stacklevel=1)
