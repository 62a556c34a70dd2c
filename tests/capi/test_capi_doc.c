/*
 * The usage examples of the design document ("Lazy Compute Graph Design for cgrad", shared/seeds),
 * compiled as C11 and run. Each block between "---- document ----" and "---- end ----" is copied
 * verbatim; the checks after it verify the numbers (and the graphs are freed at the end, which
 * the document leaves out).
 */
#include "harness.h"

#include <stdint.h>

static void read_all(const cgrad_tensor* t, float* out, size_t n) { CHECK_OK(cgrad_tensor_read(t, out, n)); }

/* "Creating Input Tensors", Usage Pattern */
static void doc_usage_pattern_inputs(void) {
    float va[12], vb[12], vc[12];
    int i;
    /* ---- document ---- */
    // Create input tensors (materialized storage is internal)
    uint32_t shape_a[] = {3, 4};
    uint32_t shape_b[] = {3, 4};

    cgrad_tensor a, b;
    cgrad_tensor_init(&a, shape_a, 2, CGRAD_STORAGE_BACKEND_F32_CPU);
    cgrad_tensor_init(&b, shape_b, 2, CGRAD_STORAGE_BACKEND_F32_CPU);

    // Fill with data (storage hidden from user)
    cgrad_tensor_fill_rand(&a);
    cgrad_tensor_fill_rand(&b);

    // Now a and b can be used in operations
    cgrad_tensor c;
    cgrad_tensor_add(&a, &b, &c);
    /* ---- end ---- */

    CHECK(c.layout.ndim == 2 && c.layout.shape[0] == 3 && c.layout.shape[1] == 4);
    read_all(&a, va, 12);
    read_all(&b, vb, 12);
    read_all(&c, vc, 12);
    for (i = 0; i < 12; ++i) {
        CHECK(va[i] >= 0 && va[i] < 1 && vb[i] >= 0 && vb[i] < 1);
        CHECK_NEAR(vc[i], (double)va[i] + vb[i], 1e-6);
    }
    CHECK(va[0] != vb[0]); /* two fills draw different numbers */
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

/* "Materialization", Usage Pattern (shape_a and shape_b come from the previous pattern) */
static void doc_usage_pattern_execute(void) {
    uint32_t shape_a[] = {3, 4};
    uint32_t shape_b[] = {3, 4};
    float va[12], vb[12], vc[12];
    cgrad_graph_node node;
    cgrad_stats st;
    int i;
    /* ---- document ---- */
    // Create and initialize inputs
    cgrad_tensor a, b;
    cgrad_tensor_init(&a, shape_a, 2, CGRAD_STORAGE_BACKEND_F32_CPU);
    cgrad_tensor_init(&b, shape_b, 2, CGRAD_STORAGE_BACKEND_F32_CPU);
    cgrad_tensor_fill_rand(&a);
    cgrad_tensor_fill_rand(&b);

    // Build computation graph
    cgrad_tensor c;
    cgrad_tensor_add(&a, &b, &c);

    // Execute to materialize results
    cgrad_tensor_execute(&c);

    // c now has materialized storage in the graph
    // Can use c in further operations without re-executing
    /* ---- end ---- */

    CHECK_OK(cgrad_compute_graph_get_node(c.graph, c.node_id, &node));
    CHECK(node.storage != NULL);
    CHECK_OK(cgrad_stats_reset());
    read_all(&c, vc, 12);
    CHECK_OK(cgrad_stats_get(&st));
    CHECK(st.kernels_launched == 0); /* reading c did not recompute it */
    read_all(&a, va, 12);
    read_all(&b, vb, 12);
    for (i = 0; i < 12; ++i) CHECK_NEAR(vc[i], (double)va[i] + vb[i], 1e-6);
    {
        cgrad_tensor d;
        float vd[12];
        CHECK_OK(cgrad_tensor_mul(&c, &c, &d)); /* c used in a further operation */
        CHECK_OK(cgrad_stats_reset());
        read_all(&d, vd, 12);
        CHECK_OK(cgrad_stats_get(&st));
        CHECK(st.kernels_launched == 1); /* only the product: c came from its cache */
        for (i = 0; i < 12; ++i) CHECK_NEAR(vd[i], (double)vc[i] * vc[i], 1e-6);
    }
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

/* "Usage Example" */
static void doc_usage_example(void) {
    float va[12], vb[12], vd[12];
    cgrad_compute_graph *ga, *gb;
    int i, j;
    FILE* f;
    /* ---- document ---- */
    // Create input tensors
    uint32_t shape_a[] = {3, 4};
    uint32_t shape_b[] = {3, 4};

    cgrad_tensor a, b;
    cgrad_tensor_init(&a, shape_a, 2, CGRAD_STORAGE_BACKEND_F32_CPU);
    cgrad_tensor_init(&b, shape_b, 2, CGRAD_STORAGE_BACKEND_F32_CPU);

    // Fill with data
    cgrad_tensor_fill_rand(&a);
    cgrad_tensor_fill_rand(&b);

    // Build computation graph lazily
    cgrad_tensor c;
    cgrad_tensor_add(&a, &b, &c);  // c = a + b

    // More operations
    cgrad_tensor d;
    cgrad_tensor_transpose(&c, (uint32_t[]){1, 0}, 2, &d);  // d = c^T

    // Visualize the graph (optional)
    cgrad_compute_graph_to_dot(d.graph, "computation.dot");

    // Execute the graph - storage is managed internally
    cgrad_tensor_execute(&d);

    // d now contains materialized results
    // All storage is hidden from the user
    /* ---- end ---- (checks inserted before the document's cleanup) */

    CHECK(d.layout.ndim == 2 && d.layout.shape[0] == 4 && d.layout.shape[1] == 3);
    read_all(&a, va, 12);
    read_all(&b, vb, 12);
    read_all(&d, vd, 12);
    for (i = 0; i < 4; ++i)
        for (j = 0; j < 3; ++j) CHECK_NEAR(vd[i * 3 + j], (double)va[j * 4 + i] + vb[j * 4 + i], 1e-6);
    f = fopen("computation.dot", "r");
    CHECK(f != NULL);
    if (f) {
        char text[2048];
        size_t len = fread(text, 1, sizeof text - 1, f);
        text[len] = 0;
        CHECK(strstr(text, "digraph cgrad") != NULL);
        CHECK(strstr(text, "transpose") != NULL && strstr(text, "perm=[1, 0]") != NULL);
        CHECK(strstr(text, "n2 -> n3 [label=\"0\", slot=\"0\"]") != NULL);
        fclose(f);
    }
    remove("computation.dot");
    ga = a.graph;
    gb = b.graph;

    /* ---- document ---- */
    // Cleanup
    cgrad_tensor_free(&a);
    cgrad_tensor_free(&b);
    cgrad_tensor_free(&c);
    cgrad_tensor_free(&d);
    /* ---- end ---- */

    CHECK(a.magic == CGRAD_TENSOR_FREED && d.magic == CGRAD_TENSOR_FREED);
    CHECK_RC(cgrad_tensor_execute(&d), CGRAD_ERR_FREED);
    /* tensor_free does not free graphs: they are still there until freed */
    {
        int n = 0;
        CHECK_OK(cgrad_compute_graph_get_node_count(ga, &n));
        CHECK(n == 4);
    }
    CHECK_OK(cgrad_compute_graph_free(ga));
    CHECK_OK(cgrad_compute_graph_free(gb));
}

/* "Compute Graph Edges": in c = a - b, a fills slot 0 and b slot 1. */
static void doc_edge_slots(void) {
    uint32_t s[] = {2};
    float x[2] = {5, 7}, y[2] = {1, 2}, out[2];
    cgrad_tensor a, b, c;
    cgrad_uuid ids[2];
    int n = 0;
    CHECK_OK(cgrad_tensor_init_from_data(&a, s, 1, CGRAD_STORAGE_BACKEND_F32_CPU, x, 2));
    CHECK_OK(cgrad_tensor_init_from_data(&b, s, 1, CGRAD_STORAGE_BACKEND_F32_CPU, y, 2));
    CHECK_OK(cgrad_tensor_sub(&a, &b, &c));
    CHECK_OK(cgrad_compute_graph_get_inputs(c.graph, c.node_id, ids, 2, &n));
    CHECK(n == 2 && cgrad_uuid_compare(ids[0], a.node_id) == 0 && cgrad_uuid_compare(ids[1], b.node_id) == 0);
    read_all(&c, out, 2);
    CHECK(out[0] == 4 && out[1] == 5);
    CHECK_OK(cgrad_compute_graph_free(a.graph));
    CHECK_OK(cgrad_compute_graph_free(b.graph));
}

/* "Unary Operations": the transpose example, and the reduce_sum example under the stated rule.
 * The document's own example says mask {1,0} on (2,3,4) gives (1,3,1); that contradicts its rule
 * (the mask covers the last ndim dims: dim 1 reduced, dim 2 kept), which gives (2,1,4); see
 * docs/capi.md. */
static void doc_unary_examples(void) {
    uint32_t s4[] = {2, 3, 4, 5}, s3[] = {2, 3, 4};
    cgrad_tensor x, y, r, out;
    float v[24], o[8];
    int i, k;
    CHECK_OK(cgrad_tensor_init(&x, s4, 4, CGRAD_STORAGE_BACKEND_F32_CPU));
    CHECK_OK(cgrad_tensor_transpose(&x, (uint32_t[]){1, 0}, 2, &out));
    CHECK(out.layout.ndim == 4 && out.layout.shape[0] == 2 && out.layout.shape[1] == 3 && out.layout.shape[2] == 5 &&
          out.layout.shape[3] == 4);

    for (i = 0; i < 24; ++i) v[i] = (float)i;
    CHECK_OK(cgrad_tensor_init_from_data(&y, s3, 3, CGRAD_STORAGE_BACKEND_F32_CPU, v, 24));
    CHECK_OK(cgrad_tensor_reduce_sum(&y, (uint8_t[]){1, 0}, 2, &r));
    CHECK(r.layout.ndim == 3 && r.layout.shape[0] == 2 && r.layout.shape[1] == 1 && r.layout.shape[2] == 4);
    read_all(&r, o, 8);
    for (i = 0; i < 2; ++i)
        for (k = 0; k < 4; ++k) CHECK(o[i * 4 + k] == v[i * 12 + k] + v[i * 12 + 4 + k] + v[i * 12 + 8 + k]);
    CHECK_OK(cgrad_compute_graph_free(x.graph));
    CHECK_OK(cgrad_compute_graph_free(y.graph));
}

/* "Graph Merging Strategy": Input_A -> Transpose -> Node_1, Input_B -> ReLU -> Node_2,
 * Add(Node_1, Node_2): graph 2 is merged into graph 1, which has both inputs as roots. */
static void doc_merging_strategy(void) {
    uint32_t sa[] = {2, 3}, sb[] = {3, 2};
    float av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {-1, 1, -2, 2, -3, 3}, out[6];
    cgrad_tensor input_a, input_b, node_1, node_2, sum;
    cgrad_uuid order[8];
    int n = 0, leaves = 0, i;
    CHECK_OK(cgrad_tensor_init_from_data(&input_a, sa, 2, CGRAD_STORAGE_BACKEND_F32_CPU, av, 6));
    CHECK_OK(cgrad_tensor_init_from_data(&input_b, sb, 2, CGRAD_STORAGE_BACKEND_F32_CPU, bv, 6));
    CHECK_OK(cgrad_tensor_transpose(&input_a, (uint32_t[]){1, 0}, 2, &node_1));
    CHECK_OK(cgrad_tensor_relu(&input_b, &node_2));
    CHECK(node_1.graph != node_2.graph);
    CHECK_OK(cgrad_tensor_add(&node_1, &node_2, &sum));
    CHECK(sum.graph == node_1.graph);
    CHECK_OK(cgrad_compute_graph_topological_sort(sum.graph, order, 8, &n));
    CHECK(n == 5);
    for (i = 0; i < n; ++i) {
        cgrad_graph_node node;
        CHECK_OK(cgrad_compute_graph_get_node(sum.graph, order[i], &node));
        if (node.op_info.type == CGRAD_OP_NONE) ++leaves;
    }
    CHECK(leaves == 2);
    read_all(&sum, out, 6);
    /* sum[i][j] = a[j][i] + relu(b[i][j]) */
    CHECK(out[0] == 1 + 0 && out[1] == 4 + 1 && out[2] == 2 + 0 && out[3] == 5 + 2 && out[4] == 3 + 0 &&
          out[5] == 6 + 3);
    CHECK_OK(cgrad_compute_graph_free(input_a.graph));
    CHECK_OK(cgrad_compute_graph_free(input_b.graph));
}

int main(void) {
    CHECK_OK(cgrad_manual_seed(2024));
    RUN(doc_usage_pattern_inputs);
    RUN(doc_usage_pattern_execute);
    RUN(doc_usage_example);
    RUN(doc_edge_slots);
    RUN(doc_unary_examples);
    RUN(doc_merging_strategy);
    return harness_finish();
}
