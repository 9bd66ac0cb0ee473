/* aclmdlExecute from C, as a user's inference loop calls it:
 *   model_bench LABEL MODEL.om ITERATIONS [LABEL MODEL.om ITERATIONS ...]
 * loads each model, gives it device input/output buffers of the sizes its description states (inputs
 * zero-filled; a dynamic-shape model's -1 dims run at 1, see make_dataset), and times aclmdlExecute with
 * measure.h, printing {"name": "c.execute.LABEL", ...}.
 * The label `streams` measures concurrency instead: two loaded copies of the model, each iteration running
 * two aclmdlExecuteAsync on one stream (c.streams.one) or one on each of two streams (c.streams.two), then
 * synchronizing. The label `sink:N` (MODEL: a directory holding sink.om, a chain of N Adds of [1,4] floats,
 * and sink_ops/, the single-operator model of that Add) times the model (c.sink.model) beside the N Adds
 * run one by one with aclopExecuteV2 on a stream, then synchronized (c.sink.ops).
 * Built and run by ascendsim.bench.models, which puts the figures beside onnxruntime's. */
#include "measure.h" /* first: it sets _POSIX_C_SOURCE */

#include <string.h>

#include "acl/acl.h"

typedef struct {
  uint32_t id;
  aclmdlDesc* desc;
  aclmdlDataset* inputs;
  aclmdlDataset* outputs;
} Loaded;

/* The size of input `index`. A dynamic one (-1 dims) runs with those dims at 1: *real is then its description
 * with those dims (the caller sets it on the dataset and destroys it), else NULL. */
static size_t input_size(aclmdlDesc* desc, size_t index, aclTensorDesc** real) {
  aclmdlIODims dims;
  aclDataType type = aclmdlGetInputDataType(desc, index);
  size_t size = aclDataTypeSize(type), d;
  int dynamic = 0;
  *real = NULL;
  if (aclmdlGetInputDims(desc, index, &dims) != ACL_SUCCESS) return 0;
  for (d = 0; d < dims.dimCount; ++d) {
    if (dims.dims[d] < 0) {
      dims.dims[d] = 1;
      dynamic = 1;
    }
    size *= (size_t)dims.dims[d];
  }
  if (!dynamic) return aclmdlGetInputSizeByIndex(desc, index);
  *real = aclCreateTensorDesc(type, (int)dims.dimCount, dims.dims, ACL_FORMAT_ND);
  return size;
}

/* A dataset of zero-filled device buffers, one per model input (or output). An output whose size the model
 * does not fix (0: dynamic) gets UNKNOWN_OUTPUT bytes, enough for the suite's dynamic models at dims 1. */
#define UNKNOWN_OUTPUT 65536
static aclmdlDataset* make_dataset(aclmdlDesc* desc, int inputs) {
  aclmdlDataset* dataset = aclmdlCreateDataset();
  size_t count = inputs ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
  size_t i;
  for (i = 0; i < count; ++i) {
    aclTensorDesc* real = NULL;
    size_t size = inputs ? input_size(desc, i, &real) : aclmdlGetOutputSizeByIndex(desc, i);
    void* device = NULL;
    if (!inputs && size == 0) size = UNKNOWN_OUTPUT;
    if (aclrtMalloc(&device, size ? size : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemset(device, size ? size : 1, 0, size ? size : 1) != ACL_SUCCESS ||
        aclmdlAddDatasetBuffer(dataset, aclCreateDataBuffer(device, size)) != ACL_SUCCESS ||
        (real != NULL && aclmdlSetDatasetTensorDesc(dataset, real, i) != ACL_SUCCESS)) /* copied into it */
      return NULL;
    if (real != NULL) aclDestroyTensorDesc(real);
  }
  return dataset;
}

static void destroy_dataset(aclmdlDataset* dataset) {
  size_t i;
  for (i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i) {
    aclDataBuffer* buffer = aclmdlGetDatasetBuffer(dataset, i);
    aclrtFree(aclGetDataBufferAddr(buffer));
    aclDestroyDataBuffer(buffer);
  }
  aclmdlDestroyDataset(dataset);
}

static Loaded load(const char* path) {
  Loaded model = {0, aclmdlCreateDesc(), NULL, NULL};
  if (aclmdlLoadFromFile(path, &model.id) != ACL_SUCCESS || aclmdlGetDesc(model.desc, model.id) != ACL_SUCCESS ||
      (model.inputs = make_dataset(model.desc, 1)) == NULL || (model.outputs = make_dataset(model.desc, 0)) == NULL ||
      aclmdlExecute(model.id, model.inputs, model.outputs) != ACL_SUCCESS) {
    fprintf(stderr, "%s: %s\n", path, aclGetRecentErrMsg());
    exit(1);
  }
  return model;
}

static void unload(Loaded* model) {
  destroy_dataset(model->inputs);
  destroy_dataset(model->outputs);
  aclmdlDestroyDesc(model->desc);
  aclmdlUnload(model->id);
}

static void measure_streams(const char* path, long iterations) {
  Loaded a = load(path), b = load(path);
  aclrtStream first, second;
  aclrtCreateStream(&first);
  aclrtCreateStream(&second);
  MEASURE("c.streams.one", iterations, {
    aclmdlExecuteAsync(a.id, a.inputs, a.outputs, first);
    aclmdlExecuteAsync(a.id, a.inputs, a.outputs, first);
    aclrtSynchronizeStream(first);
  });
  MEASURE("c.streams.two", iterations, {
    aclmdlExecuteAsync(a.id, a.inputs, a.outputs, first);
    aclmdlExecuteAsync(b.id, b.inputs, b.outputs, second);
    aclrtSynchronizeStream(first);
    aclrtSynchronizeStream(second);
  });
  aclrtDestroyStream(first);
  aclrtDestroyStream(second);
  unload(&a);
  unload(&b);
}

static void measure_sink(const char* directory, int ops, long iterations) {
  char path[4096];
  int64_t dims[2] = {1, 4};
  aclTensorDesc *in_desc[2], *out_desc[1];
  aclDataBuffer *buffers[3], *in[2], *out[1];
  aclrtStream stream;
  Loaded model;
  int i;
  snprintf(path, sizeof path, "%s/sink.om", directory);
  model = load(path);
  snprintf(path, sizeof path, "%s/sink_ops", directory);
  if (aclopSetModelDir(path) != ACL_SUCCESS) {
    fprintf(stderr, "aclopSetModelDir %s: %s\n", path, aclGetRecentErrMsg());
    exit(1);
  }
  aclrtCreateStream(&stream);
  for (i = 0; i < 3; ++i) { /* x (then ping-pong with y), y, and the constant */
    void* device = NULL;
    aclrtMalloc(&device, sizeof(float) * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(device, sizeof(float) * 4, 0, sizeof(float) * 4);
    buffers[i] = aclCreateDataBuffer(device, sizeof(float) * 4);
  }
  in_desc[0] = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  in_desc[1] = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  out_desc[0] = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  in[1] = buffers[2];
  in[0] = buffers[0];
  out[0] = buffers[1];
  if (aclopExecuteV2("Add", 2, in_desc, in, 1, out_desc, out, NULL, stream) != ACL_SUCCESS ||
      aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    fprintf(stderr, "aclopExecuteV2 Add: %s\n", aclGetRecentErrMsg());
    exit(1);
  }
  MEASURE_VS("c.sink.model", aclmdlExecute(model.id, model.inputs, model.outputs), "c.sink.ops", (void)0, {
    for (i = 0; i < ops; ++i) {
      in[0] = buffers[i % 2];
      out[0] = buffers[1 - i % 2];
      aclopExecuteV2("Add", 2, in_desc, in, 1, out_desc, out, NULL, stream);
    }
    aclrtSynchronizeStream(stream);
  }, (void)0, iterations);
  for (i = 0; i < 3; ++i) {
    aclrtFree(aclGetDataBufferAddr(buffers[i]));
    aclDestroyDataBuffer(buffers[i]);
  }
  aclDestroyTensorDesc(in_desc[0]);
  aclDestroyTensorDesc(in_desc[1]);
  aclDestroyTensorDesc(out_desc[0]);
  aclrtDestroyStream(stream);
  unload(&model);
}

int main(int argc, char** argv) {
  char label[256];
  int arg;
  if (argc < 4 || (argc - 1) % 3 != 0) {
    fprintf(stderr, "usage: %s LABEL MODEL.om ITERATIONS [LABEL MODEL.om ITERATIONS ...]\n", argv[0]);
    return 2;
  }
  bench_setup();
  if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  for (arg = 1; arg < argc; arg += 3) {
    long iterations = atol(argv[arg + 2]);
    Loaded model;
    if (iterations <= 0) {
      fprintf(stderr, "%s: bad ITERATIONS %s\n", argv[0], argv[arg + 2]);
      return 2;
    }
    if (strncmp(argv[arg], "sink:", 5) == 0) {
      measure_sink(argv[arg + 1], atoi(argv[arg] + 5), iterations);
      continue;
    }
    if (strcmp(argv[arg], "streams") == 0) {
      measure_streams(argv[arg + 1], iterations);
      continue;
    }
    model = load(argv[arg + 1]);
    snprintf(label, sizeof label, "c.execute.%s", argv[arg]);
    MEASURE(label, iterations, aclmdlExecute(model.id, model.inputs, model.outputs));
    unload(&model);
  }
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
