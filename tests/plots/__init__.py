"""Tests of the figures (workbench/plots/)."""
