"""``python -m crepair``: the same as the ``crepair`` command."""

import sys

from crepair.cli import main

sys.exit(main())
