from pydantic import BaseModel


class OrderInput(BaseModel):
    order_id: str
