// The accessors of the per-variant tables (kernels/isa.h): each returns the active variant's table.
#include "kernels/isa.h"
#include "kernels/simd/blocked_conv_tiles.h"
#include "kernels/simd/blocked_winograd_tiles.h"
#include "kernels/simd/depthwise_blocks.h"
#include "kernels/simd/depthwise_planes.h"
#include "kernels/simd/elementwise_loops.h"
#include "kernels/simd/gemm_tiles.h"
#include "kernels/simd/matrix_vector.h"
#include "kernels/simd/pool_rows.h"
#include "kernels/simd/row_loops.h"
#include "kernels/simd/stem_rows.h"
#include "kernels/simd/winograd_tiles.h"

namespace ascendsim::kernels {

ASCENDSIM_ISA_TABLE_ACCESSOR(BlockedConvTiles, blocked_conv_tiles)
ASCENDSIM_ISA_TABLE_ACCESSOR(BlockedWinogradTiles, blocked_winograd_tiles)
ASCENDSIM_ISA_TABLE_ACCESSOR(DepthwiseBlocks, depthwise_blocks)
ASCENDSIM_ISA_TABLE_ACCESSOR(DepthwisePlanes, depthwise_planes)
ASCENDSIM_ISA_TABLE_ACCESSOR(ElementwiseLoops, elementwise_loops)
ASCENDSIM_ISA_TABLE_ACCESSOR(GemmTiles, gemm_tiles)
ASCENDSIM_ISA_TABLE_ACCESSOR(MatrixVector, matrix_vector)
ASCENDSIM_ISA_TABLE_ACCESSOR(PoolRows, pool_rows)
ASCENDSIM_ISA_TABLE_ACCESSOR(RowLoops, row_loops)
ASCENDSIM_ISA_TABLE_ACCESSOR(StemRows, stem_rows)
ASCENDSIM_ISA_TABLE_ACCESSOR(WinogradTiles, winograd_tiles)

}  // namespace ascendsim::kernels
