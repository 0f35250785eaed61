"""Tests of the notebooks' exercises (workbench/exercises/)."""
