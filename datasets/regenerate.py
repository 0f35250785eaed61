"""Rewrite the committed CSV samples from the generators: ``python datasets/regenerate.py``.

Run it after changing a generator; tests/datasets/test_datasets.py fails while the files
and the generators disagree.
"""

from __future__ import annotations

from pathlib import Path

from workbench.datasets.samples import write_samples

if __name__ == "__main__":
    for path in write_samples(Path(__file__).resolve().parent):
        print(f"wrote {path} ({sum(1 for _ in path.open()) - 1} rows)")
