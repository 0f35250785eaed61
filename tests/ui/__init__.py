"""Tests of the designer (workbench/ui/)."""
