/*
 * The C API on the CUDA backend: the same graphs built on F32_CUDA / F64_CUDA leaves and on CPU
 * leaves must read back the same values (element-wise chains, gemm, reductions, softmax, casts
 * between devices and element types, a CPU leaf moved into a device graph, refilling a device
 * leaf). Without a CUDA device it prints one skip line and "0 passed, 0 failed".
 */
#include "harness.h"

enum { M = 5, K = 7, N = 3 };

static const cgrad_storage_backend_type F32_CPU = CGRAD_STORAGE_BACKEND_F32_CPU;
static const cgrad_storage_backend_type F64_CPU = CGRAD_STORAGE_BACKEND_F64_CPU;

/* Builds the test graphs on `f32` (and `f64`) leaves and reads every result into `out`;
 * returns the number of values written. */
static int run_graphs(cgrad_storage_backend_type f32, cgrad_storage_backend_type f64, double* out) {
    float av[M * K], bv[K * N];
    double dv[M * K];
    for (int i = 0; i < M * K; ++i) {
        av[i] = (float)((i % 11) - 5) * 0.25f;
        dv[i] = (double)((i % 13) - 6) * 0.125;
    }
    for (int i = 0; i < K * N; ++i) bv[i] = (float)((i % 5) - 2) * 0.5f;
    const uint32_t sa[2] = {M, K}, sb[2] = {K, N};
    const uint8_t rows[2] = {0, 1};
    cgrad_tensor a, b, d, cpu_leaf, moved, t1, t2, t3, g, s, sm, r, c64, back, mixed, ls;
    float buf[M * K];
    double dbuf[M * K];
    int n = 0;
    CHECK_OK(cgrad_tensor_init_from_data(&a, sa, 2, f32, av, M * K));
    CHECK_OK(cgrad_tensor_init_from_data(&b, sb, 2, f32, bv, K * N));
    CHECK_OK(cgrad_tensor_init(&d, sa, 2, f64));
    CHECK_OK(cgrad_tensor_fill_data_f64(&d, dv, M * K));
    CHECK_OK(cgrad_tensor_init_from_data(&cpu_leaf, sa, 2, F32_CPU, av, M * K));

    /* an element-wise chain: one fused kernel */
    CHECK_OK(cgrad_tensor_mul(&a, &a, &t1));
    CHECK_OK(cgrad_tensor_add_scalar(&t1, 0.5f, &t2));
    CHECK_OK(cgrad_tensor_tanh(&t2, &t3));
    CHECK_OK(cgrad_tensor_read(&t3, buf, M * K));
    for (int i = 0; i < M * K; ++i) out[n++] = buf[i];
    /* gemm (cuBLAS on the device) */
    CHECK_OK(cgrad_tensor_gemm(&a, &b, &g));
    CHECK_OK(cgrad_tensor_read(&g, buf, M * N));
    for (int i = 0; i < M * N; ++i) out[n++] = buf[i];
    /* a row reduction and a row softmax */
    CHECK_OK(cgrad_tensor_reduce_sum(&t3, rows, 2, &s));
    CHECK_OK(cgrad_tensor_read(&s, buf, M));
    for (int i = 0; i < M; ++i) out[n++] = buf[i];
    CHECK_OK(cgrad_tensor_softmax(&a, -1, &sm));
    CHECK_OK(cgrad_tensor_read(&sm, buf, M * K));
    for (int i = 0; i < M * K; ++i) out[n++] = buf[i];
    CHECK_OK(cgrad_tensor_log_softmax(&d, 0, &ls));
    CHECK_OK(cgrad_tensor_read_f64(&ls, dbuf, M * K));
    for (int i = 0; i < M * K; ++i) out[n++] = dbuf[i];
    /* f32 -> f64 on the same device, then to the CPU */
    CHECK_OK(cgrad_tensor_cast(&t3, f64, &c64));
    CHECK_OK(cgrad_tensor_cast(&c64, F64_CPU, &back));
    CHECK_OK(cgrad_tensor_read_f64(&back, dbuf, M * K));
    for (int i = 0; i < M * K; ++i) out[n++] = dbuf[i];
    /* a CPU leaf moved to the leaves' backend (operands of one op share a backend) */
    CHECK_OK(cgrad_tensor_cast(&cpu_leaf, f32, &moved));
    CHECK_OK(cgrad_tensor_sub(&a, &moved, &mixed));
    CHECK_OK(cgrad_tensor_exp(&mixed, &r));
    CHECK_OK(cgrad_tensor_read(&r, buf, M * K));
    for (int i = 0; i < M * K; ++i) out[n++] = buf[i];
    /* refilling a leaf: the next read recomputes */
    CHECK_OK(cgrad_tensor_fill(&a, 0.25f));
    CHECK_OK(cgrad_tensor_read(&t3, buf, M * K));
    for (int i = 0; i < M * K; ++i) out[n++] = buf[i];
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    return n;
}

int main(void) {
    cgrad_tensor probe;
    const uint32_t one[1] = {1};
    int rc = cgrad_tensor_init(&probe, one, 1, CGRAD_STORAGE_BACKEND_F32_CUDA);
    if (rc == CGRAD_ERR_BACKEND_UNAVAILABLE) {
        printf("[  SKIPPED ] capi on cuda: no usable CUDA device (%s)\n", cgrad_last_error());
        return harness_finish();
    }
    CHECK_OK(rc);
    CHECK_OK(cgrad_compute_graph_free(probe.graph));
    static double want[8 * M * K], got[8 * M * K];
    const int nw = run_graphs(F32_CPU, F64_CPU, want);
    const int ng = run_graphs(CGRAD_STORAGE_BACKEND_F32_CUDA, CGRAD_STORAGE_BACKEND_F64_CUDA, got);
    CHECK(nw == ng);
    for (int i = 0; i < nw && i < ng; ++i) CHECK_NEAR(got[i], want[i], 2e-6);
    printf("[ GPU      ] %d values compared between the CPU and CUDA backends of the C API\n", nw);
    return harness_finish();
}
