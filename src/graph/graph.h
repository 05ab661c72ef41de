/*
 * graph.h - a network given by its operator graph (an ONNX model,
 * read by onnx_read.h) costed per operator: each convolution, matrix
 * product, normalization, activation, pooling and element-wise operator
 * with its FLOPs and the bytes it moves per sample, so that memory-bound
 * layers (depthwise convolutions, squeeze-excitation, normalization) cost
 * what they cost instead of hiding in a FLOP count.
 *
 * Three steps, all pure: the reader fills a 'struct graph' (tensors with
 * the shapes the file gives, nodes naming them); graph_infer_shapes fills
 * the shapes the file left out for the operators it knows;
 * graph_summarize turns the graph into per-sample operator costs grouped
 * in classes of identical operators ('struct graph_summary', a plain
 * value kept in the workload).  model_sample.c times the classes.
 *
 * Sources: ONNX operator specification (docs/Operators.md, opset 13-17)
 * for the shapes; specs/models.md, section 14.8 for the costs and the
 * fusion rules.
 */
#ifndef CAPPLAN_GRAPH_H
#define CAPPLAN_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#define GRAPH_RANK_MAX 8
#define GRAPH_NAME_MAX 64
#define GRAPH_OP_TYPE_MAX 32
#define GRAPH_CLASSES_MAX 256 /* distinct operator classes kept */
#define GRAPH_VAL_MAX 16      /* elements of a tensor whose values are
				 kept: shapes, axes, pads, scales */
/* Operators of a graph read at most: a bound on the reader's memory and
   time (1 to 2 KB and about 3 us an operator, the decoded file
   included: a graph at the bound reads in about a second and 0.5 GB;
   specs/workload.md).  Exports of the largest networks have tens of
   thousands. */
#define GRAPH_NODES_MAX 250000

/* One tensor of the graph. */
struct graph_tensor {
	int rank;                     /* -1 while the shape is unknown */
	double dims[GRAPH_RANK_MAX];  /* elements along each axis */
	bool weight;                  /* an initializer (or a constant) */
	bool param;                   /* a floating-point initializer:
					 counts as parameters */
	int producer;                 /* node index; -1: input or weight */
	int consumers;                /* nodes that read it */
	/* the values of a small constant (an initializer, a Constant, a
	   Shape and what is computed from them: the shape arithmetic an
	   exporter writes before a Reshape, Expand, Pad or Slice) */
	bool has_val;                 /* val[0 .. n_val - 1] known */
	bool val_int;                 /* of an integer type */
	int n_val;
	double val[GRAPH_VAL_MAX];
};

/*
 * The window of a convolution or pooling (and Pad's pads before opset
 * 11), kept beside the node: most operators have none, and a node costs
 * a few hundred bytes less without it (issue 40).
 */
struct graph_window {
	int kernel_rank;           /* kernel_shape, strides, dilations
				      (rank), pads (2 x rank) */
	double kernel[GRAPH_RANK_MAX];
	double strides[GRAPH_RANK_MAX];
	double pads[2 * GRAPH_RANK_MAX];
	double dilations[GRAPH_RANK_MAX];
	double out_pads[GRAPH_RANK_MAX]; /* ConvTranspose: output_padding */
};

/*
 * The list attributes of the other operators that have them (Transpose,
 * and what exporters write as attributes in older opsets, inputs in
 * newer ones), likewise beside the node; 'has_' false: absent.
 */
struct graph_lists {
	int perm_rank;             /* Transpose */
	int perm[GRAPH_RANK_MAX];
	bool has_axes;             /* axes: Squeeze, Unsqueeze, Reduce*
				      (opsets before 13 / 18), Slice (< 10) */
	int n_axes;
	double axes[GRAPH_RANK_MAX];
	bool has_starts;           /* Slice before opset 10: starts, ends */
	int n_starts;
	double starts[GRAPH_RANK_MAX], ends[GRAPH_RANK_MAX];
	bool has_scales;           /* Upsample before opset 9: scales */
	double scales[GRAPH_RANK_MAX];
	int n_scales;
	bool has_split;            /* Split before opset 13: split */
	int n_split;
	double split[GRAPH_VAL_MAX];
};

/* One operator (node) of the graph. */
struct graph_node {
	char name[GRAPH_NAME_MAX];       /* node name ("" if none) */
	char op_type[GRAPH_OP_TYPE_MAX]; /* ONNX operator ("Conv") */
	int n_in;
	int in_first;              /* its inputs: graph.inputs[in_first]
				      .. [in_first + n_in - 1], tensor
				      indices, -1 for an omitted optional
				      input */
	int out;                   /* tensor index of the first output */
	/* the attributes the shapes and costs need (ONNX defaults when
	   absent) */
	double group;              /* Conv: 1 */
	int trans_a, trans_b;      /* Gemm: 0 */
	int axis;                  /* Flatten: 1; Concat, Softmax: -1 */
	int keepdims;              /* Reduce*: 1 */
	bool auto_pad_same;        /* Conv, pools: auto_pad SAME_UPPER or
				      SAME_LOWER (pads ignored) */
	bool ceil_mode;            /* pools: output size rounded up */
	bool noop_empty_axes;      /* Reduce*: noop_with_empty_axes */
	bool to_int;               /* Cast: to an integer type */
	double fill;               /* ConstantOfShape: its value (0) */
	int shape_start;           /* Shape (opset 15): start (0) */
	bool has_shape_end;        /* and end (absent: the rank) */
	int shape_end;
	int window;                /* 1 + its index in graph.windows; 0:
				      none (graph_node_window) */
	int lists;                 /* 1 + its index in graph.lists; 0:
				      none (graph_node_lists) */
	int out_first, n_out;      /* every output: graph.outputs[out_first]
				      .. [out_first + n_out - 1] (out is the
				      first); n_out 0: only 'out' */
};

/* A graph as a reader builds it; owned by the reader's caller. */
struct graph {
	int n_nodes, n_tensors;
	struct graph_node *nodes;
	struct graph_tensor *tensors;
	int *inputs;  /* the nodes' input lists, one after another */
	int *outputs; /* the nodes' output lists (Split), likewise; may be
			 NULL when no node has more than one */
	struct graph_window *windows; /* the nodes' windows (node.window) */
	struct graph_lists *lists;    /* their list attributes (node.lists) */
	int n_windows, n_lists;
	double batch; /* leading axis of the first activation input (a
			 symbolic one counts 1): shapes are divided by it
			 to give costs per sample */
};

/* The window of node 'n' of 'g', all zero (no attribute given) when it
   has none; never NULL. */
const struct graph_window *graph_node_window(const struct graph *g,
					     const struct graph_node *n);

/* The list attributes of node 'n' of 'g', all zero and absent when it has
   none; never NULL. */
const struct graph_lists *graph_node_lists(const struct graph *g,
					   const struct graph_node *n);

/*
 * Whether the operators of 'g' form a cycle (a node whose inputs depend
 * on its own output, through any number of nodes): 0 when not, the
 * index + 1 of a node on a cycle (the first in the graph's order of the
 * nodes of that cycle), or -1 when out of memory.  An ONNX graph is
 * acyclic; graph_infer_shapes and graph_summarize assume it.
 */
int graph_find_cycle(const struct graph *g);

/*
 * Whether operator 'op_type' slides a window (Conv, ConvTranspose, the
 * pools): its kernel_shape, strides and dilations are 1 or more and its
 * pads and output_padding 0 or more (ONNX operator specification).
 */
bool graph_op_windowed(const char *op_type);

/*
 * Constant folding first: the output of a node whose inputs are all
 * weights is a weight (a transposed or cast initializer), and so is that
 * of Shape and Size (shapes are known when an engine is built); such
 * nodes cost nothing.  Then fill the shapes that are still unknown (rank -1)
 * of the outputs of nodes in order, for the operators whose output shape
 * follows from their inputs (src/graph/graph_shape.c): element-wise (with
 * broadcasting), Conv, ConvTranspose, pools, Gemm, MatMul, normalizations,
 * Flatten, Transpose, Concat, reductions, Reshape, Squeeze, Unsqueeze,
 * Slice, Pad, Gather, Expand, Tile, Split, Resize, ConstantOfShape,
 * Range; the values of small constants and of the shape arithmetic
 * computed from them (Shape, Gather, Concat, Cast, arithmetic, ...) are
 * folded on the way, as an engine folds them.  Returns 0, or the index + 1
 * of the first node whose output shape stays unknown (the file must carry
 * it, as onnx.shape_inference writes it).
 */
int graph_infer_shapes(struct graph *g);

/* What an operator costs as: the rows of the table in graph_ops.c. */
enum graph_op_kind {
	GOP_CONV,      /* convolution as an implicit GEMM (Conv, grouped) */
	GOP_DWCONV,    /* depthwise convolution: one channel per group */
	GOP_MATMUL,    /* activations x weights (Gemm, MatMul, 1x1 conv) */
	GOP_BMM,       /* activations x activations (attention scores) */
	GOP_NORM,      /* BatchNormalization, LayerNorm, ... */
	GOP_ACT,       /* unary element-wise: Relu, Sigmoid, Gelu, ... */
	GOP_BINARY,    /* binary element-wise: Add, Mul, ... */
	GOP_POOL,      /* windowed pooling */
	GOP_REDUCE,    /* global pooling and reductions */
	GOP_SOFTMAX,
	GOP_MOVE,      /* data movement: Transpose, Concat, Slice, ... */
	GOP_FREE,      /* no kernel: Reshape, Flatten, Identity, ... */
	GOP_OTHER,     /* an operator capplan does not know: costed as
			  element-wise data movement */
	GOP_KINDS
};

/* Name of a kind ("conv", "dwconv", ...). */
const char *graph_op_kind_name(enum graph_op_kind k);

/*
 * Write the shares of the seconds kind_s[GOP_KINDS] as "conv 41%,
 * matmul 30%, ..." into 'buf' ('len' bytes, always terminated): the kinds
 * of at least 0.5% of the total, largest first; "" when the total is 0.
 */
void graph_kind_shares(const double *kind_s, char *buf, size_t len);

/*
 * A class of 'count' identical operators, per sample.  Element counts
 * are activation elements per sample; weight elements are per class
 * (all 'count' operators).
 */
struct graph_op {
	enum graph_op_kind kind;
	double count;          /* operators in the class */
	double flops;          /* forward FLOPs per sample, whole class */
	double in_elems;       /* activation elements read per sample */
	double out_elems;      /* activation elements written per sample */
	double weight_elems;   /* parameters the class reads */
	double fused_in_elems; /* of in_elems: the producer's output, not
				  read when the operator is fused */
	/* implicit GEMM of one operator: gemm_m rows per sample, gemm_n
	   columns, gemm_k reduction, gemm_groups independent GEMMs */
	double gemm_m, gemm_n, gemm_k, gemm_groups;
	bool fused;     /* inference: element-wise work fused into its
			   producer (no kernel, no read of that input) */
	bool out_fused; /* inference: the output feeds a fused operator
			   and is not written to memory */
	enum graph_op_kind head; /* inference: the kind of the kernel it runs
				    in (its own, or its fusion chain's
				    first operator's) */
	bool fepilogue; /* inference: an element-wise operator fused into
			   a convolution or matrix product: the product's
			   epilogue, its bytes in the product's */
	double epilogue_elems; /* of a product: the activation elements
				  its fused epilogue reads from outside the
				  chain and writes, per sample */
	bool folded;    /* a batch normalization the export folded into a
			   convolution: trained (when norms_folded), never
			   served */
	/* eager: an element-wise function of one tensor that the export
	   decomposed (SiLU as Sigmoid and Mul, GELU as Div, Erf, Add and
	   two Mul) runs as one framework kernel: this operator continues
	   the kernel of its producer (no launch, none of its inputs read:
	   the chain's tensor was read by its first operator) */
	bool efused;
	bool eout_fused;        /* eager: the output stays in that kernel */
	bool eepilogue; /* eager: a Linear's bias Add (efused), added in the
			   product's epilogue (addmm): the product writes
			   the output, this operator costs nothing */
	bool eview;     /* a Transpose, Slice, Split, Expand or a Gather
			   of one constant index that only products of two
			   activations read (through other views): a view
			   of its input, no kernel, no bytes, eager or
			   fused */
	double efused_in_elems; /* of in_elems: not read when efused */
	/* training: activation elements per sample the backward pass reads
	   and writes when the operator's gradient says so, 0 for the passes
	   of its kind: a Mul or Div of two activations computes each
	   operand's gradient as a product of its own (reading the output's
	   gradient and the other operand, writing the operand's), and a
	   broadcast operand's (squeeze-excitation's scale) as a full-size
	   product reduced to its shape (PyTorch's mul backward and
	   sum_to_size) */
	double bwd_elems;
};

struct graph_summary {
	int n_ops;                          /* 0: no graph */
	struct graph_op op[GRAPH_CLASSES_MAX];
	double nodes;                       /* operators in the graph */
	double params;                      /* floating-point weights */
	double flops;                       /* forward FLOPs per sample */
	double saved_elems;  /* activation elements per sample kept for
				the backward pass */
	double live_elems;   /* largest input + output of one operator per
				sample: what inference keeps */
	double fused;                       /* operators fused */
	double efused;      /* operators in an eager composite kernel */
	double eviews;      /* data movements an eager framework views */
	double unknown;                     /* operators of kind other */
	double written_norms; /* layer norms the export wrote as ReduceMean
				 arithmetic (below opset 17), each costed
				 as one normalization */
	/* a graph with convolutions and no normalization was exported for
	   inference with its batch norms folded into the convolutions
	   (torch.onnx.export in eval mode): training runs them again */
	bool norms_folded;
	double folded_norms;                /* convolutions that had one */
	double kind_count[GOP_KINDS];       /* operators per kind */
	double kind_flops[GOP_KINDS];       /* forward FLOPs per kind */
};

/*
 * Cost the graph 'g' (every shape known: graph_infer_shapes returned 0)
 * into 's'.  Operators with the same kind and shape share a class; past
 * GRAPH_CLASSES_MAX classes an operator joins the class of its kind
 * nearest in FLOPs per byte.  A layer norm the export wrote out as
 * ReduceMean arithmetic is one normalization ('written_norms').  When the
 * graph has convolutions and no normalization, each convolution also gets
 * the batch
 * normalization folded into it (a class marked 'folded', with its
 * parameters and saved input counted; norms_folded set).  Returns 0, the index + 1 of a node whose
 * inputs do not fit its operator (a Conv without a weight of the input's
 * rank, a MatMul of mismatched shapes), or -1 when out of memory.
 */
int graph_summarize(const struct graph *g, struct graph_summary *s);

/* What the commands note of a graph's layer norms written out as
   ReduceMean arithmetic (s->written_norms > 0), into 'buf'; returns
   'buf'. */
const char *graph_norms_note(const struct graph_summary *s, char *buf,
			     size_t len);

#endif
