"""The static compiler: reads a tool project with LibCST, never running its code."""

from .api import CompileReport, compile_project

__all__ = ["CompileReport", "compile_project"]
