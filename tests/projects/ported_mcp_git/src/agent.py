"""An agent that looks at a git repository (ported from the MCP reference git server)."""

from skillc import Agent, Skill

from git_tools.tools import (
    GitAdd,
    GitBranch,
    GitDiff,
    GitLog,
    GitShow,
    GitStatus,
)

agent = Agent(
    name="gitdemo",
    persona="You help with a git repository. Use the tools; never guess.",
    skills=[
        Skill(
            name="git",
            description="Read and stage changes in a git repository.",
            tools=[GitStatus(), GitDiff(), GitLog(), GitShow(), GitAdd(), GitBranch()],
        )
    ],
)
