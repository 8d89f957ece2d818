"""``python -m engine``: the headless CLI (see :mod:`engine.cli`)."""

import sys

from engine.cli import main

sys.exit(main())
