"""The monthly bill as line items: nodes by edition, storage (hot, cold), replication network,
and the optional backup and Data Boost lines, each with its unit price and where that price
comes from.

``monthly_bill(nodes, hot_gib=..., cold_gib=..., replication_gib=..., settings=...)`` is the
whole calculation: a line is quantity × unit price, the total is their sum. The prices are
settings (``analysis/settings.py``, dated ``prices_date``); :data:`PRICE_SOURCES` says, for
each, the page it comes from or why it is an assumption (docs/architecture.md, "The price
book").

* Nodes: every node of every cluster, every hour (the pricing page bills the hourly maximum,
  one hour minimum). An Enterprise Plus instance's nodes, with or without the in-memory tier
  (its hybrid storage nodes are Enterprise Plus nodes), are billed at the Enterprise Plus
  price.
* Storage: compressed GiB-months on every cluster (each cluster keeps its own copy); the
  infrequent-access tier's GiB at its own price.
* Replication network: the bytes written, copied to each other cluster, per GiB, at the
  intra- or inter-region rate (``replication_network``).
* Backups (optional, ``backup_retention_days``): incremental, as "Backups overview" says (a
  backup shares physical storage with its table and the table's other backups): billed are
  only the bytes the backups hold that the table no longer does, the data it dropped (GC) or
  replaced over the days the backups are kept (``backup_gib``, from ``capacity()``); stored
  once (a backup belongs to one cluster).
* Data Boost (optional): the serverless processing unit-hours of the queries sent there
  (``data_boost_spu_hours``, from their node-seconds: ``production_reads.DataBoost``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .settings import DEFAULT, Settings

_PRICING = "Bigtable pricing (cloud.google.com/bigtable/pricing)"
_NOT_STORED = (
    "assumption: the stored copy of the pricing page (checked 2026-11) holds no figure for it "
    "(its price tables are per region); set it from the page for your region"
)

PRICE_SOURCES: dict[str, str] = {
    "node_hour_usd": f"{_PRICING}, Enterprise node, us-central1",
    "enterprise_plus_node_hour_usd": (
        f"{_NOT_STORED}. Documented only that Enterprise Plus nodes cost more than Enterprise "
        "(Admin API, Instance.Edition: 'The nodes in the Enterprise Plus tier come at a higher "
        "cost'); 1.3 × the Enterprise price here"
    ),
    "ssd_gb_month_usd": f"{_PRICING}, SSD storage per GiB-month",
    "hdd_gb_month_usd": f"{_PRICING}, HDD storage per GiB-month",
    "cold_gb_month_usd": f"{_NOT_STORED}; the HDD price here (infrequent-access tier)",
    "intra_region_replication_gib_usd": (
        f"{_NOT_STORED}. The pricing page bills network bandwidth in GiB; Google Cloud's "
        "inter-zone rate within a region is used here"
    ),
    "inter_region_replication_gib_usd": (
        f"{_NOT_STORED}. Google Cloud's data transfer between regions within North America "
        "is used here; other continents cost more"
    ),
    "backup_gb_month_usd": (
        f"{_NOT_STORED}; the HDD storage price here. Billed quantity (assumption): backups are "
        "incremental (Backups overview: 'A backup shares physical storage with the source "
        "table and other backups of the table'), so only the data the table dropped or "
        "replaced while the backups were kept is billed as backup storage"
    ),
    "data_boost_spu_hour_usd": (
        f"{_NOT_STORED}. The page bills Data Boost in serverless processing unit (SPU) hours "
        "(free while in Preview)"
    ),
    "in_memory_increment_node_hour_usd": (
        f"{_NOT_STORED}. 'Understand performance': an Enterprise Plus node includes 40,000 "
        "in-memory reads/s and scales to 120,000 in increments of 40,000; no stored page "
        "prices an increment (None: left off the bill, said so)"
    ),
}


@dataclass(frozen=True)
class BillLine:
    """One line of the bill: ``quantity`` ``unit``s at ``unit_usd`` each."""

    item: str
    quantity: float
    unit: str
    unit_usd: float
    source: str  # the page the price comes from, or why it is an assumption

    @property
    def usd(self) -> float:
        return self.quantity * self.unit_usd


@dataclass(frozen=True)
class Bill:
    """A month's bill: its lines, and the date of the prices."""

    lines: tuple[BillLine, ...]
    prices_date: str

    @property
    def total(self) -> float:
        return float(sum(line.usd for line in self.lines))

    def usd(self, item: str) -> float:
        """The cost of the lines whose item starts with ``item`` ("nodes", "storage", …)."""
        return float(sum(line.usd for line in self.lines if line.item.startswith(item)))

    def frame(self) -> pd.DataFrame:
        """The bill as a table: item, quantity, unit, unit price, USD and the price's source."""
        return pd.DataFrame(
            [
                {
                    "item": line.item,
                    "quantity": line.quantity,
                    "unit": line.unit,
                    "unit price (USD)": line.unit_usd,
                    "USD per month": line.usd,
                    "source": line.source,
                }
                for line in self.lines
            ]
        )

    def text(self) -> str:
        """One line per item, then the total, with the date of the prices."""
        rows = [
            f"{line.item}: {line.quantity:,.1f} {line.unit} × ${line.unit_usd:,.6g} = "
            f"${line.usd:,.0f}"
            for line in self.lines
        ]
        return "\n".join(
            [*rows, f"total ≈ ${self.total:,.0f} per month (prices of {self.prices_date})"]
        )


def node_price(st: Settings) -> tuple[float, str, str]:
    """(USD per node-hour, the edition's name on the bill, the price's source)."""
    if st.edition == "enterprise-plus":
        what = "Enterprise Plus" + (" (in-memory tier)" if st.in_memory_tier else "")
        key = "enterprise_plus_node_hour_usd"
        return st.enterprise_plus_node_hour_usd, what, PRICE_SOURCES[key]
    return st.node_hour_usd, "Enterprise", PRICE_SOURCES["node_hour_usd"]


def monthly_bill(
    nodes: int,
    *,
    hot_gib: float,
    cold_gib: float = 0.0,
    replication_gib: float = 0.0,
    backup_gib: float = 0.0,
    data_boost_spu_hours: float = 0.0,
    settings: Settings = DEFAULT,
) -> Bill:
    """The month's bill for ``nodes`` (all clusters), ``hot_gib`` and ``cold_gib`` compressed
    GiB stored (all clusters), ``replication_gib`` copied between clusters, ``backup_gib`` held
    by the backups beyond what the table shares (incremental backups) and the
    ``data_boost_spu_hours`` of the queries sent to Data Boost; an in-memory increment past the
    included one at ``in_memory_increment_node_hour_usd`` when that price is set."""
    st = settings
    unit, edition, source = node_price(st)
    lines = [
        BillLine(
            f"nodes ({edition}, {st.storage})",
            nodes * st.hours_per_month,
            "node-hours",
            unit,
            source,
        ),
        BillLine(
            f"storage ({st.storage})",
            hot_gib,
            "GiB-months",
            st.storage_gb_month_usd,
            PRICE_SOURCES[f"{st.storage.lower()}_gb_month_usd"],
        ),
    ]
    if cold_gib > 0:
        lines.append(
            BillLine(
                "storage (infrequent-access tier)",
                cold_gib,
                "GiB-months",
                st.cold_gb_month_usd,
                PRICE_SOURCES["cold_gb_month_usd"],
            )
        )
    if replication_gib > 0:
        key = (
            "intra_region_replication_gib_usd"
            if st.replication_network == "intra-region"
            else "inter_region_replication_gib_usd"
        )
        lines.append(
            BillLine(
                f"replication network ({st.replication_network}, {st.clusters} clusters)",
                replication_gib,
                "GiB",
                float(getattr(st, key)),
                PRICE_SOURCES[key],
            )
        )
    extra = st.in_memory_increments - 1 if st.in_memory_tier else 0
    if extra > 0 and st.in_memory_increment_node_hour_usd is not None:
        lines.append(
            BillLine(
                f"in-memory increments ({extra} past the included one, 40,000 reads/s each)",
                nodes * extra * st.hours_per_month,
                "increment node-hours",
                st.in_memory_increment_node_hour_usd,
                PRICE_SOURCES["in_memory_increment_node_hour_usd"],
            )
        )
    if st.backup_retention_days > 0 and backup_gib > 0:
        lines.append(
            BillLine(
                f"backups (incremental, kept {st.backup_retention_days:g} days)",
                backup_gib,
                "GiB-months",
                st.backup_gb_month_usd,
                PRICE_SOURCES["backup_gb_month_usd"],
            )
        )
    if data_boost_spu_hours > 0:
        lines.append(
            BillLine(
                "Data Boost",
                data_boost_spu_hours,
                "SPU-hours",
                st.data_boost_spu_hour_usd,
                PRICE_SOURCES["data_boost_spu_hour_usd"],
            )
        )
    return Bill(tuple(lines), st.prices_date)


__all__ = ["PRICE_SOURCES", "Bill", "BillLine", "monthly_bill", "node_price"]
