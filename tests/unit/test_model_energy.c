/* test_model_energy.c - power, energy and cost (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model_energy.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static struct gpu_spec gpu(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "A100-test");
	g.tdp_w = 400.0;
	g.idle_w = 50.0;
	return g;
}

static void test_power_linear(void **state)
{
	struct gpu_spec g = gpu();

	(void)state;
	assert_rel(gpu_power_w(&g, 0.0), 50.0, 0.0);
	assert_rel(gpu_power_w(&g, 1.0), 400.0, 1e-15);
	assert_rel(gpu_power_w(&g, 0.63), 270.5, 1e-14);
	assert_rel(gpu_power_w(&g, 0.371), 50.0 + 350.0 * 0.371, 1e-14);
	g.idle_w = 61.3;
	g.tdp_w = 697.1;
	assert_rel(gpu_power_w(&g, 0.2385),
		   61.3 + (697.1 - 61.3) * 0.2385, 1e-14);
}

static void test_power_clamped(void **state)
{
	struct gpu_spec g = gpu();

	(void)state;
	assert_rel(gpu_power_w(&g, -0.2), 50.0, 0.0);
	assert_rel(gpu_power_w(&g, 1.3), 400.0, 1e-15);
	assert_rel(gpu_power_w(&g, 1e9), 400.0, 1e-15);
}

/* 24 GPUs for 3.7e5 s at 63% busy, PUE 1.17, hosts +31%, $2.37/GPU-h,
   $0.083/kWh; references computed separately. */
static void test_run_cost(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster cl;
	struct run_cost rc;

	(void)state;
	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.pue = 1.17;
	cl.host_overhead = 0.31;
	cl.price_usd_per_gpu_hour = 2.37;
	cl.price_usd_per_kwh = 0.083;
	run_cost_eval(&g, &cl, 24, 3.7e5, 0.63, &rc);
	assert_rel(rc.time_s, 3.7e5, 0.0);
	assert_rel(rc.gpu_hours, 2466.6666666666665, 1e-14);
	assert_rel(rc.gpu_power_w, 270.5, 1e-14);
	assert_rel(rc.facility_power_w, 9950.2884, 1e-14);
	assert_rel(rc.energy_j, 3681606708.0, 1e-14);
	assert_rel(rc.energy_kwh, 1022.66853, 1e-14);
	assert_rel(rc.cost_usd, 5846.0, 1e-14);
	assert_rel(rc.energy_cost_usd, 84.88148799, 1e-14);
}

static void test_run_cost_free(void **state)
{
	struct gpu_spec g = gpu();
	struct cluster cl;
	struct run_cost rc;

	(void)state;
	memset(&cl, 0, sizeof(cl));
	cl.pue = 1.0;
	/* unknown prices cost nothing; PUE 1 and no hosts: GPU power only */
	run_cost_eval(&g, &cl, 3, 7200.0, 1.0, &rc);
	assert_rel(rc.gpu_hours, 6.0, 1e-15);
	assert_rel(rc.facility_power_w, 1200.0, 1e-15);
	assert_rel(rc.energy_kwh, 2.4, 1e-15);
	assert_rel(rc.cost_usd, 0.0, 0.0);
	assert_rel(rc.energy_cost_usd, 0.0, 0.0);
	/* no time: nothing used */
	run_cost_eval(&g, &cl, 3, 0.0, 1.0, &rc);
	assert_rel(rc.energy_j, 0.0, 0.0);
	assert_rel(rc.gpu_hours, 0.0, 0.0);
}

/* An owned GPU-hour: 697.1 W, hosts +31%, PUE 1.17, $0.083/kWh, $163.7
   per kW-month, $31,415.9 over 4.25 years.  References computed
   separately with 40-digit decimals: capex 31415.9 / (4.25 x 8766),
   IT kW 0.6971 x 1.31 = 0.913201, power 0.913201 x 1.17 x 0.083, hosting
   0.913201 x 163.7 / 730.5. */
static void test_owned_price(void **state)
{
	struct owned_price_in in = {
		.capex_usd = 31415.9,
		.amortization_years = 4.25,
		.tdp_w = 697.1,
		.host_overhead = 0.31,
		.pue = 1.17,
		.price_usd_per_kwh = 0.083,
		.hosting_usd_per_kw_month = 163.7,
	};
	struct owned_price out;

	(void)state;
	owned_price_eval(&in, &out);
	assert_rel(out.capex_usd_per_hour, 0.84325535826924884, 1e-14);
	assert_rel(out.power_usd_per_hour, 0.08868094911, 1e-14);
	assert_rel(out.hosting_usd_per_hour, 0.20464203107460643, 1e-14);
	assert_rel(out.total_usd_per_hour, 1.1365783384538553, 1e-14);

	/* the catalog's H100-SXM with the workload defaults: $50,000 over
	   5 years, 700 W, hosts +35%, PUE 1.2, $0.10/kWh, $184.06/kW-month */
	in = (struct owned_price_in){ 50000.0, 5.0, 700.0, 0.35, 1.2, 0.10,
				      184.06 };
	owned_price_eval(&in, &out);
	assert_rel(out.capex_usd_per_hour, 1.1407711613050422, 1e-14);
	assert_rel(out.power_usd_per_hour, 0.1134, 1e-14);
	assert_rel(out.hosting_usd_per_hour, 0.23810636550308008, 1e-14);
	assert_rel(out.total_usd_per_hour, 1.4922775268081223, 1e-14);

	/* free power and hosting: the capex alone, straight-line */
	in.price_usd_per_kwh = 0.0;
	in.hosting_usd_per_kw_month = 0.0;
	owned_price_eval(&in, &out);
	assert_rel(out.power_usd_per_hour, 0.0, 0.0);
	assert_rel(out.hosting_usd_per_hour, 0.0, 0.0);
	assert_rel(out.total_usd_per_hour, 50000.0 / 43830.0, 1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_linear),
		cmocka_unit_test(test_power_clamped),
		cmocka_unit_test(test_run_cost),
		cmocka_unit_test(test_run_cost_free),
		cmocka_unit_test(test_owned_price),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
