"""``python -m skillc.cli``: the same as the ``skill`` command."""

from .entry import main

main()
