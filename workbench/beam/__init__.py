"""Apache Beam pipelines (the optional ``[beam]`` extra): ``workbench bulk-load``."""
