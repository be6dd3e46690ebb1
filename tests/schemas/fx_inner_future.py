"""Classes defined in a model's body, under ``from __future__ import annotations``."""

from __future__ import annotations

from pydantic import BaseModel


class Tank(BaseModel):
    class Shrimp(BaseModel):
        name: str

    shrimp: list[Shrimp]
    best: Shrimp | None = None
    quoted: list["Tank.Shrimp"] = []


class Widget(BaseModel):
    size: int


class WidgetBox(BaseModel):
    widget: Widget  # deferred: resolved once the body has run, so the class's Widget below

    class Widget(BaseModel):
        color: str
