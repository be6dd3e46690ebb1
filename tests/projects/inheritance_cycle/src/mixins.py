from base import ShopTool


class AuditMixin(ShopTool):
    audited = True
