"""The static compiler: reads a tool project with CPython's own parser (``ast``), never running its code.

LibCST is imported only to place a diagnostic whose position must be found in the source (``locate``).
"""

from .api import CompileReport, compile_project

__all__ = ["CompileReport", "compile_project"]
