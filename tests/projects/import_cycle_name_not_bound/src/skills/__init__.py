"""The skills."""
