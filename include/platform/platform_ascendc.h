// The include path newer samples use (#include "platform/platform_ascendc.h") for tiling/platform/platform_ascendc.h.
#ifndef ASCENDSIM_PLATFORM_PLATFORM_ASCENDC_H_
#define ASCENDSIM_PLATFORM_PLATFORM_ASCENDC_H_
#include "tiling/platform/platform_ascendc.h"
#endif  // ASCENDSIM_PLATFORM_PLATFORM_ASCENDC_H_
