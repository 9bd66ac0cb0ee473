"""`ascendsim bench`: runtime and model microbenchmarks, each beside its peer measured in the same run (suite.py:
the command; runtime.py, models.py: the rows; model_files.py: the models they run, built and compiled;
sessions.py: ours and onnxruntime's side of a model row; workers.py: the measuring processes; common.py: timing
and the table; runtime_bench.c, model_bench.c, measure.h: the C halves, compiled at run time)."""
