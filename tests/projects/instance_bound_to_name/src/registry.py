from tools import Cancel

cancel = Cancel()
default_cancel = cancel
