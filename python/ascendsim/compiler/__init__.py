"""The graph compiler (GE's role): ONNX -> graph IR -> optimisation passes -> stream assignment -> static
memory plan -> `.om` file. `ascendsim.compile(...)` and the `atc` command line drive it."""
