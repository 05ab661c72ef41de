/* graph_ops.c - the ONNX operators capplan knows: each one's kind, shape
   rule, what its backward pass reads and its FLOPs per element; see
   graph_internal.h and specs/models.md, section 14.8. */
#include "graph.h"
#include "graph_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/*
 * The operators capplan knows.  'flops_per_elem': FLOPs per output
 * element of the operators that are not products or windows: one for an
 * element-wise operation, five for a normalization (mean, variance,
 * normalize, scale, shift) and for a softmax (max, subtract, exp, sum,
 * divide).
 */
static const struct graph_op_row op_table[] = {
	{ "Conv", GOP_CONV, SHAPE_CONV, SAVE_IN0, 0.0 },
	{ "ConvTranspose", GOP_CONV, SHAPE_DECONV, SAVE_IN0, 0.0 },
	{ "Gemm", GOP_MATMUL, SHAPE_GEMM, SAVE_IN0, 0.0 },
	{ "MatMul", GOP_MATMUL, SHAPE_MATMUL, SAVE_INS, 0.0 },
	{ "BatchNormalization", GOP_NORM, SHAPE_SAME, SAVE_IN0, 5.0 },
	{ "InstanceNormalization", GOP_NORM, SHAPE_SAME, SAVE_IN0, 5.0 },
	{ "LayerNormalization", GOP_NORM, SHAPE_SAME, SAVE_IN0, 5.0 },
	{ "GroupNormalization", GOP_NORM, SHAPE_SAME, SAVE_IN0, 5.0 },
	{ "LpNormalization", GOP_NORM, SHAPE_SAME, SAVE_IN0, 5.0 },
	{ "LRN", GOP_NORM, SHAPE_SAME, SAVE_IN0, 5.0 },
	{ "Relu", GOP_ACT, SHAPE_SAME, SAVE_OUT, 1.0 },
	{ "LeakyRelu", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Sigmoid", GOP_ACT, SHAPE_SAME, SAVE_OUT, 1.0 },
	{ "Tanh", GOP_ACT, SHAPE_SAME, SAVE_OUT, 1.0 },
	{ "HardSigmoid", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "HardSwish", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Elu", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Selu", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Celu", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Gelu", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Mish", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Softplus", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Softsign", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Erf", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Exp", GOP_ACT, SHAPE_SAME, SAVE_OUT, 1.0 },
	{ "Log", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Sqrt", GOP_ACT, SHAPE_SAME, SAVE_OUT, 1.0 },
	{ "Reciprocal", GOP_ACT, SHAPE_SAME, SAVE_OUT, 1.0 },
	{ "Neg", GOP_ACT, SHAPE_SAME, SAVE_NONE, 1.0 },
	{ "Abs", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Clip", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Cast", GOP_ACT, SHAPE_SAME, SAVE_NONE, 1.0 },
	{ "Not", GOP_ACT, SHAPE_SAME, SAVE_NONE, 1.0 },
	{ "Floor", GOP_ACT, SHAPE_SAME, SAVE_NONE, 1.0 },
	{ "Ceil", GOP_ACT, SHAPE_SAME, SAVE_NONE, 1.0 },
	{ "Round", GOP_ACT, SHAPE_SAME, SAVE_NONE, 1.0 },
	{ "Sin", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Cos", GOP_ACT, SHAPE_SAME, SAVE_IN0, 1.0 },
	{ "Add", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Sub", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Mul", GOP_BINARY, SHAPE_BROADCAST, SAVE_INS, 1.0 },
	{ "Div", GOP_BINARY, SHAPE_BROADCAST, SAVE_INS, 1.0 },
	{ "Pow", GOP_BINARY, SHAPE_BROADCAST, SAVE_INS, 1.0 },
	{ "Max", GOP_BINARY, SHAPE_BROADCAST, SAVE_INS, 1.0 },
	{ "Min", GOP_BINARY, SHAPE_BROADCAST, SAVE_INS, 1.0 },
	{ "Sum", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "PRelu", GOP_BINARY, SHAPE_BROADCAST, SAVE_IN0, 1.0 },
	{ "Where", GOP_BINARY, SHAPE_BROADCAST, SAVE_IN0, 1.0 },
	{ "Equal", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Greater", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "GreaterOrEqual", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Less", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "LessOrEqual", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "And", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Or", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Xor", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "Mod", GOP_BINARY, SHAPE_BROADCAST, SAVE_NONE, 1.0 },
	{ "MaxPool", GOP_POOL, SHAPE_POOL, SAVE_IN0, 0.0 },
	{ "AveragePool", GOP_POOL, SHAPE_POOL, SAVE_NONE, 0.0 },
	{ "LpPool", GOP_POOL, SHAPE_POOL, SAVE_IN0, 0.0 },
	{ "GlobalAveragePool", GOP_REDUCE, SHAPE_GLOBAL, SAVE_NONE, 0.0 },
	{ "GlobalMaxPool", GOP_REDUCE, SHAPE_GLOBAL, SAVE_IN0, 0.0 },
	{ "ReduceMean", GOP_REDUCE, SHAPE_REDUCE, SAVE_NONE, 0.0 },
	{ "ReduceSum", GOP_REDUCE, SHAPE_REDUCE, SAVE_NONE, 0.0 },
	{ "ReduceMax", GOP_REDUCE, SHAPE_REDUCE, SAVE_IN0, 0.0 },
	{ "ReduceMin", GOP_REDUCE, SHAPE_REDUCE, SAVE_IN0, 0.0 },
	{ "ReduceL2", GOP_REDUCE, SHAPE_REDUCE, SAVE_IN0, 0.0 },
	{ "ArgMax", GOP_REDUCE, SHAPE_REDUCE, SAVE_NONE, 0.0 },
	{ "ArgMin", GOP_REDUCE, SHAPE_REDUCE, SAVE_NONE, 0.0 },
	{ "Softmax", GOP_SOFTMAX, SHAPE_SAME, SAVE_OUT, 5.0 },
	{ "LogSoftmax", GOP_SOFTMAX, SHAPE_SAME, SAVE_OUT, 5.0 },
	{ "Transpose", GOP_MOVE, SHAPE_TRANSPOSE, SAVE_NONE, 0.0 },
	{ "Concat", GOP_MOVE, SHAPE_CONCAT, SAVE_NONE, 0.0 },
	{ "Split", GOP_MOVE, SHAPE_SPLIT, SAVE_NONE, 0.0 },
	{ "Slice", GOP_MOVE, SHAPE_SLICE, SAVE_NONE, 0.0 },
	{ "Pad", GOP_MOVE, SHAPE_PAD, SAVE_NONE, 0.0 },
	{ "Expand", GOP_MOVE, SHAPE_EXPAND, SAVE_NONE, 0.0 },
	{ "Tile", GOP_MOVE, SHAPE_TILE, SAVE_NONE, 0.0 },
	{ "Gather", GOP_MOVE, SHAPE_GATHER, SAVE_NONE, 0.0 },
	{ "Resize", GOP_MOVE, SHAPE_RESIZE, SAVE_NONE, 0.0 },
	{ "Upsample", GOP_MOVE, SHAPE_RESIZE, SAVE_NONE, 0.0 },
	{ "DepthToSpace", GOP_MOVE, SHAPE_NONE, SAVE_NONE, 0.0 },
	{ "SpaceToDepth", GOP_MOVE, SHAPE_NONE, SAVE_NONE, 0.0 },
	{ "ScatterND", GOP_MOVE, SHAPE_SAME, SAVE_NONE, 0.0 },
	{ "Reshape", GOP_FREE, SHAPE_RESHAPE, SAVE_NONE, 0.0 },
	{ "Flatten", GOP_FREE, SHAPE_FLATTEN, SAVE_NONE, 0.0 },
	{ "Squeeze", GOP_FREE, SHAPE_SQUEEZE, SAVE_NONE, 0.0 },
	{ "Unsqueeze", GOP_FREE, SHAPE_UNSQUEEZE, SAVE_NONE, 0.0 },
	{ "Identity", GOP_FREE, SHAPE_SAME, SAVE_NONE, 0.0 },
	{ "Dropout", GOP_FREE, SHAPE_SAME, SAVE_NONE, 0.0 },
	{ "Shape", GOP_FREE, SHAPE_SHAPE, SAVE_NONE, 0.0 },
	{ "Size", GOP_FREE, SHAPE_SHAPE, SAVE_NONE, 0.0 },
	{ "Constant", GOP_FREE, SHAPE_NONE, SAVE_NONE, 0.0 },
	{ "ConstantOfShape", GOP_FREE, SHAPE_FILL, SAVE_NONE, 0.0 },
	{ "Range", GOP_FREE, SHAPE_RANGE, SAVE_NONE, 0.0 },
};

/* An operator not in the table: moves its inputs to its output. */
static const struct graph_op_row unknown_row = { "", GOP_OTHER, SHAPE_NONE,
					   SAVE_INS, 0.0 };

static const char *const kind_names[GOP_KINDS] = {
	[GOP_CONV] = "conv",       [GOP_DWCONV] = "dwconv",
	[GOP_MATMUL] = "matmul",   [GOP_BMM] = "bmm",
	[GOP_NORM] = "norm",       [GOP_ACT] = "activation",
	[GOP_BINARY] = "binary",   [GOP_POOL] = "pool",
	[GOP_REDUCE] = "reduce",   [GOP_SOFTMAX] = "softmax",
	[GOP_MOVE] = "move",       [GOP_FREE] = "free",
	[GOP_OTHER] = "other",
};

const char *graph_op_kind_name(enum graph_op_kind k)
{
	return k >= 0 && k < GOP_KINDS ? kind_names[k] : "?";
}

void graph_kind_shares(const double *kind_s, char *buf, size_t len)
{
	double total = 0.0;
	bool used[GOP_KINDS] = { false };
	size_t at = 0;

	buf[0] = '\0';
	for (int k = 0; k < GOP_KINDS; k++)
		total += kind_s[k] > 0.0 ? kind_s[k] : 0.0;
	if (!(total > 0.0))
		return;
	for (;;) {
		int best = -1;

		for (int k = 0; k < GOP_KINDS; k++)
			if (!used[k] && kind_s[k] > 0.0 &&
			    (best < 0 || kind_s[k] > kind_s[best]))
				best = k;
		/* the kinds of at least half a percent, largest first */
		if (best < 0 || kind_s[best] < 0.005 * total)
			break;
		used[best] = true;
		int w = snprintf(buf + at, len - at, "%s%s %.0f%%",
				 at ? ", " : "", kind_names[best],
				 100.0 * kind_s[best] / total);

		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
}

const struct graph_op_row *graph_op_find(const char *op_type)
{
	for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
		if (strcmp(op_table[i].op_type, op_type) == 0)
			return &op_table[i];
	return &unknown_row;
}

enum shape_rule graph_shape_rule(const char *op_type)
{
	return graph_op_find(op_type)->shape;
}

bool graph_op_windowed(const char *op_type)
{
	enum shape_rule r = graph_shape_rule(op_type);

	return r == SHAPE_CONV || r == SHAPE_DECONV || r == SHAPE_POOL;
}

const struct graph_window *graph_node_window(const struct graph *g,
					     const struct graph_node *n)
{
	static const struct graph_window none;

	return n->window > 0 && n->window <= g->n_windows ?
		       &g->windows[n->window - 1] :
		       &none;
}

const struct graph_lists *graph_node_lists(const struct graph *g,
					   const struct graph_node *n)
{
	static const struct graph_lists none;

	return n->lists > 0 && n->lists <= g->n_lists ? &g->lists[n->lists - 1] :
							&none;
}
