/* model_recsys_dense.c - a recommender's dense network layer by layer;
   see model_recsys_dense.h and specs/models.md 14.3.1. */
#include "model_recsys_dense.h"

#include <math.h>

/*
 * A dense network given by its totals (dense_params and
 * dense_flops_per_sample) is costed as this many equal square layers,
 * DLRM's three bottom and five top layers (Naumov et al. 2019).
 */
static const double totals_layers = 8.0;

bool recsys_has_layers(const struct model_spec *m)
{
	return m->top_mlp.n > 0;
}

/* Widths around the interaction of a network given by its layers. */
struct shape {
	double bottom_out; /* the bottom MLP's output, or the raw features */
	double vectors;    /* feature vectors meeting in a dot interaction */
	double inter_in;   /* elements entering the interaction */
	double inter_out;  /* elements leaving it (the top MLP's input) */
	double inter_flops;
};

static void net_shape(const struct model_spec *m, struct shape *s)
{
	double e = m->embedding_dim, t = m->embedding_tables;

	s->bottom_out = m->bottom_mlp.n ?
				m->bottom_mlp.width[m->bottom_mlp.n - 1] :
				m->dense_features;
	s->vectors = t + (m->bottom_mlp.n ? 1.0 : 0.0);
	s->inter_flops = 0.0;
	switch (m->interaction) {
	case RECSYS_DOT:
		/* the lower triangle of the F x F dot products of the F
		   vectors, each E multiply-adds, and the bottom output */
		s->inter_in = s->vectors * e;
		s->inter_out = s->vectors * (s->vectors - 1.0) / 2.0 +
			       (m->bottom_mlp.n ? e : 0.0);
		s->inter_flops = s->vectors * s->vectors * e;
		break;
	case RECSYS_CAT:
	case RECSYS_CROSS:
	default:
		s->inter_in = t * e + s->bottom_out;
		s->inter_out = s->inter_in;
		break;
	}
}

static double linear_params(double in, double out)
{
	return in * out + out;
}

/* One cross layer x' = x0 * (W x + b) + x on width 'd' (rank 'r' > 0:
   W = U V with U d x r, V r x d). */
static double cross_params(double d, double r)
{
	return r > 0.0 ? 2.0 * d * r + d : d * d + d;
}

double recsys_dense_params(const struct model_spec *m)
{
	struct shape s;
	double p = 0.0, in;

	if (!recsys_has_layers(m))
		return m->dense_params;
	net_shape(m, &s);
	in = m->dense_features;
	for (int i = 0; i < m->bottom_mlp.n; i++) {
		p += linear_params(in, m->bottom_mlp.width[i]);
		in = m->bottom_mlp.width[i];
	}
	if (m->interaction == RECSYS_CROSS)
		p += m->cross_layers * cross_params(s.inter_out, m->cross_rank);
	in = s.inter_out;
	for (int i = 0; i < m->top_mlp.n; i++) {
		p += linear_params(in, m->top_mlp.width[i]);
		in = m->top_mlp.width[i];
	}
	return p;
}

double recsys_dense_flops(const struct model_spec *m)
{
	struct shape s;
	double f = 0.0, in;

	if (!recsys_has_layers(m))
		return m->dense_flops_per_sample;
	net_shape(m, &s);
	in = m->dense_features;
	for (int i = 0; i < m->bottom_mlp.n; i++) {
		f += 2.0 * in * m->bottom_mlp.width[i];
		in = m->bottom_mlp.width[i];
	}
	f += s.inter_flops;
	if (m->interaction == RECSYS_CROSS)
		f += m->cross_layers *
		     (2.0 * (cross_params(s.inter_out, m->cross_rank) -
			     s.inter_out) +
		      2.0 * s.inter_out);
	in = s.inter_out;
	for (int i = 0; i < m->top_mlp.n; i++) {
		f += 2.0 * in * m->top_mlp.width[i];
		in = m->top_mlp.width[i];
	}
	return f;
}

static void kadd(struct ktime *k, double s)
{
	k->s += s;
	k->n += 1.0;
}

/*
 * A fully connected layer in -> out with bias and activation: forward
 * one GEMM and, unless fused into its epilogue, a kernel that adds the
 * bias and applies the activation (read and write the output); backward
 * the input's gradient (not for the network's first layer) and the
 * weights' gradient, two GEMMs, and one kernel for the activation's and
 * the bias's gradients (read the gradient and the output, write the
 * gradient), as apex's fused MLP does.
 */
static void linear_cost(const struct device_perf *d, double b, double in,
			double out, bool first, bool fused, struct ktime *fwd,
			struct ktime *bwd)
{
	double e = d->elem_bytes;

	kadd(fwd, kernel_gemm_s(d, b, out, in, 1.0));
	if (!fused)
		kadd(fwd, kernel_stream_s(d, 2.0 * b * out * e));
	if (!bwd)
		return;
	if (!first)
		kadd(bwd, kernel_gemm_s(d, b, in, out, 1.0));
	kadd(bwd, kernel_gemm_s(d, in, out, b, 1.0));
	kadd(bwd, kernel_stream_s(d, 3.0 * b * out * e));
}

/*
 * A cross layer on width 'dw' (rank 'r'): the product (one GEMM, two
 * with a rank), then x0 * (W x + b) + x (read three vectors, write one;
 * fused: the GEMM's epilogue reads x0 and x and writes the result).
 * Backward: each GEMM's two gradients and the element-wise gradients of
 * x0, x and W x (read three, write two).
 */
static void cross_cost(const struct device_perf *d, double b, double dw,
		       double r, bool fused, struct ktime *fwd,
		       struct ktime *bwd)
{
	double e = d->elem_bytes;

	if (r > 0.0) {
		kadd(fwd, kernel_gemm_s(d, b, r, dw, 1.0));
		kadd(fwd, kernel_gemm_s(d, b, dw, r, 1.0));
	} else {
		kadd(fwd, kernel_gemm_s(d, b, dw, dw, 1.0));
	}
	if (fused)
		fwd->s += kernel_stream_s(d, 3.0 * b * dw * e) - kernel_gap_s();
	else
		kadd(fwd, kernel_stream_s(d, 4.0 * b * dw * e));
	if (!bwd)
		return;
	if (r > 0.0) {
		kadd(bwd, kernel_gemm_s(d, b, r, dw, 1.0));
		kadd(bwd, kernel_gemm_s(d, r, dw, b, 1.0));
		kadd(bwd, kernel_gemm_s(d, b, dw, r, 1.0));
		kadd(bwd, kernel_gemm_s(d, dw, r, b, 1.0));
	} else {
		kadd(bwd, kernel_gemm_s(d, b, dw, dw, 1.0));
		kadd(bwd, kernel_gemm_s(d, dw, dw, b, 1.0));
	}
	kadd(bwd, kernel_stream_s(d, 5.0 * b * dw * e));
}

void recsys_dense_cost(const struct model_spec *m,
		       const struct device_perf *d, double b, bool train,
		       bool fused, struct dense_cost *c)
{
	double e = d->elem_bytes, in;
	struct shape s;

	*c = (struct dense_cost){ { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0 };
	if (!recsys_has_layers(m)) {
		/* equal square layers holding the parameters and FLOPs */
		double w = sqrt(m->dense_params / totals_layers);
		double extra = m->dense_flops_per_sample -
			       2.0 * m->dense_params;

		for (int i = 0; i < (int)totals_layers; i++)
			linear_cost(d, b, w, w, i == 0, fused, &c->rest_fwd,
				    train ? &c->rest_bwd : NULL);
		if (extra > 0.0) {
			kadd(&c->rest_fwd, kernel_roofline_s(d, extra * b, 0.0));
			if (train)
				kadd(&c->rest_bwd,
				     kernel_roofline_s(d, 2.0 * extra * b, 0.0));
		}
		c->act_elems = totals_layers * w;
		return;
	}
	net_shape(m, &s);
	in = m->dense_features;
	c->act_elems = in;
	for (int i = 0; i < m->bottom_mlp.n; i++) {
		double out = m->bottom_mlp.width[i];

		linear_cost(d, b, in, out, i == 0, fused, &c->bottom_fwd,
			    train ? &c->bottom_bwd : NULL);
		c->act_elems += out;
		in = out;
	}
	/* an eager framework concatenates the bottom output and the pooled
	   vectors into the interaction's input (a copy; backward, the
	   split of its gradient); an inference engine writes them in
	   place */
	if (!fused) {
		kadd(&c->rest_fwd, kernel_stream_s(d, 2.0 * b * s.inter_in * e));
		if (train)
			kadd(&c->rest_bwd,
			     kernel_stream_s(d, 2.0 * b * s.inter_in * e));
	}
	if (m->interaction == RECSYS_DOT) {
		double bytes = b * (s.inter_in + s.inter_out) * e;

		kadd(&c->rest_fwd, kernel_roofline_s(d, s.inter_flops * b,
						     bytes));
		if (train)
			kadd(&c->rest_bwd,
			     kernel_roofline_s(d, 2.0 * s.inter_flops * b,
					       2.0 * bytes));
	}
	c->act_elems += s.inter_in + s.inter_out;
	if (m->interaction == RECSYS_CROSS) {
		for (int i = 0; i < m->cross_layers; i++)
			cross_cost(d, b, s.inter_out, m->cross_rank, fused,
				   &c->rest_fwd, train ? &c->rest_bwd : NULL);
		c->act_elems += 2.0 * m->cross_layers * s.inter_out;
	}
	in = s.inter_out;
	for (int i = 0; i < m->top_mlp.n; i++) {
		double out = m->top_mlp.width[i];

		linear_cost(d, b, in, out, false, fused, &c->rest_fwd,
			    train ? &c->rest_bwd : NULL);
		c->act_elems += out;
		in = out;
	}
}
