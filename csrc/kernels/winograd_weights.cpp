// The Winograd convs' transformed weights (see winograd_weights.h): U = G g G^T per (output, input) channel pair,
//   stride 1, F(2x2, 3x3): G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1];
//   stride 2 (blocked_winograd.cpp's polyphase form: the even taps g0, g2 by F(2, 2) on the even inputs, the odd
//   tap g1 on the odd ones): G = [1 0 0; 1 0 1; 0 0 1; 0 1 0; 0 1 0].
#include "kernels/winograd_weights.h"

#include <cstddef>

namespace ascendsim::kernels {

std::vector<float> winograd_weights(const ConvGeometry& g, const float* weights) {
  static const float kStride1[4][3] = {{1, 0, 0}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0, 0, 1}};
  static const float kStride2[5][3] = {{1, 0, 0}, {1, 0, 1}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}};
  const int n = static_cast<int>(winograd_side(g.sh));
  const float(*G)[3] = g.sh == 2 ? kStride2 : kStride1;
  std::vector<float> u(static_cast<size_t>(n * n * g.m * g.c));
  for (int64_t m = 0; m < g.m; ++m) {
    for (int64_t c = 0; c < g.c; ++c) {
      const float* f = weights + (m * g.c + c) * 9;
      float gg[5][3];  // G g
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < 3; ++j) gg[i][j] = G[i][0] * f[j] + G[i][1] * f[3 + j] + G[i][2] * f[6 + j];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          u[static_cast<size_t>(((i * n + j) * g.m + m) * g.c + c)] =
              gg[i][0] * G[j][0] + gg[i][1] * G[j][1] + gg[i][2] * G[j][2];
    }
  }
  return u;
}

}  // namespace ascendsim::kernels
