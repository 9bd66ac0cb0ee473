"""Graph optimisation passes and the PassManager that runs them in GE's stages.

`PassManager(disabled=..., dump=...).run(graph)` runs every registered pass and returns a PassReport
(`report.format()` is the GE-style log). Default pipeline (stage: passes in order):

- prepare: infer_shape
- optimize_original (to a fixed point): constant_folding, noop_removal, transpose_to_reshape,
  common_subexpression_elimination, conv_bn_folding, dead_code_elimination
- stage1 (to a fixed point): epilogue_fusion (pattern rules), user pattern fusions (order 50 by default)
- stage2: nc1hwc0_layout (conv chains in NC1HWC0, layout_5hd.py), elementwise_fusion
- build: prune, topological_sort

New passes: `@register_pass(name, stage=..., order=...)` on `fn(graph, stats) -> changed`; new pattern
fusions: a `PatternList` of rules and `register_fusion_pass(name, rules)` (pattern.py).
"""

from __future__ import annotations

from . import (  # the pass modules register themselves on import
    constant_folding,
    conv_bn,
    cse,
    dead_code,
    elementwise_fusion,
    epilogue,
    infer_shape,
    layout_5hd,
    noop_removal,
    topological_sort,
    transpose_reshape,
)
from .manager import MAX_ITERATIONS, REGISTRY, STAGE_NAMES, STAGES, PassManager, passes_of, register_pass
from .pattern import Emit, Match, Op, Pat, PatternList, Rule, apply_rules, match, register_fusion_pass
from .report import PassRecord, PassReport, PassStats, StageRecord

__all__ = [
    "MAX_ITERATIONS",
    "REGISTRY",
    "STAGES",
    "STAGE_NAMES",
    "Emit",
    "Match",
    "Op",
    "PassManager",
    "PassRecord",
    "PassReport",
    "PassStats",
    "Pat",
    "PatternList",
    "Rule",
    "StageRecord",
    "apply_rules",
    "constant_folding",
    "conv_bn",
    "cse",
    "dead_code",
    "elementwise_fusion",
    "epilogue",
    "infer_shape",
    "layout_5hd",
    "match",
    "noop_removal",
    "passes_of",
    "register_fusion_pass",
    "register_pass",
    "topological_sort",
    "transpose_reshape",
]
