from pydantic import BaseModel


class Item(BaseModel):
    x: int
