"""The time tools of the Model Context Protocol's reference time server, ported to skillc.

Kept from the original (modelcontextprotocol/servers, src/time): the models, the
``TimeServer`` class and its two methods, the tool names taken from a ``str`` enum.
Changed: McpError is a ValueError (no MCP here), and each tool is a skillc Tool.
"""

from datetime import datetime, timedelta
from enum import Enum
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field
from skillc import Tool, ToolContext


class TimeTools(str, Enum):
    GET_CURRENT_TIME = "get_current_time"
    CONVERT_TIME = "convert_time"


class TimeResult(BaseModel):
    timezone: str
    datetime: str
    day_of_week: str
    is_dst: bool


class TimeConversionResult(BaseModel):
    source: TimeResult
    target: TimeResult
    time_difference: str


def get_zoneinfo(timezone_name: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone_name)
    except Exception as e:
        raise ValueError(f"Invalid timezone: {str(e)}")


class TimeServer:
    def get_current_time(self, timezone_name: str) -> TimeResult:
        """Get current time in specified timezone"""
        timezone = get_zoneinfo(timezone_name)
        current_time = datetime.now(timezone)

        return TimeResult(
            timezone=timezone_name,
            datetime=current_time.isoformat(timespec="seconds"),
            day_of_week=current_time.strftime("%A"),
            is_dst=bool(current_time.dst()),
        )

    def convert_time(self, source_tz: str, time_str: str, target_tz: str) -> TimeConversionResult:
        """Convert time between timezones"""
        source_timezone = get_zoneinfo(source_tz)
        target_timezone = get_zoneinfo(target_tz)

        try:
            parsed_time = datetime.strptime(time_str, "%H:%M").time()
        except ValueError:
            raise ValueError("Invalid time format. Expected HH:MM [24-hour format]")

        now = datetime.now(source_timezone)
        source_time = datetime(
            now.year,
            now.month,
            now.day,
            parsed_time.hour,
            parsed_time.minute,
            tzinfo=source_timezone,
        )

        target_time = source_time.astimezone(target_timezone)
        source_offset = source_time.utcoffset() or timedelta()
        target_offset = target_time.utcoffset() or timedelta()
        hours_difference = (target_offset - source_offset).total_seconds() / 3600

        if hours_difference.is_integer():
            time_diff_str = f"{hours_difference:+.1f}h"
        else:
            # For fractional hours like Nepal's UTC+5:45
            time_diff_str = f"{hours_difference:+.2f}".rstrip("0").rstrip(".") + "h"

        return TimeConversionResult(
            source=TimeResult(
                timezone=source_tz,
                datetime=source_time.isoformat(timespec="seconds"),
                day_of_week=source_time.strftime("%A"),
                is_dst=bool(source_time.dst()),
            ),
            target=TimeResult(
                timezone=target_tz,
                datetime=target_time.isoformat(timespec="seconds"),
                day_of_week=target_time.strftime("%A"),
                is_dst=bool(target_time.dst()),
            ),
            time_difference=time_diff_str,
        )


class CurrentTimeInput(BaseModel):
    timezone: str = Field(description="IANA timezone name (e.g., 'America/New_York', 'Europe/London').")


class ConvertTimeInput(BaseModel):
    source_timezone: str = Field(description="Source IANA timezone name (e.g., 'America/New_York').")
    time: str = Field(description="Time to convert in 24-hour format (HH:MM)")
    target_timezone: str = Field(description="Target IANA timezone name (e.g., 'Asia/Tokyo').")


class GetCurrentTime(Tool):
    name = TimeTools.GET_CURRENT_TIME.value
    description = "Get current time in a specific timezone"
    input_schema = CurrentTimeInput
    output_schema = TimeResult

    def execute(self, input: CurrentTimeInput, ctx: ToolContext) -> TimeResult:
        return TimeServer().get_current_time(input.timezone)


class ConvertTime(Tool):
    name = TimeTools.CONVERT_TIME.value
    description = """
        Convert time between timezones.

        Give the time in 24-hour format (HH:MM).
    """
    input_schema = ConvertTimeInput
    output_schema = TimeConversionResult

    def execute(self, input: ConvertTimeInput, ctx: ToolContext) -> TimeConversionResult:
        return TimeServer().convert_time(input.source_timezone, input.time, input.target_timezone)
