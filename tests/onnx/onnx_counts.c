/*
 * onnx_counts.c DIR - the graphs tests/onnx/make_graphs.py wrote into DIR
 * (with Debian's python3-onnx), read by capplan (onnx_read.c) and counted
 * per operator (graph_summary.c), against counts worked out by hand from the
 * published architectures:
 *
 * - ResNet-50 v1.5: 25,557,032 parameters (torchvision's resnet50, the
 *   figure its model card gives); 53 convolutions, 53 batch norms, 49
 *   ReLUs, 16 residual additions; the multiply-adds of every convolution
 *   and of the classifier summed layer by layer below; and the same
 *   network as an inference export writes it, batch norms folded.
 * - EfficientNet-B0-like: 5,288,548 parameters (torchvision's
 *   efficientnet_b0); 16 depthwise convolutions (one per MBConv block,
 *   Tan and Le 2019, table 1: 1+2+2+3+3+4+1), 17 global poolings (16
 *   squeeze-excitations and the head).
 * - the small ViT: its parameters and products from width 192, 197
 *   tokens, 3 heads of 64, MLP 768, 4 layers.
 *
 * - export13 / export17: a small transformer as torch.onnx.export writes
 *   it, no shapes in the file, read as its reference (every shape
 *   written by onnx.shape_inference), its parameters and products by
 *   hand.
 *
 * - the bad-*.onnx graphs: refused, each with what is wrong with it.
 *
 * It also checks that the graphs committed for validation
 * (tests/validation/graphs/) are what the script makes now.  Prints one
 * line per failed check; exit 1 when any failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_read.h"

static int failed;

static void check(const char *what, double got, double want, double tol)
{
	if (fabs(got - want) <= tol * fabs(want))
		return;
	printf("FAIL onnx counts: %s: got %.17g, want %.17g\n", what, got,
	       want);
	failed++;
}

static struct graph_summary *load(const char *dir, const char *name)
{
	static struct graph_summary s[2];
	static int next;
	struct graph_summary *p = &s[next++ % 2];
	char path[512];
	struct diag err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	diag_clear(&err);
	if (onnx_summary_load(path, p, &err) != 0) {
		printf("FAIL onnx counts: ");
		fflush(stdout);
		diag_print(stdout, &err);
		failed++;
		return NULL;
	}
	return p;
}

/* Multiply-adds of ResNet-50 v1.5 at 224x224, layer by layer. */
static double resnet50_macs(void)
{
	static const int blocks[4] = { 3, 4, 6, 3 };
	double macs = 112.0 * 112.0 * 64.0 * 3.0 * 49.0; /* 7x7/2 stem */
	double hw = 56.0, cin = 64.0;                    /* after max pool */

	for (int s = 0; s < 4; s++) {
		double w = 64.0 * (1 << s), cout = 4.0 * w;

		for (int b = 0; b < blocks[s]; b++) {
			double out_hw = (b == 0 && s > 0) ? hw / 2.0 : hw;

			macs += hw * hw * cin * w;                /* 1x1 */
			macs += out_hw * out_hw * w * w * 9.0;    /* 3x3 */
			macs += out_hw * out_hw * w * cout;       /* 1x1 */
			if (b == 0)                               /* down */
				macs += out_hw * out_hw * cin * cout;
			hw = out_hw;
			cin = cout;
		}
	}
	return macs + 2048.0 * 1000.0; /* classifier */
}

static void resnet50(const char *dir)
{
	struct graph_summary *s = load(dir, "resnet50.onnx");

	if (!s)
		return;
	check("resnet50 parameters", s->params, 25557032.0, 0);
	check("resnet50 nodes", s->nodes, 175.0, 0);
	/* 3x3 and 7x7 convolutions are convolutions, 1x1 ones and the
	   classifier matrix products */
	check("resnet50 3x3/7x7 convolutions", s->kind_count[GOP_CONV], 17.0,
	      0);
	check("resnet50 1x1 convolutions + Gemm", s->kind_count[GOP_MATMUL],
	      37.0, 0);
	check("resnet50 batch norms", s->kind_count[GOP_NORM], 53.0, 0);
	check("resnet50 ReLUs", s->kind_count[GOP_ACT], 49.0, 0);
	check("resnet50 additions", s->kind_count[GOP_BINARY], 16.0, 0);
	check("resnet50 product FLOPs",
	      s->kind_flops[GOP_CONV] + s->kind_flops[GOP_MATMUL],
	      2.0 * resnet50_macs(), 1e-12);
	/* max pool 3x3/2: 64 x 56 x 56 outputs of 9 inputs */
	check("resnet50 pool FLOPs", s->kind_flops[GOP_POOL],
	      64.0 * 56.0 * 56.0 * 9.0, 1e-12);
	/* inference fuses every BN (folded), ReLU and addition */
	check("resnet50 fused", s->fused, 53.0 + 49.0 + 16.0, 0);
	/* an eager framework runs every one of them as its own kernel */
	check("resnet50 eager composites", s->efused, 0.0, 0);
}

/* The inference export of the same network: no batch norm left, each of
   the 53 convolutions trains with the one folded into it, and the
   parameters are the trained network's again. */
static void resnet50_folded(const char *dir)
{
	struct graph_summary *s = load(dir, "resnet50-folded.onnx");

	if (!s)
		return;
	check("resnet50-folded nodes", s->nodes, 175.0 - 53.0, 0);
	check("resnet50-folded batch norms", s->kind_count[GOP_NORM], 0.0, 0);
	check("resnet50-folded norms folded", s->norms_folded, 1.0, 0);
	check("resnet50-folded folded norms", s->folded_norms, 53.0, 0);
	check("resnet50-folded parameters", s->params, 25557032.0, 0);
}

static void effnet(const char *dir)
{
	struct graph_summary *s = load(dir, "effnet.onnx");

	if (!s)
		return;
	check("effnet parameters", s->params, 5288548.0, 0);
	check("effnet depthwise convolutions", s->kind_count[GOP_DWCONV],
	      16.0, 0);
	check("effnet global poolings", s->kind_count[GOP_REDUCE], 17.0, 0);
	/* SiLU = Sigmoid x Mul after the stem, every expansion (15 blocks
	   expand), every depthwise and SE reduction (16 each) and the
	   head: 1 + 15 + 16 + 16 + 1 = 49; plus 16 SE gates */
	check("effnet sigmoids", s->kind_count[GOP_ACT], 49.0 + 16.0, 0);
	/* eager: each SiLU's Mul continues its Sigmoid's kernel (one
	   torch.nn.SiLU); an SE gate's Mul reads two tensors and does not */
	check("effnet eager composites", s->efused, 49.0, 0);
	/* first depthwise: 3x3 over 32 channels at 112x112 */
	check("effnet depthwise FLOPs > first block",
	      s->kind_flops[GOP_DWCONV] > 2.0 * 112.0 * 112.0 * 32.0 * 9.0,
	      1.0, 0);
}

static void vit(const char *dir)
{
	struct graph_summary *s = load(dir, "vit.onnx");
	const double d = 192.0, t = 197.0, mlp = 768.0, L = 4.0;
	double per_layer = 2.0 * d + d * 3.0 * d + 3.0 * d + d * d + d +
			   d * mlp + mlp + mlp * d + d + 2.0 * d + 4.0;

	if (!s)
		return;
	check("vit parameters", s->params,
	      768.0 * d + d + d + t * d + L * per_layer + 2.0 * d +
		      d * 1000.0 + 1000.0,
	      0);
	/* per layer: QKV, output projection, two MLP products */
	check("vit matmul FLOPs", s->kind_flops[GOP_MATMUL],
	      L * 2.0 * t * d * (3.0 * d + d + 2.0 * mlp) + 2.0 * d * 1000.0,
	      1e-12);
	/* scores and values: 2 x heads x t x t x dh multiply-adds */
	check("vit attention FLOPs", s->kind_flops[GOP_BMM],
	      L * 2.0 * 2.0 * 3.0 * t * t * 64.0, 1e-12);
	check("vit patch embedding FLOPs", s->kind_flops[GOP_CONV],
	      2.0 * 196.0 * d * 768.0, 1e-12);
	check("vit softmaxes", s->kind_count[GOP_SOFTMAX], L, 0);
	check("vit layer norms", s->kind_count[GOP_NORM], 2.0 * L + 1.0, 0);
	/* eager, per layer: GELU's Erf, Add and two Mul after its Div; the
	   four Linear biases; the scores' scaling, the softmax and the
	   values' product in scaled_dot_product_attention */
	check("vit eager composites", s->efused, L * (4.0 + 4.0 + 3.0), 0);
	/* eager views, per layer: the QKV split's Transpose and its three
	   Gathers, and the keys' Transpose (the output's Transpose feeds a
	   Reshape into a Linear: copied) */
	check("vit eager views", s->eviews, L * 5.0, 0);
}

/* Parameters of the timm benchmark networks, as timm and torchvision
   count them. */
static void timm_nets(const char *dir)
{
	static const struct {
		const char *file;
		double params;
	} nets[] = {
		{ "resnet101.onnx", 44549160.0 },
		{ "resnext50-32x4d.onnx", 25028904.0 },
		/* timm: 28,088,024 and 27,559,896 (ResNet-50 and
		   ResNeXt-50 plus 2,530,992 of squeeze-excitation);
		   mobilenetv2_100 3,504,872 and the two bounds of each of
		   its 35 ReLU6 Clips, floating-point constants */
		{ "seresnet50.onnx", 28088024.0 },
		{ "seresnext50-32x4d.onnx", 27559896.0 },
		{ "mobilenetv2.onnx", 3504872.0 + 35.0 * 2.0 },
		/* timm's 86,567,656 and the four scalar constants of each
		   of the 12 layers (the scale, and GELU's sqrt 2, 1 and
		   1/2), which are floating-point initializers */
		{ "vit-b16.onnx", 86567656.0 + 12.0 * 4.0 },
	};

	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		struct graph_summary *s = load(dir, nets[i].file);
		char what[96];

		if (!s)
			continue;
		snprintf(what, sizeof(what), "%s parameters", nets[i].file);
		check(what, s->params, nets[i].params, 0);
	}
}

/*
 * A graph as torch.onnx.export writes it (no value_info, the shapes of
 * Reshape, Expand, Pad and Resize computed from Shape at a symbolic
 * batch) costs as its reference, where every shape is a constant and
 * onnx.shape_inference wrote them all: capplan's inference of the shapes
 * and of the shape arithmetic matches ONNX's.  Opset 13 writes its layer
 * norm as ReduceMean arithmetic, 17 as LayerNormalization: both cost the
 * same (the two scalar constants of the written one, its exponent and
 * epsilon, count as floating-point parameters).
 */
static void exported(const char *dir)
{
	static const char *const pairs[][2] = {
		{ "export13.onnx", "export13-ref.onnx" },
		{ "export17.onnx", "export17-ref.onnx" },
	};
	struct graph_summary *a, *b;
	double op13[4] = { 0 };
	char what[128];

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		a = load(dir, pairs[i][0]);
		if (!a)
			continue;
		/* the ViT-like network by hand: patch embedding 64x3x16x16
		   + 64, class token, 226 x 64 positions, a layer norm's
		   gain and shift, QKV 64 x 192 + 192, output 64 x 64, head
		   10 x 64 + 10 */
		snprintf(what, sizeof(what), "%s parameters", pairs[i][0]);
		check(what, a->params,
		      64.0 * 3 * 256 + 64 + 64 + 226.0 * 64 + 128 +
			      64.0 * 192 + 192 + 64.0 * 64 + 650 +
			      (i == 0 ? 2.0 : 0.0),
		      0);
		snprintf(what, sizeof(what), "%s layer norms", pairs[i][0]);
		check(what, a->kind_count[GOP_NORM], 1.0, 0);
		snprintf(what, sizeof(what), "%s written layer norms",
			 pairs[i][0]);
		check(what, a->written_norms, i == 0 ? 1.0 : 0.0, 0);
		/* patch embedding: 225 patches of 64 outputs over 768 */
		snprintf(what, sizeof(what), "%s patch FLOPs", pairs[i][0]);
		check(what, a->kind_flops[GOP_CONV], 2.0 * 225 * 64 * 768,
		      1e-12);
		snprintf(what, sizeof(what), "%s attention FLOPs",
			 pairs[i][0]);
		check(what, a->kind_flops[GOP_BMM],
		      2.0 * 2.0 * 2 * 226.0 * 226 * 32, 1e-12);
		{
			double got[4] = { a->flops, a->saved_elems,
					  a->live_elems, a->n_ops };

			if (i == 0)
				memcpy(op13, got, sizeof(op13));
			else
				for (int k = 0; k < 4; k++) {
					snprintf(what, sizeof(what),
						 "export13 and export17 "
						 "cost the same (%d)",
						 k);
					check(what, op13[k], got[k], 1e-12);
				}
			b = load(dir, pairs[i][1]);
			if (!b)
				continue;
			double want[4] = { b->flops, b->saved_elems,
					   b->live_elems, b->n_ops };

			for (int k = 0; k < 4; k++) {
				snprintf(what, sizeof(what),
					 "%s as %s (%s)", pairs[i][0],
					 pairs[i][1],
					 k == 0	  ? "FLOPs" :
					 k == 1	  ? "saved elements" :
					 k == 2	  ? "live elements" :
						    "classes");
				check(what, got[k], want[k], 0);
			}
		}
	}
}

/* Upsample's scales as an attribute (opset 7), as an input (9), and
   Resize (13), no value_info: the second convolution, 8 to 4 channels,
   3x3, runs on the upsampled 32 x 32, and the three cost the same. */
static void upsampled(const char *dir)
{
	static const char *const names[] = { "upsample7.onnx",
					      "upsample9.onnx",
					      "resize13.onnx" };
	double ref[3] = { 0 };
	char what[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct graph_summary *a = load(dir, names[i]);

		if (!a)
			continue;
		snprintf(what, sizeof(what), "%s convolution FLOPs", names[i]);
		check(what, a->kind_flops[GOP_CONV],
		      2.0 * 16 * 16 * 8 * 3 * 9 + 2.0 * 32 * 32 * 4 * 8 * 9,
		      1e-12);
		double got[3] = { a->flops, a->saved_elems, a->live_elems };

		if (i == 0)
			memcpy(ref, got, sizeof(ref));
		for (int k = 0; k < 3; k++) {
			snprintf(what, sizeof(what), "%s as %s (%d)",
				 names[i], names[0], k);
			check(what, got[k], ref[k], 0);
		}
	}
}

/* The graphs capplan must refuse (make_graphs.py, hostile()): each
   with what is wrong with it, not a message about something else. */
static void refused(const char *dir)
{
	static const struct {
		const char *name, *msg;
	} bad[] = {
		{ "bad-no-weights.onnx",
		  "the graph has no weights (no floating-point initializer or "
		  "Constant): a network exported with its parameters expected "
		  "(torch.onnx.export with export_params=True, the default)" },
		{ "bad-cycle.onnx",
		  "the graph has a cycle through node 'add0' (Add): its output "
		  "'s' leads back to its own inputs; an ONNX graph is "
		  "acyclic" },
		{ "bad-negative-dim.onnx",
		  "graph input 'x': dimension 2 is -8: a size of 0 or more "
		  "expected" },
		{ "bad-stride-zero.onnx",
		  "node 'conv0' (Conv): attribute 'strides' is [0, 0]: each "
		  "value 1 or more expected" },
		{ "bad-kernel-negative.onnx",
		  "node 'pool0' (MaxPool): attribute 'kernel_shape' is "
		  "[-2, 2]: each value 1 or more expected" },
		{ "bad-no-arithmetic.onnx",
		  "the graph does no arithmetic (0 FLOPs per sample): its "
		  "operators only move data; a network expected" },
	};
	struct graph_summary s;
	struct diag err;
	char path[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bad[i].name);
		diag_clear(&err);
		if (onnx_summary_load(path, &s, &err) == 0) {
			printf("FAIL onnx counts: %s: read, refusal expected\n",
			       bad[i].name);
			failed++;
		} else if (strcmp(err.msg, bad[i].msg) != 0 ||
			   strcmp(err.file, path) != 0) {
			printf("FAIL onnx counts: %s: got '%s: %s', want "
			       "'%s: %s'\n",
			       bad[i].name, err.file, err.msg, path,
			       bad[i].msg);
			failed++;
		}
	}
}

/* The committed validation graph 'name' costs as the fresh one. */
static void same(const char *dir, const char *name)
{
	struct graph_summary *a = load(dir, name), *b;
	char what[128];

	if (!a)
		return;
	b = load("tests/validation/graphs", name);
	if (!b)
		return;
	snprintf(what, sizeof(what), "tests/validation/graphs/%s classes",
		 name);
	check(what, b->n_ops, a->n_ops, 0);
	snprintf(what, sizeof(what),
		 "tests/validation/graphs/%s is stale (rerun "
		 "tests/onnx/make_graphs.py): FLOPs",
		 name);
	check(what, b->flops, a->flops, 0);
	check(what, b->params, a->params, 0);
	check(what, b->saved_elems, a->saved_elems, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: onnx_counts DIR\n");
		return 2;
	}
	resnet50(argv[1]);
	resnet50_folded(argv[1]);
	effnet(argv[1]);
	vit(argv[1]);
	timm_nets(argv[1]);
	exported(argv[1]);
	upsampled(argv[1]);
	refused(argv[1]);
	same(argv[1], "resnet50.onnx");
	same(argv[1], "resnext101-32x4d.onnx");
	same(argv[1], "effnet.onnx");
	same(argv[1], "vit.onnx");
	same(argv[1], "resnet101.onnx");
	same(argv[1], "resnext50-32x4d.onnx");
	same(argv[1], "vit-b16.onnx");
	same(argv[1], "seresnet50.onnx");
	same(argv[1], "seresnext50-32x4d.onnx");
	same(argv[1], "mobilenetv2.onnx");
	printf("onnx counts: %d failed\n", failed);
	return failed ? 1 : 0;
}
