/*
 * onnx_read.h - read an ONNX model (a ModelProto, as torch.onnx.export
 * and the onnx Python package write it) into an operator graph
 * (graph.h).
 *
 * The file is decoded with protobuf-c and the C code that protoc-c
 * generates at build time from the onnx.proto of Debian's libonnx-dev
 * (Makefile, $(BUILD)/gen): no protobuf parsing of capplan's own.  Only
 * the structure is used: operators, their attributes, and the shapes of
 * initializers, graph inputs, outputs and value_info, and the values of
 * small integer and float constants (at most GRAPH_VAL_MAX elements: the
 * shapes, axes, pads and scales exporters store); weight values are never
 * looked at.  Shapes the file leaves out are inferred for the operators
 * graph.h knows.
 */
#ifndef CAPPLAN_ONNX_READ_H
#define CAPPLAN_ONNX_READ_H

#include <stddef.h>

#include "diag.h"
#include "graph.h"

/* Largest model file read, bytes (a ViT-H in fp32 is 2.5 GB). */
#define ONNX_FILE_MAX ((size_t)16 << 30)

/*
 * Decode the 'len' bytes at 'buf' (an ONNX model; 'name' for messages)
 * into 'g', with every shape known.  A graph with a cycle, without
 * weights (floating-point initializers or Constants), with a negative
 * dimension in a graph input, output or value_info, or with a window
 * attribute out of range (a convolution's or pooling's kernel_shape,
 * strides or dilations below 1, pads or output_padding below 0) is an
 * error naming the node, tensor or attribute; one of more than
 * GRAPH_NODES_MAX operators is an error naming the limit.  The bytes at
 * 'buf' are decoded first (protobuf-c copies what it keeps, weights
 * included), then the graph is built: memory of about 1 to 2 KB an
 * operator beside the decoded file.  Returns 0, or -1 with
 * 'err' set (file 'name', what was expected).  On success 'g' owns
 * memory: onnx_graph_release frees it.
 */
int onnx_graph_parse(const void *buf, size_t len, const char *name,
		     struct graph *g, struct diag *err);

/* Free what onnx_graph_parse allocated; safe on a zeroed graph. */
void onnx_graph_release(struct graph *g);

/*
 * onnx_graph_parse and graph_summarize in one: the per-sample operator
 * classes of the model in 'buf' into 's'; a graph that does no
 * arithmetic (0 FLOPs per sample) is an error.  Returns 0 or -1 with
 * 'err'.
 */
int onnx_summary_parse(const void *buf, size_t len, const char *name,
		       struct graph_summary *s, struct diag *err);

/* onnx_summary_parse of the regular file at 'path'; a file that cannot
   be read is an error without a file name (the message names the path),
   DIAG_IO. */
int onnx_summary_load(const char *path, struct graph_summary *s,
		      struct diag *err);

#endif
