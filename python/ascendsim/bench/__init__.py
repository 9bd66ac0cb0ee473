"""`ascendsim bench`: runtime and model microbenchmarks, each beside its peer measured in the same run (suite.py:
the command; runtime.py, models.py: the rows; workers.py: the measuring processes; common.py: timing and the
table; runtime_bench.c, model_bench.c, measure.h: the C halves, compiled at run time)."""
