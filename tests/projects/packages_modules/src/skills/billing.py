import skills.tools.invoices
from skillc import Skill

billing = Skill(name="billing", description="Invoices.", tools=[skills.tools.invoices.invoice_total])
