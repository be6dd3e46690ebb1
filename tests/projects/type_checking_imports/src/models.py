from tools import lookup  # a cycle only type checkers would follow

Order = dict
