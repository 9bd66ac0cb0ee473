// Recurrent layers RNN, GRU and LSTM (onnxruntime's semantics), one direction after the other (bidirectional:
// forward, then reverse).
//
// Per direction, the input projections of every step are one product XW = X * W^T (+ the biases that sit outside
// a gate's reset), then each step adds H(t-1) * R^T (one product for the batch) and applies the gates:
//   RNN   H = f(x + h R^T)
//   GRU   z = f(.), r = f(.), n = g(x_n + (r * h) R_n^T + Rb_n)  or, linear_before_reset, g(x_n + r * (h R_n^T + Rb_n));
//         H = (1 - z) * n + z * h
//   LSTM  i = f(. + P_i * C), f' = f(. + P_f * C) (or 1 - i with input_forget), c~ = g(.), C = f' * C + i * c~,
//         o = f(. + P_o * C), H = o * h(C)             (gate order in W/R/B: RNN i; GRU z r h; LSTM i o f c)
// with `clip` bounding every pre-activation. A batch entry of length L (sequence_lens) runs L steps (reverse: from
// step L-1 down to 0); Y is 0 past its length and Y_h / Y_c hold its state after its last step. Activations and
// their alpha/beta (consumed in order by the activations that take them; ONNX's defaults after the list) are
// parsed at load time. Float16 tensors are widened to float32; the products run on sgemm (gemm.h).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/gemm.h"
#include "kernels/kernel_util.h"

namespace ascendsim::kernels {
namespace {

enum class Cell { kRnn, kGru, kLstm };

struct Activation {
  enum Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid, kElu, kSoftsign, kSoftplus };
  Kind kind = kTanh;
  float alpha = 0, beta = 0;
  float operator()(float x) const {
    switch (kind) {
      case kRelu: return std::max(x, 0.0f);
      case kTanh: return std::tanh(x);
      case kSigmoid: return 1.0f / (1.0f + std::exp(-x));
      case kAffine: return alpha * x + beta;
      case kLeakyRelu: return x >= 0 ? x : alpha * x;
      case kThresholdedRelu: return x > alpha ? x : 0.0f;
      case kScaledTanh: return alpha * std::tanh(beta * x);
      case kHardSigmoid: return std::clamp(alpha * x + beta, 0.0f, 1.0f);
      case kElu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
      case kSoftsign: return x / (1 + std::fabs(x));
      case kSoftplus: return std::log1p(std::exp(x));
    }
    return x;
  }
};

// The activation called `name`; its alpha/beta come from the lists (advancing them) or are ONNX's defaults.
bool parse_activation(const std::string& name, const std::vector<double>& alphas, size_t* next_alpha,
                      const std::vector<double>& betas, size_t* next_beta, Activation* out) {
  struct Entry { const char* name; Activation::Kind kind; int params; float alpha, beta; };
  static const Entry table[] = {
      {"Relu", Activation::kRelu, 0, 0, 0}, {"Tanh", Activation::kTanh, 0, 0, 0}, {"Sigmoid", Activation::kSigmoid, 0, 0, 0},
      {"Affine", Activation::kAffine, 2, 1, 0}, {"LeakyRelu", Activation::kLeakyRelu, 1, 0.01f, 0},
      {"ThresholdedRelu", Activation::kThresholdedRelu, 1, 1, 0}, {"ScaledTanh", Activation::kScaledTanh, 2, 1, 1},
      {"HardSigmoid", Activation::kHardSigmoid, 2, 0.2f, 0.5f}, {"Elu", Activation::kElu, 1, 1, 0},
      {"Softsign", Activation::kSoftsign, 0, 0, 0}, {"Softplus", Activation::kSoftplus, 0, 0, 0}};
  for (const Entry& e : table) {
    if (name != e.name) continue;
    out->kind = e.kind;
    out->alpha = e.params >= 1 && *next_alpha < alphas.size() ? static_cast<float>(alphas[(*next_alpha)++]) : e.alpha;
    out->beta = e.params >= 2 && *next_beta < betas.size() ? static_cast<float>(betas[(*next_beta)++]) : e.beta;
    return true;
  }
  return false;
}

class RecurrentKernel final : public Kernel {
 public:
  RecurrentKernel(Cell cell, const NodeSpec& spec, std::vector<Activation> acts, int64_t hidden, int directions)
      : cell_(cell), spec_inputs_(spec.inputs), outputs_(spec.outputs), acts_(std::move(acts)), hidden_(hidden), dirs_(directions) {
    gates_ = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4;
    batch_first_ = spec.attrs != nullptr && spec.attrs->get_int("layout", 0) == 1;
    reverse_only_ = spec.attrs != nullptr && spec.attrs->get_string("direction", "forward") == "reverse";
    const auto& xd = spec.inputs[0].dims;
    seq_ = batch_first_ ? xd[1] : xd[0];
    batch_ = batch_first_ ? xd[0] : xd[1];
    input_ = xd[2];
    clip_ = spec.attrs != nullptr ? static_cast<float>(spec.attrs->get_float("clip", 0.0)) : 0.0f;
    before_reset_ = spec.attrs != nullptr && spec.attrs->get_int("linear_before_reset", 0) != 0;
    input_forget_ = spec.attrs != nullptr && spec.attrs->get_int("input_forget", 0) != 0;
    for (size_t i = 0; i < spec.inputs.size(); ++i) present_.push_back(i >= spec.present.size() || spec.present[i]);
  }

  void run(const void* const* inputs, void* const* outputs) override {
    const int64_t g = gates_ * hidden_, rows = seq_ * batch_;
    auto in = [&](size_t i, int slot) -> const float* {
      return i < present_.size() && present_[i] ? float_input(spec_inputs_[i], inputs[i], false, slot) : nullptr;
    };
    // (scratch slots 8-14: apart from the ones other kernels' helpers take)
    const float *x = in(0, 8), *w = in(1, 9), *r = in(2, 10), *bias = in(3, 11), *h0 = in(5, 12), *c0 = in(6, 13), *peep = in(7, 14);
    std::vector<int64_t> lengths(static_cast<size_t>(batch_), seq_);
    if (present_.size() > 4 && present_[4])
      for (int64_t b = 0; b < batch_; ++b) lengths[static_cast<size_t>(b)] = std::clamp<int64_t>(read_index(ACL_INT32, inputs[4], b), 0, seq_);
    std::vector<float> y(static_cast<size_t>(seq_ * dirs_ * batch_ * hidden_), 0.0f), last_h(static_cast<size_t>(dirs_ * batch_ * hidden_));
    std::vector<float> last_c(last_h.size()), xw(static_cast<size_t>(rows * g)), rec(static_cast<size_t>(batch_ * g));
    std::vector<float> h(static_cast<size_t>(batch_ * hidden_)), c(h.size()), reset(h.size()), gate(static_cast<size_t>(g));
    for (int d = 0; d < dirs_; ++d) {
      const bool reverse = reverse_only_ || d == 1;
      const float* wd = w + d * g * input_;
      const float* rd = r + d * g * hidden_;
      const float* wb = bias != nullptr ? bias + d * 2 * g : nullptr;
      const float* rb = bias != nullptr ? wb + g : nullptr;
      // XW, rows in X's order (t * batch + b, or b * seq + t with the batch first).
      sgemm(false, true, rows, g, input_, 1.0f, x, input_, wd, input_, 0.0f, xw.data(), g);
      for (int64_t b = 0; b < batch_; ++b)
        for (int64_t k = 0; k < hidden_; ++k) {
          const size_t at = static_cast<size_t>(b * hidden_ + k);
          h[at] = h0 != nullptr ? h0[state_index(d, b) + k] : 0.0f;
          c[at] = c0 != nullptr ? c0[state_index(d, b) + k] : 0.0f;
        }
      for (int64_t s = 0; s < seq_; ++s) {
        // h R^T for every gate (GRU without linear_before_reset: z and r only; n needs r first).
        const int64_t recurrent_gates = cell_ == Cell::kGru && !before_reset_ ? 2 : gates_;
        sgemm(false, true, batch_, recurrent_gates * hidden_, hidden_, 1.0f, h.data(), hidden_, rd, hidden_, 0.0f, rec.data(), g);
        if (cell_ == Cell::kGru && !before_reset_) gru_reset_product(s, d, reverse, lengths, xw, wb, rb, rd, h, &reset, &rec);
        for (int64_t b = 0; b < batch_; ++b) {
          const int64_t length = lengths[static_cast<size_t>(b)];
          if (s >= length) continue;
          const int64_t t = reverse ? length - 1 - s : s;
          const float* xrow = xw.data() + x_row(t, b) * g;
          const float* rrow = rec.data() + b * g;
          for (int64_t k = 0; k < g; ++k) {
            const bool candidate = cell_ == Cell::kGru && k >= 2 * hidden_;  // GRU's n: its recurrent part is reset
            gate[static_cast<size_t>(k)] = xrow[k] + (wb != nullptr ? wb[k] : 0.0f) +
                                           (candidate ? 0.0f : rrow[k] + (rb != nullptr ? rb[k] : 0.0f));
          }
          step(d, b, gate.data(), rrow, rb, peep, &h, &c);
          std::memcpy(y.data() + y_index(t, d, b), h.data() + b * hidden_, static_cast<size_t>(hidden_) * 4);
        }
      }
      for (int64_t b = 0; b < batch_; ++b) {
        std::memcpy(last_h.data() + state_index(d, b), h.data() + b * hidden_, static_cast<size_t>(hidden_) * 4);
        std::memcpy(last_c.data() + state_index(d, b), c.data() + b * hidden_, static_cast<size_t>(hidden_) * 4);
      }
    }
    const std::vector<float>* results[3] = {&y, &last_h, &last_c};
    for (size_t o = 0; o < outputs_.size() && o < 3; ++o)
      if (outputs[o] != nullptr) store_float(outputs_[o].dtype, results[o]->data(), static_cast<int64_t>(results[o]->size()), outputs[o], 0);
  }

 private:
  int64_t x_row(int64_t t, int64_t b) const { return batch_first_ ? b * seq_ + t : t * batch_ + b; }
  int64_t y_index(int64_t t, int d, int64_t b) const {
    return (batch_first_ ? (b * seq_ + t) * dirs_ + d : (t * dirs_ + d) * batch_ + b) * hidden_;
  }
  int64_t state_index(int d, int64_t b) const { return (batch_first_ ? b * dirs_ + d : d * batch_ + b) * hidden_; }
  float clip(float v) const { return clip_ > 0 ? std::clamp(v, -clip_, clip_) : v; }
  const Activation& act(int d, int k) const { return acts_[static_cast<size_t>(d * (cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 2 : 3) + k)]; }

  // GRU without linear_before_reset: rec's n columns = (r * h) R_n^T, r from this step's z/r pre-activations.
  void gru_reset_product(int64_t s, int d, bool reverse, const std::vector<int64_t>& lengths, const std::vector<float>& xw,
                         const float* wb, const float* rb, const float* rd, const std::vector<float>& h,
                         std::vector<float>* reset, std::vector<float>* rec) const {
    const int64_t g = gates_ * hidden_;
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t length = lengths[static_cast<size_t>(b)];
      const int64_t t = s < length ? (reverse ? length - 1 - s : s) : 0;
      for (int64_t k = 0; k < hidden_; ++k) {
        const int64_t col = hidden_ + k;  // r
        float v = xw[static_cast<size_t>(x_row(t, b) * g + col)] + (*rec)[static_cast<size_t>(b * g + col)];
        if (wb != nullptr) v += wb[col] + rb[col];
        (*reset)[static_cast<size_t>(b * hidden_ + k)] = act(d, 0)(clip(v)) * h[static_cast<size_t>(b * hidden_ + k)];
      }
    }
    sgemm(false, true, batch_, hidden_, hidden_, 1.0f, reset->data(), hidden_, rd + 2 * hidden_ * hidden_, hidden_, 0.0f,
          rec->data() + 2 * hidden_, g);
  }

  // One step of batch entry b: `gate` holds the pre-activations with the biases, but for GRU's n only its input
  // part; `rec` is the entry's row of the recurrent products (GRU's n: h R_n^T, or (r * h) R_n^T).
  void step(int d, int64_t b, const float* gate, const float* rec, const float* rb, const float* peep,
            std::vector<float>* h, std::vector<float>* c) const {
    float* hb = h->data() + b * hidden_;
    float* cb = c->data() + b * hidden_;
    const int64_t n = hidden_;
    const float* p = peep != nullptr ? peep + d * 3 * n : nullptr;
    for (int64_t k = 0; k < n; ++k) {
      if (cell_ == Cell::kRnn) {
        hb[k] = act(d, 0)(clip(gate[k]));
      } else if (cell_ == Cell::kGru) {
        const float z = act(d, 0)(clip(gate[k]));
        const float recurrent = rec[2 * n + k] + (rb != nullptr ? rb[2 * n + k] : 0.0f);
        const float reset = before_reset_ ? act(d, 0)(clip(gate[n + k])) : 1.0f;  // else already inside `rec`
        const float candidate = act(d, 1)(clip(gate[2 * n + k] + reset * recurrent));
        hb[k] = (1 - z) * candidate + z * hb[k];
      } else {
        const float i = act(d, 0)(clip(gate[k] + (p != nullptr ? p[k] * cb[k] : 0.0f)));
        const float f = input_forget_ ? 1 - i : act(d, 0)(clip(gate[2 * n + k] + (p != nullptr ? p[2 * n + k] * cb[k] : 0.0f)));
        const float candidate = act(d, 1)(clip(gate[3 * n + k]));
        cb[k] = f * cb[k] + i * candidate;
        const float o = act(d, 0)(clip(gate[n + k] + (p != nullptr ? p[n + k] * cb[k] : 0.0f)));
        hb[k] = o * act(d, 2)(cb[k]);
      }
    }
  }

  Cell cell_;
  std::vector<TensorDesc> spec_inputs_, outputs_;
  std::vector<bool> present_;
  std::vector<Activation> acts_;
  int64_t hidden_ = 0, seq_ = 0, batch_ = 0, input_ = 0, gates_ = 1;
  int dirs_ = 1;
  bool batch_first_ = false, reverse_only_ = false, before_reset_ = false, input_forget_ = false;
  float clip_ = 0;
};

std::unique_ptr<Kernel> make_recurrent(const NodeSpec& spec, std::string* error) {
  const Cell cell = spec.op_type == "RNN" ? Cell::kRnn : spec.op_type == "GRU" ? Cell::kGru : Cell::kLstm;
  const int gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4, per_direction = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;
  if (spec.inputs.size() < 3 || spec.outputs.empty() || spec.outputs.size() > (cell == Cell::kLstm ? 3u : 2u))
    return refuse(spec, error, "needs inputs X, W, R and at most " + std::to_string(cell == Cell::kLstm ? 3 : 2) + " outputs");
  const auto present = [&](size_t i) { return i < spec.inputs.size() && (i >= spec.present.size() || spec.present[i]); };
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const aclDataType d = spec.inputs[i].dtype;
    if (present(i) && (i == 4 ? d != ACL_INT32 : d != ACL_FLOAT && d != ACL_FLOAT16))
      return refuse(spec, error, "input " + std::to_string(i) + " has dtype " + dtype_name(d) + (i == 4 ? " (INT32 needed)" : " (FLOAT or FLOAT16 needed)"));
  }
  const std::string direction = spec.attrs ? spec.attrs->get_string("direction", "forward") : "forward";
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return refuse(spec, error, "direction='" + direction + "' is not supported");
  const int dirs = direction == "bidirectional" ? 2 : 1;
  const bool batch_first = spec.attrs != nullptr && spec.attrs->get_int("layout", 0) == 1;
  const auto &xd = spec.inputs[0].dims, &wd = spec.inputs[1].dims, &rd = spec.inputs[2].dims;
  if (xd.size() != 3 || wd.size() != 3 || rd.size() != 3) return refuse(spec, error, "X, W and R must be 3-D");
  const int64_t hidden = rd[2], seq = batch_first ? xd[1] : xd[0], batch = batch_first ? xd[0] : xd[1];
  if (wd != std::vector<int64_t>{dirs, gates * hidden, xd[2]} || rd != std::vector<int64_t>{dirs, gates * hidden, hidden})
    return refuse(spec, error, "W " + dims_str(wd) + " and R " + dims_str(rd) + " do not fit X " + dims_str(xd) + " with " + std::to_string(dirs) + " direction(s)");
  const std::vector<int64_t> state = batch_first ? std::vector<int64_t>{batch, dirs, hidden} : std::vector<int64_t>{dirs, batch, hidden};
  const std::vector<int64_t> wants[8] = {{}, {}, {}, {dirs, 2 * gates * hidden}, {batch}, state, state, {dirs, 3 * hidden}};
  for (size_t i = 3; i < spec.inputs.size() && i < 8; ++i)
    if (present(i) && spec.inputs[i].dims != wants[i]) return refuse(spec, error, "input " + std::to_string(i) + " has shape " + dims_str(spec.inputs[i].dims) + ", not " + dims_str(wants[i]));
  const std::vector<int64_t> y = batch_first ? std::vector<int64_t>{batch, seq, dirs, hidden} : std::vector<int64_t>{seq, dirs, batch, hidden};
  for (size_t o = 0; o < spec.outputs.size(); ++o)
    if (spec.outputs[o].dims != (o == 0 ? y : state) || (spec.outputs[o].dtype != ACL_FLOAT && spec.outputs[o].dtype != ACL_FLOAT16))
      return refuse(spec, error, "output " + std::to_string(o) + " must be FLOAT or FLOAT16 of shape " + dims_str(o == 0 ? y : state));
  std::vector<std::string> names;
  if (const AttrValue* a = spec.attrs ? spec.attrs->find("activations") : nullptr; a != nullptr && a->type == AttrValue::Type::Strings) names = a->strings;
  if (names.empty()) {
    const std::vector<std::string> defaults = cell == Cell::kRnn ? std::vector<std::string>{"Tanh"} : cell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"} : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int d = 0; d < dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (names.size() != static_cast<size_t>(dirs * per_direction))
    return refuse(spec, error, "activations has " + std::to_string(names.size()) + " entries; " + std::to_string(dirs * per_direction) + " are needed");
  const std::vector<double> alphas = spec.attrs ? spec.attrs->get_floats("activation_alpha") : std::vector<double>{};
  const std::vector<double> betas = spec.attrs ? spec.attrs->get_floats("activation_beta") : std::vector<double>{};
  std::vector<Activation> acts(names.size());
  size_t next_alpha = 0, next_beta = 0;
  for (size_t i = 0; i < names.size(); ++i)
    if (!parse_activation(names[i], alphas, &next_alpha, betas, &next_beta, &acts[i])) return refuse(spec, error, "activation '" + names[i] + "' is not supported");
  return std::make_unique<RecurrentKernel>(cell, spec, std::move(acts), hidden, dirs);
}

}  // namespace

ASCENDSIM_KERNEL(RNN, "", make_recurrent);
ASCENDSIM_KERNEL(GRU, "", make_recurrent);
ASCENDSIM_KERNEL(LSTM, "", make_recurrent);

}  // namespace ascendsim::kernels
