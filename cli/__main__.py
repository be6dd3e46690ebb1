"""``python -m skillc.cli``: the same as the ``skill`` command."""

from .main import main

main()
