from pydantic import BaseModel, Field


class LookupInput(BaseModel):
    order_id: str = Field(pattern=r"^A\d{4}$", description="The order id, like A1001.")
