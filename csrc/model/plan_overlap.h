// The loader's proof that a plan's feature-map tensors do not alias by accident (docs/om-format.md §4.3).
#pragma once
#include <string>

#include "model/model_def.h"

namespace ascendsim::model {

// Why two FEATURE_MAP tensors of `plan` that are live at the same time share bytes without being a view or an
// in-place result, or "" when none do.
std::string plan_overlap_problem(const PlanDef& plan);

}  // namespace ascendsim::model
