/*
 * test_graph_summary.c - operator graphs (graph_summary.c), the ONNX reader
 * (onnx_read.c) on models packed here with protobuf-c, and the time of a
 * graph in training and serving (model_sample.c).
 *
 * Graphs are built by hand with unround shapes; the expected shapes,
 * FLOPs and element counts are worked out in the comments from the ONNX
 * operator definitions (specs/models.md 14.6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "model_kernel.h"
#include "model_sample.h"
#include "onnx.pb-c.h"
#include "onnx_read.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static void assert_contains(const char *s, const char *sub)
{
	if (!strstr(s, sub)) {
		print_error("'%s' does not contain '%s'\n", s, sub);
		fail();
	}
}

/* A graph under construction, in fixed arrays. */
#define T_MAX 600
#define N_MAX 600
struct build {
	struct graph g;
	struct graph_tensor t[T_MAX];
	struct graph_node n[N_MAX];
	struct graph_window w[N_MAX];
	struct graph_lists l[N_MAX];
	int in[4 * N_MAX];
	int edges;
};

static void b_init(struct build *b, double batch)
{
	memset(b, 0, sizeof(*b));
	b->g.tensors = b->t;
	b->g.nodes = b->n;
	b->g.inputs = b->in;
	b->g.windows = b->w;
	b->g.lists = b->l;
	b->g.batch = batch;
}

/* A tensor of 'rank' dims (rank -1: unknown); 'weight' for a float
   initializer. */
static int b_tensor(struct build *b, bool weight, int rank, ...)
{
	struct graph_tensor *x = &b->t[b->g.n_tensors];
	va_list ap;

	memset(x, 0, sizeof(*x));
	x->rank = rank;
	x->weight = weight;
	x->param = weight;
	x->producer = -1;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++)
		x->dims[i] = va_arg(ap, double);
	va_end(ap);
	return b->g.n_tensors++;
}

/* A node of 'op' reading 'n_in' tensors and making a new one (shape
   unknown); returns the node. */
static struct graph_node *b_node(struct build *b, const char *op, int n_in,
				 ...)
{
	struct graph_node *n = &b->n[b->g.n_nodes];
	va_list ap;

	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "n%d", b->g.n_nodes);
	snprintf(n->op_type, sizeof(n->op_type), "%s", op);
	n->group = 1.0;
	n->axis = -1;
	n->keepdims = 1;
	n->in_first = b->edges;
	n->n_in = n_in;
	va_start(ap, n_in);
	for (int i = 0; i < n_in; i++) {
		int t = va_arg(ap, int);

		b->in[b->edges++] = t;
		if (t >= 0)
			b->t[t].consumers++;
	}
	va_end(ap);
	n->out = b_tensor(b, false, -1);
	b->t[n->out].producer = b->g.n_nodes++;
	return n;
}

static struct build B;

/* The window of node 'n' of B, given to it (all zero) when it has none. */
static struct graph_window *b_window(struct graph_node *n)
{
	if (!n->window)
		n->window = ++B.g.n_windows;
	return &B.w[n->window - 1];
}

/* Its list attributes, likewise. */
static struct graph_lists *b_lists(struct graph_node *n)
{
	if (!n->lists)
		n->lists = ++B.g.n_lists;
	return &B.l[n->lists - 1];
}

static void set_pads(struct graph_node *n, double stride, double pad)
{
	struct graph_window *w = b_window(n);

	w->kernel_rank = 2;
	w->strides[0] = w->strides[1] = stride;
	for (int i = 0; i < 4; i++)
		w->pads[i] = pad;
}

/* The class of kind 'k' (the first), or fail. */
static const struct graph_op *find_kind(const struct graph_summary *s,
					enum graph_op_kind k)
{
	for (int i = 0; i < s->n_ops; i++)
		if (s->op[i].kind == k)
			return &s->op[i];
	print_error("no class of kind %s\n", graph_op_kind_name(k));
	fail();
	return NULL;
}

static struct graph_summary S;

/* A strided 3x3 convolution: x [2, 3, 17, 17], w [8, 3, 3, 3], stride 2,
   pads 1: out (17 + 2 - 3) / 2 + 1 = 9 -> [2, 8, 9, 9]; per sample
   2 * (8 * 81) * (3 * 9) = 34992 FLOPs, in 3 * 289 = 867, out 648. */
static void test_conv_strided(void **state)
{
	(void)state;
	b_init(&B, 2.0);
	int x = b_tensor(&B, false, 4, 2.0, 3.0, 17.0, 17.0);
	int w = b_tensor(&B, true, 4, 8.0, 3.0, 3.0, 3.0);
	struct graph_node *c = b_node(&B, "Conv", 2, x, w);

	set_pads(c, 2.0, 1.0);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(B.t[c->out].rank, 4);
	assert_rel(B.t[c->out].dims[1], 8.0, 0);
	assert_rel(B.t[c->out].dims[2], 9.0, 0);
	assert_rel(B.t[c->out].dims[3], 9.0, 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	/* no normalization in the graph: the conv's batch norm was folded
	   (test_folded_norms); it is a class of its own */
	assert_int_equal(S.n_ops, 2);
	assert_true(S.norms_folded);
	const struct graph_op *op = find_kind(&S, GOP_CONV);

	assert_rel(op->flops, 34992.0, 1e-12);
	assert_rel(op->in_elems, 867.0, 1e-12);
	assert_rel(op->out_elems, 648.0, 1e-12);
	assert_rel(op->weight_elems, 216.0, 1e-12);
	assert_rel(op->gemm_m, 81.0, 1e-12);
	assert_rel(op->gemm_n, 8.0, 1e-12);
	assert_rel(op->gemm_k, 27.0, 1e-12);
	assert_rel(op->gemm_groups, 1.0, 1e-12);
	/* the weights, and the folded norm's gain and shift (no bias) */
	assert_rel(S.params, 216.0 + 2.0 * 8.0, 1e-12);
	/* the backward pass of the convolution reads its input, that of
	   its batch norm the conv's output */
	assert_rel(S.saved_elems, 867.0 + 648.0, 1e-12);
}

/* A transposed convolution (a decoder's 2x upsampling): x [1, 16, 10,
   10], w [16, 8, 4, 4] (C_in, C_out / g, k, k), stride 2, pads 1: out
   2 (10 - 1) + (4 - 1) + 1 - 2 = 20 -> [1, 8, 20, 20]; each of the 100
   input pixels' 16 values times 8 x 16 weight columns: 2 * 100 * 16 *
   128 = 409600 FLOPs, as 2 * 400 output pixels * 8 * 16 * (16 / 4);
   output_padding 1 makes it 21.  A local response normalization keeps
   its input's shape. */
static void test_conv_transpose(void **state)
{
	(void)state;
	for (int op_pad = 0; op_pad < 2; op_pad++) {
		b_init(&B, 1.0);
		int x = b_tensor(&B, false, 4, 1.0, 16.0, 10.0, 10.0);
		int w = b_tensor(&B, true, 4, 16.0, 8.0, 4.0, 4.0);
		struct graph_node *c = b_node(&B, "ConvTranspose", 2, x, w);
		struct graph_node *l;

		set_pads(c, 2.0, 1.0);
		b_window(c)->out_pads[0] = b_window(c)->out_pads[1] = op_pad;
		l = b_node(&B, "LRN", 1, c->out);
		assert_int_equal(graph_infer_shapes(&B.g), 0);
		assert_int_equal(B.t[c->out].rank, 4);
		assert_rel(B.t[c->out].dims[1], 8.0, 0);
		assert_rel(B.t[c->out].dims[2], 20.0 + op_pad, 0);
		assert_rel(B.t[c->out].dims[3], 20.0 + op_pad, 0);
		assert_int_equal(B.t[l->out].rank, 4);
		assert_rel(B.t[l->out].dims[2], 20.0 + op_pad, 0);
		assert_int_equal(graph_summarize(&B.g, &S), 0);
		const struct graph_op *op = find_kind(&S, GOP_CONV);

		assert_rel(op->flops, 409600.0, 1e-12);
		assert_rel(op->gemm_m, 100.0, 1e-12);
		assert_rel(op->gemm_n, 128.0, 1e-12);
		assert_rel(op->gemm_k, 16.0, 1e-12);
		assert_rel(op->in_elems, 1600.0, 1e-12);
		assert_rel(op->weight_elems, 2048.0, 1e-12);
		/* the LRN is the graph's normalization: nothing folded */
		assert_false(S.norms_folded);
		assert_rel(find_kind(&S, GOP_NORM)->in_elems,
			   8.0 * (20.0 + op_pad) * (20.0 + op_pad), 1e-12);
	}
}

/* Squeeze-excitation's scale, a Mul of x [1, 8, 4, 4] by s [1, 8, 1, 1]
   (the output of a Sigmoid of its own): its backward computes x's
   gradient (read the output's gradient, 128, and s, 8; write 128) and
   s's (the full-size product, read 128 and x 128, written and read,
   128 + 128, reduced to 8): 128 + 8 + 128 + 128 + 128 + 128 + 128 + 8 =
   2 out + 2 (ea + eb) + 2 out = 784 elements; a Mul by a weight keeps its
   kind's passes (0). */
static void test_mul_backward(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 4, 1.0, 8.0, 4.0, 4.0);
	int z = b_tensor(&B, false, 4, 1.0, 8.0, 1.0, 1.0);
	int w = b_tensor(&B, true, 1, 8.0);
	struct graph_node *sg = b_node(&B, "Sigmoid", 1, z);
	struct graph_node *m = b_node(&B, "Mul", 2, x, sg->out);
	struct graph_node *mw = b_node(&B, "Mul", 2, m->out, w);

	(void)mw;
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	double with = 0.0, without = 0.0;

	for (int i = 0; i < S.n_ops; i++) {
		if (S.op[i].kind != GOP_BINARY)
			continue;
		if (S.op[i].bwd_elems > 0.0)
			with += S.op[i].bwd_elems;
		else
			without += S.op[i].count;
	}
	assert_rel(with, 784.0, 1e-12);
	assert_rel(without, 1.0, 0);
}

/* ArgMax over the classes of [2, 10] logits: axis 1, keepdims 0 -> [2];
   keepdims 1 -> [2, 1]; ArgMin on axis 0 by default -> [1, 10]. */
static void test_argmax(void **state)
{
	(void)state;
	for (int keep = 0; keep < 2; keep++) {
		b_init(&B, 2.0);
		int x = b_tensor(&B, false, 2, 2.0, 10.0);
		struct graph_node *a = b_node(&B, "ArgMax", 1, x);
		struct graph_node *m = b_node(&B, "ArgMin", 1, x);

		a->axis = 1;
		a->keepdims = keep;
		m->axis = 0;
		assert_int_equal(graph_infer_shapes(&B.g), 0);
		assert_int_equal(B.t[a->out].rank, keep ? 2 : 1);
		assert_rel(B.t[a->out].dims[0], 2.0, 0);
		if (keep)
			assert_rel(B.t[a->out].dims[1], 1.0, 0);
		assert_int_equal(B.t[m->out].rank, 2);
		assert_rel(B.t[m->out].dims[0], 1.0, 0);
		assert_rel(B.t[m->out].dims[1], 10.0, 0);
	}
}

/* A depthwise convolution (6 groups of one channel): x [1, 6, 10, 10],
   w [6, 1, 3, 3], pads 1 -> [1, 6, 10, 10], 2 * 600 * 9 = 10800 FLOPs;
   a 1x1 expansion to 8 channels; a grouped convolution of 4 groups of
   2 channels. */
static void test_conv_depthwise_grouped(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 4, 1.0, 6.0, 10.0, 10.0);
	int wd = b_tensor(&B, true, 4, 6.0, 1.0, 3.0, 3.0);
	struct graph_node *dw = b_node(&B, "Conv", 2, x, wd);

	dw->group = 6.0;
	set_pads(dw, 1.0, 1.0);
	/* 1x1, 6 -> 8: a plain matrix product; 2 * 800 * 6 = 9600 */
	int we = b_tensor(&B, true, 4, 8.0, 6.0, 1.0, 1.0);
	struct graph_node *pw = b_node(&B, "Conv", 2, dw->out, we);
	/* grouped 3x3, 4 groups of 2 channels, stride 3, no pads:
	   (10 - 3) / 3 + 1 = 3 -> [1, 8, 3, 3]; 2 * 72 * 18 = 2592 */
	int wg = b_tensor(&B, true, 4, 8.0, 2.0, 3.0, 3.0);
	struct graph_node *gc = b_node(&B, "Conv", 2, pw->out, wg);

	gc->group = 4.0;
	set_pads(gc, 3.0, 0.0);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_rel(B.t[gc->out].dims[2], 3.0, 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	assert_rel(find_kind(&S, GOP_DWCONV)->flops, 10800.0, 1e-12);
	assert_rel(find_kind(&S, GOP_MATMUL)->flops, 9600.0, 1e-12);
	const struct graph_op *g = find_kind(&S, GOP_CONV);

	assert_rel(g->flops, 2592.0, 1e-12);
	assert_rel(g->gemm_n, 2.0, 1e-12);
	assert_rel(g->gemm_k, 18.0, 1e-12);
	assert_rel(g->gemm_groups, 4.0, 1e-12);
	assert_rel(g->gemm_m, 9.0, 1e-12);
	assert_rel(S.flops, 10800.0 + 9600.0 + 2592.0, 1e-12);
	/* weights, and gain and shift of the three folded norms */
	assert_rel(S.params, 54.0 + 48.0 + 144.0 + 2.0 * (6.0 + 8.0 + 8.0),
		   1e-12);
}

/*
 * A residual block as an inference engine fuses it: conv -> BN (folded)
 * -> Relu (fused) -> conv -> BN -> Add(x) (fused, reads x) -> Relu.
 * x [3, 4, 5, 5] (batch 3: per sample 100 elements per tensor).
 */
static void test_fusion_residual(void **state)
{
	(void)state;
	b_init(&B, 3.0);
	int x = b_tensor(&B, false, 4, 3.0, 4.0, 5.0, 5.0);
	int w1 = b_tensor(&B, true, 4, 4.0, 4.0, 3.0, 3.0);
	struct graph_node *c1 = b_node(&B, "Conv", 2, x, w1);

	set_pads(c1, 1.0, 1.0);
	int g1 = b_tensor(&B, true, 1, 4.0), b1 = b_tensor(&B, true, 1, 4.0);
	int m1 = b_tensor(&B, true, 1, 4.0), v1 = b_tensor(&B, true, 1, 4.0);
	struct graph_node *bn1 = b_node(&B, "BatchNormalization", 5, c1->out,
					g1, b1, m1, v1);
	struct graph_node *r1 = b_node(&B, "Relu", 1, bn1->out);
	struct graph_node *c2 = b_node(&B, "Conv", 2, r1->out, w1);

	set_pads(c2, 1.0, 1.0);
	struct graph_node *bn2 = b_node(&B, "BatchNormalization", 5, c2->out,
					g1, b1, m1, v1);
	struct graph_node *add = b_node(&B, "Add", 2, bn2->out, x);
	struct graph_node *r2 = b_node(&B, "Relu", 1, add->out);

	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	/* BN x2, Relu x2, Add fused: 5 of 7 */
	assert_rel(S.fused, 5.0, 0);
	/* shared weights count once; the BN statistics not at all */
	assert_rel(S.params, 144.0 + 8.0, 1e-12);
	assert_rel(S.kind_count[GOP_NORM], 2.0, 0);
	/* the convs' outputs stay on chip; their epilogues (the Relu,
	   and the Add and Relu) are costed in them: conv 1's Relu writes
	   100 per sample, conv 2's Add reads x (100) and its Relu writes
	   100, so the two convs are classes of their own */
	double convs = 0.0, epi = 0.0;

	for (int i = 0; i < S.n_ops; i++) {
		const struct graph_op *op = &S.op[i];

		if (op->kind == GOP_CONV) {
			assert_true(op->out_fused);
			assert_false(op->fused);
			assert_false(op->fepilogue);
			convs += op->count;
			epi += op->epilogue_elems;
			assert_true(op->epilogue_elems == 100.0 ||
				    op->epilogue_elems == 200.0);
		}
		if (op->kind == GOP_ACT)
			assert_true(op->fepilogue);
		if (op->kind != GOP_BINARY)
			continue;
		/* the Add reads the block input x (100 per sample), not
		   the BN output (fused), and writes to the fused Relu */
		assert_true(op->fused);
		assert_true(op->fepilogue);
		assert_true(op->out_fused);
		assert_rel(op->in_elems - op->fused_in_elems, 100.0, 1e-12);
	}
	assert_rel(convs, 2.0, 0);
	assert_rel(epi, 300.0, 1e-12);
	/* saved for the backward pass: x (conv 1 input), the BN inputs
	   (conv outputs), the Relu outputs: 5 tensors of 100 */
	assert_rel(S.saved_elems, 500.0, 1e-12);
	(void)r2;
}

/* SiLU, x * sigmoid(x), after a conv: both element-wise operators read
   the conv's output and fuse into its kernel (one region); a residual
   Add of two convolution branches fuses with one of them only, and reads
   the other's output from memory.  x [1, 2, 7, 7]: 98 per tensor. */
static void test_fusion_regions(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 4, 1.0, 2.0, 7.0, 7.0);
	int w = b_tensor(&B, true, 4, 2.0, 2.0, 3.0, 3.0);
	int g1 = b_tensor(&B, true, 1, 2.0), b1 = b_tensor(&B, true, 1, 2.0);
	int m1 = b_tensor(&B, true, 1, 2.0), v1 = b_tensor(&B, true, 1, 2.0);
	struct graph_node *c1 = b_node(&B, "Conv", 2, x, w);

	set_pads(c1, 1.0, 1.0);
	struct graph_node *sg = b_node(&B, "Sigmoid", 1, c1->out);
	struct graph_node *mu = b_node(&B, "Mul", 2, c1->out, sg->out);
	/* two branches from the SiLU output: conv + BN each, then Add */
	struct graph_node *c2 = b_node(&B, "Conv", 2, mu->out, w);
	struct graph_node *c3 = b_node(&B, "Conv", 2, mu->out, w);

	set_pads(c2, 1.0, 1.0);
	set_pads(c3, 1.0, 1.0);
	struct graph_node *n2 = b_node(&B, "BatchNormalization", 5, c2->out,
				       g1, b1, m1, v1);
	struct graph_node *n3 = b_node(&B, "BatchNormalization", 5, c3->out,
				       g1, b1, m1, v1);
	b_node(&B, "Add", 2, n2->out, n3->out);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	/* Sigmoid, Mul, both BNs (folded), the Add */
	assert_rel(S.fused, 5.0, 0);
	for (int i = 0; i < S.n_ops; i++) {
		const struct graph_op *op = &S.op[i];

		if (op->kind == GOP_BINARY && op->flops == 98.0 &&
		    op->in_elems == 196.0 && op->fused_in_elems == 196.0) {
			/* the Mul: x and sigmoid(x) both on chip */
			assert_true(op->fused);
			assert_int_equal(op->head, GOP_CONV);
		}
		if (op->kind == GOP_ACT)
			assert_true(op->fused && op->out_fused);
	}
	const struct graph_op *add = NULL;

	for (int i = 0; i < S.n_ops; i++)
		if (S.op[i].kind == GOP_BINARY && S.op[i].fused_in_elems < 196.0)
			add = &S.op[i];
	assert_non_null(add);
	/* the Add reads one branch (98 per sample) from memory */
	assert_rel(add->in_elems - add->fused_in_elems, 98.0, 1e-12);
	/* eager: the SiLU is one framework operator, its Mul inside the
	   Sigmoid's kernel reading nothing, the Sigmoid writing nothing;
	   the Add of two branches is a kernel of its own */
	assert_rel(S.efused, 1.0, 0);
	assert_false(add->efused);
	for (int i = 0; i < S.n_ops; i++) {
		const struct graph_op *op = &S.op[i];

		if (op->kind == GOP_ACT)
			assert_true(op->eout_fused && !op->efused);
		if (op->kind == GOP_BINARY && op != add) {
			assert_true(op->efused && !op->eout_fused);
			assert_rel(op->efused_in_elems, 196.0, 1e-12);
		}
		if (op->kind == GOP_CONV || op->kind == GOP_NORM)
			assert_false(op->efused || op->eout_fused);
	}
}

/* Eager views: a Transpose read only by a product of two activations
   (the keys of attention) is a view; one read by an element-wise
   operator is copied.  x [1, 3, 4]. */
static void test_eager_views(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 3, 1.0, 3.0, 4.0);
	struct graph_node *t1 = b_node(&B, "Transpose", 1, x);
	struct graph_node *t2 = b_node(&B, "Transpose", 1, x);

	for (int k = 0; k < 2; k++) {
		struct graph_lists *l = b_lists(k ? t2 : t1);

		l->perm_rank = 3;
		l->perm[0] = 0;
		l->perm[1] = 2;
		l->perm[2] = 1;
	}
	b_node(&B, "MatMul", 2, x, t1->out); /* scores [1, 3, 3] */
	b_node(&B, "Relu", 1, t2->out);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	assert_rel(S.eviews, 1.0, 0);
	assert_rel(S.kind_count[GOP_MOVE], 2.0, 0);
}

/* Eager composites of a transformer block as an export writes it: a
   Linear as MatMul and Add of its bias, GELU as Div, Erf, Add, Mul, Mul,
   and an Add of two tensors (the residual) that stays its own kernel.
   x [1, 3, 4]: 12 per tensor. */
static void test_eager_composites(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 3, 1.0, 3.0, 4.0);
	int w = b_tensor(&B, true, 2, 4.0, 4.0);
	int bias = b_tensor(&B, true, 1, 4.0);
	int c = b_tensor(&B, true, 1, 1.0);
	struct graph_node *mm = b_node(&B, "MatMul", 2, x, w);
	struct graph_node *ab = b_node(&B, "Add", 2, mm->out, bias);
	struct graph_node *dv = b_node(&B, "Div", 2, ab->out, c);
	struct graph_node *er = b_node(&B, "Erf", 1, dv->out);
	struct graph_node *a1 = b_node(&B, "Add", 2, er->out, c);
	struct graph_node *m1 = b_node(&B, "Mul", 2, ab->out, a1->out);
	struct graph_node *m2 = b_node(&B, "Mul", 2, m1->out, c);

	b_node(&B, "Add", 2, m2->out, x);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	/* the bias Add (into the product's epilogue: the product writes
	   the output, addmm) and GELU's Erf, Add, Mul, Mul */
	assert_rel(S.efused, 5.0, 0);
	assert_false(find_kind(&S, GOP_MATMUL)->eout_fused);
	int epilogues = 0;

	for (int i = 0; i < S.n_ops; i++) {
		const struct graph_op *op = &S.op[i];

		/* inside a composite: reads nothing of its inputs */
		if (op->efused)
			assert_rel(op->efused_in_elems, op->in_elems, 1e-12);
		if (op->eepilogue) {
			assert_true(op->efused);
			assert_int_equal(op->kind, GOP_BINARY);
			epilogues += (int)op->count;
		}
	}
	assert_int_equal(epilogues, 1);
	/* saved for the backward pass: the product's input x and GELU's
	   input (the Div's), 12 each; the composite's later operators
	   save nothing */
	assert_rel(S.saved_elems, 24.0, 1e-12);
}

/* Products: Gemm with transB, MatMul with a weight, and MatMul of two
   activations (attention scores) as batched GEMMs. */
static void test_products(void **state)
{
	(void)state;
	b_init(&B, 2.0);
	/* q, k [2, 3, 7, 5]: scores [2, 3, 7, 7] = 3 GEMMs 7 x 7 x 5 per
	   sample, 2 * 3 * 49 * 5 = 1470 FLOPs */
	int q = b_tensor(&B, false, 4, 2.0, 3.0, 7.0, 5.0);
	int kt = b_tensor(&B, false, 4, 2.0, 3.0, 5.0, 7.0);
	struct graph_node *s = b_node(&B, "MatMul", 2, q, kt);
	struct graph_node *p = b_node(&B, "Softmax", 1, s->out);
	int v = b_tensor(&B, false, 4, 2.0, 3.0, 7.0, 5.0);
	struct graph_node *o = b_node(&B, "MatMul", 2, p->out, v);
	/* [2, 11] x W[13, 11]^T + b -> [2, 13]: 2 * 13 * 11 = 286 */
	int a = b_tensor(&B, false, 2, 2.0, 11.0);
	int w = b_tensor(&B, true, 2, 13.0, 11.0);
	int bias = b_tensor(&B, true, 1, 13.0);
	struct graph_node *gm = b_node(&B, "Gemm", 3, a, w, bias);

	gm->trans_b = 1;
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_rel(B.t[o->out].dims[3], 5.0, 0);
	assert_rel(B.t[gm->out].dims[1], 13.0, 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	assert_rel(S.kind_count[GOP_BMM], 2.0, 0);
	assert_rel(S.kind_flops[GOP_BMM], 1470.0 * 2.0, 1e-12);
	assert_rel(S.kind_flops[GOP_MATMUL], 286.0, 1e-12);
	/* softmax: five FLOPs per element */
	assert_rel(S.kind_flops[GOP_SOFTMAX], 5.0 * 147.0, 1e-12);
	const struct graph_op *bm = find_kind(&S, GOP_BMM);

	assert_rel(bm->gemm_groups, 3.0, 1e-12);
	assert_rel(bm->gemm_m, 7.0, 1e-12);
	/* fused attention: the softmax into the scores, the second product
	   into the softmax; probabilities never reach memory */
	assert_rel(S.fused, 2.0, 0);
	assert_rel(S.params, 143.0 + 13.0, 1e-12);
	/* trained eagerly, the fused attention (an eager composite) keeps
	   q and k (105 each per sample), v (105) and its output (105),
	   not the probabilities (147); the Gemm its input (11) */
	assert_rel(S.saved_elems, 4.0 * 105.0 + 11.0, 1e-12);
}

/* Shapes the graph cannot give, and inputs that do not fit. */
static void test_errors(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 4, 1.0, 3.0, 8.0, 8.0);
	int s = b_tensor(&B, true, 1, 2.0);

	b_node(&B, "Relu", 1, x);
	b_node(&B, "Reshape", 2, x, s);
	/* node 2 (index 1): a Reshape's shape is read from the file */
	assert_int_equal(graph_infer_shapes(&B.g), 2);

	b_init(&B, 1.0);
	x = b_tensor(&B, false, 4, 1.0, 3.0, 8.0, 8.0);
	int w = b_tensor(&B, true, 4, 4.0, 5.0, 3.0, 3.0);
	struct graph_node *c = b_node(&B, "Conv", 2, x, w);

	/* 5 input channels per group in the weight, 3 in x */
	B.t[c->out].rank = 4;
	B.t[c->out].dims[0] = 1.0;
	B.t[c->out].dims[1] = 4.0;
	B.t[c->out].dims[2] = B.t[c->out].dims[3] = 6.0;
	assert_int_equal(graph_summarize(&B.g, &S), 1);
	assert_int_equal(S.n_ops, 0);
	/* a window larger than its input */
	b_init(&B, 1.0);
	x = b_tensor(&B, false, 4, 1.0, 3.0, 2.0, 2.0);
	w = b_tensor(&B, true, 4, 4.0, 3.0, 3.0, 3.0);
	b_node(&B, "Conv", 2, x, w);
	assert_int_equal(graph_infer_shapes(&B.g), 1);
}

/* Shape arithmetic is known when an engine is built: Shape, the Gather
   and Concat on its output cost nothing (a dynamic-shape export's
   Reshape chains); the Relu after the Reshape is the only kernel. */
static void test_shape_folding(void **state)
{
	(void)state;
	b_init(&B, 2.0);
	int x = b_tensor(&B, false, 3, 2.0, 4.0, 3.0);
	struct graph_node *sh = b_node(&B, "Shape", 1, x);
	int idx = b_tensor(&B, true, 1, 1.0);
	struct graph_node *ga = b_node(&B, "Gather", 2, sh->out, idx);
	int minus1 = b_tensor(&B, true, 1, 1.0);
	struct graph_node *cc = b_node(&B, "Concat", 2, ga->out, minus1);
	struct graph_node *rs = b_node(&B, "Reshape", 2, x, cc->out);

	cc->axis = 0;
	B.t[rs->out].rank = 2;
	B.t[rs->out].dims[0] = 2.0;
	B.t[rs->out].dims[1] = 12.0;
	b_node(&B, "Relu", 1, rs->out);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_true(B.t[sh->out].weight);
	assert_int_equal(B.t[sh->out].rank, 1);
	assert_rel(B.t[sh->out].dims[0], 3.0, 0);
	assert_true(B.t[cc->out].weight);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	assert_rel(S.kind_count[GOP_FREE], 4.0, 0);
	assert_rel(S.kind_count[GOP_MOVE], 0.0, 0);
	assert_int_equal(S.n_ops, 1);
	assert_rel(find_kind(&S, GOP_ACT)->in_elems, 12.0, 1e-12);
}

/* More distinct operators than classes: totals are kept. */
static void test_class_cap(void **state)
{
	double want = 0.0;
	int x;

	(void)state;
	b_init(&B, 1.0);
	x = b_tensor(&B, false, 2, 1.0, 7.0);
	for (int i = 0; i < GRAPH_CLASSES_MAX + 40; i++) {
		/* Gemm [1, 7 + i] x W[7 + i, 8 + i]: distinct shapes */
		int w = b_tensor(&B, true, 2, 7.0 + i, 8.0 + i);
		struct graph_node *n = b_node(&B, "Gemm", 2, x, w);

		want += 2.0 * (7.0 + i) * (8.0 + i);
		x = n->out;
	}
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &S), 0);
	assert_int_equal(S.n_ops, GRAPH_CLASSES_MAX);
	double flops = 0.0, count = 0.0;

	for (int i = 0; i < S.n_ops; i++) {
		flops += S.op[i].flops;
		count += S.op[i].count;
	}
	assert_rel(flops, want, 1e-12);
	assert_rel(S.flops, want, 1e-12);
	assert_rel(count, GRAPH_CLASSES_MAX + 40, 0);
}

/* ---- the reader, on models packed here ---- */

static Onnx__ValueInfoProto *value_info(const char *name, int rank,
					const int64_t *dims)
{
	Onnx__ValueInfoProto *vi = calloc(1, sizeof(*vi));
	Onnx__TypeProto *tp = calloc(1, sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = calloc(1, sizeof(*tt));
	Onnx__TensorShapeProto *sh = calloc(1, sizeof(*sh));

	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(sh);
	vi->name = (char *)name;
	vi->type = tp;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	tt->shape = sh;
	sh->n_dim = (size_t)rank;
	sh->dim = calloc((size_t)rank, sizeof(*sh->dim));
	for (int i = 0; i < rank; i++) {
		sh->dim[i] = calloc(1, sizeof(**sh->dim));
		onnx__tensor_shape_proto__dimension__init(sh->dim[i]);
		sh->dim[i]->value_case =
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		sh->dim[i]->dim_value = dims[i];
	}
	return vi;
}

static void value_info_free(Onnx__ValueInfoProto *vi)
{
	Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;

	for (size_t i = 0; i < sh->n_dim; i++)
		free(sh->dim[i]);
	free(sh->dim);
	free(sh);
	free(vi->type->tensor_type);
	free(vi->type);
	free(vi);
}

/* x [1, 3, 12, 12] -> Conv(w [5, 3, 3, 3], strides 2, no pads) -> Relu:
   out (12 - 3) / 2 + 1 = 5: 2 * 125 * 27 = 6750 FLOPs; 'shape_of_y'
   false leaves the Relu's output shape to the reader when 'op2' is
   Relu (inferable) or Reshape (not). */
static uint8_t *pack_model(const char *op2, size_t *len)
{
	static const int64_t xd[] = { 1, 3, 12, 12 }, wd[] = { 5, 3, 3, 3 };
	static const int64_t strides[] = { 2, 2 };
	Onnx__ModelProto m;
	Onnx__GraphProto g;
	Onnx__NodeProto conv, act, *nodes[2] = { &conv, &act };
	Onnx__TensorProto w, *inits[1] = { &w };
	Onnx__AttributeProto st, *attrs[1] = { &st };
	Onnx__ValueInfoProto *in = value_info("x", 4, xd), *ins[1] = { in };
	char *conv_in[] = { (char *)"x", (char *)"w" }, *conv_out[] = {
		(char *)"c"
	};
	char *act_in[] = { (char *)"c", (char *)"w" },
	     *act_out[] = { (char *)"y" };
	uint8_t *buf;

	onnx__model_proto__init(&m);
	onnx__graph_proto__init(&g);
	onnx__node_proto__init(&conv);
	onnx__node_proto__init(&act);
	onnx__tensor_proto__init(&w);
	onnx__attribute_proto__init(&st);
	w.name = (char *)"w";
	w.has_data_type = 1;
	w.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	w.n_dims = 4;
	w.dims = (int64_t *)wd;
	st.name = (char *)"strides";
	st.n_ints = 2;
	st.ints = (int64_t *)strides;
	conv.op_type = (char *)"Conv";
	conv.name = (char *)"conv0";
	conv.n_input = 2;
	conv.input = conv_in;
	conv.n_output = 1;
	conv.output = conv_out;
	conv.n_attribute = 1;
	conv.attribute = attrs;
	act.op_type = (char *)op2;
	act.name = (char *)"second";
	act.n_input = strcmp(op2, "Reshape") == 0 ? 2 : 1;
	act.input = act_in;
	act.n_output = 1;
	act.output = act_out;
	g.n_node = 2;
	g.node = nodes;
	g.n_initializer = 1;
	g.initializer = inits;
	g.n_input = 1;
	g.input = ins;
	m.graph = &g;
	m.has_ir_version = 1;
	m.ir_version = 8;
	*len = onnx__model_proto__get_packed_size(&m);
	buf = malloc(*len);
	onnx__model_proto__pack(&m, buf);
	value_info_free(in);
	return buf;
}

static void test_read_packed(void **state)
{
	struct diag err;
	size_t len;
	uint8_t *buf = pack_model("Relu", &len);

	(void)state;
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len, "m.onnx", &S, &err), 0);
	assert_rel(S.nodes, 2.0, 0);
	assert_rel(S.kind_flops[GOP_CONV], 6750.0, 1e-12);
	assert_rel(S.kind_flops[GOP_ACT], 125.0, 1e-12);
	/* weights, and the folded norm's gain and shift */
	assert_rel(S.params, 135.0 + 10.0, 1e-12);
	assert_rel(S.fused, 1.0, 0);
	free(buf);

	/* a Reshape without its output's shape: the node is named */
	buf = pack_model("Reshape", &len);
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len, "m.onnx", &S, &err),
			 -1);
	assert_string_equal(err.file, "m.onnx");
	assert_contains(err.msg, "node 'second' (Reshape)");
	assert_contains(err.msg, "value_info");
	/* cut short: not a model */
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len / 2, "m.onnx", &S, &err),
			 -1);
	assert_contains(err.msg, "not an ONNX model");
	free(buf);
}

/* Weights kept as Constant nodes (older exporters): parameters all the
   same.  The seed (tests/fuzz/seeds/onnx, written with python3-onnx):
   Constant w [4, 3, 3, 3] -> Conv(x [1, 3, 8, 8], pads 1) -> Relu. */
static void test_read_constant_weights(void **state)
{
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(onnx_summary_load(
				 "tests/fuzz/seeds/onnx/constant-weights.onnx",
				 &S, &err),
			 0);
	/* 108 weights; no normalization: the folded norm's gain and
	   shift of 4 channels */
	assert_rel(S.params, 108.0 + 8.0, 1e-12);
	/* 2 * (4 * 64) * 27 */
	assert_rel(S.kind_flops[GOP_CONV], 13824.0, 1e-12);
}

static void test_read_bad_files(void **state)
{
	static const char junk[] = "\x0a\xff\xff\xff\xff\x0f garbage";
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(junk, sizeof(junk) - 1, "j.onnx",
					    &S, &err),
			 -1);
	assert_string_equal(err.file, "j.onnx");
	assert_contains(err.msg, "not an ONNX model");
	/* no bytes: a model without a graph */
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse("", 0, "e.onnx", &S, &err), -1);
	assert_contains(err.msg, "has no graph");
	/* a missing file */
	diag_clear(&err);
	assert_int_equal(onnx_summary_load("/nonexistent/x.onnx", &S, &err),
			 -1);
	assert_string_equal(err.file, "");
	assert_contains(err.msg, "/nonexistent/x.onnx");
	assert_int_equal(err.kind, DIAG_IO);
}

/*
 * The bound on operators (GRAPH_NODES_MAX): a chain of that many reads, one
 * more is an error naming the limit, before any graph is built.  Conv(x,
 * w) -> t0, then Relu(t[i - 1]) -> t[i].
 */
static uint8_t *pack_chain(int n, size_t *len)
{
	static const int64_t xd[] = { 1, 3, 8, 8 };
	static const int64_t wd[] = { 4, 3, 3, 3 };
	Onnx__ModelProto m;
	Onnx__GraphProto g;
	Onnx__TensorProto w, *inits[1] = { &w };
	Onnx__ValueInfoProto *in = value_info("x", 4, xd), *ins[1] = { in };
	Onnx__NodeProto *nodes = calloc((size_t)n, sizeof(*nodes));
	Onnx__NodeProto **np = calloc((size_t)n, sizeof(*np));
	char (*names)[16] = calloc((size_t)n + 1, sizeof(*names));
	char **io = calloc(2 * (size_t)n + 1, sizeof(*io));
	char *conv_in[] = { (char *)"x", (char *)"w" };
	uint8_t *buf;

	assert_true(nodes && np && names && io);
	onnx__model_proto__init(&m);
	onnx__graph_proto__init(&g);
	onnx__tensor_proto__init(&w);
	w.name = (char *)"w";
	w.has_data_type = 1;
	w.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	w.n_dims = 4;
	w.dims = (int64_t *)wd;
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "t%d", i);
		onnx__node_proto__init(&nodes[i]);
		np[i] = &nodes[i];
		nodes[i].op_type = (char *)(i ? "Relu" : "Conv");
		io[2 * i] = i ? names[i - 1] : NULL;
		io[2 * i + 1] = names[i];
		nodes[i].n_input = i ? 1 : 2;
		nodes[i].input = i ? &io[2 * i] : conv_in;
		nodes[i].n_output = 1;
		nodes[i].output = &io[2 * i + 1];
	}
	g.n_node = (size_t)n;
	g.node = np;
	g.n_initializer = 1;
	g.initializer = inits;
	g.n_input = 1;
	g.input = ins;
	m.graph = &g;
	m.has_ir_version = 1;
	m.ir_version = 8;
	*len = onnx__model_proto__get_packed_size(&m);
	buf = malloc(*len);
	assert_non_null(buf);
	onnx__model_proto__pack(&m, buf);
	value_info_free(in);
	free(io);
	free(names);
	free(np);
	free(nodes);
	return buf;
}

static void test_read_node_limit(void **state)
{
	struct diag err;
	size_t len;
	uint8_t *buf;
	char want[160];

	(void)state;
	buf = pack_chain(GRAPH_NODES_MAX, &len);
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len, "big.onnx", &S, &err),
			 0);
	assert_rel(S.nodes, GRAPH_NODES_MAX, 0);
	free(buf);
	buf = pack_chain(GRAPH_NODES_MAX + 1, &len);
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len, "big.onnx", &S, &err),
			 -1);
	snprintf(want, sizeof(want),
		 "the ONNX graph has %d operators: at most %d expected (the "
		 "limit that bounds capplan's memory and time)",
		 GRAPH_NODES_MAX + 1, GRAPH_NODES_MAX);
	assert_string_equal(err.file, "big.onnx");
	assert_int_equal(err.kind, DIAG_INPUT);
	assert_string_equal(err.msg, want);
	free(buf);
}

/* ---- hostile graphs (issue 40) ---- */

/* One node of a model packed by pack_graph: at most three inputs, one
   output, one list attribute. */
struct pnode {
	const char *op, *name;
	const char *in[3];
	const char *out;
	const char *attr; /* NULL: none */
	int n_ints;
	int64_t ints[4];
};

/*
 * A model of 'n' nodes reading graph input 'x' [1, 3, 'h', 8] ('h' may
 * be negative) and "w" [4, 3, 3, 3]: with 'weights' a float initializer,
 * else a graph input (as torch.onnx.export writes a model with
 * export_params=False).  The caller frees the bytes.
 */
static uint8_t *pack_graph(const struct pnode *pn, int n, int64_t h,
			   bool weights, size_t *len)
{
	const int64_t xd[] = { 1, 3, h, 8 };
	static const int64_t wd[] = { 4, 3, 3, 3 };
	Onnx__ModelProto m;
	Onnx__GraphProto g;
	Onnx__NodeProto nodes[4], *np[4];
	Onnx__AttributeProto at[4], *ap[4];
	Onnx__TensorProto w, *inits[1] = { &w };
	Onnx__ValueInfoProto *in = value_info("x", 4, xd);
	Onnx__ValueInfoProto *win = value_info("w", 4, wd);
	Onnx__ValueInfoProto *ins[2] = { in, win };
	char *ins_of[4][3], *outs_of[4][1];
	uint8_t *buf;

	assert_true(n <= 4);
	onnx__model_proto__init(&m);
	onnx__graph_proto__init(&g);
	onnx__tensor_proto__init(&w);
	w.name = (char *)"w";
	w.has_data_type = 1;
	w.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
	w.n_dims = 4;
	w.dims = (int64_t *)wd;
	for (int i = 0; i < n; i++) {
		int k = 0;

		onnx__node_proto__init(&nodes[i]);
		np[i] = &nodes[i];
		nodes[i].op_type = (char *)pn[i].op;
		nodes[i].name = (char *)pn[i].name;
		while (k < 3 && pn[i].in[k]) {
			ins_of[i][k] = (char *)pn[i].in[k];
			k++;
		}
		nodes[i].n_input = (size_t)k;
		nodes[i].input = ins_of[i];
		outs_of[i][0] = (char *)pn[i].out;
		nodes[i].n_output = 1;
		nodes[i].output = outs_of[i];
		if (pn[i].attr) {
			onnx__attribute_proto__init(&at[i]);
			ap[i] = &at[i];
			at[i].name = (char *)pn[i].attr;
			at[i].n_ints = (size_t)pn[i].n_ints;
			at[i].ints = (int64_t *)pn[i].ints;
			nodes[i].n_attribute = 1;
			nodes[i].attribute = &ap[i];
		}
	}
	g.n_node = (size_t)n;
	g.node = np;
	g.n_initializer = weights ? 1 : 0;
	g.initializer = inits;
	g.n_input = weights ? 1 : 2;
	g.input = ins;
	m.graph = &g;
	m.has_ir_version = 1;
	m.ir_version = 8;
	*len = onnx__model_proto__get_packed_size(&m);
	buf = malloc(*len);
	assert_non_null(buf);
	onnx__model_proto__pack(&m, buf);
	value_info_free(in);
	value_info_free(win);
	return buf;
}

/* The reader fails on 'pn' with exactly 'msg', in file "h.onnx". */
static void expect_graph_error(const struct pnode *pn, int n, int64_t h,
			       bool weights, const char *msg)
{
	struct diag err;
	size_t len;
	uint8_t *buf = pack_graph(pn, n, h, weights, &len);

	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len, "h.onnx", &S, &err),
			 -1);
	assert_string_equal(err.file, "h.onnx");
	assert_int_equal(err.kind, DIAG_INPUT);
	assert_string_equal(err.msg, msg);
	free(buf);
}

/*
 * What is wrong with a graph is said of the graph: before, a graph without
 * weights reached the workload as "a generic model needs [model] params
 * and flops_per_sample", a cycle was costed, and negative dimensions and
 * zero strides were read as unknown shapes or as 1.
 */
static void test_read_hostile(void **state)
{
	static const struct pnode conv = { "Conv", "conv0", { "x", "w" }, "y",
					   NULL, 0, { 0 } };
	struct pnode p[3];
	size_t len;
	uint8_t *buf;
	struct diag err;

	(void)state;
	/* the control: conv0 alone reads */
	buf = pack_graph(&conv, 1, 8, true, &len);
	diag_clear(&err);
	assert_int_equal(onnx_summary_parse(buf, len, "h.onnx", &S, &err), 0);
	free(buf);

	/* no weights: a Relu of the input */
	p[0] = (struct pnode){ "Relu", "relu0", { "x" }, "y", NULL, 0, { 0 } };
	expect_graph_error(p, 1, 8, false,
			   "the graph has no weights (no floating-point "
			   "initializer or Constant): a network exported with "
			   "its parameters expected (torch.onnx.export with "
			   "export_params=True, the default)");
	/* ... nor do weights given as graph inputs (export_params=False) */
	expect_graph_error(&conv, 1, 8, false,
			   "the graph has no weights (no floating-point "
			   "initializer or Constant): a network exported with "
			   "its parameters expected (torch.onnx.export with "
			   "export_params=True, the default)");

	/* a cycle: s = x + b, a = conv(s), b = relu(a) */
	p[0] = (struct pnode){ "Add", "add0", { "x", "b" }, "s", NULL, 0,
			       { 0 } };
	p[1] = (struct pnode){ "Conv", "conv0", { "s", "w" }, "a", "pads", 4,
			       { 1, 1, 1, 1 } };
	p[2] = (struct pnode){ "Relu", "relu0", { "a" }, "b", NULL, 0, { 0 } };
	expect_graph_error(p, 3, 8, true,
			   "the graph has a cycle through node 'add0' (Add): "
			   "its output 's' leads back to its own inputs; an "
			   "ONNX graph is acyclic");
	/* a node that reads its own output, after a good one */
	p[0] = conv;
	p[1] = (struct pnode){ "Add", "self0", { "y", "z" }, "z", NULL, 0,
			       { 0 } };
	expect_graph_error(p, 2, 8, true,
			   "the graph has a cycle through node 'self0' (Add): "
			   "its output 'z' leads back to its own inputs; an "
			   "ONNX graph is acyclic");

	/* a negative dimension of the input */
	expect_graph_error(&conv, 1, -8, true,
			   "graph input 'x': dimension 2 is -8: a size of 0 or "
			   "more expected");

	/* window attributes out of range, each named with its node */
	p[0] = conv;
	p[0].attr = "strides";
	p[0].n_ints = 2;
	p[0].ints[0] = p[0].ints[1] = 0;
	expect_graph_error(p, 1, 8, true,
			   "node 'conv0' (Conv): attribute 'strides' is "
			   "[0, 0]: each value 1 or more expected");
	p[0].attr = "dilations";
	p[0].ints[0] = 1;
	p[0].ints[1] = -2;
	expect_graph_error(p, 1, 8, true,
			   "node 'conv0' (Conv): attribute 'dilations' is "
			   "[1, -2]: each value 1 or more expected");
	p[0].attr = "pads";
	p[0].n_ints = 4;
	p[0].ints[0] = p[0].ints[1] = p[0].ints[2] = 0;
	p[0].ints[3] = -1;
	expect_graph_error(p, 1, 8, true,
			   "node 'conv0' (Conv): attribute 'pads' is "
			   "[0, 0, 0, -1]: each value 0 or more expected");
	p[0] = conv;
	p[1] = (struct pnode){ "MaxPool", "pool0", { "y" }, "z",
			       "kernel_shape", 2, { -2, 2 } };
	expect_graph_error(p, 2, 8, true,
			   "node 'pool0' (MaxPool): attribute 'kernel_shape' "
			   "is [-2, 2]: each value 1 or more expected");
	p[1] = (struct pnode){ "ConvTranspose", "up0", { "y", "w" }, "z",
			       "output_padding", 2, { 0, -1 } };
	expect_graph_error(p, 2, 8, true,
			   "node 'up0' (ConvTranspose): attribute "
			   "'output_padding' is [0, -1]: each value 0 or more "
			   "expected");

	/* weights, but nothing that computes: a Transpose */
	p[0] = (struct pnode){ "Transpose", "t0", { "x" }, "y", "perm", 4,
			       { 0, 1, 3, 2 } };
	expect_graph_error(p, 1, 8, true,
			   "the graph does no arithmetic (0 FLOPs per sample): "
			   "its operators only move data; a network expected");
}

/* graph_find_cycle on graphs built by hand, and which operators have a
   window whose attributes the reader checks. */
static void test_find_cycle(void **state)
{
	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 2, 1.0, 7.0);
	struct graph_node *n0 = b_node(&B, "Relu", 1, x);
	struct graph_node *n1 = b_node(&B, "Relu", 1, n0->out);
	struct graph_node *n2 = b_node(&B, "Relu", 1, n1->out);

	assert_int_equal(graph_find_cycle(&B.g), 0);
	/* n1 reads n2's output: n1 -> n2 -> n1; n0 is outside */
	B.in[n1->in_first] = n2->out;
	assert_int_equal(graph_find_cycle(&B.g), 2);
	/* n0 reads n2's output: n0 -> n1 -> n2 -> n0 */
	B.in[n1->in_first] = n0->out;
	B.in[n0->in_first] = n2->out;
	assert_int_equal(graph_find_cycle(&B.g), 1);
	/* out of order but acyclic: n0 reads n1, n1 reads x */
	b_init(&B, 1.0);
	x = b_tensor(&B, false, 2, 1.0, 7.0);
	n0 = b_node(&B, "Relu", 1, x);
	n1 = b_node(&B, "Relu", 1, x);
	B.in[n0->in_first] = n1->out;
	assert_int_equal(graph_find_cycle(&B.g), 0);
	/* a node of its own */
	B.in[n1->in_first] = n1->out;
	assert_int_equal(graph_find_cycle(&B.g), 2);

	assert_true(graph_op_windowed("Conv"));
	assert_true(graph_op_windowed("ConvTranspose"));
	assert_true(graph_op_windowed("MaxPool"));
	assert_true(graph_op_windowed("AveragePool"));
	assert_false(graph_op_windowed("Pad"));
	assert_false(graph_op_windowed("Relu"));
	assert_false(graph_op_windowed("GlobalAveragePool"));
	assert_false(graph_op_windowed("NoSuchOp"));
}

/* ---- time ---- */

static struct gpu_spec test_gpu(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "graph-test");
	g.mem_bytes = 40e9;
	g.mem_bw_bytes_per_s = 1.555e12;
	g.peak_flops[PREC_FP32] = 19.5e12;
	g.peak_flops[PREC_TF32] = 156e12;
	g.peak_flops[PREC_FP16] = 312e12;
	g.peak_flops[PREC_BF16] = 312e12;
	g.matmul_eff = 0.8;
	g.mem_eff = 0.9;
	g.tdp_w = 400.0;
	g.gpus_per_node = 8;
	return g;
}

/* One conv and its Relu, trained and served at batch 37: the times are
   the kernel model's (model_kernel.h) composed as 14.6 writes them. */
static void test_graph_time(void **state)
{
	struct gpu_spec g = test_gpu();
	struct device_perf d, dv;
	struct model_spec *m = calloc(1, sizeof(*m));
	struct train_config c;
	struct cluster cl;
	struct train_result r;
	struct sample_infer si;
	double b = 37.0;

	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 4, 1.0, 16.0, 20.0, 20.0);
	int w = b_tensor(&B, true, 4, 24.0, 16.0, 3.0, 3.0);
	struct graph_node *cv = b_node(&B, "Conv", 2, x, w);

	set_pads(cv, 1.0, 1.0);
	b_node(&B, "Relu", 1, cv->out);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &m->graph), 0);
	m->kind = MODEL_GENERIC;
	m->params = m->graph.params;
	m->flops_per_sample = m->graph.flops;

	memset(&c, 0, sizeof(c));
	c.gpus = 1;
	c.tp = c.pp = c.vp = c.cp = c.ep = 1;
	c.dp = 1;
	c.micro_batch = 37;
	c.micro_batches = 1;
	c.global_batch = 37;
	c.precision = PREC_FP16;
	c.optimizer = OPTIMIZER_SGD;
	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 300e9;
	cl.inter_bw_bytes_per_s = 25e9;
	assert_int_equal(sample_train_eval(m, &c, &g, &cl, &r), 0);
	assert_int_equal(device_perf_init(&d, &g, PREC_FP16, false), 0);
	assert_int_equal(device_perf_init(&dv, &g, PREC_FP32, false), 0);
	/* conv: 400 rows per sample, 24 columns, K = 144; reads 6400 and
	   writes 9600 elements per sample, 3456 weights, 2 bytes each */
	double io = (6400.0 + 9600.0) * b * 2.0 + 3456.0 * 2.0;
	double conv = kernel_gemm_io_s(&d, 400.0 * b, 24.0, 144.0, 1.0, io);
	/* Relu: 9600 FLOPs per sample; forward reads and writes 9600,
	   backward reads two (gradient, saved output) and writes one */
	double e = 9600.0 * b * 2.0;
	double relu_f = kernel_roofline_s(&dv, 9600.0 * b, 2.0 * e);
	double relu_b = kernel_roofline_s(&dv, 9600.0 * b, 3.0 * e);
	/* the batch norm folded into the conv trains: five FLOPs per
	   element; forward reads its input twice and writes once,
	   backward reads 3 and writes 2 (14.8); gain, shift, mean and
	   variance of 24 channels, read once forward, twice backward */
	double bn_f = kernel_roofline_s(&dv, 5.0 * 9600.0 * b,
					3.0 * e + 96.0 * 2.0);
	double bn_b = kernel_roofline_s(&dv, 5.0 * 9600.0 * b,
					5.0 * e + 2.0 * 96.0 * 2.0);

	assert_rel(r.time.compute_s,
		   3.0 * conv + relu_f + relu_b + bn_f + bn_b, 1e-12);
	/* saved: the conv input, the norm's input, the Relu output */
	assert_rel(r.memory.activations_bytes,
		   (6400.0 + 9600.0 + 9600.0) * 2.0 * b, 1e-12);

	/* serving fused (inference.fusion): the Relu fused into the conv
	   (no kernel of its own) as its epilogue: the conv's output stays
	   on chip, the Relu's output is written by the conv, under its
	   arithmetic, so the conv's bytes are those of the eager conv */
	struct serve_costs sc = serve_costs_default();

	sc.fusion = true;
	assert_int_equal(sample_infer_eval_costs(m, 1, 37, PREC_FP16, &sc,
						 &g, &cl, &si),
			 0);
	double conv_i = kernel_gemm_io_s(&d, 400.0 * b, 24.0, 144.0, 1.0, io);

	/* on the GPU; the batch adds the framework's fixed host time */
	assert_rel(si.gpu_s, conv_i, 1e-12);
	assert_rel(si.latency_s, WL_FRAMEWORK_OVERHEAD_S + conv_i, 1e-12);
	/* one kernel: the Relu runs in the conv's epilogue */
	assert_rel(si.kernels, 1.0, 0.0);

	/* served eagerly (the default): the batch norm the graph lacks
	   (folded by the export) runs after the conv as PyTorch's eval
	   mode runs it, reading and writing 9600 elements with its 96
	   statistics: three kernels, each writing its output for the next */
	assert_int_equal(sample_infer_eval(m, 1, 37, PREC_FP16, &g, &cl, &si),
			 0);
	assert_rel(si.gpu_s,
		   conv + kernel_roofline_s(&dv, 5.0 * 9600.0 * b,
					    2.0 * e + 96.0 * 2.0) +
			   kernel_roofline_s(&dv, 9600.0 * b, 2.0 * e),
		   1e-12);
	assert_rel(si.kernels, 3.0, 0.0);
	free(m);
}

/*
 * A depthwise convolution trains as PyTorch's kernels run it
 * (specs/models.md 14.8): forward one pass over its input and output;
 * backward the input's gradient (one pass each way) and the weight's
 * gradient, which reads the output's gradient and the tapped input once
 * per filter tap.  x [1, 6, 10, 10], w [6, 1, 3, 3], pads 1 -> 600
 * elements in and out per sample, 10800 FLOPs, 54 weights, 9 taps;
 * a batch norm after it (so none is added for a folded one).
 */
static void test_graph_time_dwconv(void **state)
{
	struct gpu_spec g = test_gpu();
	struct device_perf dv;
	struct model_spec *m = calloc(1, sizeof(*m));
	struct train_config c;
	struct cluster cl;
	struct train_result r;
	double b = 37.0, e = 2.0;

	(void)state;
	b_init(&B, 1.0);
	int x = b_tensor(&B, false, 4, 1.0, 6.0, 10.0, 10.0);
	int wd = b_tensor(&B, true, 4, 6.0, 1.0, 3.0, 3.0);
	struct graph_node *dw = b_node(&B, "Conv", 2, x, wd);

	dw->group = 6.0;
	set_pads(dw, 1.0, 1.0);
	int g1 = b_tensor(&B, true, 1, 6.0);
	int g2 = b_tensor(&B, true, 1, 6.0);
	int g3 = b_tensor(&B, true, 1, 6.0);
	int g4 = b_tensor(&B, true, 1, 6.0);

	b_node(&B, "BatchNormalization", 5, dw->out, g1, g2, g3, g4);
	assert_int_equal(graph_infer_shapes(&B.g), 0);
	assert_int_equal(graph_summarize(&B.g, &m->graph), 0);
	assert_rel(find_kind(&m->graph, GOP_DWCONV)->gemm_k, 9.0, 0);
	m->kind = MODEL_GENERIC;
	m->params = m->graph.params;
	m->flops_per_sample = m->graph.flops;

	memset(&c, 0, sizeof(c));
	c.gpus = 1;
	c.tp = c.pp = c.vp = c.cp = c.ep = 1;
	c.dp = 1;
	c.micro_batch = 37;
	c.micro_batches = 1;
	c.global_batch = 37;
	c.precision = PREC_FP16;
	c.optimizer = OPTIMIZER_SGD;
	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 300e9;
	cl.inter_bw_bytes_per_s = 25e9;
	assert_int_equal(sample_train_eval(m, &c, &g, &cl, &r), 0);
	assert_int_equal(device_perf_init(&dv, &g, PREC_FP32, false), 0);

	double a = 600.0 * b * e, fl = 10800.0 * b, w = 54.0 * e;
	double dw_f = kernel_roofline_s(&dv, fl, 2.0 * a + w);
	/* the input's gradient: the output's gradient read, the input's
	   written, the weights read; the weight's gradient: 2 x 9 passes
	   over the output's 600 elements, the weights' gradient written */
	double dw_b = kernel_roofline_s(&dv, fl, 2.0 * a + w) +
		      kernel_roofline_s(&dv, fl, 18.0 * a + w);
	/* the batch norm: 5 FLOPs an element, 3 passes forward, 5 backward,
	   its 24 statistics and weights (14.8) */
	double bn_f = kernel_roofline_s(&dv, 5.0 * 600.0 * b,
					3.0 * a + 24.0 * e);
	double bn_b = kernel_roofline_s(&dv, 5.0 * 600.0 * b,
					5.0 * a + 2.0 * 24.0 * e);

	assert_rel(r.time.compute_s, dw_f + dw_b + bn_f + bn_b, 1e-12);
	free(m);
}

/* A graph exported for inference (the batch norm folded into the conv,
   which gained a bias) trains as the graph with the batch norm: same
   parameters, saved activations and, but for the bias read, step time;
   served eagerly it runs the batch norm too, fused it costs as the graph
   whose batch norm the engine folds. */
static void test_folded_norms(void **state)
{
	struct gpu_spec g = test_gpu();
	struct model_spec *m = calloc(2, sizeof(*m));
	struct train_config c;
	struct cluster cl;
	struct train_result r[2];

	(void)state;
	for (int v = 0; v < 2; v++) {
		b_init(&B, 1.0);
		int x = b_tensor(&B, false, 4, 1.0, 16.0, 20.0, 20.0);
		int w = b_tensor(&B, true, 4, 24.0, 16.0, 3.0, 3.0);
		struct graph_node *cv;

		if (v == 0) {
			cv = b_node(&B, "Conv", 2, x, w);
			set_pads(cv, 1.0, 1.0);
			int g1 = b_tensor(&B, true, 1, 24.0);
			int b1 = b_tensor(&B, true, 1, 24.0);
			int m1 = b_tensor(&B, true, 1, 24.0);
			int v1 = b_tensor(&B, true, 1, 24.0);
			struct graph_node *bn = b_node(&B, "BatchNormalization",
						       5, cv->out, g1, b1, m1,
						       v1);
			b_node(&B, "Relu", 1, bn->out);
		} else {
			int bias = b_tensor(&B, true, 1, 24.0);

			cv = b_node(&B, "Conv", 3, x, w, bias);
			set_pads(cv, 1.0, 1.0);
			b_node(&B, "Relu", 1, cv->out);
		}
		assert_int_equal(graph_infer_shapes(&B.g), 0);
		assert_int_equal(graph_summarize(&B.g, &m[v].graph), 0);
		m[v].kind = MODEL_GENERIC;
		m[v].params = m[v].graph.params;
		m[v].flops_per_sample = m[v].graph.flops;
	}
	assert_false(m[0].graph.norms_folded);
	assert_true(m[1].graph.norms_folded);
	assert_rel(m[1].graph.folded_norms, 1.0, 0);
	/* 3456 weights, gain and shift of 24 channels */
	assert_rel(m[0].graph.params, 3456.0 + 48.0, 1e-12);
	assert_rel(m[1].graph.params, m[0].graph.params, 1e-12);
	assert_rel(m[1].graph.saved_elems, m[0].graph.saved_elems, 1e-12);
	memset(&c, 0, sizeof(c));
	c.gpus = c.tp = c.pp = c.vp = c.cp = c.ep = c.dp = 1;
	c.micro_batch = c.global_batch = 53;
	c.micro_batches = 1;
	c.precision = PREC_BF16;
	c.optimizer = OPTIMIZER_SGD;
	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 300e9;
	cl.inter_bw_bytes_per_s = 25e9;
	for (int v = 0; v < 2; v++)
		assert_int_equal(sample_train_eval(&m[v], &c, &g, &cl, &r[v]),
				 0);
	/* the bias (24 elements) is the only difference */
	assert_rel(r[1].time.compute_s, r[0].time.compute_s, 1e-4);
	assert_true(r[1].time.compute_s != r[0].time.compute_s);
	assert_rel(r[1].memory.activations_bytes, r[0].memory.activations_bytes,
		   1e-12);
	for (int fused = 0; fused < 2; fused++) {
		struct serve_costs sc = serve_costs_default();
		struct sample_infer si[2];

		sc.fusion = fused;
		for (int v = 0; v < 2; v++)
			assert_int_equal(sample_infer_eval_costs(&m[v], 1, 53,
								 PREC_BF16, &sc,
								 &g, &cl,
								 &si[v]),
					 0);
		assert_rel(si[1].kernels, si[0].kernels, 0.0);
		assert_rel(si[0].kernels, fused ? 1.0 : 3.0, 0.0);
		/* but for the bias read (fused: the batch norm's statistics
		   folded away in both) */
		assert_rel(si[1].gpu_s, si[0].gpu_s, 1e-3);
	}
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conv_strided),
		cmocka_unit_test(test_conv_transpose),
		cmocka_unit_test(test_argmax),
		cmocka_unit_test(test_mul_backward),
		cmocka_unit_test(test_conv_depthwise_grouped),
		cmocka_unit_test(test_fusion_residual),
		cmocka_unit_test(test_fusion_regions),
		cmocka_unit_test(test_eager_composites),
		cmocka_unit_test(test_eager_views),
		cmocka_unit_test(test_products),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_shape_folding),
		cmocka_unit_test(test_class_cap),
		cmocka_unit_test(test_read_packed),
		cmocka_unit_test(test_read_constant_weights),
		cmocka_unit_test(test_read_bad_files),
		cmocka_unit_test(test_read_hostile),
		cmocka_unit_test(test_read_node_limit),
		cmocka_unit_test(test_find_cycle),
		cmocka_unit_test(test_graph_time),
		cmocka_unit_test(test_graph_time_dwconv),
		cmocka_unit_test(test_folded_norms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
