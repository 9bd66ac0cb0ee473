/* Operator attributes and single-operator settings from C, built against the installed headers: every
 * argument error of the aclopSetAttr* functions, the compile options before and after aclInit, the compile
 * flag and the operator queue limit. argv[1] is the ACL_OP_JIT_COMPILE default expected for the SoC.
 * Prints "ok" on success, the failed check otherwise. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

static int failures = 0;

/* ret must be `code` and, unless `text` is NULL, the recent error message must contain `text`. */
static void expect(int line, aclError ret, aclError code, const char *text) {
    const char *message = aclGetRecentErrMsg();
    if (ret != code || (text != NULL && strstr(message, text) == NULL)) {
        printf("line %d: ret %d (expected %d), message '%s' (expected '%s')\n", line, (int)ret, (int)code, message,
               text != NULL ? text : "");
        ++failures;
    }
}
#define EXPECT(call, code, text) expect(__LINE__, (call), (code), (text))

static void attribute_errors(void) {
    aclopAttr *attr = aclopCreateAttr();
    const int64_t row[] = {1, 2};
    const int64_t *rows[] = {row, NULL};
    const int counts[] = {2, 0};
    const char *strings[] = {"a", NULL};
    const uint8_t bools[] = {1};
    const float floats[] = {1.0f};
    const aclDataType types[] = {ACL_FLOAT};

    /* NULL attr, then NULL attrName, for every setter */
    EXPECT(aclopSetAttrBool(NULL, "x", 1), ACL_ERROR_INVALID_PARAM, "aclopSetAttrBool: argument 'attr' is NULL");
    EXPECT(aclopSetAttrInt(NULL, "x", 1), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrFloat(NULL, "x", 1.0f), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrString(NULL, "x", "v"), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrDataType(NULL, "x", ACL_FLOAT), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrListBool(NULL, "x", 1, bools), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrListInt(NULL, "x", 2, row), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrListFloat(NULL, "x", 1, floats), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrListString(NULL, "x", 1, strings), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrListDataType(NULL, "x", 1, types), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrListListInt(NULL, "x", 1, counts, rows), ACL_ERROR_INVALID_PARAM, "'attr' is NULL");
    EXPECT(aclopSetAttrBool(attr, NULL, 1), ACL_ERROR_INVALID_PARAM, "aclopSetAttrBool: argument 'attrName' is NULL");
    EXPECT(aclopSetAttrInt(attr, NULL, 1), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrFloat(attr, NULL, 1.0f), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrString(attr, NULL, "v"), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrDataType(attr, NULL, ACL_FLOAT), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrListBool(attr, NULL, 1, bools), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrListInt(attr, NULL, 2, row), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrListFloat(attr, NULL, 1, floats), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrListString(attr, NULL, 1, strings), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrListDataType(attr, NULL, 1, types), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");
    EXPECT(aclopSetAttrListListInt(attr, NULL, 1, counts, rows), ACL_ERROR_INVALID_PARAM, "'attrName' is NULL");

    /* NULL values */
    EXPECT(aclopSetAttrString(attr, "s", NULL), ACL_ERROR_INVALID_PARAM, "aclopSetAttrString: argument 'attrValue'");
    EXPECT(aclopSetAttrListBool(attr, "l", 2, NULL), ACL_ERROR_INVALID_PARAM, "'values' is NULL but numValues is 2");
    EXPECT(aclopSetAttrListInt(attr, "l", 2, NULL), ACL_ERROR_INVALID_PARAM, "'values' is NULL but numValues is 2");
    EXPECT(aclopSetAttrListFloat(attr, "l", 1, NULL), ACL_ERROR_INVALID_PARAM, "'values' is NULL");
    EXPECT(aclopSetAttrListDataType(attr, "l", 1, NULL), ACL_ERROR_INVALID_PARAM, "'values' is NULL");
    EXPECT(aclopSetAttrListString(attr, "l", 2, NULL), ACL_ERROR_INVALID_PARAM, "'values' is NULL but its count is 2");
    EXPECT(aclopSetAttrListString(attr, "l", -1, NULL), ACL_ERROR_INVALID_PARAM, "its count is -1");
    EXPECT(aclopSetAttrListString(attr, "l", 2, strings), ACL_ERROR_INVALID_PARAM, "values[1] is NULL");
    EXPECT(aclopSetAttrListListInt(attr, "l", 0, NULL, NULL), ACL_ERROR_INVALID_PARAM, "'numValues' is NULL");
    EXPECT(aclopSetAttrListListInt(attr, "l", 1, counts, NULL), ACL_ERROR_INVALID_PARAM, "'values' is NULL");
    EXPECT(aclopSetAttrListListInt(attr, "l", 2, counts, rows), ACL_ERROR_INVALID_PARAM, "values[1] is NULL");

    /* empty lists and negative counts are accepted (an empty list, as in CANN) */
    EXPECT(aclopSetAttrListInt(attr, "l", 0, NULL), ACL_SUCCESS, NULL);
    EXPECT(aclopSetAttrListInt(attr, "l", -4, NULL), ACL_SUCCESS, NULL);
    EXPECT(aclopSetAttrListString(attr, "l", 0, NULL), ACL_SUCCESS, NULL);
    EXPECT(aclopSetAttrListString(attr, "l", -1, strings), ACL_SUCCESS, NULL);
    EXPECT(aclopSetAttrListListInt(attr, "l", 0, counts, NULL), ACL_SUCCESS, NULL);
    EXPECT(aclopSetAttrListListInt(attr, "l", 1, counts, rows), ACL_SUCCESS, NULL);

    /* destroyed handles are refused; NULL is ignored */
    aclopDestroyAttr(attr);
    EXPECT(aclopSetAttrInt(attr, "x", 1), ACL_ERROR_INVALID_PARAM, "is not live");
    aclopDestroyAttr(attr);
    EXPECT(ACL_SUCCESS, ACL_SUCCESS, "aclopDestroyAttr: attr");
    aclopDestroyAttr(NULL);
    EXPECT(ACL_SUCCESS, ACL_SUCCESS, NULL);
    if (aclGetRecentErrMsg()[0] != '\0') {
        printf("aclopDestroyAttr(NULL) recorded an error\n");
        ++failures;
    }
}

static void compile_options(const char *jit_default) {
    char value[64];
    EXPECT(aclSetCompileopt(ACL_PRECISION_MODE, NULL), ACL_ERROR_INVALID_PARAM, "argument 'value' is NULL");
    EXPECT(aclSetCompileopt(ACL_AUTO_TUNE_MODE, "GA"), ACL_ERROR_FEATURE_UNSUPPORTED, "AOE");
    EXPECT(aclSetCompileopt((aclCompileOpt)17, "x"), ACL_ERROR_INTERNAL_ERROR, "option 17 is not an aclCompileOpt");
    EXPECT(aclSetCompileopt((aclCompileOpt)-1, "x"), ACL_ERROR_INTERNAL_ERROR, "option -1 is not an aclCompileOpt");
    EXPECT(aclSetCompileopt(ACL_PRECISION_MODE, "force_fp32"), ACL_SUCCESS, NULL);
    EXPECT((aclError)aclGetCompileoptSize(ACL_PRECISION_MODE), 11, NULL);
    EXPECT(aclGetCompileopt(ACL_PRECISION_MODE, value, sizeof(value)), ACL_ERROR_API_NOT_SUPPORT,
           "ACL_PRECISION_MODE (0) cannot be read back");
    EXPECT((aclError)aclGetCompileoptSize((aclCompileOpt)99), 0, NULL);
    EXPECT(aclGetCompileopt((aclCompileOpt)99, value, sizeof(value)), ACL_ERROR_API_NOT_SUPPORT, "(99)");

    EXPECT((aclError)aclGetCompileoptSize(ACL_OP_DEBUG_OPTION), 0, NULL);
    EXPECT(aclGetCompileopt(ACL_OP_DEBUG_OPTION, value, sizeof(value)), ACL_ERROR_API_NOT_SUPPORT, "not been set");
    EXPECT(aclSetCompileopt(ACL_OP_DEBUG_OPTION, "oom"), ACL_SUCCESS, NULL);
    EXPECT((aclError)aclGetCompileoptSize(ACL_OP_DEBUG_OPTION), 4, NULL);
    EXPECT(aclGetCompileopt(ACL_OP_DEBUG_OPTION, value, 4), ACL_SUCCESS, NULL);
    EXPECT(strcmp(value, "oom") == 0 ? ACL_SUCCESS : ACL_ERROR_FAILURE, ACL_SUCCESS, NULL);
    EXPECT(aclGetCompileopt(ACL_OP_DEBUG_OPTION, value, 3), ACL_ERROR_FAILURE, "length 3 is too small");
    EXPECT(aclGetCompileopt(ACL_OP_DEBUG_OPTION, NULL, 4), ACL_ERROR_INVALID_PARAM, "argument 'value' is NULL");

    /* ACL_OP_JIT_COMPILE reads back the SoC's default, whatever was set */
    EXPECT((aclError)aclGetCompileoptSize(ACL_OP_JIT_COMPILE), 256, NULL);
    EXPECT(aclSetCompileopt(ACL_OP_JIT_COMPILE, strcmp(jit_default, "enable") == 0 ? "disable" : "enable"),
           ACL_SUCCESS, NULL);
    EXPECT(aclGetCompileopt(ACL_OP_JIT_COMPILE, value, sizeof(value)), ACL_SUCCESS, NULL);
    if (strcmp(value, jit_default) != 0) {
        printf("ACL_OP_JIT_COMPILE reads '%s', expected '%s'\n", value, jit_default);
        ++failures;
    }

    EXPECT(aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ), ACL_SUCCESS, NULL);
    EXPECT(aclopSetCompileFlag((aclOpCompileFlag)7), ACL_SUCCESS, NULL); /* stored unchecked, as in CANN */
    EXPECT(aclopSetMaxOpQueueNum(0), ACL_ERROR_INVALID_PARAM, "maxOpNum must be positive");
    EXPECT(aclopSetMaxOpQueueNum(1), ACL_SUCCESS, NULL);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    /* The operator compiler starts with aclInit. */
    EXPECT(aclSetCompileopt(ACL_PRECISION_MODE, "force_fp32"), ACL_ERROR_FAILURE, "call aclInit first");
    EXPECT(aclopSetCompileFlag(ACL_OP_COMPILE_DEFAULT), ACL_ERROR_FAILURE, "call aclInit first");
    EXPECT(aclopSetMaxOpQueueNum(100), ACL_SUCCESS, NULL);
    attribute_errors();
    if (aclInit(NULL) != ACL_SUCCESS) return 3;
    compile_options(argv[1]);
    aclFinalize();
    if (failures != 0) return 1;
    printf("ok\n");
    return 0;
}
