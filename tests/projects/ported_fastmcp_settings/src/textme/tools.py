"""FastMCP's text_me tool: sends a text message through surgemsg.com (with urllib here, not httpx)."""

import json
import urllib.request

from skillc import tool
from textme.settings import surge_settings


@tool(name="textme")
def text_me(text_content: str) -> str:
    """Send a text message to me.

    Args:
        text_content: The text to send.
    """
    body = {
        "body": text_content,
        "conversation": {
            "contact": {
                "first_name": surge_settings.my_first_name,
                "last_name": surge_settings.my_last_name,
                "phone_number": surge_settings.my_phone_number,
            }
        },
    }
    request = urllib.request.Request(
        "https://api.surgemsg.com/messages",
        data=json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {surge_settings.api_key}",
            "Surge-Account": surge_settings.account_id,
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=10):
        return f"Message sent: {text_content}"
