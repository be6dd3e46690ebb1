from skillc import Agent, Skill

from tools import Console, aux, com10, lpt0, nul, Printer

devices = Skill(name="devices", description="Devices.", tools=[Console(), aux, nul, Printer(), com10, lpt0])
printers = Skill(name="prn", description="Printers.", tools=[])
ports = Skill(name="Com1", description="Ports.", tools=[])
agent = Agent(name="shop", persona="Helpful.", skills=[devices, printers, ports])
