/* test_train_config.c - legality of a training split, with reasons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "train_config.h"

/* l=24, h=1536, 12 heads, 4 kv heads, s=2048, V=50257. */
static struct arch test_arch(void)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 24;
	m.hidden = 1536;
	m.heads = 12;
	m.kv_heads = 4;
	m.vocab = 50257;
	m.seq_len = 2048;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/* A legal split of 48 GPUs: tp 2, pp 3 x vp 2, cp 2, dp 4; 12
   micro-batches of 2 sequences. */
static struct train_config base(void)
{
	struct train_config c;

	memset(&c, 0, sizeof(c));
	c.gpus = 48;
	c.tp = 2;
	c.pp = 3;
	c.vp = 2;
	c.cp = 2;
	c.dp = 4;
	c.micro_batch = 2;
	c.global_batch = 96;
	c.micro_batches = 12;
	c.zero = 1;
	c.recompute = RECOMPUTE_SELECTIVE;
	c.sequence_parallel = true;
	c.precision = PREC_BF16;
	c.optimizer = OPTIMIZER_ADAM;
	return c;
}

static void resize(struct train_config *c)
{
	c->gpus = c->tp * c->pp * c->cp * c->dp;
}

static void expect_illegal(const struct train_config *c, int node,
			   const char *want)
{
	struct arch a = test_arch();
	char why[256];

	memset(why, 'x', sizeof(why));
	why[sizeof(why) - 1] = '\0';
	assert_false(train_config_valid(&a, c, node));
	assert_false(train_config_explain(&a, c, node, why, sizeof(why)));
	assert_string_equal(why, want);
	/* no buffer: the verdict alone */
	assert_false(train_config_explain(&a, c, node, NULL, 0));
}

static void expect_legal(const struct train_config *c, int node)
{
	struct arch a = test_arch();
	char why[64] = "untouched";

	assert_true(train_config_valid(&a, c, node));
	assert_true(train_config_explain(&a, c, node, why, sizeof(why)));
	assert_string_equal(why, "untouched");
}

/* A shard of zero_shard_ranks must divide the dp * cp ranks (8 here),
   and train_config_zero_shards gives it, or the node's ranks. */
static void test_zero_shard_ranks(void **state)
{
	struct train_config c = base();
	int experts = 0;

	(void)state;
	c.zero_shard_ranks = 4;
	expect_legal(&c, 8);
	assert_int_equal(train_config_zero_shards(&c, &experts), 4);
	assert_int_equal(experts, 4);
	c.zero_shard_ranks = 3;
	expect_illegal(&c, 8, "zero_shard (3) must divide dp*cp (4*2)");
	c.zero_shard_ranks = 16;
	expect_illegal(&c, 8, "zero_shard (16) must divide dp*cp (4*2)");
	c.zero_shard_ranks = 0;
	assert_int_equal(train_config_zero_shards(&c, NULL), 8);
	/* within nodes of 8 at tp 2: the 4 ranks of the group in a node */
	c.zero_node_gpus = 8;
	assert_int_equal(train_config_zero_shards(&c, NULL), 4);
}

static void test_legal(void **state)
{
	struct train_config c = base();

	(void)state;
	expect_legal(&c, 8);
	/* the simplest split */
	memset(&c, 0, sizeof(c));
	c.gpus = c.tp = c.pp = c.vp = c.cp = c.dp = 1;
	c.micro_batch = 3;
	c.global_batch = 3;
	c.micro_batches = 1;
	expect_legal(&c, 8);
}

static void test_sizes_positive(void **state)
{
	static const char msg[] =
		"every parallel size and the micro-batch must be >= 1";
	static const size_t fields[] = {
		offsetof(struct train_config, tp),
		offsetof(struct train_config, pp),
		offsetof(struct train_config, vp),
		offsetof(struct train_config, cp),
		offsetof(struct train_config, dp),
		offsetof(struct train_config, micro_batch),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		struct train_config c = base();
		int zero = 0, neg = -2;

		memcpy((char *)&c + fields[i], &zero, sizeof(int));
		expect_illegal(&c, 8, msg);
		memcpy((char *)&c + fields[i], &neg, sizeof(int));
		expect_illegal(&c, 8, msg);
	}
}

static void test_gpus_product(void **state)
{
	struct train_config c = base();

	(void)state;
	c.gpus = 47;
	expect_illegal(&c, 8, "gpus (47) must equal tp*pp*cp*dp (2*3*2*4)");
	c.gpus = 96;
	expect_illegal(&c, 8, "gpus (96) must equal tp*pp*cp*dp (2*3*2*4)");
}

static void test_tp_heads(void **state)
{
	struct train_config c = base();

	(void)state;
	c.tp = 5;
	resize(&c);
	expect_illegal(&c, 8, "tp (5) must divide heads (12)");
}

static void test_tp_kv_heads(void **state)
{
	struct train_config c = base();

	(void)state;
	/* 6 divides 12 heads but neither divides nor is a multiple of 4 */
	c.tp = 6;
	resize(&c);
	expect_illegal(&c, 8,
		       "tp (6) must divide kv_heads (4) or be a multiple of "
		       "it");
	/* 12 is a multiple of 4: kv heads are replicated (over three nodes
	   of 4) */
	c.tp = 12;
	resize(&c);
	expect_legal(&c, 4);
	c.tp = 4;
	resize(&c);
	expect_legal(&c, 8);
}

/* A tensor-parallel group divides a node or spans whole nodes. */
static void test_tp_node(void **state)
{
	struct train_config c = base();

	(void)state;
	c.tp = 12;
	resize(&c);
	expect_illegal(&c, 8,
		       "tp (12) must divide the GPUs of a node (8) or be a "
		       "multiple of them");
	c.tp = 4;
	resize(&c);
	expect_illegal(&c, 6,
		       "tp (4) must divide the GPUs of a node (6) or be a "
		       "multiple of them");
	/* over two nodes of 2, and within one of 4 */
	expect_legal(&c, 2);
	expect_legal(&c, 4);
}

/* Tensor-parallel overlap needs sequence parallelism over tp > 1; a
   layer count of full recomputation needs full recomputation. */
static void test_overlap_recompute_layers(void **state)
{
	struct train_config c = base();

	(void)state;
	c.tp_comm_overlap = true;
	expect_legal(&c, 8);
	c.sequence_parallel = false;
	expect_illegal(&c, 8,
		       "tp_comm_overlap needs tp > 1 (2) and "
		       "sequence_parallel");
	c = base();
	c.tp = 1;
	resize(&c);
	c.tp_comm_overlap = true;
	expect_illegal(&c, 8,
		       "tp_comm_overlap needs tp > 1 (1) and "
		       "sequence_parallel");
	c = base();
	c.recompute_layers = 3;
	expect_illegal(&c, 8, "recompute_layers (3) needs recompute full");
	c.recompute = RECOMPUTE_FULL;
	expect_legal(&c, 8);
	c.recompute_layers = -1;
	expect_illegal(&c, 8, "recompute_layers (-1) needs recompute full");
}

/* Layers of the largest chunk of an even split, and the share of the
   layers that full recomputation repeats. */
static void test_recompute_fraction(void **state)
{
	struct arch a = test_arch(); /* 24 layers */
	struct train_config c = base(); /* pp 3, vp 2: 8 a stage, 4 a chunk */

	(void)state;
	assert_int_equal(train_chunk_layers(&a, &c), 4);
	c.pp = 5; /* ceil(24 / 5) = 5 a stage, ceil(5 / 2) = 3 a chunk */
	assert_int_equal(train_chunk_layers(&a, &c), 3);
	c.pp = 3;
	assert_true(train_recompute_fraction(&a, &c) == 0.0); /* selective */
	c.recompute = RECOMPUTE_FULL;
	assert_true(train_recompute_fraction(&a, &c) == 1.0);
	c.recompute_layers = 3;
	assert_true(train_recompute_fraction(&a, &c) == 0.75);
	c.recompute_layers = 4; /* the whole chunk: every layer */
	assert_true(train_recompute_fraction(&a, &c) == 1.0);
	c.recompute_layers = 1;
	c.vp = 1; /* 8 a chunk */
	assert_true(train_recompute_fraction(&a, &c) == 0.125);
}

static void test_pp_vp_layers(void **state)
{
	struct train_config c = base();

	(void)state;
	c.vp = 9; /* 27 chunks for 24 layers */
	expect_illegal(&c, 8, "pp*vp (3*9) must not exceed layers (24)");
	c.vp = 8; /* 24 layers = 3 stages x 8 chunks of one layer */
	expect_legal(&c, 8);
	c = base();
	c.pp = 25;
	c.vp = 1;
	resize(&c);
	expect_illegal(&c, 8, "pp*vp (25*1) must not exceed layers (24)");
	/* uneven stages are legal: 24 layers on 5 x 2 chunks */
	c = base();
	c.pp = 5;
	resize(&c);
	c.global_batch = 80;
	c.micro_batches = 10;
	expect_legal(&c, 8);
}

/* Layers dealt evenly (no first/last stage counts): every stage is
   counted at ceil(layers / pp). */
static void test_stage_layers(void **state)
{
	struct arch a = test_arch();
	struct train_config c = base();

	(void)state;
	assert_int_equal(train_stage_layers(&a, &c), 8);  /* 24 / 3 */
	c.pp = 5;                                          /* 4.8 */
	assert_int_equal(train_stage_layers(&a, &c), 5);
	c.vp = 1;
	assert_int_equal(train_stage_layers(&a, &c), 5);
	c.pp = 1;
	assert_int_equal(train_stage_layers(&a, &c), 24);
	c.pp = 24;
	assert_int_equal(train_stage_layers(&a, &c), 1);
	/* Llama 3 405B: 126 layers on 16 stages, at most 8 on one */
	a.layers = 126;
	c.pp = 16;
	assert_int_equal(train_stage_layers(&a, &c), 8);
	c.vp = 2; /* 32 chunks, 7 or 8 layers a stage */
	assert_int_equal(train_stage_layers(&a, &c), 8);
	c.pp = 7;
	c.vp = 3; /* 18 a stage, 6 a chunk */
	assert_int_equal(train_stage_layers(&a, &c), 18);
}

/* First and last stage counts given: the middle stages share the rest,
   the most loaded holding ceil(rest / (pp - 2)). */
static void test_stage_split(void **state)
{
	static const struct {
		int layers, pp, vp, first, last;
		int want_first, want_last, want_middle, want_most;
	} cases[] = {
		/* Llama 3 405B: 7 + 14 x 8 + 7 = 126 */
		{ 126, 16, 8, 7, 7, 7, 7, 8, 8 },
		/* 111 over 14 stages: 13 hold 8, one holds 7 */
		{ 126, 16, 1, 9, 6, 9, 6, 8, 9 },
		/* two stages: no middle */
		{ 24, 2, 1, 13, 11, 13, 11, 0, 13 },
		{ 24, 3, 1, 7, 9, 7, 9, 8, 9 },
		/* 17 over 3 stages: 6, 6, 5 */
		{ 24, 5, 2, 3, 4, 3, 4, 6, 6 },
		/* even, both 0: ceil(24 / 5) everywhere */
		{ 24, 5, 2, 0, 0, 5, 5, 5, 5 },
		/* one stage holds everything, whatever is given */
		{ 24, 1, 1, 0, 0, 24, 24, 0, 24 },
		{ 24, 1, 1, 24, 24, 24, 24, 0, 24 },
	};
	struct arch a = test_arch();
	struct train_config c = base();
	struct train_stages s;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a.layers = cases[i].layers;
		c.pp = cases[i].pp;
		c.vp = cases[i].vp;
		c.first_stage_layers = cases[i].first;
		c.last_stage_layers = cases[i].last;
		train_stage_split(&a, &c, &s);
		assert_int_equal(s.first, cases[i].want_first);
		assert_int_equal(s.last, cases[i].want_last);
		assert_int_equal(s.middle, cases[i].want_middle);
		assert_int_equal(train_stage_layers(&a, &c),
				 cases[i].want_most);
	}
}

/* A chunk may hold no layer only at the first and last stage. */
static void test_stage_min_layers(void **state)
{
	(void)state;
	assert_int_equal(train_stage_min_layers(1), 1);
	assert_int_equal(train_stage_min_layers(2), 1);
	assert_int_equal(train_stage_min_layers(3), 2);
	assert_int_equal(train_stage_min_layers(8), 7);
}

/* 126 layers (Llama 3 405B) on 16 stages of 8 chunks: one chunk of the
   first and of the last stage holds only the embedding and the output
   layer. */
static void test_stage_legality(void **state)
{
	struct train_config c = base();
	struct arch a;

	(void)state;
	c.tp = 1;
	c.pp = 16;
	c.vp = 8;
	c.cp = 1;
	c.dp = 1;
	resize(&c);
	c.global_batch = 32;
	c.micro_batch = 1;
	c.micro_batches = 32;
	a = test_arch();
	a.layers = 126;
	c.first_stage_layers = 7;
	c.last_stage_layers = 7;
	assert_true(train_config_valid(&a, &c, 8));
	/* dealt evenly, 126 layers do not fill 128 chunks */
	c.first_stage_layers = c.last_stage_layers = 0;
	assert_false(train_config_valid(&a, &c, 8));
	/* two empty chunks on one stage */
	c.first_stage_layers = 6;
	c.last_stage_layers = 8;
	assert_false(train_config_valid(&a, &c, 8));
	/* 7 + 8 leave 111 for 112 middle chunks */
	c.first_stage_layers = 7;
	c.last_stage_layers = 8;
	assert_false(train_config_valid(&a, &c, 8));
	c.first_stage_layers = 7;
	c.last_stage_layers = 7;
	c.vp = 9; /* 144 chunks */
	c.micro_batches = 32;
	assert_false(train_config_valid(&a, &c, 8));
}

static void test_stage_messages(void **state)
{
	struct train_config c = base();

	(void)state;
	/* 24 layers, pp 3 x vp 2, 48 GPUs */
	c.first_stage_layers = 9;
	c.last_stage_layers = 0;
	expect_illegal(&c, 8, "last_stage_layers (0) must be at least 1 with "
			      "vp 2");
	c.vp = 3;
	c.first_stage_layers = 1;
	c.last_stage_layers = 9;
	c.micro_batches = 12;
	expect_illegal(&c, 8, "first_stage_layers (1) must be at least 2 "
			      "with vp 3");
	c.first_stage_layers = 11;
	c.last_stage_layers = 11;
	expect_illegal(&c, 8, "first_stage_layers + last_stage_layers "
			      "(11+11) must leave the middle stages at least "
			      "(pp-2)*vp (1*3) of the 24 layers");
	c.first_stage_layers = 10;
	c.last_stage_layers = 11;
	expect_legal(&c, 8);
	c.vp = 9; /* 27 chunks: 25 must hold a layer */
	c.first_stage_layers = 8;
	c.last_stage_layers = 8;
	expect_illegal(&c, 8, "pp*vp-2 (3*9-2) must not exceed layers (24)");
	c = base();
	c.pp = 2;
	c.dp = 6;
	c.micro_batches = 8;
	c.first_stage_layers = 13;
	c.last_stage_layers = 12;
	expect_illegal(&c, 8, "first_stage_layers + last_stage_layers "
			      "(13+12) must be layers (24) with pp 2");
	c.last_stage_layers = 11;
	expect_legal(&c, 8);
	c.pp = 25;
	c.vp = 1;
	c.dp = 1;
	c.cp = 1;
	c.tp = 1;
	resize(&c);
	c.global_batch = 2;
	c.micro_batch = 1;
	c.micro_batches = 2;
	c.first_stage_layers = c.last_stage_layers = 1;
	expect_illegal(&c, 8, "pp (25) must not exceed layers (24)");
	/* one stage is the first and the last: it holds every layer */
	c.pp = 1;
	resize(&c);
	c.first_stage_layers = 7;
	expect_illegal(&c, 8, "first_stage_layers and last_stage_layers "
			      "(7, 1) must be layers (24) with pp 1");
	c.first_stage_layers = c.last_stage_layers = 24;
	expect_legal(&c, 8);
}

/* The loosest split is legal when any is. */
static void test_stage_fill(void **state)
{
	struct arch a = test_arch();
	struct train_config c = base();

	(void)state;
	train_stage_fill(&a, &c, 0, 0); /* pp 3, vp 2 */
	assert_int_equal(c.first_stage_layers, 1);
	assert_int_equal(c.last_stage_layers, 1);
	c.vp = 5;
	train_stage_fill(&a, &c, 9, 0);
	assert_int_equal(c.first_stage_layers, 9);
	assert_int_equal(c.last_stage_layers, 4);
	c.pp = 2;
	train_stage_fill(&a, &c, 0, 0);
	assert_int_equal(c.first_stage_layers, 12);
	assert_int_equal(c.last_stage_layers, 12);
	a.layers = 25;
	train_stage_fill(&a, &c, 0, 0);
	assert_int_equal(c.first_stage_layers, 13);
	assert_int_equal(c.last_stage_layers, 12);
	train_stage_fill(&a, &c, 0, 5);
	assert_int_equal(c.first_stage_layers, 20);
	assert_int_equal(c.last_stage_layers, 5);
	c.pp = 1;
	train_stage_fill(&a, &c, 0, 0);
	assert_int_equal(c.first_stage_layers, 0);
	assert_int_equal(c.last_stage_layers, 0);
}

static void test_vp_needs_pp(void **state)
{
	struct train_config c = base();

	(void)state;
	c.pp = 1;
	resize(&c);
	expect_illegal(&c, 8, "vp (2) needs pp > 1");
	c.vp = 1;
	expect_legal(&c, 8);
}

static void test_cp_seq(void **state)
{
	struct train_config c = base();

	(void)state;
	c.cp = 3;
	resize(&c);
	expect_illegal(&c, 8, "cp (3) must divide seq_len (2048)");
}

static void test_global_batch(void **state)
{
	struct train_config c = base();

	(void)state;
	c.global_batch = 100;
	expect_illegal(&c, 8,
		       "global_batch (100) must be a multiple of "
		       "dp*micro_batch (4*2)");
	c.global_batch = 0;
	expect_illegal(&c, 8,
		       "global_batch (0) must be a multiple of "
		       "dp*micro_batch (4*2)");
	c.global_batch = -8;
	expect_illegal(&c, 8,
		       "global_batch (-8) must be a multiple of "
		       "dp*micro_batch (4*2)");
}

static void test_micro_batches(void **state)
{
	struct train_config c = base();

	(void)state;
	c.micro_batches = 11;
	expect_illegal(&c, 8,
		       "micro_batches (11) must be "
		       "global_batch/(dp*micro_batch)");
	c.micro_batches = 24;
	expect_illegal(&c, 8,
		       "micro_batches (24) must be "
		       "global_batch/(dp*micro_batch)");
}

static void test_interleave_micro_batches(void **state)
{
	struct train_config c = base();

	(void)state;
	c.global_batch = 80;
	c.micro_batches = 10;
	expect_illegal(&c, 8,
		       "the interleaved schedule needs micro-batches (10) to "
		       "be a multiple of pp (3)");
	/* plain 1F1B takes any number */
	c.vp = 1;
	expect_legal(&c, 8);
}

static void test_zero_range(void **state)
{
	struct train_config c = base();

	(void)state;
	c.zero = 4;
	expect_illegal(&c, 8, "zero (4) must be 0..3");
	c.zero = -1;
	expect_illegal(&c, 8, "zero (-1) must be 0..3");
	c.zero = 0;
	expect_legal(&c, 8);
}

static void test_zero_pipeline(void **state)
{
	struct train_config c = base();

	(void)state;
	/* ZeRO-2 shards gradients and optimizer states: fine with pipelines */
	c.zero = 2;
	expect_legal(&c, 8);
	c.zero = 3;
	expect_illegal(&c, 8,
		       "zero 3 does not combine with pipeline parallelism "
		       "(pp 3)");
	/* without a pipeline it is fine */
	c.pp = 1;
	c.vp = 1;
	resize(&c);
	expect_legal(&c, 8);
}

static void test_why_truncated(void **state)
{
	struct arch a = test_arch();
	struct train_config c = base();
	char why[12];

	(void)state;
	c.cp = 3;
	resize(&c);
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	assert_string_equal(why, "cp (3) must");
	/* a zero-size buffer is not written */
	why[0] = '#';
	assert_false(train_config_explain(&a, &c, 8, why, 0));
	assert_int_equal(why[0], '#');
}

/* Parallel sizes whose product passes 64 bits (2^64) are not a split of
   any GPU count, and pp x vp past an int is no legal pipeline (issue 14:
   both products once overflowed). */
static void test_split_overflow(void **state)
{
	struct arch a = test_arch();
	struct train_config c = base();
	char why[200];

	(void)state;
	c.tp = c.pp = c.cp = c.dp = 65536;
	c.gpus = 1;
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	assert_string_equal(why, "gpus (1) must equal tp*pp*cp*dp "
				 "(65536*65536*65536*65536)");
	c = base();
	c.pp = 65536;
	c.vp = 65536;
	assert_int_equal(train_stage_layers(&a, &c), 1);
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	c.first_stage_layers = c.last_stage_layers = 1;
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	c.pp = 3;
	c.vp = 2;
	c.first_stage_layers = c.last_stage_layers = 0;
	assert_int_equal(train_stage_layers(&a, &c), 8); /* 24 / 3 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legal),
		cmocka_unit_test(test_zero_shard_ranks),
		cmocka_unit_test(test_sizes_positive),
		cmocka_unit_test(test_gpus_product),
		cmocka_unit_test(test_tp_heads),
		cmocka_unit_test(test_tp_kv_heads),
		cmocka_unit_test(test_tp_node),
		cmocka_unit_test(test_overlap_recompute_layers),
		cmocka_unit_test(test_recompute_fraction),
		cmocka_unit_test(test_pp_vp_layers),
		cmocka_unit_test(test_stage_layers),
		cmocka_unit_test(test_stage_split),
		cmocka_unit_test(test_stage_min_layers),
		cmocka_unit_test(test_stage_legality),
		cmocka_unit_test(test_stage_messages),
		cmocka_unit_test(test_stage_fill),
		cmocka_unit_test(test_vp_needs_pp),
		cmocka_unit_test(test_cp_seq),
		cmocka_unit_test(test_global_batch),
		cmocka_unit_test(test_micro_batches),
		cmocka_unit_test(test_interleave_micro_batches),
		cmocka_unit_test(test_zero_range),
		cmocka_unit_test(test_zero_pipeline),
		cmocka_unit_test(test_why_truncated),
		cmocka_unit_test(test_split_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
