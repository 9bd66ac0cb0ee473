// Ascend C's kernel library on ascendsim: every basic API a vector kernel includes through kernel_operator.h,
// written for the emulator (docs/ascendc.md lists what is there and what is not). Kernels compile with the host
// C++ compiler: bisheng (the emulator's driver) for <<<>>> sources and kernel shared objects, or g++ with
// -DASCENDC_CPU_DEBUG and tikicpulib.h for the CPU-debug mode.
#ifndef ASCENDSIM_KERNEL_OPERATOR_H_
#define ASCENDSIM_KERNEL_OPERATOR_H_

#include "ascendc/kernel_types.h"
#include "ascendc/kernel_block.h"
#include "ascendc/kernel_tensor.h"
#include "ascendc/kernel_tpipe.h"
#include "ascendc/kernel_data_copy.h"
#include "ascendc/kernel_vec_elementwise.h"
#include "ascendc/kernel_vec_cast.h"
#include "ascendc/kernel_vec_compare.h"
#include "ascendc/kernel_vec_reduce.h"
#include "ascendc/kernel_vec_rearrange.h"
#include "ascendc/kernel_sync.h"
#include "ascendc/kernel_tiling.h"
#include "ascendc/kernel_debug.h"
#include "ascendc/kernel_launch.h"

// Older sources name the library tik2.
namespace tik2 = AscendC;

#endif  // ASCENDSIM_KERNEL_OPERATOR_H_
