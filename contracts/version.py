"""The version of skillc: written here once; pyproject.toml, the manifest and the caches read it."""

__version__ = "0.1.0"
