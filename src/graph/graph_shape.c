/* graph_shape.c - the shapes of a graph's tensors that its file leaves
   out, and the values of the small constants that decide them: the shape
   arithmetic (Shape, Gather, Concat, ...) that torch.onnx.export writes
   before a Reshape, Expand, Pad or Slice, folded as an engine folds it
   when it is built.  Shapes as the ONNX operator specification defines
   them (opsets 7-18); see graph.h and specs/models.md 14.8. */
#include <math.h>
#include <string.h>

#include "graph.h"
#include "graph_internal.h"

/* An axis 'a' of a rank-'rank' tensor, negative from the end; -1 out of
   range. */
static int norm_axis(double a, int rank)
{
	if (a < 0.0)
		a += rank;
	return a >= 0.0 && a < rank && a == floor(a) ? (int)a : -1;
}

/* The values of input 'i' of 'n' ('*v', '*nv'): false when the input is
   absent or its values unknown. */
static bool in_vals(const struct graph *g, const struct graph_node *n, int i,
		    const double **v, int *nv)
{
	const struct graph_tensor *x = graph_in(g, n, i);

	if (!x || !x->has_val)
		return false;
	*v = x->val;
	*nv = x->n_val;
	return true;
}

/* Whether input 'i' of 'n' is given (an optional one may be omitted). */
static bool has_in(const struct graph *g, const struct graph_node *n, int i)
{
	return graph_in(g, n, i) != NULL;
}

/* The axes of a Reduce*, Squeeze or Unsqueeze: input 1 (opsets 13 / 18),
   else the attribute; '*given' false when neither is there. */
static int axes_of(const struct graph *g, const struct graph_node *n,
		   const double **v, int *nv, bool *given)
{
	*given = true;
	if (has_in(g, n, 1))
		return in_vals(g, n, 1, v, nv) ? 0 : -1;
	if (graph_node_lists(g, n)->has_axes) {
		*v = graph_node_lists(g, n)->axes;
		*nv = graph_node_lists(g, n)->n_axes;
		return 0;
	}
	*given = false;
	*nv = 0;
	return 0;
}

static int reduce_shape(const struct graph *g, const struct graph_node *n,
			struct graph_tensor *t)
{
	const double *ax = NULL;
	double one;
	int nax = 0, r = t->rank, k = 0;
	bool given, drop[GRAPH_RANK_MAX] = { false };

	if (strncmp(n->op_type, "Arg", 3) == 0) {
		/* ArgMax, ArgMin: the one axis of 'axis' (default 0) */
		one = n->axis;
		ax = &one;
		nax = 1;
	} else if (axes_of(g, n, &ax, &nax, &given) != 0) {
		return -1;
	}
	if (nax == 0) {
		if (n->noop_empty_axes)
			return 0;
		for (int i = 0; i < r; i++)
			drop[i] = true;
	}
	for (int i = 0; i < nax; i++) {
		int a = norm_axis(ax[i], r);

		if (a < 0)
			return -1;
		drop[a] = true;
	}
	for (int i = 0; i < r; i++) {
		if (!drop[i])
			t->dims[k++] = t->dims[i];
		else if (n->keepdims)
			t->dims[k++] = 1.0;
	}
	t->rank = k;
	return 0;
}

static int reshape_shape(const struct graph *g, const struct graph_node *n,
			 struct graph_tensor *t)
{
	const struct graph_tensor *a = graph_in(g, n, 0);
	const double *v;
	int nv, infer = -1;
	double known_elems = 1.0, total = graph_elems(a);

	if (!in_vals(g, n, 1, &v, &nv) || nv > GRAPH_RANK_MAX)
		return -1;
	for (int k = 0; k < nv; k++) {
		double d = v[k];

		if (d == 0.0) {
			/* 0 keeps the input's axis (allowzero 0) */
			if (k >= a->rank)
				return -1;
			d = a->dims[k];
		} else if (d == -1.0) {
			if (infer >= 0)
				return -1;
			infer = k;
			continue;
		} else if (!(d >= 1.0) || d != floor(d)) {
			return -1;
		}
		t->dims[k] = d;
		known_elems *= d;
	}
	if (infer >= 0) {
		double d = known_elems > 0.0 ? total / known_elems : -1.0;

		if (!(d >= 1.0) || d != floor(d))
			return -1;
		t->dims[infer] = d;
	}
	t->rank = nv;
	return 0;
}

static int squeeze_shape(const struct graph *g, const struct graph_node *n,
			 bool unsqueeze, struct graph_tensor *t)
{
	const struct graph_tensor *a = graph_in(g, n, 0);
	const double *ax = NULL;
	int nax = 0, k = 0, r;
	bool given, mark[GRAPH_RANK_MAX] = { false };

	if (axes_of(g, n, &ax, &nax, &given) != 0)
		return -1;
	if (!unsqueeze) {
		for (int i = 0; i < nax; i++) {
			int x = norm_axis(ax[i], a->rank);

			if (x < 0 || a->dims[x] != 1.0)
				return -1;
			mark[x] = true;
		}
		for (int i = 0; i < a->rank; i++)
			if (!(given ? mark[i] : a->dims[i] == 1.0))
				t->dims[k++] = a->dims[i];
		t->rank = k;
		return 0;
	}
	r = a->rank + nax;
	if (!given || r > GRAPH_RANK_MAX)
		return -1;
	for (int i = 0; i < nax; i++) {
		int x = norm_axis(ax[i], r);

		if (x < 0 || mark[x])
			return -1;
		mark[x] = true;
	}
	for (int i = 0; i < r; i++)
		t->dims[i] = mark[i] ? 1.0 : a->dims[k++];
	t->rank = r;
	return 0;
}

/*
 * Slice: the output shape into 't' and, when 'from' (a 1-D tensor with
 * values) is given, the sliced values into 'vals' ('*nv').  Starts and
 * ends clamp to the axis as the specification says.
 */
static int slice_run(const struct graph *g, const struct graph_node *n,
		     struct graph_tensor *t, const struct graph_tensor *from,
		     double *vals, int *nv)
{
	const struct graph_lists *l = graph_node_lists(g, n);
	const double *st, *en, *ax = NULL, *sp = NULL;
	int ns, ne, nax = 0, nsp = 0;
	double first[GRAPH_RANK_MAX], step[GRAPH_RANK_MAX];

	if (has_in(g, n, 1) || has_in(g, n, 2)) {
		if (!in_vals(g, n, 1, &st, &ns) || !in_vals(g, n, 2, &en, &ne))
			return -1;
		if (has_in(g, n, 3) && !in_vals(g, n, 3, &ax, &nax))
			return -1;
		if (has_in(g, n, 4) && !in_vals(g, n, 4, &sp, &nsp))
			return -1;
	} else if (l->has_starts) {
		st = l->starts;
		en = l->ends;
		ns = ne = l->n_starts;
		if (l->has_axes) {
			ax = l->axes;
			nax = l->n_axes;
		}
	} else {
		return -1;
	}
	if (ns != ne || (ax && nax != ns) || (sp && nsp != ns))
		return -1;
	for (int k = 0; k < t->rank; k++) {
		first[k] = 0.0;
		step[k] = 1.0;
	}
	for (int i = 0; i < ns; i++) {
		int a = norm_axis(ax ? ax[i] : i, t->rank);
		double dim, s = sp ? sp[i] : 1.0, b, e, len;

		if (a < 0 || s == 0.0)
			return -1;
		dim = t->dims[a];
		b = st[i] < 0.0 ? st[i] + dim : st[i];
		e = en[i] < 0.0 ? en[i] + dim : en[i];
		if (s > 0.0) {
			b = fmin(fmax(b, 0.0), dim);
			e = fmin(fmax(e, 0.0), dim);
		} else {
			b = fmin(fmax(b, 0.0), dim - 1.0);
			e = fmin(fmax(e, -1.0), dim - 1.0);
		}
		len = ceil((e - b) / s);
		t->dims[a] = len > 0.0 ? len : 0.0;
		first[a] = b;
		step[a] = s;
	}
	if (from && vals) {
		/* each output element from its input element: along every
		   axis first + i step, row-major */
		double total = graph_elems(t);

		if (!(total <= GRAPH_VAL_MAX))
			return -1;
		*nv = (int)total;
		for (int i = 0; i < *nv; i++) {
			int rest = i, at = 0, stride = 1;

			for (int k = t->rank - 1; k >= 0; k--) {
				int d = (int)t->dims[k];
				int j = (int)(first[k] + (rest % d) * step[k]);

				rest /= d;
				at += j * stride;
				stride *= (int)from->dims[k];
			}
			if (at < 0 || at >= from->n_val)
				return -1;
			vals[i] = from->val[at];
		}
	}
	return 0;
}

static int slice_shape(const struct graph *g, const struct graph_node *n,
		       struct graph_tensor *t, int *unused)
{
	(void)unused;
	return slice_run(g, n, t, NULL, NULL, NULL);
}

static int pad_shape(const struct graph *g, const struct graph_node *n,
		     struct graph_tensor *t)
{
	const double *p = graph_node_window(g, n)->pads, *ax = NULL;
	int np = 2 * t->rank, nax = 0;

	/* opset 11 on: the pads are input 1 (and opset 18's axes input 3) */
	if (has_in(g, n, 1) && !in_vals(g, n, 1, &p, &np))
		return -1;
	if (has_in(g, n, 3) && !in_vals(g, n, 3, &ax, &nax))
		return -1;
	if (!ax)
		nax = t->rank;
	if (np != 2 * nax)
		return -1;
	for (int i = 0; i < nax; i++) {
		int a = ax ? norm_axis(ax[i], t->rank) : i;
		double d;

		if (a < 0)
			return -1;
		d = t->dims[a] + p[i] + p[i + nax];
		if (!(d >= 0.0))
			return -1;
		t->dims[a] = d;
	}
	return 0;
}

static int gather_shape(const struct graph *g, const struct graph_node *n,
			struct graph_tensor *t)
{
	const struct graph_tensor *a = graph_in(g, n, 0);
	const struct graph_tensor *ix = graph_in(g, n, 1);
	int ax = norm_axis(n->axis, a->rank), k = 0;

	if (!graph_known(ix) || ax < 0 ||
	    a->rank - 1 + ix->rank > GRAPH_RANK_MAX)
		return -1;
	for (int i = 0; i < ax; i++)
		t->dims[k++] = a->dims[i];
	for (int i = 0; i < ix->rank; i++)
		t->dims[k++] = ix->dims[i];
	for (int i = ax + 1; i < a->rank; i++)
		t->dims[k++] = a->dims[i];
	t->rank = k;
	return 0;
}

/* Expand: the input broadcast with the shape of input 1; Tile: each axis
   times its repeat. */
static int expand_shape(const struct graph *g, const struct graph_node *n,
			bool tile, struct graph_tensor *t)
{
	const double *v;
	int nv;

	if (!in_vals(g, n, 1, &v, &nv) || nv > GRAPH_RANK_MAX)
		return -1;
	if (tile) {
		if (nv != t->rank)
			return -1;
		for (int k = 0; k < nv; k++) {
			if (!(v[k] >= 0.0))
				return -1;
			t->dims[k] *= v[k];
		}
		return 0;
	}
	if (nv > t->rank) {
		int d = nv - t->rank;

		memmove(t->dims + d, t->dims, (size_t)t->rank * sizeof(double));
		for (int k = 0; k < d; k++)
			t->dims[k] = 1.0;
		t->rank = nv;
	}
	for (int k = 0; k < nv; k++) {
		double *dst = &t->dims[t->rank - nv + k];

		if (v[k] == 1.0)
			continue;
		if (*dst != 1.0 && *dst != v[k])
			return -1;
		if (!(v[k] >= 0.0))
			return -1;
		*dst = v[k];
	}
	return 0;
}

/* Resize (and Upsample): sizes (input 3), else scales (input 2; input 1
   in opsets 9-10; the attribute 'scales' in opsets 7-8). */
static int resize_shape(const struct graph *g, const struct graph_node *n,
			struct graph_tensor *t)
{
	const double *v;
	int nv;
	bool sizes = in_vals(g, n, 3, &v, &nv) && nv == t->rank;

	if (!sizes && n->n_in == 1 && graph_node_lists(g, n)->has_scales) {
		v = graph_node_lists(g, n)->scales;
		nv = graph_node_lists(g, n)->n_scales;
		if (nv != t->rank)
			return -1;
	} else if (!sizes && !(in_vals(g, n, n->n_in == 2 ? 1 : 2, &v, &nv) &&
			       nv == t->rank)) {
		return -1;
	}
	for (int k = 0; k < t->rank; k++) {
		double d = sizes ? v[k] : floor(t->dims[k] * v[k]);

		if (!(d >= 1.0))
			return -1;
		t->dims[k] = d;
	}
	return 0;
}

/* The axes a Shape reports: [start, end) clamped to the rank. */
static void shape_span(const struct graph_node *n, int rank, int *lo,
		       int *hi)
{
	int s = n->shape_start, e = n->has_shape_end ? n->shape_end : rank;

	s = s < 0 ? s + rank : s;
	e = e < 0 ? e + rank : e;
	*lo = s < 0 ? 0 : s > rank ? rank : s;
	*hi = e < 0 ? 0 : e > rank ? rank : e;
	if (*hi < *lo)
		*hi = *lo;
}

static int shape_shape(const struct graph_node *n, struct graph_tensor *t)
{
	int lo, hi;

	if (strcmp(n->op_type, "Size") == 0) {
		t->rank = 0;
		return 0;
	}
	shape_span(n, t->rank, &lo, &hi);
	t->dims[0] = hi - lo;
	t->rank = 1;
	return 0;
}

/* ConstantOfShape: the shape its input holds; Range: its length. */
static int fill_shape(const struct graph *g, const struct graph_node *n,
		      bool range, struct graph_tensor *t)
{
	const double *v, *lim, *dl;
	int nv, nl, nd;

	if (!in_vals(g, n, 0, &v, &nv))
		return -1;
	if (range) {
		double len;

		if (!in_vals(g, n, 1, &lim, &nl) || !in_vals(g, n, 2, &dl, &nd) ||
		    nv != 1 || nl != 1 || nd != 1 || dl[0] == 0.0)
			return -1;
		len = ceil((lim[0] - v[0]) / dl[0]);
		t->rank = 1;
		t->dims[0] = len > 0.0 ? len : 0.0;
		return 0;
	}
	if (nv > GRAPH_RANK_MAX)
		return -1;
	for (int k = 0; k < nv; k++) {
		if (!(v[k] >= 0.0))
			return -1;
		t->dims[k] = v[k];
	}
	t->rank = nv;
	return 0;
}

static double window_out(const struct graph_node *n,
			 const struct graph_window *w, int ax, double in,
			 double kernel)
{
	int r = w->kernel_rank;
	double s = ax < r && w->strides[ax] > 0 ? w->strides[ax] : 1.0;
	double dl = ax < r && w->dilations[ax] > 0 ? w->dilations[ax] : 1.0;
	double pad = ax < r ? w->pads[ax] + w->pads[r + ax] : 0.0;
	double span = dl * (kernel - 1.0) + 1.0;

	if (n->auto_pad_same)
		return ceil(in / s);
	if (n->ceil_mode)
		return ceil((in + pad - span) / s) + 1.0;
	return floor((in + pad - span) / s) + 1.0;
}

/* Whether every input of 'n' is a weight: a constant computation. */
static bool all_weights(const struct graph *g, const struct graph_node *n)
{
	bool any = false;

	for (int k = 0; k < n->n_in; k++) {
		const struct graph_tensor *x = graph_in(g, n, k);

		if (x && !x->weight)
			return false;
		any = any || x;
	}
	return any;
}

static int infer_one(struct graph *g, const struct graph_node *n,
		     enum shape_rule rule)
{
	const struct graph_tensor *a = graph_in(g, n, 0);
	const struct graph_tensor *b = graph_in(g, n, 1);
	struct graph_tensor *o = &g->tensors[n->out];
	struct graph_tensor t = *o;
	const struct graph_window *win = graph_node_window(g, n);
	const struct graph_lists *lists = graph_node_lists(g, n);

	if (!graph_known(a))
		return -1;
	t.rank = a->rank;
	memcpy(t.dims, a->dims, sizeof(t.dims));
	switch (rule) {
	case SHAPE_NONE:
	case SHAPE_SPLIT: /* split_shapes */
		return -1;
	case SHAPE_REDUCE:
		if (reduce_shape(g, n, &t) != 0)
			return -1;
		break;
	case SHAPE_RESHAPE:
		if (reshape_shape(g, n, &t) != 0)
			return -1;
		break;
	case SHAPE_SQUEEZE:
	case SHAPE_UNSQUEEZE:
		if (squeeze_shape(g, n, rule == SHAPE_UNSQUEEZE, &t) != 0)
			return -1;
		break;
	case SHAPE_SLICE:
		if (slice_shape(g, n, &t, NULL) != 0)
			return -1;
		break;
	case SHAPE_PAD:
		if (pad_shape(g, n, &t) != 0)
			return -1;
		break;
	case SHAPE_GATHER:
		if (gather_shape(g, n, &t) != 0)
			return -1;
		break;
	case SHAPE_EXPAND:
	case SHAPE_TILE:
		if (expand_shape(g, n, rule == SHAPE_TILE, &t) != 0)
			return -1;
		break;
	case SHAPE_RESIZE:
		if (resize_shape(g, n, &t) != 0)
			return -1;
		break;
	case SHAPE_SHAPE:
		if (shape_shape(n, &t) != 0)
			return -1;
		break;
	case SHAPE_FILL:
	case SHAPE_RANGE:
		if (fill_shape(g, n, rule == SHAPE_RANGE, &t) != 0)
			return -1;
		break;
	case SHAPE_SAME:
		break;
	case SHAPE_BROADCAST:
		for (int i = 1; i < n->n_in; i++) {
			const struct graph_tensor *x = graph_in(g, n, i);

			if (!x)
				continue;
			if (!graph_known(x))
				return -1;
			if (x->rank > t.rank) {
				int d = x->rank - t.rank;

				memmove(t.dims + d, t.dims,
					(size_t)t.rank * sizeof(double));
				for (int k = 0; k < d; k++)
					t.dims[k] = 1.0;
				t.rank = x->rank;
			}
			for (int k = 0; k < x->rank; k++) {
				double *dst = &t.dims[t.rank - x->rank + k];

				if (x->dims[k] != 1.0)
					*dst = x->dims[k];
			}
		}
		break;
	case SHAPE_CONV:
	case SHAPE_POOL:
		if (a->rank < 3)
			return -1;
		if (rule == SHAPE_CONV) {
			if (!graph_known(b) || b->rank != a->rank)
				return -1;
			t.dims[1] = b->dims[0];
		}
		for (int k = 2; k < a->rank; k++) {
			double kk = rule == SHAPE_CONV ? b->dims[k] :
				    k - 2 < win->kernel_rank ? win->kernel[k - 2] :
							       1.0;

			t.dims[k] = window_out(n, win, k - 2, a->dims[k], kk);
			if (!(t.dims[k] >= 1.0))
				return -1;
		}
		break;
	case SHAPE_DECONV:
		if (a->rank < 3 || !graph_known(b) || b->rank != a->rank)
			return -1;
		t.dims[1] = b->dims[1] * (n->group > 0 ? n->group : 1.0);
		for (int k = 2; k < a->rank; k++) {
			int ax = k - 2, r = win->kernel_rank;
			double s = ax < r && win->strides[ax] > 0 ?
					   win->strides[ax] :
					   1.0;
			double dl = ax < r && win->dilations[ax] > 0 ?
					    win->dilations[ax] :
					    1.0;
			double pad = ax < r ? win->pads[ax] + win->pads[r + ax] :
					      0.0;

			t.dims[k] = n->auto_pad_same ?
					    a->dims[k] * s :
					    s * (a->dims[k] - 1.0) +
						    win->out_pads[ax] +
						    dl * (b->dims[k] - 1.0) + 1.0 -
						    pad;
			if (!(t.dims[k] >= 1.0))
				return -1;
		}
		break;
	case SHAPE_GLOBAL:
		for (int k = 2; k < t.rank; k++)
			t.dims[k] = 1.0;
		break;
	case SHAPE_GEMM:
		if (!graph_known(b) || a->rank != 2 || b->rank != 2)
			return -1;
		t.dims[0] = n->trans_a ? a->dims[1] : a->dims[0];
		t.dims[1] = n->trans_b ? b->dims[0] : b->dims[1];
		break;
	case SHAPE_MATMUL:
		if (!graph_known(b) || b->rank < 2 || a->rank < 2)
			return -1;
		if (b->rank > a->rank) {
			t.rank = b->rank;
			memcpy(t.dims, b->dims, sizeof(t.dims));
			t.dims[t.rank - 2] = a->dims[a->rank - 2];
		}
		t.dims[t.rank - 1] = b->dims[b->rank - 1];
		break;
	case SHAPE_FLATTEN: {
		int ax = n->axis < 0 ? n->axis + a->rank : n->axis;
		double lo = 1.0, hi = 1.0;

		if (ax < 0 || ax > a->rank)
			return -1;
		for (int k = 0; k < a->rank; k++)
			*(k < ax ? &lo : &hi) *= a->dims[k];
		t.rank = 2;
		t.dims[0] = lo;
		t.dims[1] = hi;
		break;
	}
	case SHAPE_TRANSPOSE:
		for (int k = 0; k < a->rank; k++) {
			int p = lists->perm_rank == a->rank ? lists->perm[k] :
							      a->rank - 1 - k;

			if (p < 0 || p >= a->rank)
				return -1;
			t.dims[k] = a->dims[p];
		}
		break;
	case SHAPE_CONCAT: {
		int ax = n->axis < 0 ? n->axis + a->rank : n->axis;

		if (ax < 0 || ax >= a->rank)
			return -1;
		for (int i = 1; i < n->n_in; i++) {
			const struct graph_tensor *x = graph_in(g, n, i);

			if (!graph_known(x) || x->rank != a->rank)
				return -1;
			t.dims[ax] += x->dims[ax];
		}
		break;
	}
	}
	*o = t;
	return 0;
}

/* Output 'k' of 'n' (tensor index, -1 when unnamed). */
static int out_of(const struct graph *g, const struct graph_node *n, int k)
{
	if (k == 0)
		return n->out;
	return g->outputs && k < n->n_out ? g->outputs[n->out_first + k] : -1;
}

/*
 * Split: each output along 'axis', of the sizes input 1 (opset 13 on) or
 * the attribute gives, else equal parts (the last smaller, opset 18's
 * num_outputs).  Returns 0, or -1 when a size is unknown.
 */
static int split_shapes(struct graph *g, const struct graph_node *n)
{
	const struct graph_tensor *a = graph_in(g, n, 0);
	const double *v = NULL;
	int parts = n->n_out > 0 ? n->n_out : 1, nv = 0, ax;
	double dim, at = 0.0;

	if (!graph_known(a) || (ax = norm_axis(n->axis, a->rank)) < 0)
		return -1;
	dim = a->dims[ax];
	if (has_in(g, n, 1)) {
		if (!in_vals(g, n, 1, &v, &nv))
			return -1;
	} else if (graph_node_lists(g, n)->has_split) {
		v = graph_node_lists(g, n)->split;
		nv = graph_node_lists(g, n)->n_split;
	}
	if (v && nv != parts)
		return -1;
	for (int k = 0; k < parts; k++) {
		double size = v ? v[k] : fmin(ceil(dim / parts), dim - at);
		int o = out_of(g, n, k);

		if (!(size >= 0.0))
			return -1;
		at += size;
		if (o < 0 || graph_known(&g->tensors[o]))
			continue;
		g->tensors[o].rank = a->rank;
		memcpy(g->tensors[o].dims, a->dims, sizeof(a->dims));
		g->tensors[o].dims[ax] = size;
	}
	return at == dim ? 0 : -1;
}

/* The value of element 'i' of 'x' broadcast to 'n' elements (a scalar,
   or as many as the output). */
static bool bval(const struct graph_tensor *x, int i, int n, double *v)
{
	if (!x || !x->has_val)
		return false;
	if (x->n_val == 1)
		*v = x->val[0];
	else if (x->n_val == n)
		*v = x->val[i];
	else
		return false;
	return true;
}

/* One element-wise operation on values; false when 'op' is not one. */
static bool elementwise(const char *op, double a, double b, double c,
			bool ints, double *r)
{
	if (strcmp(op, "Add") == 0)
		*r = a + b;
	else if (strcmp(op, "Sub") == 0)
		*r = a - b;
	else if (strcmp(op, "Mul") == 0)
		*r = a * b;
	else if (strcmp(op, "Div") == 0)
		*r = b == 0.0 ? (double)NAN : ints ? trunc(a / b) : a / b;
	else if (strcmp(op, "Mod") == 0)
		/* integers: the sign of the divisor (fmod = 0) */
		*r = b == 0.0 ? (double)NAN : a - b * floor(a / b);
	else if (strcmp(op, "Max") == 0)
		*r = fmax(a, b);
	else if (strcmp(op, "Min") == 0)
		*r = fmin(a, b);
	else if (strcmp(op, "Equal") == 0)
		*r = a == b;
	else if (strcmp(op, "Less") == 0)
		*r = a < b;
	else if (strcmp(op, "Greater") == 0)
		*r = a > b;
	else if (strcmp(op, "Where") == 0)
		*r = a != 0.0 ? b : c;
	else if (strcmp(op, "Not") == 0)
		*r = a == 0.0;
	else if (strcmp(op, "Neg") == 0)
		*r = -a;
	else if (strcmp(op, "Abs") == 0)
		*r = fabs(a);
	else if (strcmp(op, "Floor") == 0)
		*r = floor(a);
	else if (strcmp(op, "Ceil") == 0)
		*r = ceil(a);
	else if (strcmp(op, "Sqrt") == 0)
		*r = sqrt(a);
	else
		return false;
	return true;
}

/* Whether 'op' names one of 'list' (NULL-terminated). */
static bool op_in(const char *op, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(op, *list) == 0)
			return true;
	return false;
}

/*
 * The values of the output of 'n' when its inputs' values are known and
 * it has at most GRAPH_VAL_MAX elements: what the shape arithmetic of an
 * export computes (Shape, Gather, Unsqueeze, Concat, Slice, arithmetic,
 * Equal / Where, ConstantOfShape, Range, casts and reshapes).
 */
static void fold_values(struct graph *g, const struct graph_node *n)
{
	static const char *const copies[] = { "Identity",  "Reshape",
					      "Squeeze",   "Unsqueeze",
					      "Flatten",   "Cast", NULL };
	static const char *const bools[] = { "Equal", "Not", "Less",
					     "Greater", NULL };
	struct graph_tensor *o = &g->tensors[n->out];
	const struct graph_tensor *a = graph_in(g, n, 0);
	const struct graph_lists *l = graph_node_lists(g, n);
	const char *op = n->op_type;
	double v[GRAPH_VAL_MAX];
	int count, nv = 0;
	bool ints = a && a->val_int, cast = strcmp(op, "Cast") == 0;

	if (o->has_val || !graph_known(o) || !(graph_elems(o) <= GRAPH_VAL_MAX))
		return;
	count = (int)graph_elems(o);
	if (strcmp(op, "Shape") == 0 || strcmp(op, "Size") == 0) {
		int lo, hi;

		if (!graph_known(a))
			return;
		if (op[1] == 'i') {
			v[nv++] = graph_elems(a);
		} else {
			shape_span(n, a->rank, &lo, &hi);
			for (int k = lo; k < hi; k++)
				v[nv++] = a->dims[k];
		}
		ints = true;
	} else if (strcmp(op, "ConstantOfShape") == 0) {
		for (nv = 0; nv < count; nv++)
			v[nv] = n->fill;
		ints = n->fill == floor(n->fill);
	} else if (strcmp(op, "Range") == 0) {
		const struct graph_tensor *d = graph_in(g, n, 2);

		if (!a || !a->has_val || !d || !d->has_val)
			return;
		for (nv = 0; nv < count; nv++)
			v[nv] = a->val[0] + nv * d->val[0];
	} else if (!a || !a->has_val) {
		return;
	} else if (op_in(op, copies)) {
		if (a->n_val != count)
			return;
		for (nv = 0; nv < count; nv++)
			v[nv] = cast && n->to_int ? trunc(a->val[nv]) :
						    a->val[nv];
		if (cast)
			ints = n->to_int;
	} else if (strcmp(op, "Gather") == 0) {
		const struct graph_tensor *ix = graph_in(g, n, 1);

		if (a->rank != 1 || !ix || !ix->has_val || ix->n_val != count)
			return;
		for (nv = 0; nv < count; nv++) {
			int at = norm_axis(ix->val[nv], a->n_val);

			if (at < 0)
				return;
			v[nv] = a->val[at];
		}
	} else if (strcmp(op, "Concat") == 0) {
		for (int k = 0; k < n->n_in; k++) {
			const struct graph_tensor *x = graph_in(g, n, k);

			if (!x || !x->has_val || x->rank > 1 ||
			    nv + x->n_val > GRAPH_VAL_MAX)
				return;
			for (int i = 0; i < x->n_val; i++)
				v[nv++] = x->val[i];
		}
		if (nv != count)
			return;
	} else if (strcmp(op, "Slice") == 0) {
		struct graph_tensor t = *a;

		if (a->n_val != (int)graph_elems(a) ||
		    slice_run(g, n, &t, a, v, &nv) != 0 || nv != count)
			return;
	} else if (strcmp(op, "Transpose") == 0) {
		/* output element i reads the input at its permuted index */
		if (a->n_val != count || a->rank != o->rank)
			return;
		for (nv = 0; nv < count; nv++) {
			int rest = nv, at = 0, idx[GRAPH_RANK_MAX];

			for (int k = o->rank - 1; k >= 0; k--) {
				idx[k] = rest % (int)o->dims[k];
				rest /= (int)o->dims[k];
			}
			for (int k = 0; k < a->rank; k++) {
				int src = -1;

				/* input axis k is output axis j where
				   perm[j] = k */
				for (int j = 0; j < o->rank; j++)
					if ((l->perm_rank == a->rank ?
						     l->perm[j] :
						     a->rank - 1 - j) == k)
						src = j;
				if (src < 0 || idx[src] >= a->dims[k])
					return;
				at = at * (int)a->dims[k] + idx[src];
			}
			if (at >= a->n_val)
				return;
			v[nv] = a->val[at];
		}
	} else {
		const struct graph_tensor *b = graph_in(g, n, 1);
		const struct graph_tensor *c = graph_in(g, n, 2);

		for (nv = 0; nv < count; nv++) {
			double x, y = 0.0, z = 0.0;

			if (!bval(a, nv, count, &x) ||
			    (n->n_in > 1 && !bval(b, nv, count, &y)) ||
			    (n->n_in > 2 && !bval(c, nv, count, &z)) ||
			    !elementwise(op, x, y, z, ints, &v[nv]) ||
			    !isfinite(v[nv]))
				return;
		}
		if (strcmp(op, "Where") == 0)
			ints = b && b->val_int;
		if (op_in(op, bools))
			ints = true;
	}
	memcpy(o->val, v, (size_t)nv * sizeof(double));
	o->n_val = nv;
	o->val_int = ints;
	o->has_val = true;
}

int graph_infer_shapes(struct graph *g)
{
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		if (n->out < 0 || !(all_weights(g, n) ||
				    graph_shape_rule(n->op_type) == SHAPE_SHAPE))
			continue;
		for (int k = 0; k < (n->n_out > 0 ? n->n_out : 1); k++) {
			int o = out_of(g, n, k);

			if (o >= 0)
				g->tensors[o].weight = true;
		}
	}
	for (int i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];
		struct graph_tensor *o = n->out >= 0 ? &g->tensors[n->out] : NULL;
		enum shape_rule rule = graph_shape_rule(n->op_type);

		if (!o)
			continue;
		if (rule == SHAPE_SPLIT) {
			/* the outputs the file left out; a folded constant's
			   stand in as scalars */
			if (split_shapes(g, n) != 0 && !graph_known(o)) {
				if (!o->weight)
					return i + 1;
				o->rank = 0;
			}
			continue;
		}
		if (!graph_known(o) && infer_one(g, n, rule) != 0) {
			/* a folded constant costs nothing whatever its
			   shape: a scalar stands for it */
			if (o->weight) {
				o->rank = 0;
				continue;
			}
			return i + 1;
		}
		fold_values(g, n);
	}
	return 0;
}
