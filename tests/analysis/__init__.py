"""Tests of the analyses: key space, row sizes, query costs, capacity, pricing, the sheet (workbench/analysis/)."""
