"""The templates ``skill init`` renders, and the code that renders them."""

from .scaffold import PlannedFile, default_template, plan_project, scaffold_project, write_project

__all__ = ["PlannedFile", "default_template", "plan_project", "scaffold_project", "write_project"]
