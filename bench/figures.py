"""A measured figure and how it is reported."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    budget: float | None  # None: reported for context, no budget set
    how: str

    @property
    def within_budget(self) -> bool:
        return self.budget is None or self.value <= self.budget

    def row(self) -> str:
        verdict = "—" if self.budget is None else "ok" if self.within_budget else "OVER BUDGET"
        measured = f"{self.value:.1f} {self.unit}"
        budget = "—" if self.budget is None else f"<= {self.budget:g} {self.unit}"
        return f"| {self.name} | {measured} | {budget} | {verdict} | {self.how} |"
