"""Greetings for the French shop front."""

GREETING = "Bienvenue au café !"
