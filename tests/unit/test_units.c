/* test_units.c - units_parse / units_format (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

struct parse_case {
	const char *text;
	enum unit_kind kind;
	double want;
};

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static void check_cases(const struct parse_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v = -1.0;
		const char *why = NULL;
		int rc = units_parse(cases[i].text, cases[i].kind, &v, &why);

		if (rc != 0) {
			print_error("'%s': %s\n", cases[i].text,
				    why ? why : "(null)");
			fail();
		}
		assert_null(why);
		if (!(fabs(v - cases[i].want) <=
		      1e-15 * fabs(cases[i].want))) {
			print_error("'%s': got %.17g, want %.17g\n",
				    cases[i].text, v, cases[i].want);
			fail();
		}
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_bytes(void **state)
{
	static const struct parse_case cases[] = {
		{ "2.385", UNIT_BYTES, 2.385 },
		{ "2.385B", UNIT_BYTES, 2.385 },
		{ "2.385kB", UNIT_BYTES, 2.385e3 },
		{ "2.385KB", UNIT_BYTES, 2.385e3 },
		{ "2.385MB", UNIT_BYTES, 2.385e6 },
		{ "2.385GB", UNIT_BYTES, 2.385e9 },
		{ "2.385TB", UNIT_BYTES, 2.385e12 },
		{ "2.385PB", UNIT_BYTES, 2.385e15 },
		{ "2.385KiB", UNIT_BYTES, 2.385 * 1024.0 },
		{ "2.385MiB", UNIT_BYTES, 2.385 * 1048576.0 },
		{ "2.385GiB", UNIT_BYTES, 2.385 * 1073741824.0 },
		{ "2.385TiB", UNIT_BYTES, 2.385 * 1099511627776.0 },
		{ "2.385PiB", UNIT_BYTES, 2.385 * 1125899906842624.0 },
		{ "80GB", UNIT_BYTES, 80e9 },
		{ "0", UNIT_BYTES, 0.0 },
		{ "0GB", UNIT_BYTES, 0.0 },
		{ ".5GB", UNIT_BYTES, 0.5e9 },
		{ "+7.25GB", UNIT_BYTES, 7.25e9 },
		{ "1e3MB", UNIT_BYTES, 1e9 },
		{ "1.5E-3TB", UNIT_BYTES, 1.5e9 },
	};

	(void)state;
	check_cases(cases, N(cases));
}

static void test_bandwidth(void **state)
{
	static const struct parse_case cases[] = {
		{ "3.117", UNIT_BANDWIDTH, 3.117 },
		{ "3.117B/s", UNIT_BANDWIDTH, 3.117 },
		{ "3.117kB/s", UNIT_BANDWIDTH, 3.117e3 },
		{ "3.117KB/s", UNIT_BANDWIDTH, 3.117e3 },
		{ "3.117MB/s", UNIT_BANDWIDTH, 3.117e6 },
		{ "3.117GB/s", UNIT_BANDWIDTH, 3.117e9 },
		{ "2.385TB/s", UNIT_BANDWIDTH, 2.385e12 },
		{ "3.117PB/s", UNIT_BANDWIDTH, 3.117e15 },
		{ "3.117KiB/s", UNIT_BANDWIDTH, 3.117 * 1024.0 },
		{ "3.117MiB/s", UNIT_BANDWIDTH, 3.117 * 1048576.0 },
		{ "3.117GiB/s", UNIT_BANDWIDTH, 3.117 * 1073741824.0 },
		{ "3.117TiB/s", UNIT_BANDWIDTH, 3.117 * 1099511627776.0 },
		/* bit rates are divided by 8 */
		{ "3.117b/s", UNIT_BANDWIDTH, 3.117 / 8.0 },
		{ "3.117kb/s", UNIT_BANDWIDTH, 3.117e3 / 8.0 },
		{ "3.117Mb/s", UNIT_BANDWIDTH, 3.117e6 / 8.0 },
		{ "3.117Gb/s", UNIT_BANDWIDTH, 3.117e9 / 8.0 },
		{ "3.117Tb/s", UNIT_BANDWIDTH, 3.117e12 / 8.0 },
		{ "3.117Mbps", UNIT_BANDWIDTH, 3.117e6 / 8.0 },
		{ "3.117Gbps", UNIT_BANDWIDTH, 3.117e9 / 8.0 },
		{ "3.117Tbps", UNIT_BANDWIDTH, 3.117e12 / 8.0 },
		{ "400Gb/s", UNIT_BANDWIDTH, 50e9 },
	};

	(void)state;
	check_cases(cases, N(cases));
}

static void test_flops(void **state)
{
	static const struct parse_case cases[] = {
		{ "989.4", UNIT_FLOPS, 989.4 },
		{ "989.4FLOPS", UNIT_FLOPS, 989.4 },
		{ "989.4kFLOPS", UNIT_FLOPS, 989.4e3 },
		{ "989.4MFLOPS", UNIT_FLOPS, 989.4e6 },
		{ "989.4GFLOPS", UNIT_FLOPS, 989.4e9 },
		{ "989.4TFLOPS", UNIT_FLOPS, 989.4e12 },
		{ "1.979PFLOPS", UNIT_FLOPS, 1.979e15 },
		{ "989.4FLOP/s", UNIT_FLOPS, 989.4 },
		{ "989.4kFLOP/s", UNIT_FLOPS, 989.4e3 },
		{ "989.4MFLOP/s", UNIT_FLOPS, 989.4e6 },
		{ "989.4GFLOP/s", UNIT_FLOPS, 989.4e9 },
		{ "989.4TFLOP/s", UNIT_FLOPS, 989.4e12 },
		{ "1.979PFLOP/s", UNIT_FLOPS, 1.979e15 },
		{ "1978.9OPS", UNIT_FLOPS, 1978.9 },
		{ "1978.9kOPS", UNIT_FLOPS, 1978.9e3 },
		{ "1978.9MOPS", UNIT_FLOPS, 1978.9e6 },
		{ "1978.9GOPS", UNIT_FLOPS, 1978.9e9 },
		{ "1978.9TOPS", UNIT_FLOPS, 1978.9e12 },
		{ "3.958POPS", UNIT_FLOPS, 3.958e15 },
	};

	(void)state;
	check_cases(cases, N(cases));
}

static void test_power_time_energy(void **state)
{
	static const struct parse_case cases[] = {
		{ "712.5", UNIT_POWER, 712.5 },
		{ "712.5W", UNIT_POWER, 712.5 },
		{ "10.2kW", UNIT_POWER, 10.2e3 },
		{ "31.7MW", UNIT_POWER, 31.7e6 },
		{ "2.385", UNIT_TIME, 2.385 },
		{ "2.385s", UNIT_TIME, 2.385 },
		{ "2.385ms", UNIT_TIME, 2.385e-3 },
		{ "2.385us", UNIT_TIME, 2.385e-6 },
		{ "2.385ns", UNIT_TIME, 2.385e-9 },
		{ "2.385min", UNIT_TIME, 2.385 * 60.0 },
		{ "2.385h", UNIT_TIME, 2.385 * 3600.0 },
		{ "2.385d", UNIT_TIME, 2.385 * 86400.0 },
		{ "2.385w", UNIT_TIME, 2.385 * 7.0 * 86400.0 },
		{ "2.385y", UNIT_TIME, 2.385 * 365.0 * 86400.0 },
		{ "30d", UNIT_TIME, 30.0 * 86400.0 },
		{ "4.17", UNIT_ENERGY, 4.17 },
		{ "4.17J", UNIT_ENERGY, 4.17 },
		{ "4.17kJ", UNIT_ENERGY, 4.17e3 },
		{ "4.17MJ", UNIT_ENERGY, 4.17e6 },
		{ "4.17GJ", UNIT_ENERGY, 4.17e9 },
		{ "4.17Wh", UNIT_ENERGY, 4.17 * 3600.0 },
		{ "4.17kWh", UNIT_ENERGY, 4.17 * 3600e3 },
		{ "4.17MWh", UNIT_ENERGY, 4.17 * 3600e6 },
		{ "4.17GWh", UNIT_ENERGY, 4.17 * 3600e9 },
	};

	(void)state;
	check_cases(cases, N(cases));
}

static void test_count_money(void **state)
{
	static const struct parse_case cases[] = {
		{ "70.6", UNIT_COUNT, 70.6 },
		{ "70.6K", UNIT_COUNT, 70.6e3 },
		{ "70.6k", UNIT_COUNT, 70.6e3 },
		{ "70.6M", UNIT_COUNT, 70.6e6 },
		{ "70.6B", UNIT_COUNT, 70.6e9 },
		{ "70.6G", UNIT_COUNT, 70.6e9 },
		{ "15.3T", UNIT_COUNT, 15.3e12 },
		{ "2.49", UNIT_MONEY, 2.49 },
		{ "$2.49", UNIT_MONEY, 2.49 },
		{ "$ 2.49", UNIT_MONEY, 2.49 },
		{ "$2.49K", UNIT_MONEY, 2.49e3 },
		{ "2.49k", UNIT_MONEY, 2.49e3 },
		{ "$2.49M", UNIT_MONEY, 2.49e6 },
		{ "2.49m", UNIT_MONEY, 2.49e6 },
		{ "$2.49B", UNIT_MONEY, 2.49e9 },
	};

	(void)state;
	check_cases(cases, N(cases));
}

static void test_blanks(void **state)
{
	static const struct parse_case cases[] = {
		{ "  80GB", UNIT_BYTES, 80e9 },
		{ "80GB  ", UNIT_BYTES, 80e9 },
		{ "\t80 GB\t", UNIT_BYTES, 80e9 },
		{ " 3.35 \t TB/s ", UNIT_BANDWIDTH, 3.35e12 },
		{ " 42 ", UNIT_COUNT, 42.0 },
	};

	(void)state;
	check_cases(cases, N(cases));
}

static void test_rejections(void **state)
{
	static const struct {
		const char *text;
		enum unit_kind kind;
		const char *why; /* substring of the message */
	} cases[] = {
		{ "", UNIT_BYTES, "empty" },
		{ "   ", UNIT_BYTES, "empty" },
		{ "\t", UNIT_TIME, "empty" },
		{ "GB", UNIT_BYTES, "not a number" },
		{ "fast", UNIT_BANDWIDTH, "not a number" },
		{ "nan", UNIT_BYTES, "not a number" },
		{ "NaN", UNIT_COUNT, "not a number" },
		{ "inf", UNIT_BYTES, "not a number" },
		{ "infinity", UNIT_POWER, "not a number" },
		{ "+inf", UNIT_POWER, "not a number" },
		{ "-1GB", UNIT_BYTES, "negative" },
		{ "-0", UNIT_COUNT, "negative" },
		{ "-inf", UNIT_BYTES, "negative" },
		{ "$-5", UNIT_MONEY, "negative" },
		{ "80GBx", UNIT_BYTES, "unknown unit for a size" },
		{ "80 GB x", UNIT_BYTES, "trailing" },
		{ "80GB,", UNIT_BYTES, "unknown unit" },
		{ "80XB", UNIT_BYTES, "unknown unit for a size" },
		{ "80gb", UNIT_BYTES, "unknown unit" },
		{ "80Gb", UNIT_BYTES, "unknown unit" },
		{ "3TB", UNIT_BANDWIDTH, "unknown unit for a bandwidth" },
		{ "3gb/s", UNIT_BANDWIDTH, "unknown unit" },
		{ "3TFLOPS", UNIT_BYTES, "unknown unit" },
		{ "3tflops", UNIT_FLOPS, "unknown unit for a throughput" },
		{ "700w", UNIT_POWER, "unknown unit for a power" },
		{ "3sec", UNIT_TIME, "unknown unit for a duration" },
		{ "3m", UNIT_TIME, "unknown unit" },
		{ "3x", UNIT_COUNT, "unknown unit for a count" },
		{ "3kwh", UNIT_ENERGY, "unknown unit for a quantity" },
		{ "$3T", UNIT_MONEY, "unknown unit for a sum" },
		{ "$3$", UNIT_MONEY, "unknown unit" },
		{ "$", UNIT_MONEY, "not a number" },
		{ "$80", UNIT_BYTES, "not a number" },
		{ "0x10", UNIT_BYTES, "hexadecimal" },
		{ "0X1p4GB", UNIT_BYTES, "hexadecimal" },
		{ "+0x10", UNIT_COUNT, "hexadecimal" },
		{ "1e999", UNIT_BYTES, "out of range" },
		{ "1e-999", UNIT_BYTES, "out of range" },
		{ "1e308PB", UNIT_BYTES, "out of range" },
		{ "1.7e308y", UNIT_TIME, "out of range" },
		{ ".", UNIT_COUNT, "not a number" },
		{ "..5", UNIT_COUNT, "not a number" },
		{ "1..5", UNIT_COUNT, "unknown unit" },
		{ "1e", UNIT_COUNT, "unknown unit" },
		{ "5 5", UNIT_COUNT, "unknown unit" },
		{ "1,5GB", UNIT_BYTES, "unknown unit" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		double v = 123.0;
		const char *why = NULL;
		int rc = units_parse(cases[i].text, cases[i].kind, &v, &why);

		if (rc != -1 || !why || !strstr(why, cases[i].why)) {
			print_error("'%s': rc %d, why '%s', want '%s'\n",
				    cases[i].text, rc, why ? why : "(null)",
				    cases[i].why);
			fail();
		}
		/* out is untouched on error */
		assert_true(v == 123.0);
	}
	/* NULL text and 'why' may be NULL */
	{
		double v = 1.0;

		assert_int_equal(units_parse(NULL, UNIT_BYTES, &v, NULL), -1);
		assert_int_equal(units_parse("x", UNIT_BYTES, &v, NULL), -1);
		assert_int_equal(units_parse("1", UNIT_KIND_COUNT, &v, NULL),
				 -1);
	}
}

static void check_format(double v, enum unit_kind kind, int sig,
			 const char *want)
{
	char buf[64];
	int n = units_format(buf, sizeof(buf), v, kind, sig);

	if (strcmp(buf, want) != 0) {
		print_error("%.17g: got '%s', want '%s'\n", v, buf, want);
		fail();
	}
	assert_int_equal(n, (int)strlen(want));
}

static void test_format(void **state)
{
	(void)state;
	check_format(2.04e12, UNIT_BANDWIDTH, 3, "2.04TB/s");
	check_format(80e9, UNIT_BYTES, 3, "80GB");
	check_format(999.5e6, UNIT_BYTES, 4, "999.5MB");
	check_format(2.385 * 1073741824.0, UNIT_BYTES, 4, "2.561GB");
	check_format(512.0, UNIT_BYTES, 3, "512B");
	check_format(0.0, UNIT_BYTES, 3, "0B");
	check_format(1500.0, UNIT_BYTES, 3, "1.5kB");
	check_format(3.2e18, UNIT_BYTES, 3, "3200PB");
	/* more integer digits than significant ones: whole, rounded */
	check_format(940e3, UNIT_MONEY, 2, "$940K");
	check_format(1.5e20, UNIT_BYTES, 2, "150000PB");
	check_format(700.0, UNIT_POWER, 3, "700W");
	check_format(10.2e3, UNIT_POWER, 3, "10.2kW");
	check_format(31.7e6, UNIT_POWER, 3, "31.7MW");
	check_format(989.4e12, UNIT_FLOPS, 4, "989.4TFLOPS");
	check_format(1.979e15, UNIT_FLOPS, 4, "1.979PFLOPS");
	check_format(5400.0, UNIT_TIME, 3, "1.5h");
	check_format(90.0, UNIT_TIME, 3, "1.5min");
	check_format(30.0, UNIT_TIME, 3, "30s");
	check_format(0.5, UNIT_TIME, 3, "500ms");
	check_format(2.385e-4, UNIT_TIME, 4, "238.5us");
	check_format(2.5e-9, UNIT_TIME, 3, "0.0025us");
	check_format(0.0, UNIT_TIME, 3, "0s");
	check_format(30.0 * 86400.0, UNIT_TIME, 3, "30d");
	check_format(15e12, UNIT_COUNT, 3, "15T");
	check_format(70.6e9, UNIT_COUNT, 3, "70.6B");
	check_format(42.0, UNIT_COUNT, 3, "42");
	check_format(2.5e6, UNIT_MONEY, 3, "$2.5M");
	check_format(2.49, UNIT_MONEY, 3, "$2.49");
	check_format(-2.5e6, UNIT_MONEY, 3, "-$2.5M");
	check_format(-80e9, UNIT_BYTES, 3, "-80GB");
	check_format(3.6e9, UNIT_ENERGY, 3, "3.6GJ");
	/* rounding carries into the next prefix */
	check_format(999.9996e9, UNIT_BYTES, 3, "1TB");
	check_format(999.96e-3, UNIT_TIME, 3, "1s");
	check_format(59.9999, UNIT_TIME, 3, "1min");
	check_format(3599.99, UNIT_TIME, 3, "1h");
	check_format(86399.0, UNIT_TIME, 3, "1d");
	check_format(999999.0, UNIT_BYTES, 15, "999.999kB");
	/* sig is clamped to 1..17 */
	check_format(2.385e9, UNIT_BYTES, 0, "2GB");
	check_format(2.385e9, UNIT_BYTES, 99, "2.3849999999999998GB");
	check_format(2.385e12, UNIT_BANDWIDTH, 15, "2.385TB/s");
}

static void test_format_exact(void **state)
{
	char buf[64];

	(void)state;
	units_format_exact(buf, sizeof(buf), 2.385e12, UNIT_BANDWIDTH);
	assert_string_equal(buf, "2.385TB/s");
	units_format_exact(buf, sizeof(buf), 1.0 / 3.0 * 1e9, UNIT_BYTES);
	assert_string_equal(buf, "333.333333333333MB");
	units_format_exact(buf, sizeof(buf), 0.1 + 0.2, UNIT_TIME);
	assert_string_equal(buf, "300ms");
	/* binary sizes keep their unit; round decimal ones stay decimal */
	units_format_exact(buf, sizeof(buf), 81559.0 * 1048576.0, UNIT_BYTES);
	assert_string_equal(buf, "81559MiB");
	units_format_exact(buf, sizeof(buf), 80.0 * 1073741824.0, UNIT_BYTES);
	assert_string_equal(buf, "80GiB");
	units_format_exact(buf, sizeof(buf), 80e9, UNIT_BYTES);
	assert_string_equal(buf, "80GB");
	units_format_exact(buf, sizeof(buf), 4096e6, UNIT_BYTES);
	assert_string_equal(buf, "4.096GB");
	/* the largest double reads back in every kind: 15 digits would
	   round it beyond the range (a fuzz finding), so 17 digits, or the
	   base unit where the unit's factor rounds the product over */
	for (int k = 0; k < UNIT_KIND_COUNT; k++) {
		double back;

		units_format_exact(buf, sizeof(buf), DBL_MAX,
				   (enum unit_kind)k);
		assert_int_equal(units_parse(buf, (enum unit_kind)k, &back,
					     NULL),
				 0);
		assert_true(back == DBL_MAX);
	}
	units_format_exact(buf, sizeof(buf), DBL_MAX, UNIT_BYTES);
	assert_string_equal(buf, "1.7976931348623157e+293PB");
	units_format_exact(buf, sizeof(buf), DBL_MAX, UNIT_POWER);
	assert_string_equal(buf, "1.7976931348623157e+308W");
}

static void test_nonfinite_format(void **state)
{
	char buf[32];

	(void)state;
	units_format(buf, sizeof(buf), INFINITY, UNIT_BYTES, 3);
	assert_string_equal(buf, "inf");
	units_format(buf, sizeof(buf), NAN, UNIT_TIME, 3);
	assert_non_null(strstr(buf, "nan"));
}

static void test_round_trip(void **state)
{
	static const enum unit_kind kinds[] = {
		UNIT_BYTES, UNIT_BANDWIDTH, UNIT_FLOPS, UNIT_POWER,
		UNIT_TIME,  UNIT_COUNT,     UNIT_ENERGY, UNIT_MONEY,
		UNIT_ENERGY_KWH,
	};
	int n = 0;

	(void)state;
	for (size_t k = 0; k < N(kinds); k++) {
		/* 1e-9 .. 1e18 in unround steps, plus edges of prefixes */
		for (double v = 1e-9; v <= 1e18; v *= 1.0373) {
			const double edges[] = { v, nextafter(v, 0.0),
						 v * 0.99999999999999 };

			for (size_t e = 0; e < N(edges); e++) {
				char buf[64];
				double back = -1.0;
				const char *why = NULL;
				int len = units_format_exact(buf, sizeof(buf),
							     edges[e],
							     kinds[k]);

				assert_true(len > 0 && len < (int)sizeof(buf));
				assert_null(strchr(buf, ' '));
				if (units_parse(buf, kinds[k], &back, &why)) {
					print_error("'%s': %s\n", buf, why);
					fail();
				}
				assert_rel(back, edges[e], 1e-14);

				units_format(buf, sizeof(buf), edges[e],
					     kinds[k], 3);
				assert_int_equal(
					units_parse(buf, kinds[k], &back, &why),
					0);
				assert_rel(back, edges[e], 5e-3);
				n++;
			}
		}
		/* decades round trip exactly where prefixes are decimal */
		for (int p = -9; p <= 18; p++) {
			char buf[64];
			double v = pow(10.0, p);
			double back = -1.0;

			units_format_exact(buf, sizeof(buf), v, kinds[k]);
			assert_int_equal(
				units_parse(buf, kinds[k], &back, NULL), 0);
			assert_rel(back, v,
				   kinds[k] == UNIT_TIME ? 1e-14 : 1e-15);
		}
	}
	assert_true(n > 1000);
}

static void test_tiny_buffers(void **state)
{
	char buf[8];
	int n;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	n = units_format(buf, 1, 2.385e12, UNIT_BANDWIDTH, 4);
	assert_int_equal(n, (int)strlen("2.385TB/s"));
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'x');

	memset(buf, 'x', sizeof(buf));
	n = units_format(buf, 4, 2.385e12, UNIT_BANDWIDTH, 4);
	assert_int_equal(n, 9);
	assert_string_equal(buf, "2.3");
	assert_int_equal(buf[4], 'x');

	memset(buf, 'x', sizeof(buf));
	n = units_format_exact(buf, sizeof(buf), 2.385e12, UNIT_BANDWIDTH);
	assert_int_equal(n, 9);
	assert_string_equal(buf, "2.385TB");

	/* size 0 writes nothing, NULL is allowed with size 0 */
	memset(buf, 'x', sizeof(buf));
	n = units_format(buf, 0, 80e9, UNIT_BYTES, 3);
	assert_int_equal(n, 4);
	assert_int_equal(buf[0], 'x');
	n = units_format(NULL, 0, 80e9, UNIT_BYTES, 3);
	assert_int_equal(n, 4);

	memset(buf, 'x', sizeof(buf));
	n = units_format(buf, 2, 2.5e6, UNIT_MONEY, 3);
	assert_int_equal(n, 5);
	assert_string_equal(buf, "$");
}

/* Decimal prefixes round once: the value is the double nearest the
   decimal number, as written with its exponent (no x 1e12 error). */
static void test_decimal_exact(void **state)
{
	static const struct {
		const char *text;
		enum unit_kind kind;
		double want;
	} cases[] = {
		{ "2.039TB/s", UNIT_BANDWIDTH, 2.039e12 },
		{ "3.35TB/s", UNIT_BANDWIDTH, 3.35e12 },
		{ "989.4TFLOPS", UNIT_FLOPS, 989.4e12 },
		{ "145ms", UNIT_TIME, 0.145 },
		{ "0.3us", UNIT_TIME, 0.3e-6 },
		{ "1.1kW", UNIT_POWER, 1.1e3 },
		{ "2.039e0TB/s", UNIT_BANDWIDTH, 2.039e12 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		double v = -1.0;

		assert_int_equal(units_parse(cases[i].text, cases[i].kind, &v,
					     NULL),
				 0);
		/* the exponent form may be off by an ulp: only exact ones */
		if (strchr(cases[i].text, 'e'))
			assert_true(fabs(v - cases[i].want) <=
				    1e-15 * cases[i].want);
		else if (v != cases[i].want) {
			print_error("'%s': got %.17g, want %.17g\n",
				    cases[i].text, v, cases[i].want);
			fail();
		}
	}
}

/* Bare numbers against numbers with their unit (size --deadline etc.). */
static void test_has_unit(void **state)
{
	static const struct {
		const char *text;
		enum unit_kind kind;
		bool named;
	} cases[] = {
		{ "90d", UNIT_TIME, true },
		{ " 36 h ", UNIT_TIME, true },
		{ "30min", UNIT_TIME, true },
		{ "2.385e1s", UNIT_TIME, true },
		{ "20MW", UNIT_POWER, true },
		{ "0.5kW", UNIT_POWER, true },
		{ "80GB", UNIT_BYTES, true },
		{ "3.35TB/s", UNIT_BANDWIDTH, true },
		{ "989TFLOPS", UNIT_FLOPS, true },
		{ "1.5MWh", UNIT_ENERGY, true },
		{ "15T", UNIT_COUNT, true },
		/* money: a '$', a multiplier or both */
		{ "$15", UNIT_MONEY, true },
		{ "$ 15", UNIT_MONEY, true },
		{ "2M", UNIT_MONEY, true },
		{ "15.5k", UNIT_MONEY, true },
		{ "$2.5M", UNIT_MONEY, true },
		{ "$1e9", UNIT_MONEY, true },
		/* bare numbers, an exponent is no unit */
		{ "90", UNIT_TIME, false },
		{ " 90 ", UNIT_TIME, false },
		{ "2.385", UNIT_TIME, false },
		{ "0", UNIT_POWER, false },
		{ "100", UNIT_POWER, false },
		{ "15", UNIT_MONEY, false },
		{ "1e9", UNIT_MONEY, false },
		{ "80", UNIT_BYTES, false },
		{ "42", UNIT_COUNT, false },
		/* not a quantity at all */
		{ "soon", UNIT_TIME, false },
		{ "90x", UNIT_TIME, false },
		{ "90 d x", UNIT_TIME, false },
		{ "-5d", UNIT_TIME, false },
		{ "$", UNIT_MONEY, false },
		{ "$-2M", UNIT_MONEY, false },
		{ "2M", UNIT_TIME, false },
		{ "", UNIT_POWER, false },
		{ "1e999s", UNIT_TIME, false },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		double v;
		bool got = units_has_unit(cases[i].text, cases[i].kind);

		if (got != cases[i].named) {
			print_error("'%s' (%s): %d, want %d\n", cases[i].text,
				    units_kind_name(cases[i].kind), got,
				    cases[i].named);
			fail();
		}
		/* a quantity with its unit is one units_parse reads */
		if (got)
			assert_int_equal(units_parse(cases[i].text,
						     cases[i].kind, &v, NULL),
					 0);
	}
	assert_false(units_has_unit(NULL, UNIT_TIME));
	assert_false(units_has_unit("5s", UNIT_KIND_COUNT));
}

static void check_text(const char *got, const char *want, double v)
{
	if (strcmp(got, want) != 0) {
		print_error("%.17g: got '%s', want '%s'\n", v, got, want);
		fail();
	}
}

static void check_plain(double v, enum unit_kind kind, int sig,
			const char *want)
{
	char buf[64];

	units_format_plain(buf, sizeof(buf), v, kind, sig);
	check_text(buf, want, v);
}

static void check_table_number(double v, int sig, const char *want)
{
	char buf[64];

	units_table_number(buf, sizeof(buf), v, sig);
	check_text(buf, want, v);
}

/* Numbers for people: no exponent, except below 0.001 of the kind's
   smallest unit, three digits and a short exponent (specs/output.md,
   "table"). */
static void test_table_numbers(void **state)
{
	char buf[64];

	(void)state;
	units_scientific(buf, sizeof(buf), 6.1173e-5, 3, false);
	check_text(buf, "6.12e-5", 6.1173e-5);
	units_scientific(buf, sizeof(buf), 1e-5, 3, false);
	check_text(buf, "1e-5", 1e-5);
	units_scientific(buf, sizeof(buf), 1e-5, 3, true);
	check_text(buf, "1.00e-5", 1e-5);
	units_scientific(buf, sizeof(buf), -1.1e-7, 3, false);
	check_text(buf, "-1.1e-7", -1.1e-7);
	units_scientific(buf, sizeof(buf), 2.5e20, 2, false);
	check_text(buf, "2.5e20", 2.5e20);
	units_scientific(buf, sizeof(buf), 0.0, 3, false);
	check_text(buf, "0", 0.0);

	/* money, counts and quantities below 0.001 of the smallest unit */
	check_plain(6.1173e-5, UNIT_MONEY, 4, "$6.12e-5");
	check_plain(-6.1173e-5, UNIT_MONEY, 4, "-$6.12e-5");
	check_plain(3.791e-5, UNIT_MONEY, 4, "$3.79e-5");
	check_plain(2.1435e-5, UNIT_COUNT, 4, "2.14e-5");
	check_plain(7.9725e-5, UNIT_ENERGY, 4, "7.97e-5J");
	check_plain(2.385e-13, UNIT_TIME, 4, "2.39e-7us");
	check_plain(5e-4, UNIT_COUNT, 4, "5e-4");
	/* at or above 0.001: as before, without an exponent */
	check_plain(0.0421, UNIT_MONEY, 4, "$0.0421");
	check_plain(0.001, UNIT_COUNT, 4, "0.001");
	check_plain(0.00099996, UNIT_COUNT, 4, "0.001");
	check_plain(2.5e-9, UNIT_TIME, 3, "0.0025us");
	check_plain(2.385e-4, UNIT_TIME, 4, "238.5us");
	check_plain(37910.0, UNIT_MONEY, 4, "$37.91K");
	check_plain(0.0, UNIT_MONEY, 4, "$0");
	check_plain(1.5e20, UNIT_BYTES, 2, "150000PB");
	check_plain(2.5e22, UNIT_BYTES, 2, "25000000PB");

	/* a number without a unit */
	check_table_number(1.0617e-5, 4, "1.06e-5");
	check_table_number(-1.0617e-5, 4, "-1.06e-5");
	check_table_number(0.0421, 4, "0.0421");
	check_table_number(0.00099996, 4, "0.001");
	check_table_number(0.00099996, 5, "1e-3");
	check_table_number(12000000.0, 4, "12000000");
	check_table_number(0.0, 4, "0");
}

/* An energy counted in kWh (the machine fields named _kwh): in kWh,
   MWh, GWh, TWh, and not joules. */
static void test_energy_kwh(void **state)
{
	static const struct parse_case ok[] = {
		{ "300kWh", UNIT_ENERGY_KWH, 300.0 },
		{ "1.5MWh", UNIT_ENERGY_KWH, 1500.0 },
		{ "2.385GWh", UNIT_ENERGY_KWH, 2.385e6 },
		{ "1TWh", UNIT_ENERGY_KWH, 1e9 },
		{ "500Wh", UNIT_ENERGY_KWH, 0.5 },
		{ "42", UNIT_ENERGY_KWH, 42.0 },
	};
	double v;

	(void)state;
	check_cases(ok, N(ok));
	assert_int_equal(units_parse("3J", UNIT_ENERGY_KWH, &v, NULL), -1);
	assert_int_equal(units_parse("3kWh", UNIT_ENERGY, &v, NULL), 0);
	assert_rel(v, 1.08e7, 1e-15);
	check_format(458612.0, UNIT_ENERGY_KWH, 4, "458.6MWh");
	check_format(487.7, UNIT_ENERGY_KWH, 4, "487.7kWh");
	check_format(1.25e7, UNIT_ENERGY_KWH, 3, "12.5GWh");
	check_plain(3.2e-5, UNIT_ENERGY_KWH, 4, "3.2e-5kWh");
	assert_true(units_has_unit("2GWh", UNIT_ENERGY_KWH));
	assert_false(units_has_unit("2", UNIT_ENERGY_KWH));
}

static void test_names_examples(void **state)
{
	(void)state;
	for (int k = 0; k < UNIT_KIND_COUNT; k++) {
		double v = 0.0;
		const char *name = units_kind_name((enum unit_kind)k);
		const char *ex = units_example((enum unit_kind)k);

		assert_non_null(name);
		assert_true(name[0] >= 'a' && name[0] <= 'z');
		assert_int_equal(units_parse(ex, (enum unit_kind)k, &v, NULL),
				 0);
		assert_true(v > 0.0);
	}
	assert_string_equal(units_kind_name(UNIT_BYTES), "size");
	assert_string_equal(units_kind_name(UNIT_BANDWIDTH), "bandwidth");
	assert_string_equal(units_example(UNIT_BANDWIDTH), "3.35TB/s");
	assert_string_equal(units_example(UNIT_BYTES), "80GB");
	assert_non_null(units_kind_name(UNIT_KIND_COUNT));
	assert_non_null(units_example(UNIT_KIND_COUNT));
	/* the examples with a unit: three quoted values that name it */
	for (int k = 0; k < UNIT_KIND_COUNT; k++) {
		const char *p = units_examples((enum unit_kind)k);
		int n = 0;

		while ((p = strchr(p, '\'')) != NULL) {
			char ex[32];
			const char *end = strchr(p + 1, '\'');

			assert_non_null(end);
			assert_true((size_t)(end - p) < sizeof(ex));
			memcpy(ex, p + 1, (size_t)(end - p - 1));
			ex[end - p - 1] = '\0';
			if (!units_has_unit(ex, (enum unit_kind)k))
				fail_msg("example '%s' of a %s has no unit", ex,
					 units_kind_name((enum unit_kind)k));
			n++;
			p = end + 1;
		}
		assert_int_equal(n, 3);
	}
	assert_string_equal(units_examples(UNIT_TIME),
			    "'90d', '36h' or '30min'");
	assert_non_null(units_examples(UNIT_KIND_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_flops),
		cmocka_unit_test(test_power_time_energy),
		cmocka_unit_test(test_count_money),
		cmocka_unit_test(test_blanks),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_exact),
		cmocka_unit_test(test_nonfinite_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_tiny_buffers),
		cmocka_unit_test(test_decimal_exact),
		cmocka_unit_test(test_has_unit),
		cmocka_unit_test(test_names_examples),
		cmocka_unit_test(test_table_numbers),
		cmocka_unit_test(test_energy_kwh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
