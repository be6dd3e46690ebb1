import json
import os
from pathlib import Path

from skillc import tool

HERE = Path(__file__).parent
RATES = json.loads((HERE / "data" / "rates.json").read_text(encoding="utf-8"))


@tool
def price(product: str) -> str:
    """The price of a product.

    Args:
        product: The product's name.
    """
    with open(Path(__file__).parent / "data" / "prices.json", encoding="utf-8") as stream:
        prices = json.load(stream)
    return f"{product}: {prices[product]} EUR"


@tool
def rate_of(currency: str) -> float:
    """The exchange rate of a currency.

    Args:
        currency: The currency's code.
    """
    with open(os.path.join(os.path.dirname(__file__), "data", "rates.json"), encoding="utf-8") as stream:
        assert json.load(stream) == RATES
    return RATES[currency]
