"""Tests of the workshop notebooks: executed once per run, their prose and tables."""
