from skillc import Tool


class ShopTool(Tool):
    timeout = 20
