/*
 * graph_internal.h - what the files of the graph model share
 * (graph_ops.c: the operator table; graph_summary.c: the costs;
 * graph_shape.c: the shapes and the constants' values).  Private:
 * nothing outside src/graph/ includes it.
 */
#ifndef CAPPLAN_GRAPH_INTERNAL_H
#define CAPPLAN_GRAPH_INTERNAL_H

#include <stdbool.h>

#include "graph.h"

/* How the output shape of an operator follows from its inputs (ONNX
   operator specification, opsets 7-18). */
enum shape_rule {
	SHAPE_NONE,      /* the file must give it */
	SHAPE_SAME,      /* as input 0 */
	SHAPE_BROADCAST, /* numpy broadcasting of all inputs */
	SHAPE_CONV,      /* N, weight's dim 0, spatial by the window */
	SHAPE_DECONV,    /* ConvTranspose: N, weight's dim 1 x group,
			    stride (in - 1) + the window - pads */
	SHAPE_POOL,      /* N, C, spatial by the window */
	SHAPE_GLOBAL,    /* N, C, 1, ... */
	SHAPE_GEMM,
	SHAPE_MATMUL,
	SHAPE_FLATTEN,
	SHAPE_TRANSPOSE,
	SHAPE_CONCAT,
	SHAPE_REDUCE,    /* Reduce*: axes (attribute or input 1), keepdims */
	SHAPE_RESHAPE,   /* the values of input 1 (0 keeps, -1 infers) */
	SHAPE_SQUEEZE,   /* axes (attribute or input 1), else every 1 */
	SHAPE_UNSQUEEZE,
	SHAPE_SLICE,     /* starts, ends, axes, steps (inputs 1-4 or the
			    attributes before opset 10) */
	SHAPE_PAD,       /* pads (input 1, or the attribute before 11) */
	SHAPE_GATHER,    /* data's axes around the indices' shape */
	SHAPE_EXPAND,    /* input broadcast with the values of input 1 */
	SHAPE_TILE,      /* input times the repeats (input 1) */
	SHAPE_SPLIT,     /* every output: split (input 1 or attribute) or
			    equal parts */
	SHAPE_RESIZE,    /* sizes (input 3) or scales (input 2) */
	SHAPE_SHAPE,     /* Shape: [rank]; Size: a scalar */
	SHAPE_FILL,      /* ConstantOfShape: the values of input 0 */
	SHAPE_RANGE,     /* ceil((limit - start) / delta) elements */
};

/* Which tensors the backward pass of an operator reads (saved in the
   forward pass; PyTorch autograd's saved tensors). */
enum graph_saved {
	SAVE_NONE,
	SAVE_IN0,   /* the activation input */
	SAVE_INS,   /* every activation input */
	SAVE_OUT,   /* the output (ReLU, Sigmoid, Softmax) */
};

/* One operator of the table (graph_ops.c). */
struct graph_op_row {
	const char *op_type;
	enum graph_op_kind kind;
	enum shape_rule shape;
	enum graph_saved saved;
	double flops_per_elem;
};

/* The row of operator 'op_type'; an operator not in the table gets a row
   of kind GOP_OTHER that moves its inputs to its output. */
const struct graph_op_row *graph_op_find(const char *op_type);

/* The shape rule of operator 'op_type' (SHAPE_NONE when unknown). */
enum shape_rule graph_shape_rule(const char *op_type);

/* Input 'i' of node 'n', or NULL when omitted or absent. */
static inline const struct graph_tensor *
graph_in(const struct graph *g, const struct graph_node *n, int i)
{
	int t = i < n->n_in ? g->inputs[n->in_first + i] : -1;

	return t >= 0 ? &g->tensors[t] : NULL;
}

/* Elements of 't' (its shape known). */
static inline double graph_elems(const struct graph_tensor *t)
{
	double e = 1.0;

	for (int i = 0; i < t->rank; i++)
		e *= t->dims[i];
	return e;
}

static inline bool graph_known(const struct graph_tensor *t)
{
	return t && t->rank >= 0;
}

#endif
