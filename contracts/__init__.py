"""What the compiler and the runtime agree on: errors, naming rules, the table of tool settings, the manifest.

This package sits below both ``skillc.compiler`` and ``skillc.runtime`` and imports neither.
"""
