from pydantic import BaseModel
from skillc import Tool

ROOT = "/srv/data"


class Empty(BaseModel):
    pass


class Files(Tool):
    name = "files"
    description = "Say where the files are."
    input_schema = Empty

    def __init__(self, root_dir: str, limit: int = 10) -> None:
        super().__init__()
        self.root_dir = root_dir
        self.limit = limit

    def execute(self, input, ctx):
        return {"root_dir": self.root_dir, "limit": self.limit}


class Greeter(Tool):
    name = "greeter"
    description = "Greet."
    input_schema = Empty

    def __init__(self, greeting: str = "Hi") -> None:
        super().__init__()
        self.greeting = greeting

    def execute(self, input, ctx):
        return self.greeting


class Lister(Tool):
    name = "lister"
    description = "List."
    input_schema = Empty

    def __init__(self, root_dir: str = "/") -> None:
        super().__init__()
        self.root_dir = root_dir

    def execute(self, input, ctx):
        return self.root_dir
