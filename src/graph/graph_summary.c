/* graph_summary.c - operator graphs costed per operator; see graph.h
   and specs/models.md, section 14.8. */
#include "graph.h"
#include "graph_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *graph_norms_note(const struct graph_summary *s, char *buf,
			     size_t len)
{
	snprintf(buf, len,
		 "%.0f layer norm%s written out by the export as ReduceMean "
		 "arithmetic, each costed as one normalization, as the "
		 "framework runs it",
		 s->written_norms, s->written_norms == 1.0 ? "" : "s");
	return buf;
}

/* Elements of 't' per sample: activations carry the batch. */
static double per_sample(const struct graph *g, const struct graph_tensor *t)
{
	return t->weight ? graph_elems(t) : graph_elems(t) / g->batch;
}

/* Whether 'k' is a kernel whose epilogue can take element-wise work. */
static bool fusion_head(enum graph_op_kind k)
{
	switch (k) {
	case GOP_CONV:
	case GOP_DWCONV:
	case GOP_MATMUL:
	case GOP_BMM:
	case GOP_NORM:
	case GOP_ACT:
	case GOP_BINARY:
	case GOP_SOFTMAX:
		return true;
	default:
		return false;
	}
}

/*
 * Whether an operator of kind 'k' (op_type 'op') fuses into a producer
 * of kind 'pk' heading a kernel of kind 'phead' (inference, TensorRT-style;
 * specs/models.md 14.8):
 * element-wise operators into any fusion head; a BatchNormalization into
 * a convolution (folded into its weights); a softmax into the product
 * that made the scores and the product that reads the probabilities into
 * the softmax (fused attention).
 */
static bool fuses(enum graph_op_kind k, const char *op, enum graph_op_kind pk,
		  enum graph_op_kind phead)
{
	if (k == GOP_ACT || k == GOP_BINARY)
		return fusion_head(pk);
	if (k == GOP_NORM && strcmp(op, "BatchNormalization") == 0)
		return pk == GOP_CONV || pk == GOP_DWCONV || pk == GOP_MATMUL;
	if (k == GOP_SOFTMAX)
		/* the scores' product, or its scaling or mask fused into
		   it */
		return phead == GOP_BMM &&
		       (pk == GOP_BMM || pk == GOP_ACT || pk == GOP_BINARY);
	if (k == GOP_BMM)
		return pk == GOP_SOFTMAX;
	return false;
}

/* Whether node 'n' (an Add) adds a bias vector to the output of a
   product read by it alone. */
static bool linear_bias(const struct graph *g, const struct graph_node *n,
			const struct graph_op *ops)
{
	const struct graph_tensor *a, *b;

	if (n->n_in != 2)
		return false;
	a = graph_in(g, n, 0);
	b = graph_in(g, n, 1);
	if (!a || !b || a->weight == b->weight)
		return false;
	if (a->weight) {
		const struct graph_tensor *t = a;

		a = b;
		b = t;
	}
	return a->producer >= 0 && a->consumers == 1 &&
	       ops[a->producer].kind == GOP_MATMUL && b->rank == 1;
}

/*
 * Eager composites (specs/models.md 14.8): node 'i', an element-wise
 * operator, is a function of one tensor T when each of its activation
 * inputs is T or the output of an element-wise node of T's chain read by
 * it alone.  It then continues that chain's kernel (SiLU's Mul after its
 * Sigmoid, the four operators after GELU's Div), as the framework's
 * single operator runs it: it reads none of its inputs and its
 * producers in the chain write nothing.  eroot[i] is T, or -1 when node
 * 'i' is not element-wise or reads two tensors (a residual Add).
 */
static void eager_composite(const struct graph *g, int i,
			    struct graph_op *ops, const int *chain, int *eroot)
{
	const struct graph_node *n = &g->nodes[i];
	struct graph_op *op = &ops[i];
	int root = -1;
	bool chained = false;

	eroot[i] = -1;
	if (op->fused && op->head == GOP_BMM) {
		/* attention the export decomposed (the scores' product,
		   their scaling, the softmax, the values' product): the
		   framework's scaled_dot_product_attention runs it as one
		   fused kernel, as the inference engine does */
		op->efused = true;
		op->efused_in_elems = op->fused_in_elems;
		for (int k = 0; k < n->n_in; k++) {
			const struct graph_tensor *x = graph_in(g, n, k);
			int p = x ? x->producer : -1;

			if (x && !x->weight && p >= 0 && p < i &&
			    chain[p] == chain[i])
				ops[p].eout_fused = true;
		}
		return;
	}
	if (op->kind != GOP_ACT && op->kind != GOP_BINARY)
		return;
	if (strcmp(n->op_type, "Add") == 0 && linear_bias(g, n, ops)) {
		/* a Linear the export split into MatMul and Add: the
		   framework adds the bias in the product's epilogue
		   (addmm), which writes the output as the product alone
		   would, under its arithmetic */
		const struct graph_tensor *x = graph_in(g, n, 0);

		if (x->weight)
			x = graph_in(g, n, 1);
		op->efused = true;
		op->eepilogue = true;
		op->efused_in_elems = per_sample(g, x);
		return;
	}
	for (int k = 0; k < n->n_in; k++) {
		int t = g->inputs[n->in_first + k];
		const struct graph_tensor *x = graph_in(g, n, k);
		int p = x ? x->producer : -1, r = t;

		if (!x || x->weight)
			continue;
		if (p >= 0 && p < i && eroot[p] >= 0 && x->consumers == 1) {
			r = eroot[p];
			chained = true;
		}
		if (root >= 0 && r != root)
			return; /* two tensors: a kernel of its own */
		root = r;
	}
	eroot[i] = root;
	if (!chained || root < 0)
		return;
	op->efused = true;
	for (int k = 0; k < n->n_in; k++) {
		const struct graph_tensor *x = graph_in(g, n, k);
		int p = x ? x->producer : -1;

		if (!x || x->weight)
			continue;
		op->efused_in_elems += per_sample(g, x);
		if (p >= 0 && p < i && eroot[p] >= 0 && x->consumers == 1)
			ops[p].eout_fused = true;
	}
}

/* Whether node 'n' moves data that an eager framework can view instead
   (torch.transpose, narrow, split, expand, select of one index). */
static bool view_op(const struct graph *g, const struct graph_node *n)
{
	const struct graph_tensor *idx;

	if (strcmp(n->op_type, "Transpose") == 0 ||
	    strcmp(n->op_type, "Slice") == 0 ||
	    strcmp(n->op_type, "Split") == 0 ||
	    strcmp(n->op_type, "Expand") == 0)
		return true;
	if (strcmp(n->op_type, "Gather") != 0)
		return false;
	idx = graph_in(g, n, 1);
	return idx && idx->weight && graph_elems(idx) <= 1.0;
}

/*
 * Eager views (specs/models.md 14.8): a data movement of view_op whose
 * output only products of two activations read, directly or through
 * other views and free operators (the heads of attention split from the
 * QKV projection, the keys transposed for the scores), is a view in an
 * eager framework: the product reads the strided tensor.  A movement
 * read by anything else (a Reshape into a Linear, a graph output) is
 * copied, and so is one a Reshape or Flatten reads.  'viewable' (one
 * flag a tensor) is filled last node first.
 */
static void eager_views(const struct graph *g, struct graph_op *ops,
			unsigned char *viewable)
{
	for (int t = 0; t < g->n_tensors; t++)
		viewable[t] = g->tensors[t].consumers > 0;
	for (int i = g->n_nodes - 1; i >= 0; i--) {
		const struct graph_node *n = &g->nodes[i];
		enum graph_op_kind k = ops[i].kind;
		/* a Reshape or Flatten of a permuted tensor copies it
		   (torch.reshape of non-contiguous memory) */
		bool reshape = strcmp(n->op_type, "Reshape") == 0 ||
			       strcmp(n->op_type, "Flatten") == 0;
		bool through = ((k == GOP_FREE && !reshape) ||
				(k == GOP_MOVE && view_op(g, n))) &&
			       n->out >= 0 && viewable[n->out];

		if (k == GOP_MOVE && through)
			ops[i].eview = true;
		if (k == GOP_BMM || through)
			continue;
		for (int j = 0; j < n->n_in; j++) {
			int t = g->inputs[n->in_first + j];

			if (t >= 0)
				viewable[t] = 0;
		}
	}
}

/* Cost of node 'i' as a class of one, unfused. */
static int node_op(const struct graph *g, int i, struct graph_op *op,
		   enum graph_saved *saved)
{
	const struct graph_node *n = &g->nodes[i];
	const struct graph_op_row *row = graph_op_find(n->op_type);
	const struct graph_tensor *o = &g->tensors[n->out];
	const struct graph_tensor *a = graph_in(g, n, 0);
	const struct graph_tensor *b = graph_in(g, n, 1);
	double out = per_sample(g, o);

	memset(op, 0, sizeof(*op));
	op->kind = o->weight ? GOP_FREE : row->kind; /* folded constants */
	op->head = op->kind;
	op->count = 1.0;
	*saved = o->weight ? SAVE_NONE : row->saved;
	if (o->weight)
		return 0;
	for (int k = 0; k < n->n_in; k++) {
		const struct graph_tensor *x = graph_in(g, n, k);

		if (!x)
			continue;
		if (!graph_known(x))
			return -1;
		if (x->weight)
			op->weight_elems += graph_elems(x);
		else
			op->in_elems += per_sample(g, x);
	}
	/* a product or window over an empty tensor is no operator */
	if ((row->shape == SHAPE_CONV || row->shape == SHAPE_DECONV ||
	     row->shape == SHAPE_GEMM ||
	     row->shape == SHAPE_MATMUL) &&
	    !(out > 0.0 && o->rank >= 1 && o->dims[o->rank - 1] > 0.0))
		return -1;
	op->out_elems = op->kind == GOP_FREE ? 0.0 : out;
	if (op->kind == GOP_FREE)
		op->in_elems = 0.0;
	switch (row->shape) {
	case SHAPE_CONV: {
		double cin_g, grp = n->group > 0 ? n->group : 1.0, win = 1.0;

		if (!graph_known(a) || !graph_known(b) || b->rank != a->rank ||
		    a->rank < 3 || b->rank < 3)
			return -1;
		cin_g = b->dims[1];
		if (fabs(cin_g * grp - a->dims[1]) > 0.5 || !(cin_g > 0.0) ||
		    !(o->dims[1] > 0.0))
			return -1;
		for (int k = 2; k < b->rank; k++)
			win *= b->dims[k];
		op->flops = 2.0 * out * cin_g * win;
		op->gemm_m = out / o->dims[1];
		op->gemm_n = o->dims[1] / grp;
		op->gemm_k = cin_g * win;
		op->gemm_groups = grp;
		if (grp > 1.0 && cin_g == 1.0 && op->gemm_n == 1.0)
			op->kind = GOP_DWCONV;
		else if (win == 1.0 && grp == 1.0)
			op->kind = GOP_MATMUL;
		return 0;
	}
	case SHAPE_DECONV: {
		/* a transposed convolution as its GEMM and scatter (col2im):
		   each input pixel's C_in / g values times the weight's
		   (C_out / g) k_h k_w columns, g GEMMs */
		double cin_g, grp = n->group > 0 ? n->group : 1.0, win = 1.0;

		if (!graph_known(a) || !graph_known(b) || b->rank != a->rank ||
		    a->rank < 3)
			return -1;
		cin_g = a->dims[1] / grp;
		if (fabs(b->dims[0] - a->dims[1]) > 0.5 || !(cin_g >= 1.0) ||
		    !(b->dims[1] > 0.0))
			return -1;
		for (int k = 2; k < b->rank; k++)
			win *= b->dims[k];
		op->gemm_m = per_sample(g, a) / a->dims[1];
		op->gemm_n = b->dims[1] * win;
		op->gemm_k = cin_g;
		op->gemm_groups = grp;
		op->flops = 2.0 * op->gemm_m * op->gemm_n * op->gemm_k * grp;
		return 0;
	}
	case SHAPE_GEMM:
	case SHAPE_MATMUL: {
		double kdim;

		if (!graph_known(a) || !graph_known(b) || a->rank < 1 || b->rank < 1)
			return -1;
		kdim = row->shape == SHAPE_GEMM && n->trans_a ?
			       a->dims[0] :
			       a->dims[a->rank - 1];
		if (row->shape == SHAPE_GEMM &&
		    kdim != (n->trans_b ? b->dims[1] : b->dims[0]))
			return -1;
		if (row->shape == SHAPE_MATMUL && b->rank >= 2 &&
		    kdim != b->dims[b->rank - 2])
			return -1;
		op->flops = 2.0 * out * kdim;
		op->gemm_n = o->dims[o->rank - 1];
		op->gemm_k = kdim;
		if (a->weight || b->weight) {
			op->gemm_m = out / op->gemm_n;
			op->gemm_groups = 1.0;
		} else {
			op->kind = GOP_BMM;
			op->gemm_m = o->rank >= 2 ? o->dims[o->rank - 2] : 1.0;
			if (!(op->gemm_m > 0.0))
				return -1;
			op->gemm_groups = out / (op->gemm_m * op->gemm_n);
		}
		return 0;
	}
	case SHAPE_POOL: {
		double win = 1.0;

		const struct graph_window *w = graph_node_window(g, n);

		for (int k = 0; k < w->kernel_rank; k++)
			win *= w->kernel[k];
		op->flops = out * win;
		return 0;
	}
	default:
		break;
	}
	if (op->kind == GOP_REDUCE)
		op->flops = op->in_elems;
	else
		op->flops = row->flops_per_elem * out;
	if ((strcmp(n->op_type, "Mul") == 0 || strcmp(n->op_type, "Div") == 0) &&
	    n->n_in == 2 && a && b && !a->weight && !b->weight) {
		double ea = per_sample(g, a), eb = per_sample(g, b);

		/* each operand's gradient: read the output's gradient and
		   the other operand, write its own; a broadcast one's is
		   the full-size product, written, read and reduced */
		op->bwd_elems = 2.0 * out + 2.0 * (ea + eb) +
				(ea < out ? 2.0 * out : 0.0) +
				(eb < out ? 2.0 * out : 0.0);
	}
	return 0;
}

static bool same_class(const struct graph_op *x, const struct graph_op *y)
{
	double cx = x->count, cy = y->count;

	return x->kind == y->kind && x->fused == y->fused &&
	       x->out_fused == y->out_fused && x->folded == y->folded &&
	       x->efused == y->efused && x->eout_fused == y->eout_fused &&
	       x->eepilogue == y->eepilogue && x->eview == y->eview &&
	       x->fepilogue == y->fepilogue && x->head == y->head &&
	       x->gemm_m == y->gemm_m &&
	       x->gemm_n == y->gemm_n && x->gemm_k == y->gemm_k &&
	       x->gemm_groups == y->gemm_groups &&
	       x->flops / cx == y->flops / cy &&
	       x->in_elems / cx == y->in_elems / cy &&
	       x->out_elems / cx == y->out_elems / cy &&
	       x->weight_elems / cx == y->weight_elems / cy &&
	       x->fused_in_elems / cx == y->fused_in_elems / cy &&
	       x->efused_in_elems / cx == y->efused_in_elems / cy &&
	       x->epilogue_elems / cx == y->epilogue_elems / cy &&
	       x->bwd_elems / cx == y->bwd_elems / cy;
}

static double intensity(const struct graph_op *x)
{
	double bytes = x->in_elems + x->out_elems + x->weight_elems;

	return bytes > 0.0 ? x->flops / bytes : 0.0;
}

/* Add 'op' to its class in 's' (a new one while there is room). */
static void add_class(struct graph_summary *s, const struct graph_op *op)
{
	struct graph_op *c = NULL;

	for (int i = 0; i < s->n_ops && !c; i++)
		if (same_class(&s->op[i], op))
			c = &s->op[i];
	if (!c && s->n_ops < GRAPH_CLASSES_MAX) {
		s->op[s->n_ops++] = *op;
		return;
	}
	if (!c) {
		/* full: the class of the same kind and fusion nearest in
		   FLOPs per element moved keeps the roofline nearly exact */
		double best = INFINITY, ii = intensity(op);

		for (int i = 0; i < s->n_ops; i++) {
			struct graph_op *x = &s->op[i];
			double dist = fabs(intensity(x) - ii);

			if (x->kind == op->kind && x->fused == op->fused &&
			    x->out_fused == op->out_fused &&
			    x->efused == op->efused &&
			    x->eout_fused == op->eout_fused &&
			    x->eepilogue == op->eepilogue &&
			    x->fepilogue == op->fepilogue &&
			    x->eview == op->eview &&
			    x->folded == op->folded && dist < best) {
				best = dist;
				c = x;
			}
		}
		if (!c) {
			/* no class of its kind: the last one takes it */
			c = &s->op[s->n_ops - 1];
		}
		c->gemm_m = (c->gemm_m * c->count + op->gemm_m * op->count) /
			    (c->count + op->count);
	}
	c->count += op->count;
	c->flops += op->flops;
	c->in_elems += op->in_elems;
	c->out_elems += op->out_elems;
	c->weight_elems += op->weight_elems;
	c->fused_in_elems += op->fused_in_elems;
	c->efused_in_elems += op->efused_in_elems;
	c->epilogue_elems += op->epilogue_elems;
	c->bwd_elems += op->bwd_elems;
}

/* Mark the tensors the backward pass of node 'n' reads. */
static void mark_saved(const struct graph *g, const struct graph_node *n,
		       enum graph_saved sv, unsigned char *saved_t)
{
	for (int k = 0; k < n->n_in; k++) {
		const struct graph_tensor *x = graph_in(g, n, k);

		if (!x || x->weight)
			continue;
		if (sv == SAVE_INS || (sv == SAVE_IN0 && k == 0))
			saved_t[g->inputs[n->in_first + k]] |= 1;
	}
	if (sv == SAVE_OUT)
		saved_t[n->out] |= 1;
}

/* The node making input 'k' of node 'n' when it is an 'op', else -1. */
static int made_by(const struct graph *g, const struct graph_node *n, int k,
		   const char *op)
{
	const struct graph_tensor *x = graph_in(g, n, k);
	int p = x ? x->producer : -1;

	return p >= 0 && strcmp(g->nodes[p].op_type, op) == 0 ? p : -1;
}

/* The one input of node 'n' that is an activation ('*t', its tensor),
   the other a weight (an epsilon, an exponent, a gain): false when not
   so. */
static bool one_activation(const struct graph *g, const struct graph_node *n,
			   int *t)
{
	const struct graph_tensor *a = graph_in(g, n, 0);
	const struct graph_tensor *b = graph_in(g, n, 1);

	if (n->n_in != 2 || !a || !b || a->weight == b->weight)
		return false;
	*t = g->inputs[n->in_first + (a->weight ? 1 : 0)];
	return true;
}

/* Whether tensor 't' is read by exactly 'uses' nodes. */
static bool read_by(const struct graph *g, int t, int uses)
{
	return t >= 0 && g->tensors[t].consumers == uses;
}

/*
 * Layer norms an export wrote as arithmetic (torch.onnx.export below
 * opset 17, which has no LayerNormalization): y = (x - m) / sqrt(v + eps)
 * with m = ReduceMean(x), v = ReduceMean((x - m)^2), then a gain (Mul)
 * and a shift (Add) when they follow alone.  The framework runs one
 * normalization kernel, as an engine does; norm[i] is the first node
 * (the mean's ReduceMean) of the layer norm node i belongs to, the last
 * node's index in last[head], else -1.  Returns how many were found.
 */
static int written_norms(const struct graph *g, int *norm, int *last)
{
	int found = 0;

	for (int i = 0; i < g->n_nodes; i++)
		norm[i] = last[i] = -1;
	for (int d = 0; d < g->n_nodes; d++) {
		const struct graph_node *n = &g->nodes[d];
		int c, m, sq, ad, v, pw, t, x, set[9], k = 0, end = d;

		if (strcmp(n->op_type, "Div") != 0 || n->n_in != 2 ||
		    (c = made_by(g, n, 0, "Sub")) < 0 ||
		    (sq = made_by(g, n, 1, "Sqrt")) < 0 ||
		    (ad = made_by(g, &g->nodes[sq], 0, "Add")) < 0 ||
		    !one_activation(g, &g->nodes[ad], &t) ||
		    (v = g->tensors[t].producer) < 0 ||
		    strcmp(g->nodes[v].op_type, "ReduceMean") != 0 ||
		    (pw = made_by(g, &g->nodes[v], 0, "Pow")) < 0 ||
		    (m = made_by(g, &g->nodes[c], 1, "ReduceMean")) < 0)
			continue;
		x = g->inputs[g->nodes[m].in_first];
		/* the centred input feeds the square and the division, the
		   mean only the centring, the input also the centring */
		if (g->inputs[g->nodes[c].in_first] != x ||
		    g->inputs[g->nodes[pw].in_first] != g->nodes[c].out ||
		    !graph_in(g, &g->nodes[pw], 1) ||
		    !graph_in(g, &g->nodes[pw], 1)->weight ||
		    !read_by(g, g->nodes[c].out, 2) ||
		    !read_by(g, g->nodes[m].out, 1) ||
		    !read_by(g, g->nodes[pw].out, 1) ||
		    !read_by(g, g->nodes[v].out, 1) ||
		    !read_by(g, g->nodes[ad].out, 1) ||
		    !read_by(g, g->nodes[sq].out, 1) || g->tensors[x].weight)
			continue;
		set[k++] = m;
		set[k++] = c;
		set[k++] = pw;
		set[k++] = v;
		set[k++] = ad;
		set[k++] = sq;
		set[k++] = d;
		/* the gain and the shift, each the only reader of what the
		   previous step made */
		for (int step = 0; step < 2; step++) {
			const char *op = step == 0 ? "Mul" : "Add";
			int next = -1;

			if (!read_by(g, g->nodes[end].out, 1))
				break;
			for (int j = end + 1; j < g->n_nodes && next < 0; j++) {
				const struct graph_node *q = &g->nodes[j];

				if (strcmp(q->op_type, op) == 0 &&
				    one_activation(g, q, &t) &&
				    t == g->nodes[end].out)
					next = j;
			}
			if (next < 0)
				break;
			set[k++] = next;
			end = next;
		}
		if (norm[m] >= 0)
			continue;
		for (int j = 0; j < k; j++)
			norm[set[j]] = m;
		last[m] = end;
		found++;
	}
	return found;
}

/* The layer norm headed by node 'm' ending at node 'end' as one
   normalization operator: it reads the input, writes the output and the
   gain and shift are its weights. */
static void norm_op(const struct graph *g, int m, int end, const int *norm,
		    struct graph_op *op)
{
	const struct graph_tensor *x = graph_in(g, &g->nodes[m], 0);
	const struct graph_tensor *y = &g->tensors[g->nodes[end].out];

	memset(op, 0, sizeof(*op));
	op->kind = op->head = GOP_NORM;
	op->count = 1.0;
	op->in_elems = per_sample(g, x);
	op->out_elems = per_sample(g, y);
	op->flops = graph_op_find("LayerNormalization")->flops_per_elem *
		    op->out_elems;
	for (int i = m; i <= end; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (norm[i] != m || (strcmp(n->op_type, "Mul") != 0 &&
				     strcmp(n->op_type, "Add") != 0))
			continue;
		for (int k = 0; k < n->n_in; k++) {
			const struct graph_tensor *w = graph_in(g, n, k);

			/* the gain and the shift; the epsilon is a scalar */
			if (w && w->weight && graph_elems(w) > 1.0)
				op->weight_elems += graph_elems(w);
		}
	}
}

int graph_summarize(const struct graph *g, struct graph_summary *s)
{
	struct graph_op *ops;
	unsigned char *saved_t;
	int *chain; /* the first node of each node's fused kernel */
	int *eroot; /* eager: the tensor an element-wise node is a function
		       of, -1 for none */
	unsigned char *viewable; /* eager_views' flags, one a tensor */
	unsigned char *sv_of;    /* each node's enum graph_saved */
	int *norm, *last;        /* written_norms' marks */
	int bad = 0;

	memset(s, 0, sizeof(*s));
	if (g->n_nodes <= 0 || !(g->batch > 0.0))
		return g->n_nodes > 0 ? 1 : 0;
	ops = calloc((size_t)g->n_nodes, sizeof(*ops));
	saved_t = calloc((size_t)g->n_tensors + 1, 1);
	chain = calloc((size_t)g->n_nodes, sizeof(*chain));
	eroot = calloc((size_t)g->n_nodes, sizeof(*eroot));
	viewable = calloc((size_t)g->n_tensors + 1, 1);
	sv_of = calloc((size_t)g->n_nodes, 1);
	norm = calloc((size_t)g->n_nodes, sizeof(*norm));
	last = calloc((size_t)g->n_nodes, sizeof(*last));
	if (!ops || !saved_t || !chain || !eroot || !viewable || !sv_of ||
	    !norm || !last) {
		bad = -1;
		goto out_free;
	}
	s->written_norms = written_norms(g, norm, last);
	/* bit 4: a tensor that an operator other than an element-wise one
	   reads (it must reach memory); several element-wise readers
	   (SiLU's Sigmoid and Mul) fuse together into its producer */
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		enum graph_op_kind k = graph_op_find(n->op_type)->kind;

		for (int j = 0; j < n->n_in; j++) {
			int t = g->inputs[n->in_first + j];

			if (t >= 0 && k != GOP_ACT && k != GOP_BINARY)
				saved_t[t] |= 4;
		}
	}
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		struct graph_op *op = &ops[i];
		enum graph_saved sv;

		if (n->out < 0 || !graph_known(&g->tensors[n->out]) ||
		    node_op(g, i, op, &sv) != 0) {
			bad = i + 1;
			goto out_free;
		}
		op->head = op->kind; /* node_op may have refined the kind */
		chain[i] = i;
		sv_of[i] = (unsigned char)sv;
		if (norm[i] >= 0) {
			/* a written-out layer norm: its first node is the
			   normalization (saving its input, as
			   LayerNormalization does), the others cost nothing
			   and save nothing */
			eroot[i] = -1;
			if (norm[i] == i) {
				norm_op(g, i, last[i], norm, op);
				sv_of[i] = SAVE_IN0;
			} else {
				memset(op, 0, sizeof(*op));
				op->kind = op->head = GOP_FREE;
				op->count = 1.0;
				sv_of[i] = SAVE_NONE;
			}
			continue;
		}
		/* inference fusion: into the producers of its activation
		   inputs that no kernel outside the fused region reads */
		for (int k = 0; k < n->n_in && op->kind != GOP_FREE; k++) {
			const struct graph_tensor *x = graph_in(g, n, k);
			int p = x ? x->producer : -1;

			if (p < 0 || p >= i || x->weight ||
			    !(x->consumers == 1 ||
			      !(saved_t[g->inputs[n->in_first + k]] & 4)) ||
			    !fuses(op->kind, n->op_type, ops[p].kind,
				   ops[p].head))
				continue;
			/* one kernel: a second fused input must come from
			   the same chain (SiLU's x and sigmoid(x)), not
			   from another kernel (a residual branch) */
			if (op->fused && chain[p] != chain[i])
				continue;
			if (!op->fused)
				op->head = ops[p].head;
			op->fused = true;
			chain[i] = chain[p];
			op->fused_in_elems += per_sample(g, x);
			ops[p].out_fused = true;
		}
		eager_composite(g, i, ops, chain, eroot);
	}
	eager_views(g, ops, viewable);
	/* what the backward pass reads: an eager composite is one
	   framework operator, which saves what its first operator saves
	   (GELU its input, SiLU its input's sigmoid, of the same size);
	   the later ones save nothing, but for fused attention, which
	   keeps the values and its output (and the queries and keys its
	   scores' product saves), never the scores */
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (!ops[i].efused) {
			mark_saved(g, n, (enum graph_saved)sv_of[i], saved_t);
			continue;
		}
		if (ops[i].kind != GOP_BMM)
			continue;
		for (int k = 0; k < n->n_in; k++) {
			const struct graph_tensor *x = graph_in(g, n, k);
			int p = x ? x->producer : -1;

			if (x && !x->weight && !(p >= 0 && chain[p] == chain[i]))
				saved_t[g->inputs[n->in_first + k]] |= 1;
		}
		saved_t[n->out] |= 1;
	}
	/* inference fusion: the element-wise operators of a chain headed
	   by a convolution or a product run in its epilogue, under its
	   arithmetic: their reads from outside the chain (a residual) and
	   the chain's output join the product's bytes */
	for (int i = 0; i < g->n_nodes; i++) {
		struct graph_op *op = &ops[i], *h = &ops[chain[i]];

		if (!op->fused ||
		    (op->kind != GOP_ACT && op->kind != GOP_BINARY) ||
		    (h->kind != GOP_CONV && h->kind != GOP_MATMUL))
			continue;
		op->fepilogue = true;
		h->epilogue_elems += op->in_elems - op->fused_in_elems +
				     (op->out_fused ? 0.0 : op->out_elems);
	}
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_op *op = &ops[i];
		double live = op->in_elems + op->out_elems;

		s->kind_count[op->kind] += 1.0;
		s->kind_flops[op->kind] += op->flops;
		s->flops += op->flops;
		s->fused += op->fused ? 1.0 : 0.0;
		s->efused += op->efused ? 1.0 : 0.0;
		s->eviews += op->eview ? 1.0 : 0.0;
		s->unknown += op->kind == GOP_OTHER ? 1.0 : 0.0;
		if (live > s->live_elems)
			s->live_elems = live;
		if (op->kind != GOP_FREE)
			add_class(s, op);
	}
	if (s->kind_count[GOP_NORM] == 0.0) {
		/* an inference export (torch.onnx.export in eval mode folds
		   every BatchNormalization into the Conv before it, PyTorch
		   PR 40547): each convolution trains with its batch norm,
		   whose gain and shift the conv's bias stands for */
		for (int i = 0; i < g->n_nodes; i++) {
			const struct graph_node *n = &g->nodes[i];
			const struct graph_tensor *o = &g->tensors[n->out];
			struct graph_op bn;
			double c;

			if (strcmp(n->op_type, "Conv") != 0 || o->weight)
				continue;
			c = o->dims[1];
			memset(&bn, 0, sizeof(bn));
			bn.kind = bn.head = GOP_NORM;
			bn.count = 1.0;
			bn.folded = true;
			bn.in_elems = bn.out_elems = per_sample(g, o);
			bn.flops = bn.out_elems;
			bn.flops *= graph_op_find("BatchNormalization")
					    ->flops_per_elem;
			/* gain, shift, running mean and variance */
			bn.weight_elems = 4.0 * c;
			add_class(s, &bn);
			s->folded_norms += 1.0;
			s->params += graph_in(g, n, 2) ? c : 2.0 * c;
			s->saved_elems += bn.in_elems;
		}
		s->norms_folded = s->folded_norms > 0.0;
	}
	/* a BatchNormalization's running mean and variance (inputs 3 and
	   4) are statistics, not parameters */
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (strcmp(n->op_type, "BatchNormalization") != 0)
			continue;
		for (int k = 3; k < n->n_in && k < 5; k++)
			if (g->inputs[n->in_first + k] >= 0)
				saved_t[g->inputs[n->in_first + k]] |= 2;
	}
	for (int t = 0; t < g->n_tensors; t++) {
		const struct graph_tensor *x = &g->tensors[t];

		if (x->param && !(saved_t[t] & 2))
			s->params += graph_elems(x);
		if ((saved_t[t] & 1) && graph_known(x))
			s->saved_elems += per_sample(g, x);
	}
	s->nodes = g->n_nodes;
out_free:
	free(ops);
	free(saved_t);
	free(chain);
	free(eroot);
	free(viewable);
	free(sv_of);
	free(norm);
	free(last);
	if (bad != 0)
		s->n_ops = 0;
	return bad;
}
