/*
 * The C API's user element-wise functions (include/cgrad.h, docs/extending.md), compiled as C11:
 * define, apply with broadcasting and parameters, fusion with the surrounding ops (one kernel),
 * a new parameter value without recompiling, refilling a leaf, the graph printout, and the
 * error paths (bad body, wrong counts, freed or foreign handles), which leave every tensor as it was.
 */
#include "harness.h"

#include <stdint.h>

#define F32 CGRAD_STORAGE_BACKEND_F32_CPU
#define F64 CGRAD_STORAGE_BACKEND_F64_CPU

static cgrad_tensor make(const uint32_t* shape, int ndim, const float* data, size_t count) {
    cgrad_tensor t;
    memset(&t, 0, sizeof t);
    CHECK_OK(cgrad_tensor_init_from_data(&t, shape, ndim, F32, data, count));
    return t;
}

static double elu(double x, double a) { return x > 0 ? x : a * (exp(x) - 1); }

static void test_define_and_apply(void) {
    const char* in[] = {"x"};
    const char* par[] = {"a"};
    cgrad_elementwise_fn* fn = NULL;
    uint32_t shape[] = {2, 3};
    float xs[] = {-2, -0.5f, 0, 0.5f, 1, 3}, ys[] = {1, 2, 3, 4, 5, 6};
    cgrad_tensor x, y, xy, e, s;
    float out[6], total;
    double par_val = 0.5;
    const uint8_t all[] = {1, 1};
    cgrad_stats st;
    int i;
    CHECK_OK(cgrad_elementwise_define("elu", "x > 0 ? x : a * (exp(x) - 1)", in, 1, par, 1, &fn));
    x = make(shape, 2, xs, 6);
    y = make(shape, 2, ys, 6);
    /* sum(elu(x * y)): execute keeps every intermediate, so x * y and elu (same size) are one
     * fused kernel and the sum a second one, as with built-in ops */
    CHECK_OK(cgrad_tensor_mul(&x, &y, &xy));
    CHECK_OK(cgrad_tensor_elementwise(fn, &xy, 1, &par_val, 1, &e));
    CHECK_OK(cgrad_tensor_reduce_sum(&e, all, 2, &s));
    CHECK_OK(cgrad_stats_reset());
    CHECK_OK(cgrad_tensor_execute(&s));
    CHECK_OK(cgrad_stats_get(&st));
    CHECK(st.kernels_launched == 2);
    CHECK_OK(cgrad_tensor_read(&s, &total, 1));
    {
        double want = 0;
        for (i = 0; i < 6; ++i) want += elu((double)xs[i] * ys[i], 0.5);
        CHECK_NEAR(total, want, 1e-5);
    }
    CHECK_OK(cgrad_tensor_read(&e, out, 6));
    for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], elu((double)xs[i] * ys[i], 0.5), 1e-6);
    /* a new parameter value: a new node, no new kernel */
    {
        cgrad_tensor e2;
        par_val = 2.0;
        CHECK_OK(cgrad_tensor_elementwise(fn, &x, 1, &par_val, 1, &e2));
        CHECK_OK(cgrad_stats_reset());
        CHECK_OK(cgrad_tensor_read(&e2, out, 6));
        CHECK_OK(cgrad_stats_get(&st));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], elu(xs[i], 2.0), 1e-6);
        CHECK_OK(cgrad_tensor_free(&e2));
    }
    /* refilling a leaf recomputes through the user function */
    {
        float xs2[] = {1, 1, 1, -1, -1, -1};
        CHECK_OK(cgrad_tensor_fill_data(&x, xs2, 6));
        CHECK_OK(cgrad_tensor_read(&e, out, 6));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], elu((double)xs2[i] * ys[i], 0.5), 1e-6);
    }
    /* the printout names the operation */
    CHECK(strcmp(cgrad_op_name(CGRAD_OP_ELEMENTWISE), "elementwise") == 0);
    {
        cgrad_graph_node node;
        CHECK_OK(cgrad_compute_graph_get_node(e.graph, e.node_id, &node));
        CHECK(node.op_info.type == CGRAD_OP_ELEMENTWISE);
        CHECK(node.op_info.metadata.elementwise.fn == fn);
        CHECK(node.op_info.metadata.elementwise.n_params == 1 && node.op_info.metadata.elementwise.params[0] == 0.5);
    }
    /* freeing the function keeps built nodes working; new calls are refused */
    CHECK_OK(cgrad_elementwise_free(fn));
    CHECK_OK(cgrad_tensor_read(&e, out, 6));
    CHECK_RC(cgrad_tensor_elementwise(fn, &x, 1, &par_val, 1, &xy), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_elementwise_free(fn), CGRAD_ERR_FREED);
    CHECK_OK(cgrad_tensor_free(&s));
    CHECK_OK(cgrad_tensor_free(&e));
    CHECK_OK(cgrad_tensor_free(&xy));
    CHECK_OK(cgrad_tensor_free(&x));
    CHECK_OK(cgrad_tensor_free(&y));
}

static void test_two_inputs_broadcast_f64(void) {
    const char* in[] = {"u", "v"};
    cgrad_elementwise_fn* fn = NULL;
    uint32_t su[] = {3, 1}, sv[] = {2};
    double du[] = {1, 2, 3}, dv[] = {10, -10}, out[6];
    cgrad_tensor u, v, r, args[2];
    int i, j;
    memset(&u, 0, sizeof u);
    memset(&v, 0, sizeof v);
    CHECK_OK(cgrad_elementwise_define("hyp", "sqrt(u * u + v * v)", in, 2, NULL, 0, &fn));
    CHECK_OK(cgrad_tensor_init(&u, su, 2, F64));
    CHECK_OK(cgrad_tensor_fill_data_f64(&u, du, 3));
    CHECK_OK(cgrad_tensor_init(&v, sv, 1, F64));
    CHECK_OK(cgrad_tensor_fill_data_f64(&v, dv, 2));
    args[0] = u;
    args[1] = v;
    CHECK_OK(cgrad_tensor_elementwise(fn, args, 2, NULL, 0, &r));
    CHECK(r.layout.ndim == 2 && r.layout.shape[0] == 3 && r.layout.shape[1] == 2);
    CHECK_OK(cgrad_tensor_read_f64(&r, out, 6));
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 2; ++j) CHECK_NEAR(out[i * 2 + j], sqrt(du[i] * du[i] + dv[j] * dv[j]), 1e-12);
    CHECK_OK(cgrad_tensor_free(&r));
    CHECK_OK(cgrad_tensor_free(&u));
    CHECK_OK(cgrad_tensor_free(&v));
    CHECK_OK(cgrad_elementwise_free(fn));
}

static void test_errors(void) {
    const char* in[] = {"x"};
    const char* bad_in[] = {"x", NULL};
    const char* par[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    cgrad_elementwise_fn* fn = NULL;
    cgrad_elementwise_fn* sq = NULL;
    uint32_t shape[] = {2};
    float xs[] = {1, 2}, out[2];
    double p = 1;
    cgrad_tensor x, r, two[2];
    x = make(shape, 1, xs, 2);
    CHECK_RC(cgrad_elementwise_define("f", "x + y", in, 1, NULL, 0, &fn), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(cgrad_last_error(), "'y'") != NULL);
    CHECK(fn == NULL);
    CHECK_RC(cgrad_elementwise_define("f", "x); abort(); (x", in, 1, NULL, 0, &fn), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_elementwise_define(NULL, "x", in, 1, NULL, 0, &fn), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_elementwise_define("f", NULL, in, 1, NULL, 0, &fn), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_elementwise_define("f", "x", in, 1, NULL, 0, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_elementwise_define("f", "x", bad_in, 2, NULL, 0, &fn), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_elementwise_define("f", "x", in, -1, NULL, 0, &fn), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_elementwise_define("f", "x", in, 1, par, 9, &fn), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_OK(cgrad_elementwise_define("sq", "x * x", in, 1, NULL, 0, &sq));
    CHECK_RC(cgrad_tensor_elementwise(sq, &x, 1, &p, 1, &r), CGRAD_ERR_INVALID_ARGUMENT);
    two[0] = x;
    two[1] = x;
    CHECK_RC(cgrad_tensor_elementwise(sq, two, 2, NULL, 0, &r), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_elementwise(sq, NULL, 1, NULL, 0, &r), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_elementwise(sq, &x, 1, NULL, 0, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_elementwise(NULL, &x, 1, NULL, 0, &r), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_elementwise((const cgrad_elementwise_fn*)&x, &x, 1, NULL, 0, &r), CGRAD_ERR_INVALID_ARGUMENT);
    /* the operand is intact and still usable */
    CHECK_OK(cgrad_tensor_read(&x, out, 2));
    CHECK(out[0] == 1 && out[1] == 2);
    CHECK_OK(cgrad_tensor_elementwise(sq, &x, 1, NULL, 0, &r));
    CHECK_OK(cgrad_tensor_read(&r, out, 2));
    CHECK(out[0] == 1 && out[1] == 4);
    CHECK_OK(cgrad_tensor_free(&r));
    CHECK_OK(cgrad_tensor_free(&x));
    CHECK_OK(cgrad_elementwise_free(sq));
}

int main(void) {
    RUN(test_define_and_apply);
    RUN(test_two_inputs_broadcast_f64);
    RUN(test_errors);
    return harness_finish();
}
