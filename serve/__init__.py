"""``skillc.serve``: a compiled project's tools over MCP (``skill serve``)."""
