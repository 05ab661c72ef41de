/*
 * test_model_recsys.c - recommenders (model_recsys.c): the gather
 * efficiency of a row, the dense network's parameters and FLOPs from its
 * layers, the placement of the tables and their tier, the all-to-all
 * over NVLink, PCIe and the network, the step and the served batch
 * composed by hand from the kernel models (model_kernel.h, tested on
 * their own) the way specs/models.md 14.3-14.7 writes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "infer_plan.h"
#include "model_comm.h"
#include "model_kernel.h"
#include "model_recsys.h"
#include "model_sample.h"
#include "plan.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* A100-80GB-like, by hand. */
static struct gpu_spec test_gpu(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "recsys-test");
	g.mem_bytes = 80e9;
	g.mem_bw_bytes_per_s = 2.0e12;
	g.peak_flops[PREC_FP32] = 19.5e12;
	g.peak_flops[PREC_TF32] = 156e12;
	g.peak_flops[PREC_BF16] = 312e12;
	g.peak_flops[PREC_FP16] = 312e12;
	g.matmul_eff = 0.8;
	g.mem_eff = 0.9;
	g.sms = 108;
	g.tdp_w = 400.0;
	g.idle_w = 55.0;
	g.gpus_per_node = 8;
	g.intra_bw_bytes_per_s = 300e9;
	g.inter_bw_bytes_per_s = 25e9;
	g.price_usd_per_hour = 1.8;
	return g;
}

static struct cluster test_cluster(void)
{
	struct cluster cl;

	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 300e9;
	cl.inter_bw_bytes_per_s = 25e9;
	cl.pue = 1.2;
	cl.host_overhead = 0.35;
	cl.host_link_bw_bytes_per_s = 25e9 / 0.78; /* 25 GB/s achievable */
	cl.host_memory_bytes = 2e12;
	cl.ssd_bw_bytes_per_s = 24e9;
	return cl;
}

/* DLRM on Criteo (DeepLearningExamples): 13 numerical features, bottom
   13-512-256-128, 26 tables of 128, top 479-1024-1024-512-256-1. */
static struct model_spec dlrm(void)
{
	struct model_spec m;
	static const int bottom[] = { 512, 256, 128 };
	static const int top[] = { 1024, 1024, 512, 256, 1 };

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "dlrm");
	m.kind = MODEL_RECSYS;
	m.embedding_tables = 26;
	m.embedding_rows = 1e6;
	m.embedding_dim = 128;
	m.embedding_precision = PREC_FP32;
	m.dense_features = 13;
	m.bottom_mlp.n = 3;
	memcpy(m.bottom_mlp.width, bottom, sizeof(bottom));
	m.top_mlp.n = 5;
	memcpy(m.top_mlp.width, top, sizeof(top));
	m.interaction = RECSYS_DOT;
	m.cache_hit_rate = -1.0;
	return m;
}

static struct train_config cfg(int gpus, int mb, int gb)
{
	struct train_config c;

	memset(&c, 0, sizeof(c));
	c.gpus = gpus;
	c.tp = c.pp = c.vp = c.cp = c.ep = 1;
	c.dp = gpus;
	c.micro_batch = mb;
	c.global_batch = gb;
	c.micro_batches = gb / (gpus * mb);
	c.recompute = RECOMPUTE_NONE;
	c.precision = PREC_FP16;
	c.optimizer = OPTIMIZER_SGD;
	c.attention = ATTN_FLASH;
	return c;
}

/* Whole 32-byte sectors, and 128 bytes of page activation per row. */
static void test_gather_efficiency(void **state)
{
	(void)state;
	/* 512-byte row: 512 / (512 + 128) */
	assert_rel(recsys_gather_efficiency(512), 0.8, 1e-15);
	/* 256: 256 / 384 */
	assert_rel(recsys_gather_efficiency(256), 2.0 / 3.0, 1e-15);
	/* 100 bytes read as 128: 100 / 256 */
	assert_rel(recsys_gather_efficiency(100), 100.0 / 256.0, 1e-15);
	/* a 4-byte fp32 scalar (a wide model's linear term): 4 / 160 */
	assert_rel(recsys_gather_efficiency(4), 0.025, 1e-15);
	/* bigger rows are always better per byte */
	assert_true(recsys_gather_efficiency(1024) >
		    recsys_gather_efficiency(512));
}

/*
 * DLRM's dense network by hand (the CSV notes of tests/validation/
 * recsys.csv): bottom 13x512+512 + 512x256+256 + 256x128+128 = 171392;
 * the dot interaction of 27 vectors: 27 x 26 / 2 = 351 products and the
 * bottom output, 479 wide; top 479x1024+1024 + 1024x1024+1024 +
 * 1024x512+512 + 512x256+256 + 256+1 = 2197505.
 */
static void test_dense_counts(void **state)
{
	struct model_spec m = dlrm();

	(void)state;
	assert_rel(recsys_dense_params(&m), 171392.0 + 2197505.0, 1e-15);
	/* FLOPs: 2 x the bottom's 170496 MACs, the 27 x 27 x 128 dot
	   products (lower triangle, 2 FLOPs a MAC), 2 x the top's 2194688 */
	assert_rel(recsys_dense_flops(&m), 2 * 170496.0 + 93312.0 +
						   2 * 2194688.0,
		   1e-15);
	assert_rel(recsys_lookups(&m), 26.0, 1e-15);
	m.pooling_factor = 20.0;
	assert_rel(recsys_lookups(&m), 520.0, 1e-15);
	m.pooling_factor = 0.0;
	m.lookups_per_sample = 39.0;
	assert_rel(recsys_lookups(&m), 39.0, 1e-15);
	/* 26 x 1e6 x 128 x 4 bytes */
	assert_rel(recsys_table_bytes(&m), 13.312e9, 1e-15);
	/* a checkpoint of them: no rows of state for SGD, 4 bytes a row of
	   row-wise Adagrad (optimizer = adam) */
	assert_rel(recsys_table_state_bytes(&m, OPTIMIZER_SGD), 13.312e9,
		   1e-15);
	assert_rel(recsys_table_state_bytes(&m, OPTIMIZER_ADAM),
		   13.312e9 + 26e6 * 4.0, 1e-15);

	/* DCNv2-like: no bottom MLP, 2 tables of 4 and 3 features meet in
	   a cross network of width 2 x 4 + 3 = 11, top 5-1 */
	{
		struct model_spec c = dlrm();

		c.embedding_tables = 2;
		c.embedding_dim = 4;
		c.dense_features = 3;
		c.bottom_mlp.n = 0;
		c.interaction = RECSYS_CROSS;
		c.cross_layers = 2;
		c.top_mlp.n = 2;
		c.top_mlp.width[0] = 5;
		c.top_mlp.width[1] = 1;
		/* cross: 2 x (11 x 11 + 11); top 11x5+5 + 5+1 */
		assert_rel(recsys_dense_params(&c), 2 * 132.0 + 60.0 + 6.0,
			   1e-15);
		/* cross: 2 x (2 x 121 + 2 x 11); top 2 x (55 + 5) */
		assert_rel(recsys_dense_flops(&c), 2 * 264.0 + 120.0, 1e-15);
		/* low rank 2: U and V, 11x2 each, and the bias */
		c.cross_rank = 2;
		assert_rel(recsys_dense_params(&c), 2 * 55.0 + 66.0, 1e-15);
		assert_rel(recsys_dense_flops(&c),
			   2 * (2 * 44.0 + 2 * 11.0) + 120.0, 1e-15);
		/* concatenation: a Wide & Deep deep part */
		c.interaction = RECSYS_CAT;
		c.cross_layers = 0;
		c.cross_rank = 0;
		assert_rel(recsys_dense_params(&c), 66.0, 1e-15);
	}
	/* given as totals */
	m = dlrm();
	m.top_mlp.n = 0;
	m.bottom_mlp.n = 0;
	m.dense_params = 2.37e6;
	m.dense_flops_per_sample = 4.83e6;
	assert_rel(recsys_dense_params(&m), 2.37e6, 1e-15);
	assert_rel(recsys_dense_flops(&m), 4.83e6, 1e-15);
}

/*
 * All-to-all: a GPU sends 1/n of its bytes to each peer at once.  One
 * node on a switch: 7 chunks over NVLink; DGX-1's mesh: 4 over NVLink,
 * 3 over PCIe; two nodes: 7 chunks over NVLink beside 8 over the NIC.
 */
static void test_alltoall(void **state)
{
	struct link nv = link_intra_node(300e9, false), ib = link_inter_node(25e9);
	struct link pcie = link_intra_node(1.0, false);
	double bytes = 64e6, chunk = 8e6;

	(void)state;
	pcie.bw_bytes_per_s = 12e9;
	assert_true(comm_alltoall_nodes_s(&nv, &ib, &pcie, bytes, 1, 8, 0) ==
		    0.0);
	/* 0.78 x 300 GB/s, 3 levels of 3 us */
	assert_rel(comm_alltoall_nodes_s(&nv, &ib, &pcie, bytes, 8, 8, 0),
		   7 * chunk / 234e9 + 3 * 3e-6, 1e-14);
	assert_rel(comm_alltoall_nodes_s(&nv, &ib, &pcie, bytes, 8, 8, 4),
		   3 * chunk / 12e9 + 3 * 3e-6, 1e-14);
	/* 16 GPUs: the network port carries half the chunks */
	chunk = bytes / 16;
	assert_rel(comm_alltoall_nodes_s(&nv, &ib, &pcie, bytes, 16, 8, 0),
		   8 * chunk / 22.5e9 + 1 * 6e-6, 1e-14);
}

/* Table-wise, row-wise, column-wise and replicated tables, and the tier
   of what HBM cannot hold. */
static void test_placement(void **state)
{
	struct model_spec m = dlrm();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = cfg(8, 8192, 65536);
	struct train_result r;
	struct recsys_step s;

	(void)state;
	c.emb_sharding = EMB_TABLE_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	/* 26 tables on 8 GPUs: at most 4 on one, 4/26 of the lookups */
	assert_rel(s.place.tables_max, 4.0, 0.0);
	assert_rel(s.place.lookup_share, 4.0 / 26.0, 1e-15);
	assert_rel(s.place.bytes_per_gpu, 4 * 1e6 * 512.0, 1e-15);
	assert_int_equal(s.place.tier, RECSYS_TIER_HBM);
	assert_rel(s.place.hit_rate, 1.0, 0.0);
	assert_rel(s.gather_efficiency, 0.8, 1e-15);
	/* each GPU sends its 4 tables' 65536 bags (fp16) */
	assert_rel(s.a2a_bytes, 65536.0 * 4 * 128 * 2, 1e-15);

	c.emb_sharding = EMB_ROW_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, 26 * 1e6 * 512.0 / 8, 1e-15);
	assert_rel(s.place.lookup_share, 1.0 / 8, 1e-15);
	/* partial sums of every bag: the whole global micro-batch */
	assert_rel(s.a2a_bytes, 65536.0 * 26 * 128 * 2, 1e-15);

	c.emb_sharding = EMB_COLUMN_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	/* two 64-wide shards per table, 52 shards: 7 on the busiest GPU */
	assert_int_equal(s.place.column_shards, 2);
	assert_rel(s.place.tables_max, 7.0, 0.0);
	assert_rel(s.place.row_bytes, 256.0, 1e-15);
	assert_rel(s.gather_efficiency, 2.0 / 3.0, 1e-15);

	c.emb_sharding = EMB_DATA_PARALLEL;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, 13.312e9, 1e-15);
	assert_true(s.a2a_s == 0.0);
	assert_true(s.table_sync_s > 0.0);
	/* auto: the fastest of them */
	{
		double best = HUGE_VAL;
		static const int all[] = { EMB_TABLE_WISE, EMB_ROW_WISE,
					   EMB_COLUMN_WISE,
					   EMB_DATA_PARALLEL };

		for (int i = 0; i < 4; i++) {
			c.emb_sharding = all[i];
			assert_int_equal(
				recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
			if (r.time.step_s < best)
				best = r.time.step_s;
		}
		c.emb_sharding = EMB_AUTO;
		assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
		assert_rel(r.time.step_s, best, 1e-15);
	}

	/* 160 GB of tables on one 80 GB GPU: the rest in host memory, the
	   cache serving the cached share of the lookups */
	m.embedding_rows = 12e6;
	c = cfg(1, 4096, 4096);
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_int_equal(s.place.tier, RECSYS_TIER_HOST);
	assert_rel(s.place.hbm_bytes + s.place.offload_bytes,
		   26 * 12e6 * 512.0, 1e-14);
	assert_rel(s.place.hit_rate, s.place.hbm_bytes / (26 * 12e6 * 512.0),
		   1e-14);
	assert_true(r.memory.fits);
	/* misses: (1 - h) x 26 x 4096 rows of 512 bytes read over PCIe at
	   25 GB/s, then read and written back */
	assert_rel(s.miss_s,
		   3.0 * (1.0 - s.place.hit_rate) * 26 * 4096 * 512 / 25e9,
		   1e-14);
	/* a measured hit rate replaces the cached share */
	m.cache_hit_rate = 0.9;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.hit_rate, 0.9, 0.0);
	assert_rel(s.miss_s, 3.0 * 0.1 * 26 * 4096 * 512 / 25e9, 1e-14);
	/* beyond host memory: the SSD, read in 4 KiB pages */
	cl.host_memory_bytes = 10e9;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_int_equal(s.place.tier, RECSYS_TIER_SSD);
	assert_rel(s.miss_s, 3.0 * 0.1 * 26 * 4096 * 4096 / (24e9 / 8),
		   1e-14);
	assert_string_equal(s.bound, "embedding rows on SSD");
}

/*
 * Tables of their own sizes (Criteo's cardinalities run from 3 to 40
 * million): 1e6, 10 and 5e5 rows of 128 fp32 (512 bytes), SGD, over 2
 * GPUs, by hand.
 */
static void test_placement_listed(void **state)
{
	struct model_spec m = dlrm();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = cfg(2, 4096, 8192);
	struct train_result r;
	struct recsys_step s;
	double total = 1e6 + 10 + 5e5;

	(void)state;
	m.embedding_tables = 3;
	m.table_rows.n = 3;
	m.table_rows.rows[0] = 1e6;
	m.table_rows.rows[1] = 10;
	m.table_rows.rows[2] = 5e5;
	m.embedding_rows = total / 3;
	assert_true(recsys_rows_listed(&m));
	assert_rel(recsys_total_rows(&m), total, 0.0);
	assert_rel(recsys_table_bytes(&m), total * 512.0, 0.0);
	assert_rel(recsys_table_state_bytes(&m, OPTIMIZER_ADAM),
		   total * 516.0, 1e-15);

	/* table-wise, largest first to the least loaded GPU: GPU 0 the
	   1e6-row table (512 MB), GPU 1 the 5e5 and then the 10-row one
	   (256 MB): the most bytes on GPU 0, the most tables (lookups) on
	   GPU 1 */
	c.emb_sharding = EMB_TABLE_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, 1e6 * 512.0, 1e-15);
	assert_rel(s.place.tables_max, 2.0, 0.0);
	assert_rel(s.place.lookup_share, 2.0 / 3.0, 1e-15);
	assert_int_equal(s.place.tier, RECSYS_TIER_HBM);
	assert_rel(r.params, recsys_dense_params(&m) + total * 128, 1e-15);
	/* the average (500003 rows a table) would have put 2 tables, 512 MB,
	   on the busiest GPU: the same bytes by chance, here; on 3 GPUs the
	   largest table alone decides, not 1/3 of the rows */
	c = cfg(3, 4096, 12288);
	c.emb_sharding = EMB_TABLE_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, 1e6 * 512.0, 1e-15);
	assert_rel(s.place.tables_max, 1.0, 0.0);

	/* at most ceil(4 / 2) = 2 tables a GPU: 1e6, 5e5, 20, 10 rows go
	   1e6 to GPU 0, 5e5 and 20 to GPU 1 (full), 10 to GPU 0 */
	c = cfg(2, 4096, 8192);
	c.emb_sharding = EMB_TABLE_WISE;
	m.embedding_tables = 4;
	m.table_rows.n = 4;
	m.table_rows.rows[3] = 20;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, (1e6 + 10) * 512.0, 1e-15);
	assert_rel(s.place.tables_max, 2.0, 0.0);
	assert_rel(s.place.lookup_share, 0.5, 0.0);
	m.embedding_tables = 3;
	m.table_rows.n = 3;

	/* row-wise: half of every table's rows */
	c.emb_sharding = EMB_ROW_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, total * 512.0 / 2, 1e-15);
	assert_rel(s.place.lookup_share, 0.5, 0.0);
	/* column-wise: two 64-wide shards of each (256-byte rows), dealt
	   1e6, 1e6, 5e5, 5e5, 10, 10: one shard of each table a GPU */
	c.emb_sharding = EMB_COLUMN_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_int_equal(s.place.column_shards, 2);
	assert_rel(s.place.bytes_per_gpu, total * 256.0, 1e-15);
	assert_rel(s.place.tables_max, 3.0, 0.0);
	assert_rel(s.place.lookup_share, 0.5, 0.0);
	/* data-parallel: all of them */
	c.emb_sharding = EMB_DATA_PARALLEL;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, total * 512.0, 1e-15);

	/* beyond HBM on one GPU: 2e8 rows (102.4 GB), 10 and 1e6 (512 MB);
	   the cache holds the small tables whole (their rows are looked up
	   most often), then what fits of the big one: each table serves a
	   third of the lookups */
	m.table_rows.rows[0] = 2e8;
	m.table_rows.rows[2] = 1e6;
	c = cfg(1, 4096, 4096);
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_int_equal(s.place.tier, RECSYS_TIER_HOST);
	{
		double budget = s.place.hbm_bytes;
		double want = (1.0 + 1.0 +
			       (budget - 10 * 512.0 - 1e6 * 512.0) /
				       (2e8 * 512.0)) /
			      3.0;

		assert_rel(s.place.bytes_per_gpu, (2e8 + 10 + 1e6) * 512.0,
			   1e-15);
		assert_rel(s.place.hit_rate, want, 1e-14);
		/* more than the cached share of the rows */
		assert_true(s.place.hit_rate >
			    budget / s.place.bytes_per_gpu + 0.15);
	}
	/* the served replica: table-wise over 2 GPUs, no optimizer state */
	{
		struct sample_infer si;
		struct serve_costs sc = serve_costs_default();

		m.table_rows.rows[0] = 1e6;
		m.table_rows.rows[2] = 5e5;
		assert_int_equal(recsys_infer_eval(&m, 2, 256, PREC_FP16, &sc,
						   &g, &cl, &si),
				 0);
		assert_rel(si.place.bytes_per_gpu, 1e6 * 512.0, 1e-15);
		assert_rel(si.place.tables_max, 2.0, 0.0);
	}
}

/*
 * The tables dealt once for a search (recsys_layout_init) give every
 * configuration the step it gets dealing them alone, whatever the
 * sharding, micro-batch and the memory left (tables beyond HBM too); a
 * layout made for another GPU count, optimizer or model is not used.
 */
static void test_layout(void **state)
{
	static const double rows[] = { 7.9e6, 3.4e4, 1.7e4, 5.5e6, 5.8e5,
				       11,    2.2e3, 8.2e6, 2.7e6, 97 };
	struct model_spec m = dlrm(), other;
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct recsys_layout *lay = malloc(sizeof(*lay));
	static const int shardings[] = { EMB_AUTO, EMB_TABLE_WISE,
					 EMB_ROW_WISE, EMB_COLUMN_WISE,
					 EMB_DATA_PARALLEL };
	int spilled = 0;

	(void)state;
	assert_non_null(lay);
	m.embedding_tables = 10;
	m.table_rows.n = 10;
	for (int i = 0; i < 10; i++)
		m.table_rows.rows[i] = rows[i];
	for (int gi = 0; gi < 2; gi++) {
		int gpus = gi == 0 ? 8 : 3;

		for (size_t k = 0; k < sizeof(shardings) / sizeof(shardings[0]);
		     k++) {
			recsys_layout_init(&m, shardings[k], gpus,
					   OPTIMIZER_ADAM, lay);
			for (int mb = 512; mb <= 32768; mb *= 8) {
				struct train_config c = cfg(gpus, mb,
							    mb * gpus);
				struct train_result r0, r1;
				struct recsys_step s0, s1;

				c.optimizer = OPTIMIZER_ADAM;
				c.emb_sharding = shardings[k];
				/* a small HBM at the largest batch: the
				   tables spill behind the cache */
				g.mem_bytes = mb == 32768 ? 4e9 : 80e9;
				memset(&r0, 0, sizeof(r0));
				memset(&r1, 0, sizeof(r1));
				assert_int_equal(recsys_train_eval(&m, &c, &g,
								   &cl, NULL,
								   &r0, &s0),
						 0);
				assert_int_equal(recsys_train_eval(&m, &c, &g,
								   &cl, lay,
								   &r1, &s1),
						 0);
				assert_true(r0.time.step_s > 0.0);
				assert_rel(r1.time.step_s, r0.time.step_s, 0.0);
				assert_rel(r1.memory.total_bytes,
					   r0.memory.total_bytes, 0.0);
				assert_int_equal(s1.place.sharding,
						 s0.place.sharding);
				assert_int_equal(s1.place.tier, s0.place.tier);
				assert_rel(s1.place.hit_rate, s0.place.hit_rate,
					   0.0);
				spilled += s1.place.tier != RECSYS_TIER_HBM;
			}
		}
	}
	assert_true(spilled > 0);
	g.mem_bytes = 80e9;
	/* the layout holds table-wise on 3 GPUs with Adam: asked for 8
	   GPUs, SGD or another model's tables, it is not used */
	recsys_layout_init(&m, EMB_TABLE_WISE, 3, OPTIMIZER_ADAM, lay);
	assert_non_null(recsys_layout_deal(lay, &m, EMB_TABLE_WISE, 3,
					   OPTIMIZER_ADAM));
	assert_null(recsys_layout_deal(lay, &m, EMB_ROW_WISE, 3,
				       OPTIMIZER_ADAM));
	assert_null(recsys_layout_deal(lay, &m, EMB_TABLE_WISE, 8,
				       OPTIMIZER_ADAM));
	assert_null(recsys_layout_deal(lay, &m, EMB_TABLE_WISE, 3,
				       OPTIMIZER_SGD));
	other = m;
	assert_null(recsys_layout_deal(lay, &other, EMB_TABLE_WISE, 3,
				       OPTIMIZER_ADAM));
	assert_null(recsys_layout_deal(NULL, &m, EMB_TABLE_WISE, 3,
				       OPTIMIZER_ADAM));
	{
		struct train_config c = cfg(8, 4096, 32768);
		struct train_result r0, r1;
		struct recsys_step s0, s1;

		c.optimizer = OPTIMIZER_ADAM;
		c.emb_sharding = EMB_TABLE_WISE;
		assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r0,
						   &s0),
				 0);
		assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, lay, &r1,
						   &s1),
				 0);
		assert_rel(r1.time.step_s, r0.time.step_s, 0.0);
		assert_rel(s1.place.bytes_per_gpu, s0.place.bytes_per_gpu,
			   0.0);
	}
	free(lay);
}

/*
 * Wide & Deep's wide part (Cheng et al. 2016): one fp32 weight per row of
 * every table, FTRL's two fp32 accumulators, gathered as 4-byte rows at
 * 4 / (32 + 128) = 2.5%; one GPU, a micro-batch of 8192, by hand.
 */
static void test_wide(void **state)
{
	struct model_spec m = dlrm();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = cfg(1, 8192, 8192);
	struct train_result r0, r;
	struct recsys_step s0, s;
	struct device_perf d;
	double n = 26 * 8192.0, fwd, bwd;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_FP16, false), 0);
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r0, &s0), 0);
	assert_rel(s0.wide_s, 0.0, 0.0);
	m.wide = true;
	assert_rel(recsys_wide_state_bytes(&m), 8.0, 0.0);
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	/* forward: gather n weights (160 bytes of HBM time each) and write
	   a partial sum a bag; backward: read the gradient per lookup, read
	   and write each weight and its 8-byte state at random (160 bytes
	   each), five passes of framework sparse gradients */
	fwd = kernel_stream_s(&d, n * 4 / 0.025 + n * 4);
	bwd = kernel_stream_s(&d, n * 4 + 2 * n * 160 + 2 * n * 160 +
					  5 * n * 4);
	assert_rel(s.wide_s, fwd + bwd, 1e-14);
	assert_rel(s.emb_bwd_s, s0.emb_bwd_s + fwd + bwd, 1e-14);
	assert_rel(s.kernels, s0.kernels + 2, 0.0);
	/* the weights and their state beside the tables */
	assert_rel(s.place.bytes_per_gpu, 26e6 * (512 + 4 + 8), 1e-15);
	assert_rel(r.params, r0.params + 26e6, 1e-15);
	assert_rel(recsys_table_bytes(&m), 26e6 * 129 * 4, 1e-15);
	assert_rel(recsys_table_state_bytes(&m, OPTIMIZER_SGD),
		   26e6 * (129 * 4 + 8), 1e-15);
	assert_true(r.time.step_s > r0.time.step_s);
	/* Adagrad: one accumulator; SGD: none */
	m.wide_optimizer = WIDE_ADAGRAD;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, 26e6 * (512 + 4 + 4), 1e-15);
	m.wide_optimizer = WIDE_SGD;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.wide_s,
		   fwd + kernel_stream_s(&d, n * 4 + 2 * n * 160 + 5 * n * 4),
		   1e-14);
	m.wide_optimizer = WIDE_FTRL;
	/* column-wise over 8 GPUs: 1/2 of a table's weights with each of
	   its two shards */
	c = cfg(8, 8192, 65536);
	c.emb_sharding = EMB_COLUMN_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.place.bytes_per_gpu, 7 * 1e6 * (256 + 12.0 / 2), 1e-15);
	/* table-wise: each GPU's partial logits of the global micro-batch
	   join the all-to-all */
	c.emb_sharding = EMB_TABLE_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.a2a_bytes, 65536.0 * 4 * 128 * 2 + 65536.0 * 2, 1e-15);
	/* served: the gather only, no state */
	{
		struct sample_infer a, b;
		struct serve_costs sc = serve_costs_default();
		struct device_perf di;

		assert_int_equal(device_perf_init(&di, &g, PREC_FP16, false),
				 0);
		m.wide = false;
		assert_int_equal(recsys_infer_eval(&m, 1, 256, PREC_FP16, &sc,
						   &g, &cl, &a),
				 0);
		m.wide = true;
		assert_int_equal(recsys_infer_eval(&m, 1, 256, PREC_FP16, &sc,
						   &g, &cl, &b),
				 0);
		assert_rel(b.emb_s - a.emb_s,
			   kernel_stream_s(&di, 26 * 256 * (160.0 + 4)), 1e-9);
		assert_rel(b.place.bytes_per_gpu, 26e6 * 516, 1e-15);
		assert_rel(b.kernels, a.kernels + 1, 0.0);
	}
}

/*
 * One GPU, one micro-batch of 8192, SGD: the step is the dense network,
 * the lookups and their update, and the optimizer of the dense part;
 * the lookups by hand.
 */
static void test_step(void **state)
{
	struct model_spec m = dlrm();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = cfg(1, 8192, 8192);
	struct train_result r;
	struct recsys_step s;
	struct device_perf d;
	double b = 8192, rows = 26 * b, p = recsys_dense_params(&m);
	double fwd, bwd;

	(void)state;
	assert_int_equal(device_perf_init(&d, &g, PREC_FP16, false), 0);
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	/* forward: gather 212992 rows of 512 bytes at 0.8, write the bags
	   in fp32, convert them to fp16 */
	fwd = kernel_stream_s(&d, rows * 512 / 0.8 + rows * 512) +
	      kernel_stream_s(&d, rows * 128 * 6);
	assert_rel(s.emb_fwd_s, fwd, 1e-14);
	/* backward: convert the gradient back; read it per lookup, sort the
	   indices (64 bytes each), read and write the rows; sparse
	   gradients: five more passes over each lookup's row */
	bwd = kernel_stream_s(&d, rows * 128 * 6) +
	      kernel_stream_s(&d, rows * 512 + rows * 64 +
					  2 * rows * 512 / 0.8 +
					  5 * rows * 512) +
	      4 * kernel_gap_s();
	assert_rel(s.emb_bwd_s, bwd, 1e-14);
	/* fused with the optimizer: without the five passes */
	c.emb_fused_update = true;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.emb_bwd_s,
		   kernel_stream_s(&d, rows * 128 * 6) +
			   kernel_stream_s(&d, rows * 512 + rows * 64 +
						       2 * rows * 512 / 0.8) +
			   kernel_gap_s(),
		   1e-14);
	c.emb_fused_update = false;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	/* no exchange on one GPU; the step adds up */
	assert_true(s.a2a_s == 0.0 && s.allreduce_s == 0.0);
	assert_rel(r.time.step_s,
		   s.dense_s + s.emb_fwd_s + s.emb_bwd_s +
			   kernel_stream_s(&d, 34 * p),
		   1e-14);
	assert_rel(r.time.compute_s, s.dense_s + s.emb_fwd_s + s.emb_bwd_s,
		   1e-14);
	assert_rel(r.tokens_per_s, b / r.time.step_s, 1e-14);
	assert_rel(r.params, p + 26 * 1e6 * 128, 1e-15);
	assert_string_equal(s.bound, "dense network");
	/* the first layer of the bottom MLP: a GEMM of 8192 x 512 x 13 */
	assert_true(s.dense_s > kernel_gemm_s(&d, b, 512, 13, 1.0));

	/* the data: 4 bytes per feature, index and label, 13 + 26 + 1, at
	   24 GB/s for the node */
	assert_rel(s.data_s, b * 160 / 24e9, 1e-14);
	assert_true(s.stall_s == 0.0);
	/* a slow disk makes it the bound */
	cl.ssd_bw_bytes_per_s = 100e6;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(r.time.step_s, b * 160 / 100e6, 1e-14);
	assert_rel(s.stall_s, s.data_s - s.gpu_s, 1e-14);
	assert_string_equal(s.bound, "input data");
	/* input bytes given per sample */
	c.input_bytes = 80.0;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.data_s, b * 80 / 100e6, 1e-14);
}

/* Eight GPUs: the all-to-alls blocking (DeepLearningExamples) or beside
   the bottom MLP and the backward (TorchRec's pipeline). */
static void test_step_comm(void **state)
{
	struct model_spec m = dlrm();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = cfg(8, 8192, 65536);
	struct train_result r;
	struct recsys_step s, o;
	struct link nv = link_intra_node(300e9, false), ib = link_inter_node(25e9);
	struct link pcie = link_intra_node(1.0, false);

	(void)state;
	pcie.bw_bytes_per_s = 25e9;
	c.emb_sharding = EMB_TABLE_WISE;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &s), 0);
	assert_rel(s.a2a_s,
		   2 * comm_alltoall_nodes_s(&nv, &ib, &pcie, s.a2a_bytes, 8, 8,
					     0),
		   1e-14);
	/* the indices of a GPU's 8192 samples, 26 int32 each */
	assert_rel(s.input_dist_s,
		   comm_alltoall_nodes_s(&nv, &ib, &pcie, 8192 * 26 * 4.0, 8,
					 8, 0),
		   1e-14);
	assert_rel(s.comm_exposed_s, s.a2a_s + s.input_dist_s, 1e-15);
	assert_rel(r.time.tp_comm_s, s.comm_exposed_s, 1e-15);
	c.emb_comm_overlap = true;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &o), 0);
	assert_true(o.comm_exposed_s < s.comm_exposed_s);
	assert_true(o.comm_exposed_s > 0.0);
	/* Horovod: each blocking all-to-all and the gradient reduction wait
	   half of a 1 ms cycle */
	c.emb_comm_overlap = false;
	c.collective_cycle_s = 1e-3;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &o), 0);
	assert_rel(o.comm_exposed_s, s.comm_exposed_s + 2 * 0.5e-3, 1e-14);
	assert_rel(o.cycle_wait_s, 3 * 0.5e-3, 1e-14);
	{
		struct train_result r0;

		c.collective_cycle_s = 0.0;
		assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r0, &o),
				 0);
		c.collective_cycle_s = 1e-3;
		assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &o), 0);
		assert_rel(r.time.step_s, r0.time.step_s + 1.5e-3, 1e-12);
		c.collective_cycle_s = 0.0;
		/* the training loop's host time adds to the step whole */
		c.step_overhead_s = 1e-3;
		assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &o), 0);
		assert_rel(r.time.host_s, 1e-3, 0.0);
		assert_rel(r.time.step_s, r0.time.step_s + 1e-3, 1e-12);
		assert_rel(r.time.compute_s, r0.time.compute_s, 1e-15);
		assert_rel(o.gpu_s, r0.time.step_s - r0.time.host_s, 1e-12);
		c.step_overhead_s = 0.0;
	}
	/* the bottom MLP on a GPU of its own: the tables over the other 7
	   (26 tables: 4 on the busiest), its work for the global batch
	   beside their lookups */
	c.bottom_mlp_one_gpu = true;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &o), 0);
	assert_int_equal(o.place.gpus, 7);
	assert_rel(o.place.tables_max, 4.0, 0.0);
	assert_true(o.parallel_s > 0.0);
	assert_true(o.dense_s > s.dense_s);
	c.bottom_mlp_one_gpu = false;
	/* DGX-1: 3 of the 7 peers over PCIe make it slower */
	c.emb_comm_overlap = false;
	cl.nvlink_peers = 4;
	assert_int_equal(recsys_train_eval(&m, &c, &g, &cl, NULL, &r, &o), 0);
	assert_true(o.a2a_s > s.a2a_s);
}

/*
 * A served batch: the kernels on the GPU after the framework's host
 * work and the inputs' copy; without CUDA graphs the host issues every
 * kernel; a server adds its time per request.
 */
static void test_serve(void **state)
{
	struct model_spec m = dlrm();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct serve_costs sc = serve_costs_default();
	struct sample_infer r, e;
	struct workload wl;

	(void)state;
	m.embedding_precision = PREC_FP16;
	assert_int_equal(recsys_infer_eval(&m, 1, 64, PREC_FP16, &sc, &g, &cl,
					   &r),
			 0);
	/* 80 us of framework, the inputs: 64 x 160 bytes at 25 GB/s */
	assert_rel(r.host_s, 80e-6, 1e-15);
	assert_rel(r.copy_s, 64 * 160 / 25e9, 1e-15);
	assert_rel(r.latency_s, r.host_s + r.copy_s + r.gpu_s, 1e-15);
	assert_rel(r.throughput_per_s, 64 / r.latency_s, 1e-15);
	/* 21 kernels: two per layer (8 layers), the concatenation, the dot
	   products, the lookup, the inputs' conversion and the output;
	   every one costs at least the gap */
	assert_rel(r.kernels, 21.0, 0.0);
	assert_true(r.gpu_s > 21 * kernel_gap_s());
	assert_false(r.launch_bound);
	/* eager: 21 kernels at 15 us each, more than the GPU needs */
	sc.cuda_graphs = false;
	assert_int_equal(recsys_infer_eval(&m, 1, 64, PREC_FP16, &sc, &g, &cl,
					   &e),
			 0);
	assert_true(e.launch_bound);
	assert_rel(e.latency_s, e.host_s + e.copy_s + 21 * 15e-6, 1e-14);
	/* fused (TensorRT): fewer kernels, less time */
	sc = serve_costs_default();
	sc.fusion = true;
	assert_int_equal(recsys_infer_eval(&m, 1, 64, PREC_FP16, &sc, &g, &cl,
					   &e),
			 0);
	assert_true(e.kernels < r.kernels);
	assert_true(e.gpu_s < r.gpu_s);
	/* Triton: 78 us per request on top */
	workload_init(&wl);
	wl.model.kind = MODEL_RECSYS;
	wl.inference.server = SERVER_TRITON;
	sc = sample_serve_costs(&wl);
	/* cuda_graphs left open: a recommender replays a graph, a
	   generic network served eagerly does not, fused it does; a
	   given value wins */
	assert_true(sc.cuda_graphs);
	wl.model.kind = MODEL_GENERIC;
	assert_false(sample_serve_costs(&wl).cuda_graphs);
	wl.inference.fusion = true;
	assert_true(sample_serve_costs(&wl).cuda_graphs);
	wl.inference.cuda_graphs = 0;
	assert_false(sample_serve_costs(&wl).cuda_graphs);
	wl.inference.fusion = false;
	wl.inference.cuda_graphs = 1;
	assert_true(sample_serve_costs(&wl).cuda_graphs);
	wl.inference.cuda_graphs = WL_AUTO_NEG;
	wl.model.kind = MODEL_RECSYS;
	assert_rel(sc.request_s, 78e-6, 1e-15);
	assert_int_equal(recsys_infer_eval(&m, 1, 64, PREC_FP16, &sc, &g, &cl,
					   &e),
			 0);
	assert_rel(e.latency_s, r.latency_s + 78e-6, 1e-14);
	/* a given request overhead wins */
	wl.inference.request_overhead_s = 1e-3;
	sc = sample_serve_costs(&wl);
	assert_rel(sc.request_s, 1e-3, 1e-15);
	/* two GPUs: half the tables each, and an all-to-all */
	sc = serve_costs_default();
	assert_int_equal(recsys_infer_eval(&m, 2, 64, PREC_FP16, &sc, &g, &cl,
					   &e),
			 0);
	assert_rel(e.place.tables_max, 13.0, 0.0);
	assert_true(e.a2a_s > 0.0);
	assert_rel(e.kernels, r.kernels + 1.0, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gather_efficiency),
		cmocka_unit_test(test_dense_counts),
		cmocka_unit_test(test_alltoall),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_placement_listed),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_step_comm),
		cmocka_unit_test(test_serve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
