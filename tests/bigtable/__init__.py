"""Tests of the emulator, connection, writes, reads and table ownership (workbench/bigtable/)."""
