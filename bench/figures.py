"""A measured figure and how it is reported."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    budget: float
    how: str

    @property
    def within_budget(self) -> bool:
        return self.value <= self.budget

    def row(self) -> str:
        verdict = "ok" if self.within_budget else "OVER BUDGET"
        measured = f"{self.value:.1f} {self.unit}"
        budget = f"<= {self.budget:g} {self.unit}"
        return f"| {self.name} | {measured} | {budget} | {verdict} | {self.how} |"
