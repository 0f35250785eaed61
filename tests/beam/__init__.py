"""Tests of the Apache Beam bulk load (workbench/beam/)."""
