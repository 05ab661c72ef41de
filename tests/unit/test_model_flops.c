/* test_model_flops.c - architecture, parameter and FLOP counts (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model_flops.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* A GQA model with unround sizes: l=7, h=1536, 12 heads of 128, 4 kv
   heads, f=4608, V=50257, s=1536. */
static struct model_spec gqa_spec(void)
{
	struct model_spec m;

	memset(&m, 0, sizeof(m));
	m.layers = 7;
	m.hidden = 1536;
	m.heads = 12;
	m.kv_heads = 4;
	m.ffn_hidden = 4608;
	m.vocab = 50257;
	m.seq_len = 1536;
	m.tied_embeddings = true;
	return m;
}

static struct arch gqa_arch(void)
{
	struct model_spec m = gqa_spec();
	struct arch a;

	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

static void test_from_spec_copies(void **state)
{
	struct model_spec m = gqa_spec();
	struct arch a;

	(void)state;
	m.gated_ffn = true;
	m.tied_embeddings = false;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.layers, 7);
	assert_int_equal(a.hidden, 1536);
	assert_int_equal(a.heads, 12);
	assert_int_equal(a.kv_heads, 4);
	assert_int_equal(a.head_dim, 128);
	assert_int_equal(a.ffn_hidden, 4608);
	assert_true(a.gated_ffn);
	assert_int_equal(a.vocab, 50257);
	assert_int_equal(a.seq_len, 1536);
	assert_false(a.tied_embeddings);
}

static void test_from_spec_defaults(void **state)
{
	struct model_spec m = gqa_spec();
	struct arch a;

	(void)state;
	m.kv_heads = 0;
	m.ffn_hidden = 0;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.kv_heads, 12);      /* 0 -> heads (MHA) */
	assert_int_equal(a.ffn_hidden, 6144);  /* 0 -> 4 * hidden */
	assert_int_equal(a.head_dim, 128);
}

static void test_from_spec_failures(void **state)
{
	static const struct {
		const char *what;
		size_t off;
		int value;
	} bad[] = {
		{ "layers 0", offsetof(struct model_spec, layers), 0 },
		{ "layers < 0", offsetof(struct model_spec, layers), -3 },
		{ "hidden 0", offsetof(struct model_spec, hidden), 0 },
		{ "hidden < 0", offsetof(struct model_spec, hidden), -1536 },
		{ "heads 0", offsetof(struct model_spec, heads), 0 },
		{ "heads < 0", offsetof(struct model_spec, heads), -12 },
		{ "vocab 0", offsetof(struct model_spec, vocab), 0 },
		{ "seq_len 0", offsetof(struct model_spec, seq_len), 0 },
		{ "seq_len < 0", offsetof(struct model_spec, seq_len), -1 },
		/* 1536 / 11 is not whole */
		{ "heads do not divide hidden",
		  offsetof(struct model_spec, heads), 11 },
		/* 12 query heads in groups of 5 KV heads */
		{ "kv_heads do not divide heads",
		  offsetof(struct model_spec, kv_heads), 5 },
		/* heads x head_dim overflows an int */
		{ "head_dim too wide", offsetof(struct model_spec, head_dim),
		  2000000000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct model_spec m = gqa_spec();
		struct arch a;

		memcpy((char *)&m + bad[i].off, &bad[i].value, sizeof(int));
		if (arch_from_spec(&m, &a) != -1) {
			print_error("%s: accepted\n", bad[i].what);
			fail();
		}
	}
}

static void test_layer_params_gqa(void **state)
{
	struct arch a = gqa_arch();
	struct arch mha;

	(void)state;
	/* 2h^2 (Q, O) + 2 h kv (K, V with 4*128) + 2 h f + 2 h (norms) */
	assert_rel(arch_layer_params(&a), 20450304.0, 1e-15);
	a.gated_ffn = true; /* three FFN matrices */
	assert_rel(arch_layer_params(&a), 27528192.0, 1e-15);

	/* MHA: K and V as large as Q: 12 h^2 + 2 h with f = 4h */
	mha = gqa_arch();
	mha.kv_heads = mha.heads;
	mha.ffn_hidden = 4 * mha.hidden;
	assert_rel(arch_layer_params(&mha),
		   12.0 * 1536.0 * 1536.0 + 2.0 * 1536.0, 1e-15);
}

static void test_params_tied_untied(void **state)
{
	struct arch a = gqa_arch();

	(void)state;
	assert_rel(arch_embedding_params(&a), 50257.0 * 1536.0, 1e-15);
	assert_rel(arch_params(&a), 220348416.0, 1e-15);
	a.tied_embeddings = false;
	assert_rel(arch_embedding_params(&a), 2.0 * 50257.0 * 1536.0, 1e-15);
	assert_rel(arch_params(&a), 297543168.0, 1e-15);
}

static void test_layer_fwd_flops(void **state)
{
	struct arch a = gqa_arch();
	double p = arch_layer_params(&a) - 2.0 * 1536.0; /* weights only */

	(void)state;
	/* 2 FLOPs per matrix weight + 4 ctx h for QK^T and AV */
	assert_rel(arch_layer_fwd_flops_per_token(&a, 1000.5), 47041536.0,
		   1e-15);
	assert_rel(arch_layer_fwd_flops_per_token(&a, 0.0), 2.0 * p, 1e-15);
	/* linear in the context: slope 4 h */
	assert_rel(arch_layer_fwd_flops_per_token(&a, 2001.0) -
			   arch_layer_fwd_flops_per_token(&a, 1000.5),
		   4.0 * 1536.0 * 1000.5, 1e-12);
	assert_rel(arch_logits_fwd_flops_per_token(&a), 2.0 * 1536.0 * 50257.0,
		   1e-15);
}

static void test_train_flops_gqa(void **state)
{
	struct arch a = gqa_arch();
	double model = train_model_flops_per_token(&a);

	(void)state;
	assert_rel(model, 1520133120.0, 1e-15);
	assert_rel(train_hw_flops_per_token(&a, RECOMPUTE_NONE), model, 1e-15);
	assert_rel(train_hw_flops_per_token(&a, RECOMPUTE_SELECTIVE),
		   1586193408.0, 1e-15);
	assert_rel(train_hw_flops_per_token(&a, RECOMPUTE_FULL), 1872454656.0,
		   1e-15);
}

/* At the bounds of layers and seq_len (100000 x 2^24 = 1.68e12, past an
   int) the recomputed attention core is still layers x seq_len x the
   FLOPs of a query-key pair (issue 14: it once wrapped into garbage). */
static void test_selective_at_bounds(void **state)
{
	struct arch a = gqa_arch();
	double pair, extra;

	(void)state;
	a.layers = 100000;
	a.seq_len = 16777216;
	pair = arch_attn_core_flops_per_pair(&a);
	extra = train_hw_flops_per_token(&a, RECOMPUTE_SELECTIVE) -
		train_model_flops_per_token(&a);
	assert_true(pair > 0.0);
	assert_rel(extra, 1677721600000.0 * pair, 1e-12);
}

/*
 * Narayanan et al. 2021, eq. 3 (per iteration, B sequences of s tokens):
 * 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) with full recomputation; divided
 * by B s: 96 l h^2 + 16 l s h + 6 h V.  Without recomputation the
 * forward of each layer is not repeated: 72 l h^2 + 12 l s h + 6 h V.
 * MHA, f = 4h, s = 1280 (different from h so that s and h cannot be
 * confused).
 */
static void test_narayanan(void **state)
{
	struct model_spec m = gqa_spec();
	struct arch a;
	double l = 7.0, h = 1536.0, s = 1280.0, v = 50257.0;

	(void)state;
	m.kv_heads = 0;
	m.ffn_hidden = 0;
	m.seq_len = 1280;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_rel(train_hw_flops_per_token(&a, RECOMPUTE_FULL),
		   96.0 * l * h * h + 16.0 * l * s * h + 6.0 * h * v, 1e-15);
	assert_rel(train_hw_flops_per_token(&a, RECOMPUTE_FULL), 2268816384.0,
		   1e-15);
	assert_rel(train_model_flops_per_token(&a),
		   72.0 * l * h * h + 12.0 * l * s * h + 6.0 * h * v, 1e-15);
	assert_rel(train_model_flops_per_token(&a), 1817404416.0, 1e-15);
	/* selective recomputation repeats only QK^T and AV: 4 l s h */
	assert_rel(train_hw_flops_per_token(&a, RECOMPUTE_SELECTIVE),
		   72.0 * l * h * h + 16.0 * l * s * h + 6.0 * h * v, 1e-15);
}

/* Kaplan et al. 2020: 6 N per token plus the attention term, where N is
   the non-embedding parameter count; holds for our counts too. */
static void test_six_n(void **state)
{
	struct arch a = gqa_arch();
	double n_layers = a.layers * (arch_layer_params(&a) - 2.0 * a.hidden);
	double attn = 3.0 * a.layers * 4.0 * a.seq_len * a.hidden;
	double logits = 3.0 * 2.0 * a.hidden * (double)a.vocab;

	(void)state;
	assert_rel(train_model_flops_per_token(&a),
		   6.0 * n_layers + attn + logits, 1e-14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_spec_copies),
		cmocka_unit_test(test_from_spec_defaults),
		cmocka_unit_test(test_from_spec_failures),
		cmocka_unit_test(test_layer_params_gqa),
		cmocka_unit_test(test_params_tied_untied),
		cmocka_unit_test(test_layer_fwd_flops),
		cmocka_unit_test(test_train_flops_gqa),
		cmocka_unit_test(test_selective_at_bounds),
		cmocka_unit_test(test_narayanan),
		cmocka_unit_test(test_six_n),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
