"""Advisor findings and the list that shows them (notebook, designer, HTML report).

A :class:`Finding` extends the schema engine's limit finding
(:class:`workbench.schema.limits.Finding`: guideline, message, row key, table)
with what a person needs to act: a severity, a title, the *measured* evidence,
the fix in words and, where one exists, a better :class:`~workbench.schema.Schema`
(``suggestion``) that the designer can apply with one click.

Colours are the Okabe–Ito palette used by every workbench figure, and each
severity also carries a text label and a distinct symbol, so nothing depends on
telling colours apart.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..formatting import counted
from ..guidelines import GUIDELINES
from ..schema.limits import Finding as LimitFinding

SEVERITIES = ("error", "warning", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}
# Okabe–Ito: vermillion, orange, blue; symbols differ too (✖ ▲ ●)
_STYLE = {
    "error": ("#D55E00", "✖", "ERROR"),
    "warning": ("#E69F00", "▲", "WARNING"),
    "info": ("#0072B2", "●", "INFO"),
}


@dataclass(frozen=True)
class Finding(LimitFinding):
    """One piece of advice: severity, guideline IDs, measured evidence, the fix and a better schema."""

    severity: str = "warning"
    title: str = ""
    evidence: tuple[str, ...] = ()
    fix: str = ""
    suggestion: Any = field(default=None, compare=False, repr=False)  # Schema | None
    rule: str = ""
    guidelines: tuple[str, ...] = ()
    data: dict = field(default_factory=dict, compare=False, repr=False)  # the measured numbers

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(
                f"Finding severity must be one of {SEVERITIES}, got {self.severity!r}."
            )
        ids = tuple(dict.fromkeys((self.guideline, *self.guidelines)))
        bad = [g for g in ids if g not in GUIDELINES]
        if bad:
            raise ValueError(f"Unknown guideline ID(s) {bad}; IDs run G01–G31.")
        object.__setattr__(self, "guidelines", ids)
        object.__setattr__(self, "evidence", tuple(self.evidence))

    @property
    def ids(self) -> str:
        return ", ".join(self.guidelines)

    def __str__(self) -> str:
        lines = [f"{self.severity.upper()} [{self.ids}] {self.title}"]
        lines += [f"  - {e}" for e in self.evidence]
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        if self.suggestion is not None:
            lines.append(
                f"  suggested schema: {self.suggestion.name} (row key {self.suggestion.key.template()})"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return _finding_html(self)


def _gid_html(g: str) -> str:
    t = GUIDELINES.get(g, "")
    return (
        f"<span class='wb-gid' title='{html.escape(g + ': ' + t)}' style='display:inline-block;"
        "font-family:monospace;font-weight:bold;border:1px solid #555;border-radius:3px;padding:0 4px;"
        f"margin-right:4px'>{html.escape(g)}</span><span style='color:#444'>{html.escape(t)}</span>"
    )


def _finding_html(f: Finding) -> str:
    colour, sym, label = _STYLE[f.severity]
    ev = "".join(f"<li>{html.escape(e)}</li>" for e in f.evidence)
    gids = "<br>".join(_gid_html(g) for g in f.guidelines)
    sug = ""
    if f.suggestion is not None:
        s = f.suggestion
        sug = (
            f"<div style='margin-top:4px'><b>Suggested schema</b> <code>{html.escape(s.name)}</code>: "
            f"row key <code>{html.escape(s.key.template())}</code>, {html.escape(s.layout.describe())}</div>"
        )
    fix = f"<div><b>Fix:</b> {html.escape(f.fix)}</div>" if f.fix else ""
    return (
        f"<div class='wb-finding wb-{f.severity}' style='border-left:6px solid {colour};padding:4px 8px;"
        f"margin:6px 0;background:#fafafa'>"
        f"<div><span style='color:{colour};font-weight:bold'>{sym} {label}</span> "
        f"<b>{html.escape(f.title)}</b></div>"
        f"<div style='font-size:90%'>{gids}</div>"
        f"<ul style='margin:2px 0 2px 18px;padding:0'>{ev}</ul>{fix}{sug}</div>"
    )


class Advice(list):
    """The findings for one dataset × schema, worst first; a list of :class:`Finding`."""

    def __init__(
        self,
        findings: Iterable[Finding] = (),
        *,
        dataset: str = "",
        schema: str = "",
        elapsed_ms: float = 0.0,
    ) -> None:
        items = sorted(findings, key=lambda f: (_RANK[f.severity], f.guideline, f.rule))
        super().__init__(items)
        self.dataset = dataset
        self.schema = schema
        self.elapsed_ms = elapsed_ms
        self.context: Any = None  # the advisor's Context: advise(..., context=) reuses its cells

    # -- selections ------------------------------------------------------------------------
    def of(self, severity: str) -> list[Finding]:
        return [f for f in self if f.severity == severity]

    @property
    def errors(self) -> list[Finding]:
        return self.of("error")

    @property
    def warnings(self) -> list[Finding]:
        return self.of("warning")

    @property
    def problems(self) -> list[Finding]:
        """Errors and warnings (what a good design has none of)."""
        return [f for f in self if f.severity != "info"]

    def by_rule(self, rule: str) -> list[Finding]:
        return [f for f in self if f.rule == rule]

    def guidelines(self) -> list[str]:
        return sorted({g for f in self for g in f.guidelines})

    def suggestions(self) -> list[tuple[Finding, Any]]:
        return [(f, f.suggestion) for f in self if f.suggestion is not None]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "severity": f.severity,
                    "guidelines": f.ids,
                    "rule": f.rule,
                    "title": f.title,
                    "evidence": " · ".join(f.evidence),
                    "fix": f.fix,
                    "suggestion": f.suggestion.name if f.suggestion is not None else "",
                }
                for f in self
            ],
            columns=["severity", "guidelines", "rule", "title", "evidence", "fix", "suggestion"],
        )

    # -- display ---------------------------------------------------------------------------
    def headline(self) -> str:
        n = {s: len(self.of(s)) for s in SEVERITIES}
        if not self.problems:
            return f"No problems found for {self.schema} on {self.dataset}" + (
                f" ({counted(n['info'], 'note')})" if n["info"] else ""
            )
        return (
            f"{self.schema} on {self.dataset}: {counted(n['error'], 'error')}, "
            f"{counted(n['warning'], 'warning')}, {counted(n['info'], 'note')}"
        )

    def __str__(self) -> str:
        return "\n".join([self.headline(), *(str(f) for f in self)])

    def __repr__(self) -> str:
        return f"<Advice {self.headline()}>"

    def _repr_html_(self) -> str:
        colour = _STYLE["error" if self.errors else "warning" if self.warnings else "info"][0]
        head = (
            f"<div style='font-weight:bold;color:{colour if self.problems else '#009E73'}'>"
            f"{html.escape(self.headline())}</div>"
        )
        return "<div class='wb-advice'>" + head + "".join(_finding_html(f) for f in self) + "</div>"
