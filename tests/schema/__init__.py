"""Tests of the schema engine and the read planner (workbench/schema/)."""
