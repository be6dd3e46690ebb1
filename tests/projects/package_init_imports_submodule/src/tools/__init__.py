from . import lookup
