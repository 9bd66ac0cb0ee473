// The transformed weights of the Winograd convs, shared by the NCHW path (winograd.cpp) and the NC1HWC0 one
// (blocked_winograd.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/conv_geometry.h"

namespace ascendsim::kernels {

// The side of a Winograd tile's input patch (and of its transformed tile: side x side positions): 4 for stride 1
// (F(2x2, 3x3)), 5 for stride 2 (the polyphase form).
constexpr int64_t winograd_side(int64_t stride) { return stride == 2 ? 5 : 4; }

// U = G g G^T of 3x3 weights [m][c][3][3] (no groups), per position t of an n x n tile an m x c matrix:
// u[(t * m + o) * c + i]; n = 4 for stride 1 (F(2x2, 3x3)), 5 for stride 2 (g.sh == 2 == g.sw: the polyphase form).
std::vector<float> winograd_weights(const ConvGeometry& g, const float* weights);

}  // namespace ascendsim::kernels
