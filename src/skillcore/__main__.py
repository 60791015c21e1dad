"""``python -m skillcore``: the same as the ``skillcore`` command."""

import sys

from skillcore.apps import main

sys.exit(main())
