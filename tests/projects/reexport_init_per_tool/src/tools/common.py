PREFIX = "order"
