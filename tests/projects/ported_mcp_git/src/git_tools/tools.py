"""The MCP reference git server's tools (src/git/src/mcp_server_git/server.py), ported to skillc.

Kept: the input models, the descriptions, the flag-injection and path checks.  Changed: git
runs as a subprocess (run.py) instead of through GitPython; git_log returns a model.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, Field

from skillc import Tool, ToolContext

from .run import DEFAULT_CONTEXT_LINES, git, no_flag


class GitStatusInput(BaseModel):
    repo_path: str


class GitDiffInput(BaseModel):
    repo_path: str
    target: str
    context_lines: int = DEFAULT_CONTEXT_LINES


class GitLogInput(BaseModel):
    repo_path: str
    max_count: int = 10
    start_timestamp: Optional[str] = Field(
        None,
        description="Start timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday')",
    )
    end_timestamp: Optional[str] = Field(None, description="End timestamp for filtering commits.")


class GitShowInput(BaseModel):
    repo_path: str
    revision: str


class GitAddInput(BaseModel):
    repo_path: str
    files: list[str]


class BranchType(str, Enum):
    LOCAL = "local"
    REMOTE = "remote"
    ALL = "all"


class GitBranchInput(BaseModel):
    repo_path: str = Field(..., description="The path to the Git repository.")
    branch_type: BranchType = Field(..., description="Whether to list local, remote or all branches.")
    contains: Optional[str] = Field(None, description="The commit sha that branch should contain.")


class LogEntry(BaseModel):
    sha: str
    author: str
    date: str
    message: str


class GitLogOutput(BaseModel):
    commits: list[LogEntry]


class GitStatus(Tool):
    name = "git_status"
    description = "Shows the working tree status"
    input_schema = GitStatusInput

    def execute(self, input: GitStatusInput, ctx: ToolContext) -> str:
        return git(input.repo_path, "status")


class GitDiff(Tool):
    name = "git_diff"
    description = "Shows differences between branches or commits"
    input_schema = GitDiffInput

    def execute(self, input: GitDiffInput, ctx: ToolContext) -> str:
        no_flag("target", input.target)
        git(input.repo_path, "rev-parse", "--verify", input.target)
        return git(input.repo_path, "diff", f"--unified={input.context_lines}", input.target)


class GitLog(Tool):
    name = "git_log"
    description = "Shows the commit logs"
    input_schema = GitLogInput
    output_schema = GitLogOutput

    def execute(self, input: GitLogInput, ctx: ToolContext) -> GitLogOutput:
        no_flag("start_timestamp", input.start_timestamp)
        no_flag("end_timestamp", input.end_timestamp)
        args = ["log", f"--max-count={input.max_count}", "--format=%H%x1f%an%x1f%ad%x1f%s"]
        if input.start_timestamp:
            args += ["--since", input.start_timestamp]
        if input.end_timestamp:
            args += ["--until", input.end_timestamp]
        commits = []
        for line in git(input.repo_path, *args).splitlines():
            sha, author, date, message = line.split("\x1f", 3)
            commits.append(LogEntry(sha=sha, author=author, date=date, message=message))
        return GitLogOutput(commits=commits)


class GitShow(Tool):
    name = "git_show"
    description = "Shows the contents of a commit"
    input_schema = GitShowInput

    def execute(self, input: GitShowInput, ctx: ToolContext) -> str:
        no_flag("revision", input.revision)
        return git(input.repo_path, "show", input.revision)


class GitAdd(Tool):
    name = "git_add"
    description = "Adds file contents to the staging area"
    input_schema = GitAddInput
    needs_approval = True

    def execute(self, input: GitAddInput, ctx: ToolContext) -> str:
        root = Path(input.repo_path).resolve()
        for f in input.files:
            try:
                (root / f).resolve().relative_to(root)
            except ValueError:
                raise ValueError(f"Path '{f}' is outside the repository '{root}'") from None
        git(input.repo_path, "add", "--", *input.files)
        return "Files staged successfully"


class GitBranch(Tool):
    name = "git_branch"
    description = "List Git branches"
    input_schema = GitBranchInput

    def execute(self, input: GitBranchInput, ctx: ToolContext) -> str:
        flag = {BranchType.LOCAL: [], BranchType.REMOTE: ["-r"], BranchType.ALL: ["-a"]}[input.branch_type]
        extra = ["--contains", input.contains] if input.contains else []
        no_flag("contains", input.contains)
        return git(input.repo_path, "branch", *flag, *extra)
