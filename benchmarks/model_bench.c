/* aclmdlExecute from C, as a user's inference loop calls it:
 *   model_bench LABEL MODEL.om ITERATIONS [LABEL MODEL.om ITERATIONS ...]
 * loads each model, gives it device input/output buffers of the sizes its description states (inputs
 * zero-filled), and times aclmdlExecute with bench_measure.h, printing {"name": "c.execute.LABEL", ...}.
 * Built and run by bench_models.py, which puts the figures beside onnxruntime's. */
#include "bench_measure.h" /* first: it sets _POSIX_C_SOURCE */

#include "acl/acl.h"

/* A dataset of zero-filled device buffers, one per model input (or output). */
static aclmdlDataset* make_dataset(aclmdlDesc* desc, int inputs) {
  aclmdlDataset* dataset = aclmdlCreateDataset();
  size_t count = inputs ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
  size_t i;
  for (i = 0; i < count; ++i) {
    size_t size = inputs ? aclmdlGetInputSizeByIndex(desc, i)
                         : aclmdlGetOutputSizeByIndex(desc, i);
    void* device = NULL;
    if (aclrtMalloc(&device, size ? size : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemset(device, size ? size : 1, 0, size ? size : 1) != ACL_SUCCESS ||
        aclmdlAddDatasetBuffer(dataset, aclCreateDataBuffer(device, size)) != ACL_SUCCESS)
      return NULL;
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

int main(int argc, char** argv) {
  char label[256];
  int arg;
  if (argc < 4 || (argc - 1) % 3 != 0) {
    fprintf(stderr, "usage: %s LABEL MODEL.om ITERATIONS [LABEL MODEL.om ITERATIONS ...]\n", argv[0]);
    return 2;
  }
  if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  for (arg = 1; arg < argc; arg += 3) {
    uint32_t model_id = 0;
    long iterations = atol(argv[arg + 2]);
    aclmdlDesc* desc = aclmdlCreateDesc();
    aclmdlDataset *inputs, *outputs;
    if (iterations <= 0 || aclmdlLoadFromFile(argv[arg + 1], &model_id) != ACL_SUCCESS ||
        aclmdlGetDesc(desc, model_id) != ACL_SUCCESS) {
      fprintf(stderr, "%s: %s\n", argv[arg + 1], aclGetRecentErrMsg());
      return 1;
    }
    inputs = make_dataset(desc, 1);
    outputs = make_dataset(desc, 0);
    if (inputs == NULL || outputs == NULL || aclmdlExecute(model_id, inputs, outputs) != ACL_SUCCESS) {
      fprintf(stderr, "%s: %s\n", argv[arg + 1], aclGetRecentErrMsg());
      return 1;
    }
    snprintf(label, sizeof label, "c.execute.%s", argv[arg]);
    MEASURE(label, iterations, aclmdlExecute(model_id, inputs, outputs));
    destroy_dataset(inputs);
    destroy_dataset(outputs);
    aclmdlDestroyDesc(desc);
    aclmdlUnload(model_id);
  }
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
