"""agdebug's benchmark harness: ``python benchmarks/run.py [--quick]`` (see run.py)."""
