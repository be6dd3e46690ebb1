from pydantic import BaseModel


class Reexported(BaseModel):
    """Defined in fx_pkg.inner, imported through fx_pkg."""

    value: int = 0
