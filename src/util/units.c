/* units.c - physical quantities as text <-> SI doubles; see units.h. */
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One accepted unit.  'factor' converts one of it to the SI base unit of
 * its kind.  Units marked 'fmt' are the ones units_format chooses from;
 * within a kind they appear in increasing order of factor.
 */
struct unit {
	const char *suffix;
	enum unit_kind kind;
	double factor;
	bool fmt;
};

#define KI 1024.0
#define BITS (1.0 / 8.0) /* a bit is an eighth of a byte */

static const struct unit unit_table[] = {
	/* sizes: decimal and binary byte units */
	{ "", UNIT_BYTES, 1.0, false },
	{ "B", UNIT_BYTES, 1.0, true },
	{ "kB", UNIT_BYTES, 1e3, true },
	{ "KB", UNIT_BYTES, 1e3, false },
	{ "MB", UNIT_BYTES, 1e6, true },
	{ "GB", UNIT_BYTES, 1e9, true },
	{ "TB", UNIT_BYTES, 1e12, true },
	{ "PB", UNIT_BYTES, 1e15, true },
	{ "KiB", UNIT_BYTES, KI, false },
	{ "MiB", UNIT_BYTES, KI * KI, false },
	{ "GiB", UNIT_BYTES, KI * KI * KI, false },
	{ "TiB", UNIT_BYTES, KI * KI * KI * KI, false },
	{ "PiB", UNIT_BYTES, KI * KI * KI * KI * KI, false },

	/* bandwidth in bytes/s; bit rates are divided by 8 */
	{ "", UNIT_BANDWIDTH, 1.0, false },
	{ "B/s", UNIT_BANDWIDTH, 1.0, true },
	{ "kB/s", UNIT_BANDWIDTH, 1e3, true },
	{ "KB/s", UNIT_BANDWIDTH, 1e3, false },
	{ "MB/s", UNIT_BANDWIDTH, 1e6, true },
	{ "GB/s", UNIT_BANDWIDTH, 1e9, true },
	{ "TB/s", UNIT_BANDWIDTH, 1e12, true },
	{ "PB/s", UNIT_BANDWIDTH, 1e15, true },
	{ "KiB/s", UNIT_BANDWIDTH, KI, false },
	{ "MiB/s", UNIT_BANDWIDTH, KI * KI, false },
	{ "GiB/s", UNIT_BANDWIDTH, KI * KI * KI, false },
	{ "TiB/s", UNIT_BANDWIDTH, KI * KI * KI * KI, false },
	{ "b/s", UNIT_BANDWIDTH, BITS, false },
	{ "kb/s", UNIT_BANDWIDTH, 1e3 * BITS, false },
	{ "Mb/s", UNIT_BANDWIDTH, 1e6 * BITS, false },
	{ "Gb/s", UNIT_BANDWIDTH, 1e9 * BITS, false },
	{ "Tb/s", UNIT_BANDWIDTH, 1e12 * BITS, false },
	{ "Mbps", UNIT_BANDWIDTH, 1e6 * BITS, false },
	{ "Gbps", UNIT_BANDWIDTH, 1e9 * BITS, false },
	{ "Tbps", UNIT_BANDWIDTH, 1e12 * BITS, false },

	/* compute rate in FLOP/s; integer operations count the same */
	{ "", UNIT_FLOPS, 1.0, false },
	{ "FLOPS", UNIT_FLOPS, 1.0, true },
	{ "kFLOPS", UNIT_FLOPS, 1e3, true },
	{ "MFLOPS", UNIT_FLOPS, 1e6, true },
	{ "GFLOPS", UNIT_FLOPS, 1e9, true },
	{ "TFLOPS", UNIT_FLOPS, 1e12, true },
	{ "PFLOPS", UNIT_FLOPS, 1e15, true },
	{ "FLOP/s", UNIT_FLOPS, 1.0, false },
	{ "kFLOP/s", UNIT_FLOPS, 1e3, false },
	{ "MFLOP/s", UNIT_FLOPS, 1e6, false },
	{ "GFLOP/s", UNIT_FLOPS, 1e9, false },
	{ "TFLOP/s", UNIT_FLOPS, 1e12, false },
	{ "PFLOP/s", UNIT_FLOPS, 1e15, false },
	{ "OPS", UNIT_FLOPS, 1.0, false },
	{ "kOPS", UNIT_FLOPS, 1e3, false },
	{ "MOPS", UNIT_FLOPS, 1e6, false },
	{ "GOPS", UNIT_FLOPS, 1e9, false },
	{ "TOPS", UNIT_FLOPS, 1e12, false },
	{ "POPS", UNIT_FLOPS, 1e15, false },

	/* power in watts */
	{ "", UNIT_POWER, 1.0, false },
	{ "W", UNIT_POWER, 1.0, true },
	{ "kW", UNIT_POWER, 1e3, true },
	{ "MW", UNIT_POWER, 1e6, true },

	/* time in seconds; a year is 365 days */
	{ "", UNIT_TIME, 1.0, false },
	{ "ns", UNIT_TIME, 1e-9, false },
	{ "us", UNIT_TIME, 1e-6, true },
	{ "ms", UNIT_TIME, 1e-3, true },
	{ "s", UNIT_TIME, 1.0, true },
	{ "min", UNIT_TIME, 60.0, true },
	{ "h", UNIT_TIME, 3600.0, true },
	{ "d", UNIT_TIME, 86400.0, true },
	{ "w", UNIT_TIME, 7.0 * 86400.0, false },
	{ "y", UNIT_TIME, 365.0 * 86400.0, true },

	/* plain counts: parameters, tokens, requests */
	{ "", UNIT_COUNT, 1.0, true },
	{ "K", UNIT_COUNT, 1e3, true },
	{ "k", UNIT_COUNT, 1e3, false },
	{ "M", UNIT_COUNT, 1e6, true },
	{ "B", UNIT_COUNT, 1e9, true },
	{ "G", UNIT_COUNT, 1e9, false },
	{ "T", UNIT_COUNT, 1e12, true },

	/* energy in joules */
	{ "", UNIT_ENERGY, 1.0, false },
	{ "J", UNIT_ENERGY, 1.0, true },
	{ "kJ", UNIT_ENERGY, 1e3, true },
	{ "MJ", UNIT_ENERGY, 1e6, true },
	{ "GJ", UNIT_ENERGY, 1e9, true },
	{ "Wh", UNIT_ENERGY, 3600.0, false },
	{ "kWh", UNIT_ENERGY, 3600.0 * 1e3, false },
	{ "MWh", UNIT_ENERGY, 3600.0 * 1e6, false },
	{ "GWh", UNIT_ENERGY, 3600.0 * 1e9, false },

	/* money in US dollars, after an optional '$' */
	{ "", UNIT_MONEY, 1.0, true },
	{ "K", UNIT_MONEY, 1e3, true },
	{ "k", UNIT_MONEY, 1e3, false },
	{ "M", UNIT_MONEY, 1e6, true },
	{ "m", UNIT_MONEY, 1e6, false },
	{ "B", UNIT_MONEY, 1e9, true },

	/* energy counted in kWh (the machine fields named _kwh) */
	{ "", UNIT_ENERGY_KWH, 1.0, false },
	{ "Wh", UNIT_ENERGY_KWH, 1e-3, false },
	{ "kWh", UNIT_ENERGY_KWH, 1.0, true },
	{ "MWh", UNIT_ENERGY_KWH, 1e3, true },
	{ "GWh", UNIT_ENERGY_KWH, 1e6, true },
	{ "TWh", UNIT_ENERGY_KWH, 1e9, true },
};

#define UNIT_TABLE_LEN (sizeof(unit_table) / sizeof(unit_table[0]))

/* Per-kind text for messages: the kind's name, an example, the examples
   with their unit that units_examples gives, the unknown-unit message. */
static const struct {
	const char *name;
	const char *example;
	const char *examples;
	const char *unknown;
} kind_table[UNIT_KIND_COUNT] = {
	[UNIT_BYTES] = { "size", "80GB", "'80GB', '512MiB' or '1.5TB'",
			 "unknown unit for a size (use B, kB, MB, GB, TB, PB "
			 "or KiB, MiB, GiB, TiB, PiB)" },
	[UNIT_BANDWIDTH] = { "bandwidth", "3.35TB/s",
			     "'3.35TB/s', '900GB/s' or '400Gb/s'",
			     "unknown unit for a bandwidth (use B/s, kB/s, "
			     "MB/s, GB/s, TB/s, PB/s, KiB/s .. TiB/s or bits: "
			     "b/s, kb/s, Mb/s, Gb/s, Tb/s, Mbps, Gbps, Tbps)" },
	[UNIT_FLOPS] = { "throughput", "989TFLOPS",
			 "'989TFLOPS', '1.98PFLOPS' or '624TOPS'",
			 "unknown unit for a throughput (use FLOPS, GFLOPS, "
			 "TFLOPS, PFLOPS, FLOP/s forms or OPS, GOPS, TOPS, "
			 "POPS)" },
	[UNIT_POWER] = { "power", "700W", "'20MW', '500kW' or '700W'",
			 "unknown unit for a power (use W, kW, MW)" },
	[UNIT_TIME] = { "duration", "30d", "'90d', '36h' or '30min'",
			"unknown unit for a duration (use ns, us, ms, s, "
			"min, h, d, w, y)" },
	[UNIT_COUNT] = { "count", "15T", "'15T', '70B' or '4K'",
			 "unknown unit for a count (use K, M, B, T)" },
	[UNIT_ENERGY] = { "quantity of energy", "1.5MWh",
			  "'1.5MWh', '300kWh' or '5GJ'",
			  "unknown unit for a quantity of energy (use J, kJ, "
			  "MJ, GJ, Wh, kWh, MWh, GWh)" },
	[UNIT_MONEY] = { "sum of money", "$2.5M",
			 "'$2M', '$15000' or '500K'",
			 "unknown unit for a sum of money (use an optional "
			 "'$' and K, M, B)" },
	[UNIT_ENERGY_KWH] = { "quantity of energy", "300kWh",
			      "'300kWh', '1.5MWh' or '2GWh'",
			      "unknown unit for a quantity of energy in kWh "
			      "(use Wh, kWh, MWh, GWh, TWh)" },
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * 'v' (read from the digits text[0..len)) times 'factor', rounded once:
 * for a decimal prefix (k, M, ..., m, u) the digits are re-read with the
 * exponent appended ("2.039" and 1e12 give 2.039e12 exactly, not 2.039 x
 * 1e12 = 2039000000000.0002); other factors (1024^k, 3600) multiply.
 */
static double scale_exact(const char *text, size_t len, double v,
			  double factor)
{
	char buf[96];
	int k = (int)lround(log10(factor));

	/* only a factor that is exactly the double nearest 10^k, |k| <= 22 */
	if (factor == 1.0 || k == 0 || k < -22 || k > 22 ||
	    pow(10.0, k) != factor ||
	    len + 8 > sizeof(buf) || memchr(text, 'e', len) ||
	    memchr(text, 'E', len))
		return v * factor;
	snprintf(buf, sizeof(buf), "%.*se%d", (int)len, text, k);
	return strtod(buf, NULL);
}

static int fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -1;
}

static const struct unit *unit_lookup(enum unit_kind kind, const char *s,
				      size_t len)
{
	for (size_t i = 0; i < UNIT_TABLE_LEN; i++) {
		const struct unit *u = &unit_table[i];

		if (u->kind == kind && strlen(u->suffix) == len &&
		    memcmp(u->suffix, s, len) == 0)
			return u;
	}
	return NULL;
}

/*
 * units_parse, and in '*named' whether the text gave its unit: a suffix
 * other than the kind's empty one, or for money a '$'.
 */
static int parse(const char *text, enum unit_kind kind, double *out,
		 const char **why, bool *named)
{
	const char *p = text;
	const char *num;
	const char *unit;
	const struct unit *u;
	size_t unit_len;
	char *end;
	double v;
	double scaled;

	*named = false;
	if ((unsigned)kind >= UNIT_KIND_COUNT)
		return fail(why, "unknown kind of quantity");
	if (!text)
		return fail(why, "empty value");
	while (is_blank(*p))
		p++;
	if (*p == '\0')
		return fail(why, "empty value");
	if (kind == UNIT_MONEY && *p == '$') {
		*named = true;
		p++;
		while (is_blank(*p))
			p++;
	}
	if (*p == '-')
		return fail(why, "negative value");
	if (*p == '+')
		p++;
	/* strtod would also take "inf", "nan" and hex floats; we do not */
	if (!is_digit(*p) && !(*p == '.' && is_digit(p[1])))
		return fail(why, "not a number");
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return fail(why, "hexadecimal numbers are not accepted");

	errno = 0;
	num = p;
	v = strtod(p, &end);
	if (end == p)
		return fail(why, "not a number");
	if (errno == ERANGE)
		return fail(why, "number out of range");
	if (!isfinite(v))
		return fail(why, "not a finite number");

	p = end;
	while (is_blank(*p))
		p++;
	unit = p;
	while (*p != '\0' && !is_blank(*p))
		p++;
	unit_len = (size_t)(p - unit);
	while (is_blank(*p))
		p++;

	u = unit_lookup(kind, unit, unit_len);
	if (!u)
		return fail(why, kind_table[kind].unknown);
	if (*p != '\0')
		return fail(why, "trailing characters after the unit");

	scaled = scale_exact(num, (size_t)(end - num), v, u->factor);
	if (!isfinite(scaled))
		return fail(why, "number out of range");
	*named = *named || u->suffix[0] != '\0';
	*out = scaled;
	return 0;
}

int units_parse(const char *text, enum unit_kind kind, double *out,
		const char **why)
{
	bool named;

	return parse(text, kind, out, why, &named);
}

bool units_has_unit(const char *text, enum unit_kind kind)
{
	bool named = false;
	double v;

	return parse(text, kind, &v, NULL, &named) == 0 && named;
}

const char *units_kind_name(enum unit_kind kind)
{
	return (unsigned)kind < UNIT_KIND_COUNT ? kind_table[kind].name
						: "quantity";
}

const char *units_example(enum unit_kind kind)
{
	return (unsigned)kind < UNIT_KIND_COUNT ? kind_table[kind].example
						: "1";
}

const char *units_examples(enum unit_kind kind)
{
	return (unsigned)kind < UNIT_KIND_COUNT ? kind_table[kind].examples
						: "'1'";
}

/* The next unit units_format may choose after 'u' in its kind, or NULL. */
static const struct unit *next_fmt_unit(const struct unit *u)
{
	const struct unit *stop = unit_table + UNIT_TABLE_LEN;

	for (const struct unit *v = u + 1; v < stop; v++) {
		if (v->kind == u->kind && v->fmt)
			return v;
	}
	return NULL;
}

/*
 * The unit to print 'a' (>= 0, finite) in: the largest one not above it,
 * the smallest one for tiny values and the base unit for zero.
 */
static const struct unit *pick_fmt_unit(double a, enum unit_kind kind)
{
	const struct unit *pick = NULL;

	for (size_t i = 0; i < UNIT_TABLE_LEN; i++) {
		const struct unit *u = &unit_table[i];

		if (u->kind != kind || !u->fmt)
			continue;
		if (a == 0.0 && u->factor == 1.0)
			return u;
		if (!pick || a >= u->factor)
			pick = u;
	}
	return pick;
}

/* Print the mantissa of 'a' in unit 'u' into 'num'; returns it re-read. */
static double print_mantissa(char *num, size_t size, double a,
			     const struct unit *u, int sig)
{
	double m = a / u->factor;
	int digits = m >= 1.0 ? (int)floor(log10(m)) + 1 : 0;

	/* "%.2g" of 940 is "9.4e+02": more integer digits than significant
	   ones are rounded and printed whole ("940"), up to nine of them
	   (beyond, the exponent is the shorter text) */
	if (digits > sig && digits <= 9) {
		double unit = pow(10.0, digits - sig);

		snprintf(num, size, "%.0f", nearbyint(m / unit) * unit);
	} else {
		snprintf(num, size, "%.*g", sig, m);
	}
	return strtod(num, NULL);
}

int units_format(char *buf, size_t size, double value, enum unit_kind kind,
		 int sig)
{
	char num[64];
	const struct unit *u;
	const struct unit *next;
	const char *sign = value < 0 ? "-" : "";
	const char *dollar = kind == UNIT_MONEY ? "$" : "";
	double a = fabs(value);
	double shown;
	char dummy[1];

	if (!buf || size == 0) {
		buf = dummy;
		size = sizeof(dummy);
	}
	if (sig < 1)
		sig = 1;
	if (sig > 17)
		sig = 17;
	if ((unsigned)kind >= UNIT_KIND_COUNT)
		return snprintf(buf, size, "%.*g", sig, value);
	if (!isfinite(value))
		return snprintf(buf, size, "%s%s%g", sign, dollar, a);

	u = pick_fmt_unit(a, kind);
	shown = print_mantissa(num, sizeof(num), a, u, sig);
	/* rounding may carry into the next unit: "1000GB" is "1TB" */
	while ((next = next_fmt_unit(u)) &&
	       shown * u->factor >= next->factor * (1.0 - 1e-12)) {
		u = next;
		shown = print_mantissa(num, sizeof(num), a, u, sig);
	}
	return snprintf(buf, size, "%s%s%s%s", sign, dollar, num, u->suffix);
}

int units_format_exact(char *buf, size_t size, double value,
		       enum unit_kind kind)
{
	/* a binary size that is not a round decimal one (a device's memory
	   as its driver reports it, 81559MiB) keeps its binary unit; below
	   1e18 bytes the count of MiB is an exact integer to print */
	const double mib = KI * KI, gib = KI * KI * KI;

	if (kind == UNIT_BYTES && value >= mib && value < 1e18 &&
	    fmod(value, mib) == 0.0 && fmod(value, 1e6) != 0.0) {
		if (fmod(value, gib) == 0.0)
			return snprintf(buf, size, "%.0fGiB", value / gib);
		return snprintf(buf, size, "%.0fMiB", value / mib);
	}
	/* 15 digits read back within 1e-12 of the value, but near the
	   largest double the rounded mantissa times its unit can overflow
	   ("1.79769313486232e+293PB" is out of range): then 17 digits, and
	   else the base unit, whose factor of 1 rounds nothing */
	for (int sig = 15; sig <= 17; sig += 2) {
		char tmp[64];
		double back;
		int n = units_format(tmp, sizeof(tmp), value, kind, sig);

		if (n > 0 && (size_t)n < sizeof(tmp) &&
		    units_parse(tmp, kind, &back, NULL) == 0 &&
		    fabs(back - value) <= 1e-12 * fabs(value))
			return snprintf(buf, size, "%s", tmp);
	}
	if ((unsigned)kind >= UNIT_KIND_COUNT || !isfinite(value))
		return units_format(buf, size, value, kind, 17);
	return snprintf(buf, size, "%s%s%.17g%s", value < 0 ? "-" : "",
			kind == UNIT_MONEY ? "$" : "", fabs(value),
			pick_fmt_unit(0.0, kind)->suffix);
}

/*
 * 'x' in decimal without an exponent: 'sig' significant digits, trailing
 * zeros of the fraction dropped ("0.00003791", "12000000").
 */
void units_plain_number(char *buf, size_t n, double x, int sig)
{
	double a = fabs(x);
	int dec;

	if (a == 0.0 || !isfinite(x)) {
		snprintf(buf, n, "%g", a == 0.0 ? 0.0 : x);
		return;
	}
	dec = sig - 1 - (int)floor(log10(a));
	dec = dec < 0 ? 0 : dec > 20 ? 20 : dec;
	snprintf(buf, n, "%.*f", dec, x);
	if (dec > 0 && strchr(buf, '.')) {
		char *end = buf + strlen(buf) - 1;

		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
}

void units_scientific(char *buf, size_t n, double x, int sig, bool fixed)
{
	char tmp[64], *e, *end;
	long exp10;

	if (sig < 1)
		sig = 1;
	if (sig > 17)
		sig = 17;
	if (x == 0.0 || !isfinite(x)) {
		snprintf(buf, n, "%g", x == 0.0 ? 0.0 : x);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.*e", sig - 1, x);
	e = strchr(tmp, 'e');
	if (!e) {
		snprintf(buf, n, "%s", tmp);
		return;
	}
	*e = '\0';
	exp10 = strtol(e + 1, &end, 10);
	if (!fixed && strchr(tmp, '.')) {
		char *z = e - 1;

		while (*z == '0')
			*z-- = '\0';
		if (*z == '.')
			*z = '\0';
	}
	snprintf(buf, n, "%se%ld", tmp, exp10);
}

void units_table_number(char *buf, size_t n, double x, int sig)
{
	char shown[64];
	int digits = sig < 1 ? 1 : sig > 17 ? 17 : sig;
	double r;

	/* small as 'sig' digits show it: 0.00099996 is "0.001" */
	snprintf(shown, sizeof(shown), "%.*g", digits, x);
	r = strtod(shown, NULL);
	if (r != 0.0 && fabs(r) < UNITS_SMALL)
		units_scientific(buf, n, x, UNITS_SMALL_SIG, false);
	else
		units_plain_number(buf, n, x, sig);
}

/* The mantissa units_format wrote into 'text' (after a sign and a '$'),
   and where its unit starts. */
static double written_mantissa(const char *text, const char **unit)
{
	char *end;
	double m;

	while (*text == '-' || *text == '$')
		text++;
	m = strtod(text, &end);
	*unit = end;
	return m;
}

void units_format_plain(char *buf, size_t n, double v, enum unit_kind unit,
			int sig)
{
	char num[64], suffix[32];
	const char *sign = v < 0 ? "-" : "";
	const char *dollar = unit == UNIT_MONEY ? "$" : "";
	const char *at;
	double m;

	units_format(buf, n, v, unit, sig);
	if (!isfinite(v))
		return;
	m = written_mantissa(buf, &at);
	if (m != 0.0 && m < UNITS_SMALL) {
		/* below the smallest unit's reach ("$6.117e-05"): rounded
		   once, to the digits of the small rule */
		units_format(buf, n, v, unit, UNITS_SMALL_SIG);
		m = written_mantissa(buf, &at);
		snprintf(suffix, sizeof(suffix), "%s", at);
		units_scientific(num, sizeof(num), m, UNITS_SMALL_SIG, false);
	} else if (strstr(buf, "e+") || strstr(buf, "e-")) {
		/* beyond the largest unit ("1e+05PB"): written out */
		snprintf(suffix, sizeof(suffix), "%s", at);
		units_plain_number(num, sizeof(num), m, sig);
	} else {
		return;
	}
	snprintf(buf, n, "%s%s%s%s", sign, dollar, num, suffix);
}
