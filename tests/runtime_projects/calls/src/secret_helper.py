"""In src/, but imported by no tool: a bundle never holds it."""

VALUE = "leaked"
