"""Tests of the advisor's rules and findings (workbench/advisor/)."""
