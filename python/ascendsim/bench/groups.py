"""The suite's groups of rows (a row's name is GROUP.rest), by the process that measures them."""

RUNTIME = ("call", "malloc", "copy", "launch", "event", "callback")  # runtime.py, in the runtime worker
SINK = "sink"  # model vs op-by-op dispatch: needs aclopExecuteV2
MICRO = ("overhead", "chain", SINK, "concurrency")  # models.py, in the micro worker (one thread)
MODELS = ("resnet50", "mobilenet_v2", "bert_base")  # models.py, in a models worker per thread count
KERNELS = ("kernels",)  # kernels.py, in the micro worker (one thread)
ALL = (*RUNTIME, *MICRO, *KERNELS, *MODELS)
