from pydantic import BaseModel


class Item(BaseModel):
    y: str
