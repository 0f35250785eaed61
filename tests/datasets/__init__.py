"""Tests of datasets, your own files and the query mini-language (workbench/datasets/)."""
