/*
 * Tests of the C API (include/cgrad.h), compiled as C11: every function is called, every result
 * is checked against values computed here, and every error code is reached (checked at the end;
 * only CGRAD_ERR_INTERNAL, which means a bug, is not).
 */
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__unix__)
#include <pthread.h>
#endif

/* The out-of-memory tests ask for petabytes; under AddressSanitizer that must fail like malloc
 * does (NULL), not abort. Harmless without ASan. */
const char* __asan_default_options(void);
const char* __asan_default_options(void) { return "allocator_may_return_null=1"; }

#define F32 CGRAD_STORAGE_BACKEND_F32_CPU
#define F64 CGRAD_STORAGE_BACKEND_F64_CPU

static int shape_is(const cgrad_tensor* t, int ndim, const uint32_t* shape) {
    int i;
    if (t->layout.ndim != ndim) return 0;
    for (i = 0; i < ndim; ++i)
        if (t->layout.shape[i] != shape[i]) return 0;
    return 1;
}

static cgrad_tensor make(const uint32_t* shape, int ndim, const float* data, size_t count) {
    cgrad_tensor t;
    memset(&t, 0, sizeof t);
    CHECK_OK(cgrad_tensor_init_from_data(&t, shape, ndim, F32, data, count));
    return t;
}

static void test_init_and_read(void) {
    uint32_t shape[] = {2, 3};
    float vals[6], ref[6] = {1, 2, 3, 4, 5, 6};
    double dvals[6];
    cgrad_tensor t, u, s;
    int i;
    CHECK_OK(cgrad_tensor_init(&t, shape, 2, F32));
    CHECK(t.magic == CGRAD_TENSOR_MAGIC);
    CHECK(t.graph != NULL);
    CHECK(t.layout.ndim == 2 && t.layout.shape[0] == 2 && t.layout.shape[1] == 3);
    CHECK(t.layout.size == 6 && t.layout.strides[0] == 3 && t.layout.strides[1] == 1);
    CHECK(t.layout.shape[2] == 1 && t.layout.backend_type == F32);
    CHECK_OK(cgrad_tensor_read(&t, vals, 6));
    for (i = 0; i < 6; ++i) CHECK(vals[i] == 0.0f);

    CHECK_OK(cgrad_tensor_fill(&t, 2.5f));
    CHECK_OK(cgrad_tensor_read(&t, vals, 6));
    for (i = 0; i < 6; ++i) CHECK(vals[i] == 2.5f);

    CHECK_OK(cgrad_tensor_fill(&t, -3e38f)); /* values beyond int64 and infinities */
    CHECK_OK(cgrad_tensor_read(&t, vals, 6));
    for (i = 0; i < 6; ++i) CHECK(vals[i] == -3e38f);
    CHECK_OK(cgrad_tensor_fill(&t, INFINITY));
    CHECK_OK(cgrad_tensor_read(&t, vals, 6));
    for (i = 0; i < 6; ++i) CHECK(isinf(vals[i]) && vals[i] > 0);
    CHECK_OK(cgrad_tensor_fill_data(&t, ref, 6));
    CHECK_OK(cgrad_tensor_read_f64(&t, dvals, 6));
    for (i = 0; i < 6; ++i) CHECK(dvals[i] == ref[i]);

    CHECK_OK(cgrad_manual_seed(42));
    CHECK_OK(cgrad_tensor_fill_rand(&t));
    CHECK_OK(cgrad_tensor_read(&t, vals, 6));
    for (i = 0; i < 6; ++i) CHECK(vals[i] >= 0.0f && vals[i] < 1.0f);
    {
        float again[6];
        CHECK_OK(cgrad_manual_seed(42));
        CHECK_OK(cgrad_tensor_fill_rand(&t));
        CHECK_OK(cgrad_tensor_read(&t, again, 6));
        CHECK(memcmp(vals, again, sizeof vals) == 0);
    }

    u = make(shape, 2, ref, 6);
    CHECK_OK(cgrad_tensor_read(&u, vals, 100)); /* a larger buffer is fine */
    for (i = 0; i < 6; ++i) CHECK(vals[i] == ref[i]);

    /* f64 leaves keep double precision */
    {
        double big[2] = {1.0 + 1e-12, -3.0};
        uint32_t s2[] = {2};
        CHECK_OK(cgrad_tensor_init(&s, s2, 1, F64));
        CHECK_OK(cgrad_tensor_fill_data_f64(&s, big, 2));
        CHECK_OK(cgrad_tensor_read_f64(&s, dvals, 2));
        CHECK(dvals[0] == big[0] && dvals[1] == big[1]);
        CHECK(s.layout.backend_type == F64);
        CHECK_OK(cgrad_compute_graph_free(s.graph));
    }

    /* a scalar (0-d) tensor: shape may be NULL */
    CHECK_OK(cgrad_tensor_init(&s, NULL, 0, F32));
    CHECK(s.layout.ndim == 0 && s.layout.size == 1);
    CHECK_OK(cgrad_tensor_fill(&s, 7.0f));
    CHECK_OK(cgrad_tensor_read(&s, vals, 1));
    CHECK(vals[0] == 7.0f);

    /* zero-size tensors */
    {
        uint32_t z[] = {0, 3};
        cgrad_tensor e;
        CHECK_OK(cgrad_tensor_init(&e, z, 2, F32));
        CHECK(e.layout.size == 0);
        CHECK_OK(cgrad_tensor_read(&e, NULL, 0));
        CHECK_OK(cgrad_compute_graph_free(e.graph));
    }
    CHECK_OK(cgrad_compute_graph_free(t.graph));
    CHECK_OK(cgrad_compute_graph_free(u.graph));
    CHECK_OK(cgrad_compute_graph_free(s.graph));
}

typedef int (*binary_fn)(const cgrad_tensor*, const cgrad_tensor*, cgrad_tensor*);
typedef int (*unary_fn)(const cgrad_tensor*, cgrad_tensor*);

static double ref_binary(int which, double a, double b) {
    switch (which) {
        case 0: return a + b;
        case 1: return a - b;
        case 2: return a * b;
        case 3: return a / b;
        case 4: return pow(a, b);
        case 5: return a > b ? a : b;
        default: return a < b ? a : b;
    }
}

static void test_elementwise(void) {
    /* (2,3) op (3,): broadcasting over the leading dimension */
    uint32_t sa[] = {2, 3}, sb[] = {3};
    float a_data[6] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f}, b_data[3] = {2.0f, 0.5f, 1.25f};
    binary_fn fns[7] = {cgrad_tensor_add, cgrad_tensor_sub, cgrad_tensor_mul, cgrad_tensor_div,
                        cgrad_tensor_pow, cgrad_tensor_maximum, cgrad_tensor_minimum};
    unary_fn ufns[11] = {cgrad_tensor_neg, cgrad_tensor_exp,  cgrad_tensor_log,  cgrad_tensor_sqrt,
                         cgrad_tensor_rsqrt, cgrad_tensor_abs, cgrad_tensor_sin, cgrad_tensor_cos,
                         cgrad_tensor_tanh, cgrad_tensor_sigmoid, cgrad_tensor_relu};
    cgrad_op_type utypes[11] = {CGRAD_OP_NEG, CGRAD_OP_EXP, CGRAD_OP_LOG, CGRAD_OP_SQRT, CGRAD_OP_RSQRT, CGRAD_OP_ABS,
                                CGRAD_OP_SIN, CGRAD_OP_COS, CGRAD_OP_TANH, CGRAD_OP_SIGMOID, CGRAD_OP_RELU};
    cgrad_tensor a = make(sa, 2, a_data, 6), b = make(sb, 1, b_data, 3), c;
    float out[6];
    int f, i;
    for (f = 0; f < 7; ++f) {
        CHECK_OK(fns[f](&a, &b, &c));
        CHECK(shape_is(&c, 2, sa));
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], ref_binary(f, a_data[i], b_data[i % 3]), 1e-6);
    }
    for (f = 0; f < 11; ++f) {
        cgrad_tensor m;
        cgrad_graph_node node;
        CHECK_OK(cgrad_tensor_sub(&a, &b, &m)); /* mixed signs: 0.5-2, 1-0.5, ... */
        CHECK_OK(ufns[f](&m, &c));
        CHECK_OK(cgrad_compute_graph_get_node(c.graph, c.node_id, &node));
        CHECK(node.op_info.type == utypes[f]);
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        for (i = 0; i < 6; ++i) {
            double x = a_data[i] - b_data[i % 3], want;
            switch (f) {
                case 0: want = -x; break;
                case 1: want = exp(x); break;
                case 2: want = log(x); break;
                case 3: want = sqrt(x); break;
                case 4: want = 1.0 / sqrt(x); break;
                case 5: want = fabs(x); break;
                case 6: want = sin(x); break;
                case 7: want = cos(x); break;
                case 8: want = tanh(x); break;
                case 9: want = 1.0 / (1.0 + exp(-x)); break;
                default: want = x > 0 ? x : 0; break;
            }
            if (x < 0 && (f == 2 || f == 3 || f == 4))
                CHECK(isnan(out[i]));
            else
                CHECK_NEAR(out[i], want, 1e-6);
        }
    }
    /* scalar operations, metadata.scalar */
    {
        cgrad_graph_node node;
        CHECK_OK(cgrad_tensor_add_scalar(&a, 1.5f, &c));
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], a_data[i] + 1.5, 1e-6);
        CHECK_OK(cgrad_compute_graph_get_node(c.graph, c.node_id, &node));
        CHECK(node.op_info.type == CGRAD_OP_ADD_SCALAR && node.op_info.metadata.scalar == 1.5f);
        CHECK_OK(cgrad_tensor_mul_scalar(&a, -2.0f, &c));
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], a_data[i] * -2.0, 1e-6);
        /* scalars beyond int64's range, and infinities */
        CHECK_OK(cgrad_tensor_mul_scalar(&a, 3e38f, &c));
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        CHECK_NEAR(out[0], 0.5 * 3e38, 1e-6);
        CHECK_OK(cgrad_tensor_add_scalar(&a, -INFINITY, &c));
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        CHECK(isinf(out[3]) && out[3] < 0);
        CHECK_OK(cgrad_tensor_pow_scalar(&a, 2.0f, &c));
        CHECK_OK(cgrad_tensor_read(&c, out, 6));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], a_data[i] * a_data[i], 1e-6);
    }
    /* the output may be one of the inputs */
    {
        cgrad_tensor x = a;
        CHECK_OK(cgrad_tensor_add(&x, &x, &x));
        CHECK_OK(cgrad_tensor_read(&x, out, 6));
        for (i = 0; i < 6; ++i) CHECK_NEAR(out[i], 2 * a_data[i], 1e-6);
    }
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

static void test_gemm(void) {
    uint32_t sa[] = {2, 3}, sb[] = {3, 2}, sbatch[] = {2, 2, 3}, sout[] = {2, 2}, sbout[] = {2, 2, 2};
    float a_data[6] = {1, 2, 3, 4, 5, 6}, b_data[6] = {7, 8, 9, 10, 11, 12};
    float batch_data[12] = {1, 0, 0, 0, 1, 0, /* batch 0: [[1,0,0],[0,1,0]] */ 0, 0, 1, 1, 1, 1};
    float out[8];
    cgrad_tensor a = make(sa, 2, a_data, 6), b = make(sb, 2, b_data, 6), c, bt, d;
    CHECK_OK(cgrad_tensor_gemm(&a, &b, &c));
    CHECK(shape_is(&c, 2, sout));
    CHECK_OK(cgrad_tensor_read(&c, out, 4));
    CHECK(out[0] == 58 && out[1] == 64 && out[2] == 139 && out[3] == 154);
    /* batch dims broadcast: (2,2,3) x (3,2) -> (2,2,2) */
    bt = make(sbatch, 3, batch_data, 12);
    CHECK_OK(cgrad_tensor_gemm(&bt, &b, &d));
    CHECK(shape_is(&d, 3, sbout));
    CHECK_OK(cgrad_tensor_read(&d, out, 8));
    CHECK(out[0] == 7 && out[1] == 8 && out[2] == 9 && out[3] == 10);
    CHECK(out[4] == 11 && out[5] == 12 && out[6] == 27 && out[7] == 30);
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
    CHECK_OK(cgrad_compute_graph_free(bt.graph));
}

static void test_movement(void) {
    uint32_t s4[] = {2, 3, 4, 5}, t4[] = {2, 3, 5, 4}, s3[] = {2, 3, 4}, t3[] = {4, 2, 3};
    float data[120], out[120];
    cgrad_tensor x, y, z, r;
    cgrad_graph_node node;
    int i, j, k, l;
    for (i = 0; i < 120; ++i) data[i] = (float)i;
    x = make(s4, 4, data, 120);
    /* the document's example: (2,3,4,5), perm {1,0}, ndim 2 -> (2,3,5,4) */
    CHECK_OK(cgrad_tensor_transpose(&x, (uint32_t[]){1, 0}, 2, &y));
    CHECK(shape_is(&y, 4, t4));
    CHECK_OK(cgrad_tensor_read(&y, out, 120));
    for (i = 0; i < 6; ++i)
        for (k = 0; k < 5; ++k)
            for (l = 0; l < 4; ++l) CHECK(out[i * 20 + k * 4 + l] == data[i * 20 + l * 5 + k]);
    CHECK_OK(cgrad_compute_graph_get_node(y.graph, y.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_TRANSPOSE && node.op_info.metadata.transpose.ndim == 2);
    CHECK(node.op_info.metadata.transpose.perm[0] == 1 && node.op_info.metadata.transpose.perm[1] == 0);

    /* a full permutation: (2,3,4) with {2,0,1} -> (4,2,3) */
    z = make(s3, 3, data, 24);
    CHECK_OK(cgrad_tensor_transpose(&z, (uint32_t[]){2, 0, 1}, 3, &y));
    CHECK(shape_is(&y, 3, t3));
    CHECK_OK(cgrad_tensor_read(&y, out, 24));
    for (i = 0; i < 4; ++i)
        for (j = 0; j < 2; ++j)
            for (k = 0; k < 3; ++k) CHECK(out[i * 6 + j * 3 + k] == data[j * 12 + k * 4 + i]);
    /* ndim 0 is the identity */
    CHECK_OK(cgrad_tensor_transpose(&z, NULL, 0, &y));
    CHECK(shape_is(&y, 3, s3));

    /* reshape with an inferred dimension; metadata holds the resolved shape */
    CHECK_OK(cgrad_tensor_reshape(&z, (int32_t[]){-1, 6}, 2, &r));
    CHECK(r.layout.ndim == 2 && r.layout.shape[0] == 4 && r.layout.shape[1] == 6);
    CHECK_OK(cgrad_tensor_read(&r, out, 24));
    for (i = 0; i < 24; ++i) CHECK(out[i] == data[i]);
    CHECK_OK(cgrad_compute_graph_get_node(r.graph, r.node_id, &node));
    CHECK(node.op_info.metadata.reshape.new_shape[0] == 4 && node.op_info.metadata.reshape.new_shape[1] == 6);
    /* reshape of a transposed tensor copies in the right order */
    CHECK_OK(cgrad_tensor_transpose(&r, (uint32_t[]){1, 0}, 2, &y));
    CHECK_OK(cgrad_tensor_reshape(&y, (int32_t[]){24}, 1, &r));
    CHECK_OK(cgrad_tensor_read(&r, out, 24));
    for (i = 0; i < 6; ++i)
        for (j = 0; j < 4; ++j) CHECK(out[i * 4 + j] == data[j * 6 + i]);
    CHECK_RC(cgrad_tensor_reshape(&z, NULL, 0, &r), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_OK(cgrad_compute_graph_free(x.graph));
    CHECK_OK(cgrad_compute_graph_free(z.graph));
}

static void test_reductions(void) {
    uint32_t s[] = {2, 3, 4}, want_rule[] = {2, 1, 4}, want_all[] = {1, 1, 1}, want_last[] = {2, 3, 1};
    float data[24], out[24];
    cgrad_tensor x, y;
    cgrad_graph_node node;
    int i, j, k;
    for (i = 0; i < 24; ++i) data[i] = (float)((i * 7) % 11) - 3.0f;
    x = make(s, 3, data, 24);
    /* mask {1,0} applies to the last two dims: reduce dim 1 of (2,3,4) -> (2,1,4) */
    CHECK_OK(cgrad_tensor_reduce_sum(&x, (uint8_t[]){1, 0}, 2, &y));
    CHECK(shape_is(&y, 3, want_rule));
    CHECK_OK(cgrad_tensor_read(&y, out, 8));
    for (i = 0; i < 2; ++i)
        for (k = 0; k < 4; ++k) {
            double acc = 0;
            for (j = 0; j < 3; ++j) acc += data[i * 12 + j * 4 + k];
            CHECK_NEAR(out[i * 4 + k], acc, 1e-6);
        }
    CHECK_OK(cgrad_compute_graph_get_node(y.graph, y.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_REDUCE_SUM && node.op_info.metadata.reduce_sum.ndim == 2);
    CHECK(node.op_info.metadata.reduce_sum.mask[0] == 1 && node.op_info.metadata.reduce_sum.mask[1] == 0);

    CHECK_OK(cgrad_tensor_reduce_sum(&x, (uint8_t[]){1, 1, 1}, 3, &y));
    CHECK(shape_is(&y, 3, want_all));
    CHECK_OK(cgrad_tensor_read(&y, out, 1));
    {
        double acc = 0;
        for (i = 0; i < 24; ++i) acc += data[i];
        CHECK_NEAR(out[0], acc, 1e-6);
    }
    /* nothing masked (or ndim 0): the identity */
    CHECK_OK(cgrad_tensor_reduce_sum(&x, (uint8_t[]){0, 0}, 2, &y));
    CHECK(shape_is(&y, 3, s));
    CHECK_OK(cgrad_tensor_reduce_sum(&x, NULL, 0, &y));
    CHECK_OK(cgrad_tensor_read(&y, out, 24));
    CHECK(memcmp(out, data, sizeof data) == 0);

    /* mean, max, min over the last dim */
    CHECK_OK(cgrad_tensor_reduce_mean(&x, (uint8_t[]){1}, 1, &y));
    CHECK(shape_is(&y, 3, want_last));
    CHECK_OK(cgrad_tensor_read(&y, out, 6));
    for (i = 0; i < 6; ++i) {
        double acc = 0;
        for (k = 0; k < 4; ++k) acc += data[i * 4 + k];
        CHECK_NEAR(out[i], acc / 4, 1e-6);
    }
    CHECK_OK(cgrad_tensor_reduce_max(&x, (uint8_t[]){1}, 1, &y));
    CHECK_OK(cgrad_tensor_read(&y, out, 6));
    for (i = 0; i < 6; ++i) {
        float m = data[i * 4];
        for (k = 1; k < 4; ++k) m = data[i * 4 + k] > m ? data[i * 4 + k] : m;
        CHECK(out[i] == m);
    }
    CHECK_OK(cgrad_tensor_reduce_min(&x, (uint8_t[]){1}, 1, &y));
    CHECK_OK(cgrad_tensor_read(&y, out, 6));
    for (i = 0; i < 6; ++i) {
        float m = data[i * 4];
        for (k = 1; k < 4; ++k) m = data[i * 4 + k] < m ? data[i * 4 + k] : m;
        CHECK(out[i] == m);
    }
    CHECK_OK(cgrad_compute_graph_get_node(y.graph, y.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_REDUCE_MIN && node.op_info.metadata.reduce.ndim == 1);

    /* softmax and log-softmax along the last axis (given as -1 and as 2) */
    CHECK_OK(cgrad_tensor_softmax(&x, -1, &y));
    CHECK_OK(cgrad_tensor_read(&y, out, 24));
    for (i = 0; i < 6; ++i) {
        double z = 0;
        for (k = 0; k < 4; ++k) z += exp(data[i * 4 + k]);
        for (k = 0; k < 4; ++k) CHECK_NEAR(out[i * 4 + k], exp(data[i * 4 + k]) / z, 1e-6);
    }
    CHECK_OK(cgrad_compute_graph_get_node(y.graph, y.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_SOFTMAX && node.op_info.metadata.softmax.axis == 2);
    CHECK_OK(cgrad_tensor_log_softmax(&x, 2, &y));
    CHECK_OK(cgrad_tensor_read(&y, out, 24));
    for (i = 0; i < 6; ++i) {
        double z = 0;
        for (k = 0; k < 4; ++k) z += exp(data[i * 4 + k]);
        for (k = 0; k < 4; ++k) CHECK_NEAR(out[i * 4 + k], data[i * 4 + k] - log(z), 1e-5);
    }
    CHECK_OK(cgrad_compute_graph_free(x.graph));
}

static void test_cast_and_dtypes(void) {
    uint32_t s[] = {3};
    float data[3] = {1.5f, -2.0f, 0.25f};
    double dout[3];
    cgrad_tensor x = make(s, 1, data, 3), d, e;
    cgrad_graph_node node;
    CHECK_OK(cgrad_tensor_cast(&x, F64, &d));
    CHECK(d.layout.backend_type == F64);
    CHECK_OK(cgrad_tensor_add(&d, &d, &e));
    CHECK(e.layout.backend_type == F64);
    CHECK_OK(cgrad_tensor_read_f64(&e, dout, 3));
    CHECK(dout[0] == 3.0 && dout[1] == -4.0 && dout[2] == 0.5);
    CHECK_OK(cgrad_compute_graph_get_node(d.graph, d.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_CAST && node.op_info.metadata.cast.backend_type == F64);
    /* no implicit promotion between backends */
    CHECK_RC(cgrad_tensor_add(&x, &d, &e), CGRAD_ERR_DTYPE);
    CHECK_OK(cgrad_compute_graph_free(x.graph));
}

/* Operations across graphs merge them; handles of the absorbed graph keep working. */
static void test_merge(void) {
    uint32_t s[] = {2};
    float one[2] = {1, 2}, two[2] = {10, 20}, out[2];
    cgrad_tensor a = make(s, 1, one, 2), b = make(s, 1, two, 2), c, d, e, f, ab;
    cgrad_compute_graph* gb = b.graph;
    int n = 0;
    cgrad_graph_node node;
    CHECK(a.graph != b.graph);
    CHECK(cgrad_uuid_compare(a.graph->graph_id, b.graph->graph_id) != 0);
    CHECK_OK(cgrad_tensor_add(&a, &b, &c));
    CHECK(c.graph == a.graph); /* the first operand's graph receives the other */
    ab = c;
    CHECK_OK(cgrad_compute_graph_get_node_count(a.graph, &n));
    CHECK(n == 3);
    CHECK_OK(cgrad_compute_graph_get_node_count(gb, &n)); /* the same graph, through b's handle */
    CHECK(n == 3);
    CHECK_OK(cgrad_compute_graph_get_node(gb, c.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_ADD);
    CHECK_OK(cgrad_tensor_mul(&b, &c, &d)); /* b's handle still works for new operations */
    CHECK(d.graph == gb);
    CHECK_OK(cgrad_tensor_read(&d, out, 2));
    CHECK(out[0] == 110 && out[1] == 440);

    /* explicit merge, and merging a graph with itself */
    e = make(s, 1, one, 2);
    f = make(s, 1, two, 2);
    CHECK_OK(cgrad_compute_graph_merge(e.graph, f.graph));
    CHECK_OK(cgrad_compute_graph_merge(e.graph, f.graph));
    CHECK_OK(cgrad_compute_graph_merge(e.graph, e.graph));
    CHECK_OK(cgrad_compute_graph_get_node_count(f.graph, &n));
    CHECK(n == 2);
    CHECK_OK(cgrad_compute_graph_merge(a.graph, e.graph));
    CHECK_OK(cgrad_compute_graph_get_node_count(f.graph, &n));
    CHECK(n == 6);
    CHECK_OK(cgrad_tensor_sub(&f, &a, &c));
    CHECK_OK(cgrad_tensor_read(&c, out, 2));
    CHECK(out[0] == 9 && out[1] == 18);

    /* freeing one handle keeps the graph for the others; the last one frees it */
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_RC(cgrad_tensor_read(&a, out, 2), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_tensor_read(&ab, out, 2), CGRAD_ERR_FREED); /* ab.graph is a's handle */
    CHECK_OK(cgrad_tensor_read(&c, out, 2));                   /* c.graph is f's handle */
    CHECK_OK(cgrad_tensor_read(&d, out, 2));                  /* d.graph is b's handle */
    CHECK(out[0] == 110);
    CHECK_OK(cgrad_tensor_read(&f, out, 2));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
    CHECK_OK(cgrad_compute_graph_free(e.graph));
    CHECK_OK(cgrad_tensor_read(&f, out, 2));
    CHECK_OK(cgrad_compute_graph_free(f.graph));
    CHECK_RC(cgrad_tensor_read(&f, out, 2), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_tensor_read(&d, out, 2), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_compute_graph_free(f.graph), CGRAD_ERR_FREED);
}

/* Execution computes each node once and caches every intermediate in its node. */
/* A struct whose `graph` names one live graph and whose node is in another live graph (a
 * hand-edited or mixed-up struct): NODE_NOT_FOUND, not FREED (issue 17, item 7). Once the node's
 * own graph is freed, the same struct is FREED. */
static void test_node_of_another_graph(void) {
    uint32_t s[1] = {2};
    float one[2] = {1, 2}, two[2] = {3, 4}, out[2];
    cgrad_tensor a = make(s, 1, one, 2), b = make(s, 1, two, 2), mixed, c;
    mixed = a;
    mixed.graph = b.graph; /* a's node, b's graph: both alive */
    CHECK_RC(cgrad_tensor_read(&mixed, out, 2), CGRAD_ERR_NODE_NOT_FOUND);
    CHECK(strstr(cgrad_last_error(), "another graph") != NULL);
    CHECK_RC(cgrad_tensor_add(&mixed, &b, &c), CGRAD_ERR_NODE_NOT_FOUND);
    CHECK_RC(cgrad_tensor_exp(&mixed, &c), CGRAD_ERR_NODE_NOT_FOUND);
    CHECK_RC(cgrad_tensor_execute(&mixed), CGRAD_ERR_NODE_NOT_FOUND);
    /* nothing changed: both graphs still have their one leaf, and the real tensors work */
    int n = 0;
    CHECK_OK(cgrad_compute_graph_get_node_count(a.graph, &n));
    CHECK(n == 1);
    CHECK_OK(cgrad_compute_graph_get_node_count(b.graph, &n));
    CHECK(n == 1);
    CHECK_OK(cgrad_tensor_read(&b, out, 2));
    CHECK(out[0] == 3 && out[1] == 4);
    /* after the node's own graph is gone, the struct is a stale one: FREED */
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_RC(cgrad_tensor_read(&mixed, out, 2), CGRAD_ERR_FREED);
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

static void test_execute_caching(void) {
    uint32_t s[] = {4};
    float one[4] = {1, 2, 3, 4}, out[4];
    cgrad_tensor a = make(s, 1, one, 4), b, c, d;
    cgrad_graph_node node;
    cgrad_stats st;
    CHECK_OK(cgrad_tensor_add(&a, &a, &b));
    CHECK_OK(cgrad_tensor_exp(&b, &c));
    CHECK_OK(cgrad_tensor_mul_scalar(&c, 2.0f, &d));
    CHECK_OK(cgrad_compute_graph_get_node(b.graph, b.node_id, &node));
    CHECK(node.storage == NULL);
    CHECK_OK(cgrad_compute_graph_get_node(a.graph, a.node_id, &node));
    CHECK(node.storage != NULL); /* leaves hold their values */

    CHECK_OK(cgrad_stats_reset());
    CHECK_OK(cgrad_tensor_execute(&d));
    CHECK_OK(cgrad_stats_get(&st));
    CHECK(st.kernels_launched > 0);
    /* the intermediates were cached too */
    CHECK_OK(cgrad_compute_graph_get_node(b.graph, b.node_id, &node));
    CHECK(node.storage != NULL);
    CHECK_OK(cgrad_compute_graph_get_node(c.graph, c.node_id, &node));
    CHECK(node.storage != NULL);
    /* executing again, or executing a cached intermediate, computes nothing */
    CHECK_OK(cgrad_stats_reset());
    CHECK_OK(cgrad_tensor_execute(&d));
    CHECK_OK(cgrad_tensor_execute(&c));
    CHECK_OK(cgrad_tensor_read(&b, out, 4));
    CHECK_OK(cgrad_stats_get(&st));
    CHECK(st.kernels_launched == 0);
    CHECK(out[0] == 2 && out[3] == 8);
    CHECK_OK(cgrad_tensor_read(&d, out, 4));
    CHECK_NEAR(out[1], 2 * exp(4.0), 1e-6);

    /* refilling a leaf: results computed from it follow at their next execution */
    CHECK_OK(cgrad_tensor_fill(&a, 0.5f));
    CHECK_OK(cgrad_compute_graph_get_node(d.graph, d.node_id, &node));
    CHECK(node.storage == NULL);
    CHECK_OK(cgrad_tensor_read(&d, out, 4));
    CHECK_NEAR(out[2], 2 * exp(1.0), 1e-6);
    CHECK_OK(cgrad_tensor_read(&b, out, 4));
    CHECK(out[0] == 1.0f);
    CHECK_OK(cgrad_compute_graph_free(a.graph));
}

static int index_of(const cgrad_uuid* ids, int n, cgrad_uuid id) {
    int i;
    for (i = 0; i < n; ++i)
        if (cgrad_uuid_compare(ids[i], id) == 0) return i;
    return -1;
}

static void test_introspection(void) {
    uint32_t s[] = {2, 2};
    float one[4] = {1, 2, 3, 4};
    cgrad_tensor a = make(s, 2, one, 4), b = make(s, 2, one, 4), c, d, e;
    cgrad_uuid ids[8], sorted[16], again[16];
    cgrad_graph_node node;
    char buf[37];
    int n = -1, i, k;
    CHECK_OK(cgrad_tensor_sub(&b, &a, &c)); /* slot 0 = b, slot 1 = a */
    CHECK_OK(cgrad_tensor_gemm(&c, &a, &d));
    CHECK_OK(cgrad_tensor_relu(&d, &e));

    CHECK_OK(cgrad_compute_graph_get_inputs(e.graph, c.node_id, ids, 8, &n));
    CHECK(n == 2);
    CHECK(cgrad_uuid_compare(ids[0], b.node_id) == 0 && cgrad_uuid_compare(ids[1], a.node_id) == 0);
    CHECK_OK(cgrad_compute_graph_get_inputs(e.graph, a.node_id, ids, 8, &n));
    CHECK(n == 0);
    CHECK_OK(cgrad_compute_graph_get_inputs(e.graph, d.node_id, NULL, 0, &n)); /* count query */
    CHECK(n == 2);
    CHECK_RC(cgrad_compute_graph_get_inputs(e.graph, d.node_id, ids, 1, &n), CGRAD_ERR_BUFFER_TOO_SMALL);
    CHECK(n == 2);

    CHECK_OK(cgrad_compute_graph_get_node(e.graph, c.node_id, &node));
    CHECK(cgrad_uuid_compare(node.node_id, c.node_id) == 0);
    CHECK(node.op_info.type == CGRAD_OP_SUB && node.num_inputs == 2);
    CHECK(node.layout.ndim == 2 && node.layout.size == 4);
    CHECK_OK(cgrad_compute_graph_get_node(e.graph, a.node_id, &node));
    CHECK(node.op_info.type == CGRAD_OP_NONE && node.num_inputs == 0 && node.storage != NULL);

    /* topological order: every input before its users; deterministic */
    CHECK_OK(cgrad_compute_graph_topological_sort(e.graph, NULL, 0, &n));
    CHECK(n == 5);
    CHECK_OK(cgrad_compute_graph_topological_sort(e.graph, sorted, 16, &n));
    CHECK_OK(cgrad_compute_graph_topological_sort(a.graph, again, 16, &n));
    CHECK(memcmp(sorted, again, sizeof(cgrad_uuid) * 5) == 0);
    for (i = 0; i < n; ++i) {
        int m = 0;
        CHECK_OK(cgrad_compute_graph_get_inputs(e.graph, sorted[i], ids, 8, &m));
        for (k = 0; k < m; ++k) CHECK(index_of(sorted, n, ids[k]) >= 0 && index_of(sorted, n, ids[k]) < i);
    }
    CHECK_RC(cgrad_compute_graph_topological_sort(e.graph, sorted, 3, &n), CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED);
    CHECK(n == 5);

    /* ids: distinct, printable, node ids are not graph ids */
    CHECK(cgrad_uuid_compare(a.node_id, b.node_id) != 0);
    CHECK_OK(cgrad_uuid_to_string(c.node_id, buf));
    CHECK(strlen(buf) == 36 && buf[8] == '-' && buf[13] == '-' && buf[18] == '-' && buf[23] == '-');
    CHECK(cgrad_uuid_compare(a.graph->graph_id, a.node_id) != 0);

    CHECK(strcmp(cgrad_op_name(CGRAD_OP_GEMM), "gemm") == 0);
    CHECK(strcmp(cgrad_op_name(CGRAD_OP_NONE), "leaf") == 0);
    CHECK(strcmp(cgrad_op_name(CGRAD_OP_CAST), "cast") == 0);
    CHECK(strcmp(cgrad_op_name((cgrad_op_type)999), "?") == 0);

    /* printing and DOT */
    {
        FILE* f = tmpfile();
        char text[4096];
        size_t len;
        CHECK(f != NULL);
        if (f) {
            CHECK_OK(cgrad_tensor_execute(&c));
            CHECK_OK(cgrad_compute_graph_fprint(e.graph, f));
            CHECK_OK(cgrad_compute_graph_get_node(e.graph, d.node_id, &node));
            CHECK_OK(cgrad_graph_node_fprint(&node, f));
            rewind(f);
            len = fread(text, 1, sizeof text - 1, f);
            text[len] = 0;
            CHECK(strstr(text, "5 nodes") != NULL);
            CHECK(strstr(text, "%2 = sub(%1, %0) : f32_cpu(2, 2) [materialized]") != NULL);
            CHECK(strstr(text, "%4 = relu(%3) : f32_cpu(2, 2)  id=") != NULL);
            CHECK(strstr(text, ": gemm : f32_cpu(2, 2), 2 inputs\n") != NULL);
            fclose(f);
        }
        CHECK_OK(cgrad_compute_graph_to_dot(e.graph, "capi_test_graph.dot"));
        f = fopen("capi_test_graph.dot", "r");
        CHECK(f != NULL);
        if (f) {
            len = fread(text, 1, sizeof text - 1, f);
            text[len] = 0;
            CHECK(strncmp(text, "digraph cgrad {", 15) == 0);
            CHECK(strstr(text, "n1 -> n2 [label=\"0\", slot=\"0\"]") != NULL);
            CHECK(strstr(text, "n0 -> n2 [label=\"1\", slot=\"1\"]") != NULL);
            CHECK(strstr(text, "%3 gemm") != NULL);
            fclose(f);
        }
        remove("capi_test_graph.dot");
        printf("-- cgrad_compute_graph_print / cgrad_graph_node_print:\n");
        cgrad_compute_graph_print(e.graph);
        cgrad_graph_node_print(&node);
        cgrad_compute_graph_print(NULL); /* prints nothing, sets the last error */
        CHECK(strstr(cgrad_last_error(), "graph is NULL") != NULL);
        cgrad_graph_node_print(NULL);
    }
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

/* Every bad argument returns an error code and leaves valid objects usable. */
/* Whether CUDA storage could be created (test_errors): then BACKEND_UNAVAILABLE is not reached. */
static int g_cuda_present = 0;

static void test_errors(void) {
    uint32_t s[] = {3, 4}, s2[] = {5, 4}, nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    float data[12] = {0}, out[12];
    cgrad_tensor a, b, c, bad, freed, t64;
    cgrad_graph_node node;
    cgrad_uuid ids[4];
    int n;
    memset(&bad, 0xAB, sizeof bad); /* garbage: not an initialized tensor */
    CHECK_OK(cgrad_tensor_init(&a, s, 2, F32));
    CHECK_OK(cgrad_tensor_init(&b, s2, 2, F32));

    /* NULL pointers */
    CHECK_RC(cgrad_tensor_init(NULL, s, 2, F32), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_init(&c, NULL, 2, F32), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_init_from_data(&c, s, 2, F32, NULL, 12), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_add(NULL, &a, &c), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_add(&a, NULL, &c), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_add(&a, &a, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_exp(&a, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_transpose(&a, NULL, 2, &c), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_reshape(&a, NULL, 2, &c), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_reduce_sum(&a, NULL, 2, &c), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_fill(NULL, 1.0f), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_fill_data(&a, NULL, 12), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_execute(NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_read(&a, NULL, 12), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_tensor_free(NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_merge(NULL, a.graph), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_get_node(NULL, a.node_id, &node), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_get_node(a.graph, a.node_id, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_get_inputs(a.graph, a.node_id, ids, 4, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_get_inputs(a.graph, a.node_id, NULL, 4, &n), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_topological_sort(a.graph, ids, 4, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_get_node_count(a.graph, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_free(NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_to_dot(a.graph, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_compute_graph_fprint(a.graph, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_graph_node_fprint(NULL, stdout), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_uuid_to_string(a.node_id, NULL), CGRAD_ERR_NULL_POINTER);
    CHECK_RC(cgrad_stats_get(NULL), CGRAD_ERR_NULL_POINTER);
    CHECK(strstr(cgrad_last_error(), "cgrad_stats_get") != NULL);

    /* invalid arguments */
    CHECK_RC(cgrad_tensor_init(&c, s, -1, F32), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_init(&c, s, 2, (cgrad_storage_backend_type)99), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_exp(&bad, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_free(&bad), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_transpose(&a, (uint32_t[]){0, 0}, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_transpose(&a, (uint32_t[]){0, 2}, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_transpose(&a, (uint32_t[]){0}, -1, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_reshape(&a, (int32_t[]){-1, -1}, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_reshape(&a, (int32_t[]){-2, 6}, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_reduce_sum(&a, (uint8_t[]){2, 0}, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_reduce_mean(&a, (uint8_t[]){1}, -3, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_softmax(&a, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_log_softmax(&a, -3, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_tensor_cast(&a, (cgrad_storage_backend_type)-1, &c), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_compute_graph_get_inputs(a.graph, a.node_id, ids, -1, &n), CGRAD_ERR_INVALID_ARGUMENT);
    CHECK_RC(cgrad_set_max_graph_nodes(0), CGRAD_ERR_INVALID_ARGUMENT);
    {
        uint32_t z[] = {0, 4};
        cgrad_tensor e;
        CHECK_OK(cgrad_tensor_init(&e, z, 2, F32));
        CHECK_RC(cgrad_tensor_reduce_max(&e, (uint8_t[]){1, 0}, 2, &c), CGRAD_ERR_INVALID_ARGUMENT);
        CHECK_OK(cgrad_compute_graph_free(e.graph));
    }
    memset(&node, 0, sizeof node);
    node.op_info.type = (cgrad_op_type)77;
    CHECK_RC(cgrad_graph_node_fprint(&node, stdout), CGRAD_ERR_INVALID_ARGUMENT);

    /* too many dimensions */
    CHECK_RC(cgrad_tensor_init(&c, nine, 9, F32), CGRAD_ERR_TOO_MANY_DIMS);
    CHECK_RC(cgrad_tensor_reshape(&a, (int32_t[]){1, 1, 1, 1, 1, 1, 1, 3, 4}, 9, &c), CGRAD_ERR_TOO_MANY_DIMS);
    CHECK_RC(cgrad_tensor_transpose(&a, (uint32_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8}, 9, &c), CGRAD_ERR_TOO_MANY_DIMS);
    CHECK_RC(cgrad_tensor_reduce_sum(&a, (uint8_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0}, 9, &c), CGRAD_ERR_TOO_MANY_DIMS);
    {
        cgrad_tensor full8;
        uint32_t eight[8] = {1, 2, 1, 2, 1, 2, 1, 2};
        CHECK_OK(cgrad_tensor_init(&full8, eight, 8, F32)); /* exactly TENSOR_DIM is fine */
        CHECK_OK(cgrad_tensor_transpose(&full8, (uint32_t[]){7, 6, 5, 4, 3, 2, 1, 0}, 8, &c));
        CHECK(c.layout.ndim == 8 && c.layout.shape[0] == 2 && c.layout.shape[7] == 1);
        CHECK_OK(cgrad_compute_graph_free(full8.graph));
    }

    /* shape mismatches */
    CHECK_RC(cgrad_tensor_add(&a, &b, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_gemm(&a, &a, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_reshape(&a, (int32_t[]){5, -1}, 2, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_reshape(&a, (int32_t[]){13}, 1, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_transpose(&a, (uint32_t[]){0, 1, 2}, 3, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_reduce_sum(&a, (uint8_t[]){1, 1, 1}, 3, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_fill_data(&a, data, 5), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    CHECK_RC(cgrad_tensor_init_from_data(&c, s, 2, F32, data, 11), CGRAD_GRAPH_ERR_SHAPE_MISMATCH);
    {
        uint32_t v[] = {4};
        cgrad_tensor vec;
        CHECK_OK(cgrad_tensor_init(&vec, v, 1, F32));
        CHECK_RC(cgrad_tensor_gemm(&a, &vec, &c), CGRAD_GRAPH_ERR_SHAPE_MISMATCH); /* gemm needs 2 dims */
        CHECK_OK(cgrad_compute_graph_free(vec.graph));
    }

    /* filling a computed tensor is not an operation on a leaf */
    CHECK_OK(cgrad_tensor_exp(&a, &c));
    CHECK_RC(cgrad_tensor_fill(&c, 1.0f), CGRAD_GRAPH_ERR_INVALID_OPERATION);
    CHECK_RC(cgrad_tensor_fill_rand(&c), CGRAD_GRAPH_ERR_INVALID_OPERATION);
    CHECK_RC(cgrad_tensor_fill_data(&c, data, 12), CGRAD_GRAPH_ERR_INVALID_OPERATION);

    /* dtypes and backends */
    CHECK_OK(cgrad_tensor_init(&t64, s, 2, F64));
    CHECK_RC(cgrad_tensor_sub(&a, &t64, &c), CGRAD_ERR_DTYPE);
    CHECK_RC(cgrad_tensor_gemm(&t64, &a, &c), CGRAD_ERR_DTYPE);
    /* CUDA storage is unavailable without a usable device; with one (a GPU, or the emulated
       device of docs/cuda.md) the calls succeed and test_capi_cuda.c covers them. */
    {
        int rc = cgrad_tensor_init(&c, s, 2, CGRAD_STORAGE_BACKEND_F32_CUDA);
        g_cuda_present = rc == CGRAD_SUCCESS;
        if (g_cuda_present) {
            CHECK_OK(cgrad_compute_graph_free(c.graph));
        } else {
            CHECK_RC(rc, CGRAD_ERR_BACKEND_UNAVAILABLE);
            CHECK_RC(cgrad_tensor_init(&c, s, 2, CGRAD_STORAGE_BACKEND_F64_CUDA), CGRAD_ERR_BACKEND_UNAVAILABLE);
            CHECK_RC(cgrad_tensor_cast(&a, CGRAD_STORAGE_BACKEND_F32_CUDA, &c), CGRAD_ERR_BACKEND_UNAVAILABLE);
        }
    }
    CHECK_OK(cgrad_compute_graph_free(t64.graph));

    /* lookups */
    {
        cgrad_uuid bogus;
        memset(&bogus, 0x5A, sizeof bogus);
        CHECK_RC(cgrad_compute_graph_get_node(a.graph, bogus, &node), CGRAD_ERR_NODE_NOT_FOUND);
        CHECK_RC(cgrad_compute_graph_get_inputs(a.graph, bogus, ids, 4, &n), CGRAD_ERR_NODE_NOT_FOUND);
        CHECK_RC(cgrad_compute_graph_get_node(a.graph, b.node_id, &node), CGRAD_ERR_NODE_NOT_FOUND);
    }
    CHECK_RC(cgrad_tensor_read(&a, out, 11), CGRAD_ERR_BUFFER_TOO_SMALL);
    CHECK_RC(cgrad_compute_graph_to_dot(a.graph, "/nonexistent-dir/x/graph.dot"), CGRAD_ERR_IO);

    /* the node limit: growing and merging past it */
    {
        cgrad_tensor x, y, z;
        CHECK_OK(cgrad_tensor_init(&x, s, 2, F32));
        CHECK_OK(cgrad_tensor_init(&y, s, 2, F32));
        CHECK_OK(cgrad_set_max_graph_nodes(2));
        CHECK_OK(cgrad_tensor_neg(&x, &z));
        CHECK_RC(cgrad_tensor_neg(&z, &c), CGRAD_GRAPH_ERR_INVALID_OPERATION);
        CHECK_RC(cgrad_tensor_add(&x, &y, &c), CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED);
        CHECK_RC(cgrad_compute_graph_merge(x.graph, y.graph), CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED);
        CHECK_OK(cgrad_set_max_graph_nodes(0x7fffffff));
        CHECK_OK(cgrad_tensor_add(&z, &y, &c)); /* the failed calls changed nothing */
        CHECK_OK(cgrad_compute_graph_get_node_count(y.graph, &n));
        CHECK(n == 4);
        CHECK_OK(cgrad_compute_graph_free(x.graph));
        CHECK_OK(cgrad_compute_graph_free(y.graph));
    }

    /* out of memory, outside and inside execution (a petabyte each; init itself costs nothing) */
    {
        uint32_t huge[] = {1u << 20, 1u << 20, 1u << 10};
        uint32_t col[] = {1u << 23, 1}, row[] = {1, 1u << 23};
        cgrad_tensor h, p, q, r;
        CHECK_OK(cgrad_tensor_init(&h, huge, 3, F32));
        CHECK(h.layout.size == (uint64_t)1 << 50);
        CHECK_RC(cgrad_tensor_fill_rand(&h), CGRAD_ERR_OUT_OF_MEMORY);
        CHECK(strstr(cgrad_last_error(), "cgrad_tensor_fill_rand") != NULL);
        CHECK_OK(cgrad_tensor_fill(&h, 1.0f)); /* h is still usable */
        CHECK_OK(cgrad_tensor_init(&p, col, 2, F32));
        CHECK_OK(cgrad_tensor_init(&q, row, 2, F32));
        CHECK_OK(cgrad_tensor_fill_rand(&p));
        CHECK_OK(cgrad_tensor_fill_rand(&q));
        CHECK_OK(cgrad_tensor_add(&p, &q, &r)); /* (2^23, 2^23): 2^48 bytes */
        CHECK_RC(cgrad_tensor_execute(&r), CGRAD_GRAPH_ERR_EXECUTION_FAILED);
        CHECK(strstr(cgrad_last_error(), "cgrad_tensor_execute") != NULL);
        CHECK_OK(cgrad_tensor_execute(&p));
        CHECK_OK(cgrad_compute_graph_free(h.graph));
        CHECK_OK(cgrad_compute_graph_free(p.graph));
        CHECK_OK(cgrad_compute_graph_free(q.graph));
    }

    /* freed tensors and graphs */
    CHECK_OK(cgrad_tensor_neg(&a, &freed));
    CHECK_OK(cgrad_tensor_free(&freed));
    CHECK(freed.magic == CGRAD_TENSOR_FREED && freed.graph == NULL);
    CHECK_RC(cgrad_tensor_free(&freed), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_tensor_exp(&freed, &c), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_tensor_add(&a, &freed, &c), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_tensor_execute(&freed), CGRAD_ERR_FREED);
    CHECK_RC(cgrad_tensor_fill(&freed, 1.0f), CGRAD_ERR_FREED);
    CHECK_OK(cgrad_tensor_read(&a, out, 12)); /* a is unaffected */
    {
        cgrad_tensor keep = a, after;
        cgrad_compute_graph* g = a.graph;
        CHECK_OK(cgrad_compute_graph_free(a.graph));
        CHECK_RC(cgrad_tensor_read(&keep, out, 12), CGRAD_ERR_FREED);
        CHECK_RC(cgrad_tensor_add(&keep, &b, &after), CGRAD_ERR_FREED);
        CHECK_RC(cgrad_tensor_fill_rand(&keep), CGRAD_ERR_FREED);
        CHECK_RC(cgrad_compute_graph_free(g), CGRAD_ERR_FREED);
        CHECK_RC(cgrad_compute_graph_get_node_count(g, &n), CGRAD_ERR_FREED);
        CHECK_RC(cgrad_compute_graph_topological_sort(g, ids, 4, &n), CGRAD_ERR_FREED);
        CHECK_RC(cgrad_compute_graph_merge(b.graph, g), CGRAD_ERR_FREED);
        CHECK_OK(cgrad_tensor_free(&keep)); /* freeing a tensor of a freed graph is fine */
    }
    CHECK_RC(cgrad_tensor_read(&b, out, 12), CGRAD_ERR_BUFFER_TOO_SMALL); /* b has 20 elements */
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

#if defined(__unix__)
/* Several threads building, executing, reading and freeing their own graphs, and sharing one
 * read-only graph: calls serialize on the library's lock; last-error messages are per thread. */
static cgrad_tensor g_shared;
static void* thread_body(void* arg) {
    long k = (long)(intptr_t)arg, bad = 0;
    int it;
    for (it = 0; it < 50; ++it) {
        uint32_t s[] = {4, 4};
        float out[16];
        cgrad_tensor a, b, c;
        int i;
        if (cgrad_tensor_init(&a, s, 2, F32) != CGRAD_SUCCESS) ++bad;
        if (cgrad_tensor_fill(&a, (float)k) != CGRAD_SUCCESS) ++bad;
        if (cgrad_tensor_gemm(&a, &g_shared, &b) != CGRAD_SUCCESS) ++bad; /* merges the shared graph in */
        if (cgrad_tensor_add_scalar(&b, 1.0f, &c) != CGRAD_SUCCESS) ++bad;
        if (cgrad_tensor_read(&c, out, 16) != CGRAD_SUCCESS) ++bad;
        for (i = 0; i < 16; ++i)
            if (out[i] != 4.0f * (float)k + 1.0f) ++bad;
        if (cgrad_tensor_exp(NULL, &c) != CGRAD_ERR_NULL_POINTER || strstr(cgrad_last_error(), "cgrad_tensor_exp") == NULL)
            ++bad;
        if (cgrad_compute_graph_free(a.graph) != CGRAD_SUCCESS) ++bad;
    }
    return (void*)(intptr_t)bad;
}

static void test_threads(void) {
    uint32_t s[] = {4, 4};
    pthread_t th[4];
    long k;
    CHECK_OK(cgrad_tensor_init(&g_shared, s, 2, F32));
    CHECK_OK(cgrad_tensor_fill(&g_shared, 1.0f));
    for (k = 0; k < 4; ++k) CHECK(pthread_create(&th[k], NULL, thread_body, (void*)(intptr_t)k) == 0);
    for (k = 0; k < 4; ++k) {
        void* bad = NULL;
        CHECK(pthread_join(th[k], &bad) == 0);
        CHECK(bad == NULL);
    }
    CHECK_OK(cgrad_compute_graph_free(g_shared.graph));
}
#endif

static void test_error_strings(void) {
    int codes[] = {CGRAD_SUCCESS, CGRAD_ERR_NULL_POINTER, CGRAD_ERR_INVALID_ARGUMENT, CGRAD_ERR_FREED,
                   CGRAD_ERR_TOO_MANY_DIMS, CGRAD_ERR_DTYPE, CGRAD_ERR_OUT_OF_MEMORY, CGRAD_ERR_BACKEND_UNAVAILABLE,
                   CGRAD_ERR_NODE_NOT_FOUND, CGRAD_ERR_BUFFER_TOO_SMALL, CGRAD_ERR_IO, CGRAD_ERR_INTERNAL,
                   CGRAD_GRAPH_ERR_SHAPE_MISMATCH, CGRAD_GRAPH_ERR_INVALID_OPERATION,
                   CGRAD_GRAPH_ERR_GRAPH_MERGE_FAILED, CGRAD_GRAPH_ERR_TOPOLOGICAL_SORT_FAILED,
                   CGRAD_GRAPH_ERR_EXECUTION_FAILED};
    size_t i, j;
    for (i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
        const char* s = cgrad_error_string(codes[i]);
        CHECK(s != NULL && strcmp(s, "unknown error code") != 0);
        for (j = 0; j < i; ++j) CHECK(strcmp(s, cgrad_error_string(codes[j])) != 0);
        /* every code except INTERNAL (a bug) was returned by some call above (and
           BACKEND_UNAVAILABLE only without a CUDA device) */
        if (codes[i] != CGRAD_SUCCESS && codes[i] != CGRAD_ERR_INTERNAL &&
            !(g_cuda_present && codes[i] == CGRAD_ERR_BACKEND_UNAVAILABLE)) {
            if (!harness_seen(codes[i])) fprintf(stderr, "error code %d was never reached\n", codes[i]);
            CHECK(harness_seen(codes[i]));
        }
    }
    CHECK(strcmp(cgrad_error_string(12345), "unknown error code") == 0);
    CHECK(CGRAD_GRAPH_ERR_SHAPE_MISMATCH == -1400 && CGRAD_GRAPH_ERR_EXECUTION_FAILED == -1404);
    /* a successful call clears the last error */
    {
        cgrad_stats st;
        CHECK_RC(cgrad_stats_get(NULL), CGRAD_ERR_NULL_POINTER);
        CHECK(cgrad_last_error()[0] != 0);
        CHECK_OK(cgrad_stats_get(&st));
        CHECK(cgrad_last_error()[0] == 0);
    }
}

int main(void) {
    RUN(test_init_and_read);
    RUN(test_elementwise);
    RUN(test_gemm);
    RUN(test_movement);
    RUN(test_reductions);
    RUN(test_cast_and_dtypes);
    RUN(test_merge);
    RUN(test_node_of_another_graph);
    RUN(test_execute_caching);
    RUN(test_introspection);
    RUN(test_errors);
#if defined(__unix__)
    RUN(test_threads);
#endif
    RUN(test_error_strings);
    return harness_finish();
}
