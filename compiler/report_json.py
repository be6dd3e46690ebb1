"""The JSON form of a compile report: ``skill compile --format json``.

``report_to_dict`` is the document; ``ReportText`` writes it as JSON text, as
``json.dumps(document, indent=2, ensure_ascii=True)`` would, and a watch that prints a
report after every compile keeps one ``ReportText``: the text of a tool that is the very
same object as in the last report (a link reused keeps them) is not made again.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii
from pathlib import Path

from .api import CompileReport
from .json_text import indented_json
from .types import Source, ToolInfo

__all__ = ["ReportText", "report_to_dict"]


class ReportText:
    """Writes reports as JSON text, keeping each tool's part for as long as the tool is the same object."""

    def __init__(self) -> None:
        self._tools: dict[str, tuple[ToolInfo, str]] = {}

    def __call__(self, report: CompileReport) -> str:
        """``indented_json(report_to_dict(report), ensure_ascii=True)``, byte for byte.

        Text nests by indenting each of its lines: JSON text has a line break only between
        its parts (one inside a string is written ``\\n``).
        """
        parts = []
        for key, value in report_to_dict(report, tools=False).items():
            if key == "tools":
                text = self._tools_text(report.tools)
            else:
                text = indented_json(value, ensure_ascii=True).replace("\n", "\n  ")
            parts.append(f"{encode_basestring_ascii(key)}: " + text)
        return "{\n  " + ",\n  ".join(parts) + "\n}"

    def _tools_text(self, tools: tuple[ToolInfo, ...]) -> str:
        """The ``tools`` array, indented as it stands in the report (each tool's text kept so)."""
        known, self._tools = self._tools, {}
        texts = []
        for tool in tools:
            kept = known.get(tool.name)
            if kept is not None and kept[0] is tool:
                text = kept[1]
            else:  # inside the array, inside the report
                text = indented_json(_tool_dict(tool), ensure_ascii=True).replace("\n", "\n    ")
            self._tools[tool.name] = (tool, text)
            texts.append(text)
        if not texts:
            return "[]"
        return "[\n    " + ",\n    ".join(texts) + "\n  ]"


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _source(source: Source) -> dict[str, object]:
    return {"path": source.path, "line": source.line}


def report_to_dict(report: CompileReport, *, tools: bool = True) -> dict[str, object]:
    """The report as one JSON-ready document (``skill compile --format json``); without
    ``tools``, its ``tools`` array is left empty (``ReportText`` writes it).

    Columns are 1-based here, as in the text output and in editors.
    """
    return {
        "format": 1,
        "ok": report.ok,
        "dist": {"path": _relative(report.config.out, report.config.root), "state": report.dist},
        "summary": {
            "errors": report.errors,
            "warnings": report.warnings,
            "skills": len(report.skills),
            "tools": len(report.tools),
        },
        "agent": None
        if report.agent is None
        else {
            "name": report.agent.name,
            "skills": list(report.agent.skills),
            "source": _source(report.agent.source),
        },
        "skills": [
            {
                "name": skill.name,
                "description": skill.description,
                "tools": list(skill.tools),
                "has_condition": skill.has_condition,
                "source": _source(skill.source),
            }
            for skill in report.skills
        ],
        "tools": [_tool_dict(tool) for tool in report.tools] if tools else [],
        "diagnostics": [
            {
                "code": item.code,
                "severity": item.severity.value,
                "message": item.message,
                "path": item.path,
                "line": item.line,
                "column": item.col + 1,
                "hint": item.hint,
                "related": [
                    {"path": path, "line": line, "column": col + 1, "message": note}
                    for path, line, col, note in item.related
                ],
            }
            for item in report.diagnostics
        ],
        "stats": {
            "files": report.stats.files,
            "parsed": report.stats.parsed,
            "cached": report.stats.cached,
            "workers": report.stats.workers,
        },
        "imported": list(report.imported),
        "timings": {stage: round(seconds, 6) for stage, seconds in report.timings.items()},
    }


def _tool_dict(tool: ToolInfo) -> dict[str, object]:
    return {
        "name": tool.name,
        "skill": tool.skill,
        "form": tool.form,
        "description": tool.description,
        "source": _source(tool.source),
        "entry": {"module": tool.module, "qualname": tool.qualname},
        "input_model": None if tool.input_model is None else f"{tool.input_model.module}.{tool.input_model.qualname}",
        "output_model": None
        if tool.output_model is None
        else f"{tool.output_model.module}.{tool.output_model.qualname}",
        "is_async": tool.is_async,
        "settings": {**tool.settings.to_json(), "has_condition": tool.has_condition},
    }
