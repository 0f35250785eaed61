"""What the emulator cannot show and the workbench models instead, one note per view.

The bottom layer: analysis results, figures and the designer's heat map all print these
words, so they live below every one of them (a figure must not import the analysis package).
"""

from __future__ import annotations

EMULATOR_NOTES = {
    "keyspace": (
        "Modelled from the cells, not sampled: the emulator's SampleRowKeys returns random keys, "
        "not tablet boundaries, and it has no nodes or Key Visualizer."
    ),
    "rowsizes": (
        "The emulator does not enforce Cloud Bigtable's cell/row/key limits; "
        "the workbench checks them itself."
    ),
    "gc": "The emulator stores GC rules but collects lazily; reads apply the equivalent filter.",
    "querycost": (
        "Modelled node cost uses Cloud Bigtable planning figures; emulator latency is "
        "one in-memory process on this machine, useful for relative comparison only. No SQL in the emulator."
    ),
    "rowkey_schema": (
        "Modelled: the emulator accepts a table's row_key_schema but drops it (GetTable returns "
        "none) and runs no SQL, so this schema and its SQL are checked here, not by the emulator."
    ),
    "views": (
        "Modelled: the emulator has no SQL (ExecuteQuery and PrepareQuery answer 501), so it "
        "cannot create or maintain a continuous materialized view; the view's rows are costed "
        "from the client-maintained design that stores the same rows."
    ),
    "capacity": "Prices and per-node figures are settings (list prices at time of writing); adjust for your region.",
}
