// Building and running a compiled single operator (the algorithm is described in compiled_op.h).
#include "op/compiled_op.h"

#include <new>

#include "core/error.h"

namespace ascendsim::op {
namespace {

size_t bytes_of(aclDataType dtype, const std::vector<int64_t>& dims) {
  size_t n = aclDataTypeSize(dtype);
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// One registry kernel; the factory's refusal becomes an AscendCL error naming the call.
aclError make_kernel(const OpCall& call, const kernels::NodeSpec& spec, std::unique_ptr<kernels::Kernel>* out) {
  const kernels::KernelFactory factory = kernels::find_kernel(spec.op_type, spec.domain);
  if (factory == nullptr)
    return fail(ACL_ERROR_OP_NOT_FOUND, "%s: %s: the kernel %s is not registered", call.api, call.type.c_str(),
                spec.op_type.c_str());
  std::string why;
  *out = kernels::build_kernel(factory, spec, &why);
  if (*out) return ACL_SUCCESS;
  const bool dtype = why.find("dtype") != std::string::npos;
  return fail(dtype ? ACL_ERROR_UNSUPPORTED_DATA_TYPE : ACL_ERROR_OP_ATTR_NOT_MATCH, "%s: %s: %s", call.api,
              call.type.c_str(), why.c_str());
}

kernels::NodeSpec unary_spec(const char* type, const kernels::Attrs* attrs, kernels::TensorDesc in,
                             kernels::TensorDesc out) {
  kernels::NodeSpec spec;
  spec.name = spec.op_type = type;
  spec.attrs = attrs;
  spec.inputs = {std::move(in)};
  spec.present = {true};
  spec.constant_data = {nullptr};
  spec.outputs = {std::move(out)};
  return spec;
}

}  // namespace

// The stages of output i: the kernel's desc (dtype, dims) goes into *kernel_desc.
aclError CompiledOp::build_output(const OpCall& call, size_t i, kernels::TensorDesc* kernel_desc) {
  const Lowering& l = lowering_;
  const aclDataType dtype = i < l.kernel_out_dtypes.size() ? l.kernel_out_dtypes[i] : l.out_dtypes[i];
  const std::vector<int64_t>& perm = i < l.out_transpose.size() ? l.out_transpose[i] : std::vector<int64_t>{};
  const bool reshaped = i < l.kernel_out_dims.size() && !l.kernel_out_dims[i].empty();
  *kernel_desc = {dtype, reshaped ? l.kernel_out_dims[i] : l.out_dims[i]};
  OutputPath path;
  kernels::TensorDesc at = *kernel_desc;
  auto add_stage = [&](const char* type, const kernels::Attrs& attrs, kernels::TensorDesc to) -> aclError {
    std::unique_ptr<kernels::Kernel> stage;
    if (aclError ret = make_kernel(call, unary_spec(type, &attrs, at, to), &stage)) return ret;
    path.scratch.emplace_back(at.nbytes());
    path.stages.push_back(std::move(stage));
    at = std::move(to);
    return ACL_SUCCESS;
  };
  if (!perm.empty()) {
    kernels::Attrs attrs;
    set_ints(attrs, "perm", perm);
    kernels::TensorDesc moved{dtype, {}};
    for (int64_t p : perm) moved.dims.push_back(at.dims[static_cast<size_t>(p)]);
    if (aclError ret = add_stage("Transpose", attrs, moved)) return ret;
  }
  if (dtype != l.out_dtypes[i]) {
    kernels::Attrs attrs;
    set_int(attrs, "to", l.out_dtypes[i]);
    if (aclError ret = add_stage("Cast", attrs, {l.out_dtypes[i], at.dims})) return ret;
  }
  outputs_.push_back(std::move(path));
  return ACL_SUCCESS;
}

aclError CompiledOp::build(const CannOp& op, const OpCall& call, std::shared_ptr<CompiledOp>* out) {
  auto self = std::shared_ptr<CompiledOp>(new (std::nothrow) CompiledOp());
  if (!self) return fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", call.api);
  if (aclError ret = lower(op, call, &self->lowering_)) return ret;
  self->type_name_ = op.name.c_str();
  const Lowering& l = self->lowering_;
  for (const OpTensor& t : call.inputs) self->input_bytes_.push_back(t.absent ? 0 : bytes_of(t.dtype, t.dims));
  for (size_t i = 0; i < l.out_dims.size(); ++i) self->output_bytes_.push_back(bytes_of(l.out_dtypes[i], l.out_dims[i]));

  kernels::NodeSpec spec;
  spec.name = call.type;
  spec.op_type = l.kernel;
  spec.domain = l.domain;
  spec.attrs = &l.attrs;
  for (const KernelInput& in : l.inputs) {
    kernels::TensorDesc desc;
    std::unique_ptr<kernels::Kernel> transpose;
    std::vector<uint8_t> scratch;
    std::vector<int64_t> values;
    if (in.constant) {
      desc = {ACL_INT64, {static_cast<int64_t>(in.values.size())}};
      values = in.values;
    } else if (in.source >= 0) {
      const OpTensor& t = call.inputs[static_cast<size_t>(in.source)];
      desc = {t.dtype, t.dims};
      if (!in.transpose.empty()) {
        kernels::TensorDesc moved{t.dtype, {}};
        for (int64_t p : in.transpose) moved.dims.push_back(t.dims[static_cast<size_t>(p)]);
        kernels::Attrs perm;
        set_ints(perm, "perm", in.transpose);
        if (aclError ret = make_kernel(call, unary_spec("Transpose", &perm, desc, moved), &transpose)) return ret;
        scratch.resize(moved.nbytes());
        desc = moved;
      }
    }
    spec.inputs.push_back(desc);
    spec.present.push_back(in.source >= 0 || in.constant);
    self->transposes_.push_back(std::move(transpose));
    self->input_scratch_.push_back(std::move(scratch));
    self->constants_.push_back(std::move(values));
  }
  // Pointers into constants_ are taken once it no longer grows.
  for (size_t k = 0; k < l.inputs.size(); ++k)
    spec.constant_data.push_back(l.inputs[k].constant ? self->constants_[k].data() : nullptr);
  for (size_t i = 0; i < l.out_dims.size(); ++i) {
    kernels::TensorDesc desc;
    if (aclError ret = self->build_output(call, i, &desc)) return ret;
    spec.outputs.push_back(std::move(desc));
  }
  if (aclError ret = make_kernel(call, spec, &self->main_)) return ret;
  self->kernel_inputs_.resize(l.inputs.size());
  self->kernel_outputs_.resize(l.out_dims.size());
  *out = std::move(self);
  return ACL_SUCCESS;
}

void CompiledOp::run(const void* const* inputs, void* const* outputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t k = 0; k < lowering_.inputs.size(); ++k) {
    const KernelInput& in = lowering_.inputs[k];
    const void* data = in.constant ? constants_[k].data() : in.source >= 0 ? inputs[in.source] : nullptr;
    if (transposes_[k]) {
      void* scratch = input_scratch_[k].data();
      transposes_[k]->run(&data, &scratch);
      data = scratch;
    }
    kernel_inputs_[k] = data;
  }
  for (size_t i = 0; i < kernel_outputs_.size(); ++i)
    kernel_outputs_[i] = outputs_[i].stages.empty() ? outputs[i] : outputs_[i].scratch[0].data();
  main_->run(kernel_inputs_.data(), kernel_outputs_.data());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    OutputPath& path = outputs_[i];
    for (size_t s = 0; s < path.stages.size(); ++s) {
      const void* from = path.scratch[s].data();
      void* to = s + 1 < path.stages.size() ? path.scratch[s + 1].data() : outputs[i];
      path.stages[s]->run(&from, &to);
    }
  }
}

}  // namespace ascendsim::op
