/* test_cluster.c - [cluster] resolved against a device: node, links and
   the price of a GPU-hour (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "cluster.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* A workstation card rented one machine at a time, with a capex. */
static struct gpu_spec gpu(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "Card-X");
	strcpy(g.kind, "workstation");
	g.tdp_w = 712.5;
	g.idle_w = 40.0;
	g.gpus_per_node = 4;
	g.intra_bw_bytes_per_s = 31.5e9;
	g.inter_bw_bytes_per_s = 1.25e9;
	g.price_usd_per_hour = 0.537;
	strcpy(g.price_basis, "cloud-on-demand-2026-05");
	g.rent_max_gpus = 8;
	g.capex_usd_per_gpu = 2385.25;
	return g;
}

/* The [cluster] of a workload with unround keys (workload_init's
   defaults are tested in test_workload.c). */
static struct cluster_spec spec(void)
{
	struct cluster_spec s;

	memset(&s, 0, sizeof(s));
	s.pue = 1.38;
	s.price_usd_per_kwh = 0.1175;
	s.host_overhead = 0.27;
	s.pricing = PRICING_CLOUD;
	s.amortization_years = 3.5;
	s.hosting_usd_per_kw_month = 97.3;
	s.nvlink_sharp = WL_AUTO_NEG;
	s.intra_mesh = WL_AUTO_NEG;
	return s;
}

static void test_cloud(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster_spec s = spec();
	struct cluster cl;

	(void)state;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_int_equal(cl.gpus_per_node, 4);
	assert_rel(cl.intra_bw_bytes_per_s, 31.5e9, 0.0);
	assert_false(cl.nvlink_sharp);
	assert_rel(cl.inter_bw_bytes_per_s, 1.25e9, 0.0);
	assert_rel(cl.pue, 1.38, 0.0);
	assert_rel(cl.price_usd_per_kwh, 0.1175, 0.0);
	assert_rel(cl.host_overhead, 0.27, 0.0);
	/* the catalog's price on the catalog's basis; a capex is unused */
	assert_rel(cl.price_usd_per_gpu_hour, 0.537, 0.0);
	assert_int_equal(cl.price_source, PRICE_CATALOG);
	assert_string_equal(cl.price_basis, "cloud-on-demand-2026-05");
	s.capex_usd_per_gpu = 99999.0;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_rel(cl.price_usd_per_gpu_hour, 0.537, 0.0);

	/* workload values win over the row's */
	s.gpus_per_node = 2;
	s.intra_bw_bytes_per_s = 12.3e9;
	s.inter_bw_bytes_per_s = 45.6e9;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_int_equal(cl.gpus_per_node, 2);
	assert_rel(cl.intra_bw_bytes_per_s, 12.3e9, 0.0);
	assert_rel(cl.inter_bw_bytes_per_s, 45.6e9, 0.0);

	/* NVLink SHARP: the row's unless the workload says (NCCL's
	   NCCL_NVLS_ENABLE) */
	g.nvlink_sharp = true;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cl.nvlink_sharp);
	s.nvlink_sharp = 0;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_false(cl.nvlink_sharp);
	g.nvlink_sharp = false;
	s.nvlink_sharp = 1;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cl.nvlink_sharp);

	/* a mesh node likewise */
	assert_false(cl.intra_mesh);
	g.intra_mesh = true;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cl.intra_mesh);
	s.intra_mesh = 0;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_false(cl.intra_mesh);
	g.intra_mesh = false;
	s.intra_mesh = 1;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cl.intra_mesh);
}

/* price_per_gpu_hour given: it wins over the catalog and over owned. */
static void test_workload_price(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster_spec s = spec();
	struct cluster cl;

	(void)state;
	s.price_usd_per_gpu_hour = 1.873;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_rel(cl.price_usd_per_gpu_hour, 1.873, 0.0);
	assert_int_equal(cl.price_source, PRICE_WORKLOAD);
	assert_string_equal(cl.price_basis, "workload");

	s.pricing = PRICING_OWNED;
	s.capex_usd_per_gpu = 31415.9;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_rel(cl.price_usd_per_gpu_hour, 1.873, 0.0);
	assert_string_equal(cl.price_basis, "workload");
	/* and needs no capex then */
	g.capex_usd_per_gpu = 0.0;
	s.capex_usd_per_gpu = 0.0;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_rel(cl.price_usd_per_gpu_hour, 1.873, 0.0);
}

/*
 * Owned, the catalog's capex: $2,385.25 over 3.5 years, 712.5 W, hosts
 * +27%, PUE 1.38, $0.1175/kWh, $97.3/kW-month.  By hand (40-digit
 * decimals): IT kW 0.7125 x 1.27 = 0.904875; capex 2385.25 / (3.5 x 8766)
 * = 0.077743554642938627; power 0.904875 x 1.38 x 0.1175 =
 * 0.14672548125; hosting 0.904875 x 97.3 / 730.5 = 0.12052612936344969;
 * sum 0.34499516525638832.
 */
static void test_owned(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster_spec s = spec();
	struct cluster cl;

	(void)state;
	s.pricing = PRICING_OWNED;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_rel(cl.price_usd_per_gpu_hour, 0.34499516525638832, 1e-14);
	assert_int_equal(cl.price_source, PRICE_OWNED);
	assert_string_equal(cl.price_basis, "owned");

	/* the workload's capex wins: $31,415.9 adds (31415.9 - 2385.25) /
	   (3.5 x 8766) = 0.94623074446... to the hour */
	s.capex_usd_per_gpu = 31415.9;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_rel(cl.price_usd_per_gpu_hour,
		   0.34499516525638832 + (31415.9 - 2385.25) / 30681.0,
		   1e-14);
}

static void test_owned_no_capex(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster_spec s = spec();
	struct cluster cl;
	struct diag d;

	(void)state;
	g.capex_usd_per_gpu = 0.0;
	s.pricing = PRICING_OWNED;
	diag_clear(&d);
	assert_int_equal(cluster_resolve(&s, &g, &cl, &d), -1);
	assert_string_equal(d.msg,
			    "'cluster.pricing' is owned but the catalog gives "
			    "'Card-X' no capex_usd_per_gpu: set "
			    "'cluster.capex_per_gpu' (the purchase price of "
			    "one GPU with its share of server and network)");
	/* the node is filled all the same */
	assert_int_equal(cl.gpus_per_node, 4);
	assert_rel(cl.inter_bw_bytes_per_s, 1.25e9, 0.0);
	/* NULL: no message */
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), -1);
}

static void test_price_covers(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster_spec s = spec();
	struct cluster cl;

	(void)state;
	/* a catalog price covers what its basis rents */
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cluster_price_covers(&cl, &g, 1));
	assert_true(cluster_price_covers(&cl, &g, 8));
	assert_false(cluster_price_covers(&cl, &g, 16));
	g.rent_max_gpus = 0;
	assert_true(cluster_price_covers(&cl, &g, 1 << 24));
	g.rent_max_gpus = 8;
	/* the workload's price and an owned one cover any count */
	s.price_usd_per_gpu_hour = 2.5;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cluster_price_covers(&cl, &g, 4096));
	s.price_usd_per_gpu_hour = 0.0;
	s.pricing = PRICING_OWNED;
	assert_int_equal(cluster_resolve(&s, &g, &cl, NULL), 0);
	assert_true(cluster_price_covers(&cl, &g, 4096));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cloud),
		cmocka_unit_test(test_workload_price),
		cmocka_unit_test(test_owned),
		cmocka_unit_test(test_owned_no_capex),
		cmocka_unit_test(test_price_covers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
