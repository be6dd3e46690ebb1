from skillc import Agent, Skill

from tools import Greeter, ROOT, Files, Lister

GREETING = "Hello"

files = Skill(
    name="files",
    description="Files.",
    tools=[Files(ROOT, limit=2), Greeter(greeting=GREETING), Lister(root_dir=ROOT.upper())],
)
agent = Agent(name="desk", persona="You read files.", skills=[files])
