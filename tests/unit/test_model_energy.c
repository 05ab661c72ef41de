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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_linear),
		cmocka_unit_test(test_power_clamped),
		cmocka_unit_test(test_run_cost),
		cmocka_unit_test(test_run_cost_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
