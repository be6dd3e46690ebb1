from skillc import Tool

from mixins import AuditMixin


class ShopTool(AuditMixin, Tool):
    timeout = 30
