"""The tools, one module each, and the helpers they share."""
