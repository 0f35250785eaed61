"""Tests of static reports and their scrubbing (workbench/report/)."""
