"""The agent's skills, one module each."""
