"""Cloud Bigtable figures and prices the models use, kept as settings (not constants).

The per-node throughput figures are Google's public planning numbers for SSD
nodes with ~1 KB rows; real throughput depends on row size, filters and load
shape, so every modelled cost is a planning estimate, not a promise. Prices are
list prices (us-central1, on-demand) at the time of writing: change them with
``settings.replace(node_hour_usd=...)`` for your region, discounts or HDD.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

MB = 1_000_000
MiB = 1 << 20
GB = 1_000_000_000


@dataclass(frozen=True)
class Settings:
    """Everything the analysis models assume about Cloud Bigtable."""

    # throughput per SSD node (public planning figures)
    reads_per_s_per_node: float = 17_000.0
    writes_per_s_per_node: float = 14_000.0
    scan_bytes_per_s_per_node: float = 220 * MB
    # prices (USD)
    node_hour_usd: float = 0.65
    ssd_gb_month_usd: float = 0.17
    hours_per_month: float = 730.0
    # limits (G10, G19, G20); the emulator enforces none of them
    cell_advisory_bytes: int = 10 * MB
    cell_hard_bytes: int = 100 * MiB
    row_advisory_bytes: int = 100 * MB
    row_hard_bytes: int = 256 * MB
    key_hard_bytes: int = 4 * 1024
    qualifier_hard_bytes: int = 16 * 1024
    # key-distribution model (a simulated Key Visualizer)
    nodes: int = 3
    key_buckets: int = 1000  # Key Visualizer draws ~1,000 key buckets
    time_windows: int = 120
    target_tablets: int = 64  # split threshold = final bytes / this (tens to hundreds of tablets)
    min_nodes: int = 1  # a production cluster has at least one node
    # storage model
    retention_months: float = 12.0
    short_name_bytes: int = 1  # "short but meaningful" family/qualifier names (G01)

    def replace(self, **changes: object) -> Settings:
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            from ..errors import WorkbenchError

            known = ", ".join(f.name for f in dataclasses.fields(self))
            raise WorkbenchError(
                f"Unknown analysis setting(s) {sorted(unknown)}; known settings: {known}."
            )
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


DEFAULT = Settings()
