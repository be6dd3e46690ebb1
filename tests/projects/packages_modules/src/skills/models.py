from pydantic import BaseModel


class OrderInput(BaseModel):
    order_id: str


class InvoiceInput(BaseModel):
    invoice_id: str
