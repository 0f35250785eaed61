"""Tests of the project itself: linters, import layers, environments, installs, processes."""
