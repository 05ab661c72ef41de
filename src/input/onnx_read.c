/* onnx_read.c - ONNX models into operator graphs; see onnx_read.h. */
#include "onnx_read.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "readfile.h"

/*
 * Where protobuf-c puts the decoded model: blocks of ARENA_BLOCK bytes
 * filled one allocation after another, and a block of its own for a
 * larger one (a weight's raw data), all freed at once.  The model is
 * hundreds of thousands of small strings and messages, each a malloc
 * with its header and rounding otherwise (issue 40: a tenth less memory
 * per operator, and no free of each).
 */
#define ARENA_BLOCK ((size_t)1 << 20)

/* What a decoded message holds: its alignment is the arena's (no long
   double in a message) */
union arena_align {
	void *p;
	uint64_t u;
	double d;
};

struct arena_block {
	struct arena_block *next;
	union arena_align data[];
};

struct arena {
	struct arena_block *blocks; /* the newest first */
	size_t used, room;          /* of the newest block of ARENA_BLOCK */
	bool failed;                /* an allocation failed */
};

static void *arena_alloc(void *data, size_t size)
{
	struct arena *a = data;
	size_t align = sizeof(union arena_align);
	struct arena_block *b;

	if (size > SIZE_MAX - sizeof(*b) - ARENA_BLOCK) {
		a->failed = true;
		return NULL;
	}
	/* rounded up, and never 0: each allocation its own bytes */
	size = size ? (size + align - 1) / align * align : align;
	if (a->blocks && size <= a->room - a->used) {
		void *p = (char *)a->blocks->data + a->used;

		a->used += size;
		return p;
	}
	if (size > ARENA_BLOCK / 4) {
		/* its own block, behind the one being filled */
		b = malloc(sizeof(*b) + size);
		if (!b) {
			a->failed = true;
			return NULL;
		}
		if (a->blocks) {
			b->next = a->blocks->next;
			a->blocks->next = b;
		} else {
			b->next = NULL;
			a->blocks = b;
			a->used = a->room = 0;
		}
		return b->data;
	}
	b = malloc(sizeof(*b) + ARENA_BLOCK);
	if (!b) {
		a->failed = true;
		return NULL;
	}
	b->next = a->blocks;
	a->blocks = b;
	a->room = ARENA_BLOCK;
	a->used = size;
	return b->data;
}

/* Freed with the whole arena. */
static void arena_free_one(void *data, void *p)
{
	(void)data;
	(void)p;
}

static void arena_release(struct arena *a)
{
	while (a->blocks) {
		struct arena_block *next = a->blocks->next;

		free(a->blocks);
		a->blocks = next;
	}
	a->used = a->room = 0;
}

/* A name -> tensor index table (open addressing, FNV-1a), at most half
   full; the indices are 0 .. count - 1 in the order names are first
   seen. */
struct names {
	const char **key;
	int *val;
	size_t cap; /* a power of two, or 0 */
	int count;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* What reading one model needs; names point into the decoded proto. */
struct reader {
	const char *file;
	struct graph *g;
	struct names names;
	int windows_cap, lists_cap; /* room of g->windows, g->lists */
	struct diag *err;
};

/* The slot of 'name' in 't': where it is, or the empty one where it
   would go. */
static size_t names_slot(const struct names *t, const char *name)
{
	size_t i = (size_t)name_hash(name) & (t->cap - 1);

	while (t->key[i] && strcmp(t->key[i], name) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Add 'name' to 't' (a pointer kept, not a copy) unless it is there,
   the table twice as large when it would be more than half full;
   returns 0, or -1 when out of memory (or past INT_MAX names). */
static int names_add(struct names *t, const char *name)
{
	size_t i;

	if (2 * ((size_t)t->count + 1) > t->cap) {
		struct names big = { .count = t->count };

		big.cap = t->cap ? 2 * t->cap : 1024;
		if (t->count == INT32_MAX ||
		    big.cap > SIZE_MAX / 2 / sizeof(*big.key))
			return -1;
		big.key = calloc(big.cap, sizeof(*big.key));
		big.val = malloc(big.cap * sizeof(*big.val));
		if (!big.key || !big.val) {
			free(big.key);
			free(big.val);
			return -1;
		}
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->key[k])
				continue;
			i = names_slot(&big, t->key[k]);
			big.key[i] = t->key[k];
			big.val[i] = t->val[k];
		}
		free(t->key);
		free(t->val);
		*t = big;
	}
	i = names_slot(t, name);
	if (!t->key[i]) {
		t->key[i] = name;
		t->val[i] = t->count++;
	}
	return 0;
}

/* The index of tensor 'name' (every name of the file was added before
   the tensors were made); -1 when unknown (cannot happen). */
static int tensor_of(struct reader *r, const char *name)
{
	size_t i;

	if (!r->names.cap)
		return -1;
	i = names_slot(&r->names, name);
	return r->names.key[i] ? r->names.val[i] : -1;
}

/* Whether a tensor of ONNX data type 'dt' holds parameters. */
static bool float_type(int32_t dt)
{
	return dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ||
	       dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ||
	       dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ||
	       dt == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
}

/* The dims of an initializer or constant into 'x'. */
static int set_dims(struct reader *r, struct graph_tensor *x,
		    const Onnx__TensorProto *tp, const char *what)
{
	if (tp->n_dims > GRAPH_RANK_MAX)
		return diag_set(r->err, r->file, 0, 0,
				"%s '%s' has %zu dimensions: at most %d "
				"expected",
				what, tp->name ? tp->name : "", tp->n_dims,
				GRAPH_RANK_MAX);
	for (size_t k = 0; k < tp->n_dims; k++) {
		if (tp->dims[k] < 0)
			return diag_set(r->err, r->file, 0, 0,
					"%s '%s': dimension %zu is %lld: a "
					"size of 0 or more expected",
					what, tp->name ? tp->name : "", k,
					(long long)tp->dims[k]);
		x->dims[k] = (double)tp->dims[k];
	}
	x->rank = (int)tp->n_dims;
	return 0;
}

/* Whether ONNX data type 'dt' is an integer (or boolean) type. */
static bool int_type(int64_t dt)
{
	switch (dt) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
		return true;
	default:
		return false;
	}
}

/* Little-endian bytes 'p' of 'n' bytes as an unsigned integer. */
static uint64_t le_bytes(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * The values of a small tensor (at most GRAPH_VAL_MAX elements of a
 * 64- or 32-bit integer, boolean, float or double type) into 'x': the
 * shapes, axes, pads and scales that exporters store as constants.  A
 * larger tensor, another type or data that do not match the dims: no
 * values (x->has_val stays false).
 */
static void read_values(const Onnx__TensorProto *tp, struct graph_tensor *x)
{
	double n = 1.0;
	int64_t dt = tp->has_data_type ? tp->data_type : 0;
	int size = 0, k;
	bool is_int = int_type(dt);

	x->has_val = false;
	for (size_t i = 0; i < tp->n_dims; i++)
		n *= (double)tp->dims[i];
	if (!(n <= GRAPH_VAL_MAX) ||
	    (tp->has_data_location &&
	     tp->data_location ==
		     ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL))
		return;
	k = (int)n;
	switch (dt) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
		size = 8;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		size = 4;
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
		size = 1;
		break;
	default:
		return;
	}
	if (tp->has_raw_data && tp->raw_data.len > 0) {
		if (tp->raw_data.len != (size_t)k * (size_t)size)
			return;
		for (int i = 0; i < k; i++) {
			uint64_t u = le_bytes(tp->raw_data.data + i * size, size);
			double v;

			if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
				memcpy(&v, &u, sizeof(v));
			} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
				uint32_t w = (uint32_t)u;
				float f;

				memcpy(&f, &w, sizeof(f));
				v = f;
			} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64) {
				v = (double)(int64_t)u;
			} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT32) {
				v = (double)(int32_t)(uint32_t)u;
			} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT8) {
				v = (double)(int8_t)(uint8_t)u;
			} else {
				v = (double)u;
			}
			x->val[i] = v;
		}
	} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 &&
		   tp->n_int64_data == (size_t)k) {
		for (int i = 0; i < k; i++)
			x->val[i] = (double)tp->int64_data[i];
	} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT64 &&
		   tp->n_uint64_data == (size_t)k) {
		for (int i = 0; i < k; i++)
			x->val[i] = (double)tp->uint64_data[i];
	} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT &&
		   tp->n_float_data == (size_t)k) {
		for (int i = 0; i < k; i++)
			x->val[i] = tp->float_data[i];
	} else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE &&
		   tp->n_double_data == (size_t)k) {
		for (int i = 0; i < k; i++)
			x->val[i] = tp->double_data[i];
	} else if (size <= 4 && dt != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT &&
		   tp->n_int32_data == (size_t)k) {
		/* int32, int8, uint8 and bool travel in int32_data */
		for (int i = 0; i < k; i++)
			x->val[i] = (double)tp->int32_data[i];
	} else {
		return;
	}
	x->has_val = true;
	x->val_int = is_int;
	x->n_val = k;
}

/*
 * The shape a value_info (graph input, output or intermediate) gives,
 * when complete; axis 0 may be symbolic (the batch: 1).  Returns the rank,
 * or -1 when the shape is missing or has an unknown axis past the first,
 * or -2 when an axis is negative (its index in '*bad').
 */
static int info_shape(const Onnx__ValueInfoProto *vi, double *dims,
		      size_t *bad)
{
	const Onnx__TensorShapeProto *sh;

	if (!vi->type ||
	    vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !vi->type->tensor_type || !vi->type->tensor_type->shape)
		return -1;
	sh = vi->type->tensor_type->shape;
	for (size_t k = 0; k < sh->n_dim; k++) {
		const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
		bool given = d && d->value_case ==
			ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;

		if (given && d->dim_value < 0) {
			*bad = k;
			return -2;
		}
	}
	if (sh->n_dim > GRAPH_RANK_MAX)
		return -1;
	for (size_t k = 0; k < sh->n_dim; k++) {
		const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];

		if (d && d->value_case ==
				 ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value > 0)
			dims[k] = (double)d->dim_value;
		else if (k == 0)
			dims[k] = 1.0;
		else
			return -1;
	}
	return (int)sh->n_dim;
}

/* The shape value_info 'vi' gives its tensor ('what' it is, in
   messages), unless the tensor has one; a negative axis is an error. */
static int apply_info(struct reader *r, const Onnx__ValueInfoProto *vi,
		      const char *what)
{
	double dims[GRAPH_RANK_MAX];
	size_t bad = 0;
	int rank, t;

	if (!vi || !vi->name || !vi->name[0])
		return 0;
	rank = info_shape(vi, dims, &bad);
	if (rank == -2)
		return diag_set(r->err, r->file, 0, 0,
				"%s '%s': dimension %zu is %lld: a size of 0 "
				"or more expected",
				what, vi->name, bad,
				(long long)vi->type->tensor_type->shape
					->dim[bad]
					->dim_value);
	t = tensor_of(r, vi->name);
	if (rank < 0 || t < 0 || r->g->tensors[t].rank >= 0)
		return 0;
	r->g->tensors[t].rank = rank;
	memcpy(r->g->tensors[t].dims, dims, sizeof(dims));
	return 0;
}

/* A list attribute into 'dst' (at most 'max' values). */
static int ints_attr(struct reader *r, const Onnx__NodeProto *nd,
		     const Onnx__AttributeProto *a, double *dst, int max)
{
	if (a->n_ints > (size_t)max)
		return diag_set(r->err, r->file, 0, 0,
				"node '%s' (%s): attribute '%s' has %zu "
				"values: at most %d expected",
				nd->name ? nd->name : "", nd->op_type,
				a->name, a->n_ints, max);
	for (size_t k = 0; k < a->n_ints; k++)
		dst[k] = (double)a->ints[k];
	return (int)a->n_ints;
}

/*
 * A window attribute of a convolution or pooling ('windowed'): each value
 * at least 'least' (kernel_shape, strides and dilations 1, pads and
 * output_padding 0: ONNX operator specification).  Other operators'
 * attributes of these names are left alone (Pad's pads before opset 11
 * may be negative: they crop).
 */
static int window_attr(struct reader *r, const Onnx__NodeProto *nd,
		       const Onnx__AttributeProto *a, bool windowed,
		       int64_t least)
{
	char list[96];
	size_t used = 0;
	size_t k;

	if (!windowed)
		return 0;
	for (k = 0; k < a->n_ints && a->ints[k] >= least; k++)
		;
	if (k == a->n_ints)
		return 0;
	list[0] = '\0';
	for (k = 0; k < a->n_ints && used < sizeof(list); k++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s%lld",
				 k ? ", " : "", (long long)a->ints[k]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return diag_set(r->err, r->file, 0, 0,
			"node '%s' (%s): attribute '%s' is [%s]: each value "
			"%lld or more expected",
			nd->name ? nd->name : "", nd->op_type, a->name, list,
			(long long)least);
}

/* An axis attribute within +-GRAPH_RANK_MAX, which clamps as far as
   any tensor of the graph. */
static int clamp_axis(int64_t v)
{
	return v < -GRAPH_RANK_MAX ? -GRAPH_RANK_MAX :
	       v > GRAPH_RANK_MAX  ? GRAPH_RANK_MAX :
				     (int)v;
}

/* Append 'x' ('size' bytes) to the array 'arr' of '*n' elements ('*cap'
   room; '*n' becomes its 1-based index): returns the array, moved when
   it grew, or NULL (and 'arr' untouched) when out of memory. */
static void *append(void *arr, int *n, int *cap, const void *x, size_t size)
{
	char *a = arr;

	if (*n == *cap) {
		int c = *cap ? 2 * *cap : 16;

		if (*cap > INT32_MAX / 2)
			return NULL;
		a = realloc(a, (size_t)c * size);
		if (!a)
			return NULL;
		*cap = c;
	}
	memcpy(a + (size_t)*n * size, x, size);
	++*n;
	return a;
}

static int read_attrs(struct reader *r, const Onnx__NodeProto *nd,
		      struct graph_node *n)
{
	bool win = graph_op_windowed(nd->op_type);
	/* the window and the lists, kept beside the node when given */
	struct graph_window w = { 0 };
	struct graph_lists l = { 0 };
	bool has_w = false, has_l = false;

	n->group = 1.0;
	n->axis = strcmp(nd->op_type, "Flatten") == 0 ? 1 :
		  strcmp(nd->op_type, "Gather") == 0 ||
				  strcmp(nd->op_type, "Split") == 0 ||
				  strcmp(nd->op_type, "ArgMax") == 0 ||
				  strcmp(nd->op_type, "ArgMin") == 0 ?
						       0 :
						       -1;
	n->keepdims = 1;
	for (size_t i = 0; i < nd->n_attribute; i++) {
		const Onnx__AttributeProto *a = nd->attribute[i];
		double v[GRAPH_RANK_MAX];
		int c;

		if (!a || !a->name)
			continue;
		if (strcmp(a->name, "group") == 0 && a->has_i) {
			if (a->i < 1)
				return diag_set(r->err, r->file, 0, 0,
						"node '%s' (%s): 'group' is "
						"%lld: 1 or more expected",
						n->name, n->op_type,
						(long long)a->i);
			n->group = (double)a->i;
		} else if (strcmp(a->name, "transA") == 0) {
			n->trans_a = a->i != 0;
		} else if (strcmp(a->name, "transB") == 0) {
			n->trans_b = a->i != 0;
		} else if (strcmp(a->name, "axis") == 0) {
			n->axis = a->i > -GRAPH_RANK_MAX && a->i < GRAPH_RANK_MAX ?
					  (int)a->i :
					  GRAPH_RANK_MAX;
		} else if (strcmp(a->name, "keepdims") == 0) {
			n->keepdims = a->i != 0;
		} else if (strcmp(a->name, "ceil_mode") == 0) {
			n->ceil_mode = a->i != 0;
		} else if (strcmp(a->name, "auto_pad") == 0 && a->has_s) {
			n->auto_pad_same = a->s.len >= 4 &&
					   memcmp(a->s.data, "SAME", 4) == 0;
		} else if (strcmp(a->name, "kernel_shape") == 0) {
			if ((c = ints_attr(r, nd, a, w.kernel,
					   GRAPH_RANK_MAX)) < 0 ||
			    window_attr(r, nd, a, win, 1) != 0)
				return -1;
			w.kernel_rank = c;
			has_w = true;
		} else if (strcmp(a->name, "strides") == 0) {
			if (ints_attr(r, nd, a, w.strides,
				      GRAPH_RANK_MAX) < 0 ||
			    window_attr(r, nd, a, win, 1) != 0)
				return -1;
			has_w = true;
		} else if (strcmp(a->name, "dilations") == 0) {
			if (ints_attr(r, nd, a, w.dilations,
				      GRAPH_RANK_MAX) < 0 ||
			    window_attr(r, nd, a, win, 1) != 0)
				return -1;
			has_w = true;
		} else if (strcmp(a->name, "output_padding") == 0) {
			if (ints_attr(r, nd, a, w.out_pads,
				      GRAPH_RANK_MAX) < 0 ||
			    window_attr(r, nd, a, win, 0) != 0)
				return -1;
			has_w = true;
		} else if (strcmp(a->name, "pads") == 0) {
			if (ints_attr(r, nd, a, w.pads,
				      2 * GRAPH_RANK_MAX) < 0 ||
			    window_attr(r, nd, a, win, 0) != 0)
				return -1;
			has_w = true;
		} else if (strcmp(a->name, "axes") == 0) {
			if ((c = ints_attr(r, nd, a, l.axes,
					   GRAPH_RANK_MAX)) < 0)
				return -1;
			l.has_axes = true;
			l.n_axes = c;
			has_l = true;
		} else if (strcmp(a->name, "starts") == 0 ||
			   strcmp(a->name, "ends") == 0) {
			bool st = a->name[0] == 's';

			if ((c = ints_attr(r, nd, a, st ? l.starts : l.ends,
					   GRAPH_RANK_MAX)) < 0)
				return -1;
			if (st)
				l.n_starts = c;
			l.has_starts = true;
			has_l = true;
		} else if (strcmp(a->name, "scales") == 0) {
			/* Upsample before opset 9; more axes than a tensor
			   has: the output's shape must then be in the file */
			l.has_scales = a->n_floats <= GRAPH_RANK_MAX;
			l.n_scales = l.has_scales ? (int)a->n_floats : 0;
			for (int k = 0; k < l.n_scales; k++)
				l.scales[k] = (double)a->floats[k];
			has_l = true;
		} else if (strcmp(a->name, "split") == 0) {
			/* more parts than are kept: the outputs' shapes must
			   then be in the file */
			l.has_split = a->n_ints <= GRAPH_VAL_MAX;
			l.n_split = l.has_split ? (int)a->n_ints : 0;
			for (int k = 0; k < l.n_split; k++)
				l.split[k] = (double)a->ints[k];
			has_l = true;
		} else if (strcmp(a->name, "noop_with_empty_axes") == 0) {
			n->noop_empty_axes = a->i != 0;
		} else if (strcmp(a->name, "to") == 0) {
			n->to_int = int_type(a->i);
		} else if (strcmp(a->name, "value") == 0 && a->t &&
			   strcmp(nd->op_type, "ConstantOfShape") == 0) {
			struct graph_tensor f = { 0 };

			read_values(a->t, &f);
			n->fill = f.has_val && f.n_val > 0 ? f.val[0] : 0.0;
		} else if (strcmp(a->name, "start") == 0 &&
			   strcmp(nd->op_type, "Shape") == 0) {
			n->shape_start = clamp_axis(a->i);
		} else if (strcmp(a->name, "end") == 0 &&
			   strcmp(nd->op_type, "Shape") == 0) {
			n->has_shape_end = true;
			n->shape_end = clamp_axis(a->i);
		} else if (strcmp(a->name, "perm") == 0) {
			if ((c = ints_attr(r, nd, a, v, GRAPH_RANK_MAX)) < 0)
				return -1;
			l.perm_rank = c;
			for (int k = 0; k < c; k++)
				l.perm[k] = v[k] >= 0 && v[k] < GRAPH_RANK_MAX ?
						    (int)v[k] :
						    -1;
			has_l = true;
		}
	}
	/* pads, strides and dilations follow the spatial rank; a Conv may
	   leave kernel_shape to its weight */
	if (w.kernel_rank == 0) {
		for (int k = GRAPH_RANK_MAX - 1; k >= 0 && !w.kernel_rank; k--)
			if (w.strides[k] > 0 || w.dilations[k] > 0)
				w.kernel_rank = k + 1;
		for (int k = 2 * GRAPH_RANK_MAX - 1; k >= 0 && !w.kernel_rank;
		     k--)
			if (w.pads[k] > 0)
				w.kernel_rank = (k + 2) / 2;
	}
	if (has_w) {
		void *p = append(r->g->windows, &r->g->n_windows,
				 &r->windows_cap, &w, sizeof(w));

		if (!p)
			goto out_nomem;
		r->g->windows = p;
		n->window = r->g->n_windows;
	}
	if (has_l) {
		void *p = append(r->g->lists, &r->g->n_lists, &r->lists_cap,
				 &l, sizeof(l));

		if (!p)
			goto out_nomem;
		r->g->lists = p;
		n->lists = r->g->n_lists;
	}
	return 0;
out_nomem:
	return diag_set_kind(r->err, DIAG_NOMEM, r->file, 0, 0,
			     "out of memory");
}

static int read_node(struct reader *r, const Onnx__NodeProto *nd, int i,
		     int *edge, int *out_edge)
{
	struct graph *g = r->g;
	struct graph_node *n = &g->nodes[i];

	memset(n, 0, sizeof(*n));
	if (!nd->op_type || !nd->op_type[0])
		return diag_set(r->err, r->file, 0, 0,
				"node %d has no operator type: an ONNX "
				"'op_type' such as 'Conv' expected",
				i + 1);
	snprintf(n->name, sizeof(n->name), "%s", nd->name ? nd->name : "");
	snprintf(n->op_type, sizeof(n->op_type), "%s", nd->op_type);
	if (nd->n_output < 1 || !nd->output[0] || !nd->output[0][0])
		return diag_set(r->err, r->file, 0, 0,
				"node '%s' (%s) has no output", n->name,
				n->op_type);
	if (read_attrs(r, nd, n) != 0)
		return -1;
	n->in_first = *edge;
	n->n_in = (int)nd->n_input;
	for (size_t k = 0; k < nd->n_input; k++) {
		int t = -1;

		if (nd->input[k] && nd->input[k][0]) {
			t = tensor_of(r, nd->input[k]);
			g->tensors[t].consumers++;
		}
		g->inputs[(*edge)++] = t;
	}
	n->out = tensor_of(r, nd->output[0]);
	if (g->tensors[n->out].producer >= 0 || g->tensors[n->out].weight)
		return diag_set(r->err, r->file, 0, 0,
				"node '%s' (%s): output '%s' is already "
				"made by another node or an initializer",
				n->name, n->op_type, nd->output[0]);
	g->tensors[n->out].producer = i;
	n->out_first = *out_edge;
	n->n_out = (int)nd->n_output;
	for (size_t k = 0; k < nd->n_output; k++) {
		int t = k == 0 ? n->out : -1;

		if (k > 0 && nd->output[k] && nd->output[k][0]) {
			t = tensor_of(r, nd->output[k]);
			g->tensors[t].producer = i;
		}
		g->outputs[(*out_edge)++] = t;
	}
	if (strcmp(nd->op_type, "Constant") == 0) {
		struct graph_tensor *x = &g->tensors[n->out];

		x->weight = true;
		x->rank = 0;
		for (size_t k = 0; k < nd->n_attribute; k++) {
			const Onnx__AttributeProto *a = nd->attribute[k];

			if (!a || !a->name)
				continue;
			if (strcmp(a->name, "value_int") == 0 ||
			    strcmp(a->name, "value_float") == 0) {
				x->rank = 0;
				x->has_val = true;
				x->val_int = a->name[6] == 'i';
				x->n_val = 1;
				x->val[0] = x->val_int ? (double)a->i : (double)a->f;
				continue;
			}
			if (strcmp(a->name, "value_ints") == 0 ||
			    strcmp(a->name, "value_floats") == 0) {
				bool ints = a->name[6] == 'i';
				size_t c = ints ? a->n_ints : a->n_floats;

				x->rank = 1;
				x->dims[0] = (double)c;
				x->has_val = c <= GRAPH_VAL_MAX;
				x->val_int = ints;
				x->n_val = x->has_val ? (int)c : 0;
				for (int v = 0; v < x->n_val; v++)
					x->val[v] = ints ? (double)a->ints[v] :
							   (double)a->floats[v];
				continue;
			}
			if (strcmp(a->name, "value") != 0 || !a->t)
				continue;
			if (set_dims(r, x, a->t, "constant") != 0)
				return -1;
			read_values(a->t, x);
			/* exporters that keep weights as Constant nodes */
			x->param = a->t->has_data_type &&
				   float_type(a->t->data_type);
		}
	}
	return 0;
}

/*
 * Add every tensor name of the graph to the table, in the order build()
 * meets them (so that tensors are numbered as they are first read), and
 * count the nodes' input and output lists.  Returns 0, or -1 when out of
 * memory.
 */
static int add_names(struct reader *r, const Onnx__GraphProto *gp,
		     size_t *edges, size_t *out_edges)
{
	struct names *t = &r->names;
	int bad = 0;

	*edges = 0;
	*out_edges = 0;
	for (size_t i = 0; i < gp->n_initializer; i++)
		if (gp->initializer[i]->name && gp->initializer[i]->name[0])
			bad |= names_add(t, gp->initializer[i]->name);
	for (size_t i = 0; i < gp->n_input; i++)
		if (gp->input[i]->name && gp->input[i]->name[0])
			bad |= names_add(t, gp->input[i]->name);
	for (size_t i = 0; i < gp->n_value_info; i++)
		if (gp->value_info[i]->name && gp->value_info[i]->name[0])
			bad |= names_add(t, gp->value_info[i]->name);
	for (size_t i = 0; i < gp->n_output; i++)
		if (gp->output[i]->name && gp->output[i]->name[0])
			bad |= names_add(t, gp->output[i]->name);
	for (size_t i = 0; i < gp->n_node && !bad; i++) {
		const Onnx__NodeProto *nd = gp->node[i];

		for (size_t k = 0; k < nd->n_input; k++)
			if (nd->input[k] && nd->input[k][0])
				bad |= names_add(t, nd->input[k]);
		for (size_t k = 0; k < nd->n_output; k++)
			if (nd->output[k] && nd->output[k][0])
				bad |= names_add(t, nd->output[k]);
		*edges += nd->n_input;
		*out_edges += nd->n_output;
	}
	return bad ? -1 : 0;
}

static int build(struct reader *r, const Onnx__GraphProto *gp)
{
	struct graph *g = r->g;
	size_t edges, out_edges;
	int edge = 0, out_edge = 0;

	if (gp->n_node == 0)
		return diag_set(r->err, r->file, 0, 0,
				"the ONNX graph has no operators: a model "
				"with nodes expected");
	if (gp->n_node > GRAPH_NODES_MAX)
		return diag_set(r->err, r->file, 0, 0,
				"the ONNX graph has %zu operators: at most "
				"%d expected (the limit that bounds "
				"capplan's memory and time)",
				gp->n_node, GRAPH_NODES_MAX);
	if (add_names(r, gp, &edges, &out_edges) != 0)
		return diag_set_kind(r->err, DIAG_NOMEM, r->file, 0, 0,
				     "out of memory");
	if (edges > (size_t)INT32_MAX || out_edges > (size_t)INT32_MAX)
		return diag_set(r->err, r->file, 0, 0,
				"the ONNX graph is too large: more than %d "
				"operator inputs or outputs",
				INT32_MAX);
	g->tensors = malloc(((size_t)r->names.count + 1) *
			    sizeof(*g->tensors));
	g->nodes = calloc(gp->n_node, sizeof(*g->nodes));
	g->inputs = calloc(edges + 1, sizeof(*g->inputs));
	g->outputs = calloc(out_edges + 1, sizeof(*g->outputs));
	if (!g->tensors || !g->nodes || !g->inputs || !g->outputs)
		return diag_set_kind(r->err, DIAG_NOMEM, r->file, 0, 0,
				     "out of memory");
	for (int t = 0; t < r->names.count; t++) {
		struct graph_tensor *x = &g->tensors[t];

		memset(x, 0, sizeof(*x));
		x->rank = -1;
		x->producer = -1;
	}
	g->n_tensors = r->names.count;
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *tp = gp->initializer[i];
		struct graph_tensor *x;

		if (!tp->name || !tp->name[0])
			return diag_set(r->err, r->file, 0, 0,
					"initializer %zu has no name", i + 1);
		x = &g->tensors[tensor_of(r, tp->name)];
		x->weight = true;
		x->param = tp->has_data_type && float_type(tp->data_type);
		if (set_dims(r, x, tp, "initializer") != 0)
			return -1;
		read_values(tp, x);
	}
	g->batch = 0.0;
	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		int t;

		if (!vi->name || !vi->name[0])
			continue;
		t = tensor_of(r, vi->name);
		if (g->tensors[t].weight)
			continue;
		if (apply_info(r, vi, "graph input") != 0)
			return -1;
		if (g->batch == 0.0 && g->tensors[t].rank >= 1)
			g->batch = g->tensors[t].dims[0];
	}
	if (!(g->batch > 0.0))
		g->batch = 1.0;
	for (size_t i = 0; i < gp->n_value_info; i++)
		if (apply_info(r, gp->value_info[i], "value_info") != 0)
			return -1;
	for (size_t i = 0; i < gp->n_output; i++)
		if (apply_info(r, gp->output[i], "graph output") != 0)
			return -1;
	for (size_t i = 0; i < gp->n_node; i++) {
		if (read_node(r, gp->node[i], (int)i, &edge, &out_edge) != 0)
			return -1;
		g->n_nodes++;
	}
	return 0;
}

void onnx_graph_release(struct graph *g)
{
	if (!g)
		return;
	free(g->nodes);
	free(g->tensors);
	free(g->inputs);
	free(g->outputs);
	free(g->windows);
	free(g->lists);
	memset(g, 0, sizeof(*g));
}

/* The name of the first output of node 'i' ('what' in messages). */
static const char *out_name(const Onnx__GraphProto *gp, int i)
{
	return gp->node[i]->output[0];
}

/* Whether a tensor of 'g' holds parameters (a floating-point weight). */
static bool has_params(const struct graph *g)
{
	for (int t = 0; t < g->n_tensors; t++)
		if (g->tensors[t].param)
			return true;
	return false;
}

/* The model in the 'len' bytes at 'buf', decoded into 'a' (protobuf-c
   copies what it keeps: 'buf' may be freed then); NULL with 'err' set
   (and 'a' released) when it does not decode. */
static Onnx__ModelProto *unpack(const void *buf, size_t len,
				const char *name, struct arena *a,
				struct diag *err)
{
	ProtobufCAllocator alloc = { .alloc = arena_alloc,
				     .free = arena_free_one,
				     .allocator_data = a };
	Onnx__ModelProto *m = onnx__model_proto__unpack(&alloc, len, buf);

	if (m)
		return m;
	if (a->failed)
		diag_set_kind(err, DIAG_NOMEM, name, 0, 0, "out of memory");
	else
		diag_set(err, name, 0, 0,
			 "not an ONNX model: the file does not decode as an "
			 "ONNX ModelProto (protobuf), as torch.onnx.export or "
			 "onnx.save write it");
	arena_release(a);
	return NULL;
}

/* onnx_graph_parse of the decoded model 'm', in 'a', which it
   releases. */
static int graph_of_model(Onnx__ModelProto *m, struct arena *a,
			  const char *name, struct graph *g, struct diag *err)
{
	struct reader r = { .file = name, .g = g, .err = err };
	int rc = -1, bad;

	memset(g, 0, sizeof(*g));
	if (!m->graph) {
		diag_set(err, name, 0, 0,
			 "the ONNX model has no graph: a ModelProto with a "
			 "'graph' expected");
		goto out_free;
	}
	if (build(&r, m->graph) != 0)
		goto out_free;
	/* before the shapes: a cycle leaves them unknown, and the node
	   named then would not be what is wrong */
	bad = graph_find_cycle(g);
	if (bad < 0) {
		diag_set_kind(err, DIAG_NOMEM, name, 0, 0, "out of memory");
		goto out_free;
	}
	if (bad > 0) {
		const struct graph_node *n = &g->nodes[bad - 1];

		diag_set(err, name, 0, 0,
			 "the graph has a cycle through node '%s' (%s): its "
			 "output '%s' leads back to its own inputs; an ONNX "
			 "graph is acyclic",
			 n->name, n->op_type, out_name(m->graph, bad - 1));
		goto out_free;
	}
	bad = graph_infer_shapes(g);
	if (bad > 0) {
		const struct graph_node *n = &g->nodes[bad - 1];

		diag_set(err, name, 0, 0,
			 "node '%s' (%s): the shape of its output '%s' is "
			 "neither in the file nor inferable from its inputs: "
			 "shapes as onnx.shape_inference.infer_shapes writes "
			 "them (value_info) expected",
			 n->name, n->op_type, out_name(m->graph, bad - 1));
		goto out_free;
	}
	if (!has_params(g)) {
		diag_set(err, name, 0, 0,
			 "the graph has no weights (no floating-point "
			 "initializer or Constant): a network exported with "
			 "its parameters expected (torch.onnx.export with "
			 "export_params=True, the default)");
		goto out_free;
	}
	rc = 0;
out_free:
	/* the tensor names point into the proto: forget them */
	free(r.names.key);
	free(r.names.val);
	arena_release(a);
	if (rc != 0)
		onnx_graph_release(g);
	return rc;
}

int onnx_graph_parse(const void *buf, size_t len, const char *name,
		     struct graph *g, struct diag *err)
{
	struct arena a = { 0 };
	Onnx__ModelProto *m;

	memset(g, 0, sizeof(*g));
	m = unpack(buf, len, name, &a, err);
	return m ? graph_of_model(m, &a, name, g, err) : -1;
}

/* The summary of the graph of the decoded model 'm', in 'a', which it
   releases. */
static int summary_of_model(Onnx__ModelProto *m, struct arena *a,
			    const char *name, struct graph_summary *s,
			    struct diag *err)
{
	struct graph g;
	int bad;

	if (graph_of_model(m, a, name, &g, err) != 0)
		return -1;
	bad = graph_summarize(&g, s);
	if (bad < 0) {
		onnx_graph_release(&g);
		return diag_set_kind(err, DIAG_NOMEM, name, 0, 0,
				     "out of memory");
	}
	if (bad > 0) {
		const struct graph_node *n = &g.nodes[bad - 1];
		char shapes[160] = "";
		size_t used = 0;

		for (int k = 0; k < n->n_in && used < sizeof(shapes); k++) {
			int t = g.inputs[n->in_first + k];
			const struct graph_tensor *x =
				t >= 0 ? &g.tensors[t] : NULL;
			int w = snprintf(shapes + used, sizeof(shapes) - used,
					 "%s[", k ? " " : "");

			for (int d = 0; x && d < x->rank && w >= 0; d++) {
				used += (size_t)w;
				if (used >= sizeof(shapes))
					break;
				w = snprintf(shapes + used,
					     sizeof(shapes) - used, "%s%.0f",
					     d ? "," : "", x->dims[d]);
			}
			if (w < 0)
				break;
			used += (size_t)w;
			if (used < sizeof(shapes))
				used += (size_t)snprintf(shapes + used,
							 sizeof(shapes) - used,
							 "]");
		}
		diag_set(err, name, 0, 0,
			 "node '%s' (%s): its inputs %s do not fit the "
			 "operator: shapes as the ONNX operator "
			 "specification defines them expected",
			 n->name, n->op_type, shapes);
		onnx_graph_release(&g);
		return -1;
	}
	onnx_graph_release(&g);
	if (s->n_ops == 0)
		return diag_set(err, name, 0, 0,
				"the ONNX graph has no operator that does "
				"work: a network expected");
	if (!(s->flops > 0.0))
		return diag_set(err, name, 0, 0,
				"the graph does no arithmetic (0 FLOPs per "
				"sample): its operators only move data; a "
				"network expected");
	return 0;
}

int onnx_summary_parse(const void *buf, size_t len, const char *name,
		       struct graph_summary *s, struct diag *err)
{
	struct arena a = { 0 };
	Onnx__ModelProto *m;

	memset(s, 0, sizeof(*s));
	m = unpack(buf, len, name, &a, err);
	return m ? summary_of_model(m, &a, name, s, err) : -1;
}

int onnx_summary_load(const char *path, struct graph_summary *s,
		      struct diag *err)
{
	char *buf;
	size_t len;
	struct diag rd;
	struct arena a = { 0 };
	Onnx__ModelProto *m;

	memset(s, 0, sizeof(*s));
	diag_clear(&rd);
	if (readfile_all(path, READFILE_REGULAR, ONNX_FILE_MAX, &buf, &len,
			 &rd) != 0)
		/* the message names the path; the caller says where it was
		   named */
		return diag_set_kind(err, rd.kind, NULL, 0, 0, "%s", rd.msg);
	m = unpack(buf, len, path, &a, err);
	/* the decoded model holds copies of what it keeps: the file's
	   bytes (its weights) go before the graph is built */
	free(buf);
	return m ? summary_of_model(m, &a, path, s, err) : -1;
}
