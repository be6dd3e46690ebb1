from skillc import Agent, Skill

from notes import add_note, archive_notes, list_notes

agent = Agent(name="notes", skills=[Skill(name="notes", tools=[add_note, list_notes, archive_notes])])
