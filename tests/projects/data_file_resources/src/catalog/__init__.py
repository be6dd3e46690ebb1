from importlib.resources import files

GREETING = files(__package__).joinpath("texts", "greeting.txt").read_text(encoding="utf-8").strip()
