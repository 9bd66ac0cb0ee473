"""The suite's groups of rows (a row's name is GROUP.rest), by the process that measures them."""

RUNTIME = ("call", "malloc", "copy", "launch", "event", "callback")  # runtime.py, in the runtime worker
ASCENDC = ("ascendc",)  # ascendc.py, in the runtime worker
SINK = "sink"  # model vs op-by-op dispatch: needs aclopExecuteV2
MICRO = ("overhead", "chain", SINK, "concurrency")  # models.py, in the micro worker (one thread)
# models.py, in a models worker per thread count: the issue-11 families (depthwise with squeeze-excitation,
# grouped convolutions with channel shuffle, dense concatenation, 7x7 depthwise with LayerNorm, a ViT encoder)
MODELS = ("resnet50", "mobilenet_v2", "bert_base", "efficientnet_b0", "shufflenet_v1", "densenet121", "convnext_tiny",
          "vit_b16")
KERNELS = ("kernels",)  # kernels.py, in the micro worker (one thread)
# models.py, the v2 runtime: its chain rows in the micro worker, its BERT rows in the models workers
DYNAMIC = "dynamic"
ALL = (*RUNTIME, *ASCENDC, *MICRO, *KERNELS, *MODELS, DYNAMIC)
