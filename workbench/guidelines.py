"""The schema-design guidelines the workbench teaches, by ID (G01–G31).

Short titles in the workbench's own words; the advisor, the notebooks (cell tags)
and the report index cite these IDs so each guideline can be traced to the place
where its effect is measured.
"""

from __future__ import annotations

GUIDELINES: dict[str, str] = {
    "G01": "Short, meaningful family and qualifier names",
    "G02": "Tall and narrow by default; wide rows only when bounded",
    "G03": "New rows rather than column versions",
    "G04": "Row key designed around the main queries",
    "G05": "One table per query rather than query-and-filter",
    "G06": "No timestamp (or other increasing value) at the start of the key",
    "G07": "Field promotion: a high-cardinality field before the time",
    "G08": "Salting spreads writes but fans out every range read",
    "G09": "Reversed timestamps only for latest-N, never first",
    "G10": "Rows and cells big but bounded (100 MB / 10 MB advisory)",
    "G11": "Data read together stored in contiguous rows",
    "G12": "Time buckets, a new column per event (data in the qualifier)",
    "G13": "Time buckets, a new cell per event (versions + GC rule)",
    "G14": "Single-timestamp rows, serialized in one cell",
    "G15": "Single-timestamp rows, a cell per measure",
    "G16": "Heroic: tags in the key, base time in the key, offset in the qualifier",
    "G17": "Similar datasets in one table under distinct key prefixes",
    "G18": "Families group columns by retention (GC is per family)",
    "G19": "Qualifiers can carry data (≤ 16 KiB)",
    "G20": "Short keys (≤ 4 KiB), delimited segments, common to granular",
    "G21": "Zero-padded numbers so they sort numerically",
    "G22": "Human-readable key segments, not hashes or raw bytes",
    "G23": "Sequential numeric IDs reversed",
    "G24": "A new row per reading, not one row updated over and over",
    "G25": "Multi-tenancy by key prefix; drop a tenant by prefix",
    "G26": "No personal data in keys or family names",
    "G27": "Reversed domain names so related domains sort together",
    "G28": "Uncertain queries: one serialized column per row",
    "G29": "Pre-aggregated rows for dashboards",
    "G30": "Families by access tier (raw / stats / meta), each with its own GC",
    "G31": "Sub-second data needs sub-second key precision",
}


def title(guideline_id: str) -> str:
    """``title("G06")`` → the short title; a clear error for an unknown ID."""
    try:
        return GUIDELINES[guideline_id]
    except KeyError:
        raise KeyError(f"Unknown guideline {guideline_id!r}; IDs run G01–G31.") from None
