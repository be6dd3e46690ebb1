from skillc import Tool


class ShopTool(Tool):
    timeout = 30
    retries = 1
    description = "A shop tool."


class AuditedTool(ShopTool):
    timeout = 90
