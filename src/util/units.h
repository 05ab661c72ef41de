/*
 * units.h - physical quantities as text <-> SI doubles.
 *
 * The only place where units are parsed or printed.  Inside capplan every
 * quantity is an SI double: bytes, bytes/s, FLOP/s, watts, seconds, joules,
 * US dollars, plain counts.  Prefixes are decimal (k=1e3, M=1e6, G=1e9,
 * T=1e12, P=1e15) except the binary byte units KiB, MiB, GiB, TiB, PiB.
 * A unit must match the kind exactly (case-sensitive, see the table in
 * units.c); unknown units are errors.  A bare number is taken in the base
 * unit of the kind (bytes, B/s, FLOP/s, W, s, J, USD, count); where that
 * guess is unsafe, units_has_unit tells the caller to refuse it.
 */
#ifndef CAPPLAN_UNITS_H
#define CAPPLAN_UNITS_H

#include <stdbool.h>
#include <stddef.h>

enum unit_kind {
	UNIT_BYTES,     /* B kB KB MB GB TB PB KiB MiB GiB TiB PiB */
	UNIT_BANDWIDTH, /* B/s .. PB/s, KiB/s .. TiB/s, bits: b/s kb/s Mb/s
			   Gb/s Tb/s, Mbps Gbps Tbps (bits / 8) */
	UNIT_FLOPS,     /* FLOPS GFLOPS TFLOPS PFLOPS, FLOP/s GFLOP/s ...,
			   OPS GOPS TOPS POPS (integer ops count the same) */
	UNIT_POWER,     /* W kW MW */
	UNIT_TIME,      /* s ms us ns min h d w (week) y (365 d) */
	UNIT_COUNT,     /* K M B T (thousand, million, billion, trillion);
			   also k and G as aliases of K and B */
	UNIT_ENERGY,    /* J kJ MJ GJ Wh kWh MWh GWh */
	UNIT_MONEY,     /* optional leading '$', then K M B (k, m) suffix */
	UNIT_ENERGY_KWH,/* energy counted in kWh, not J (the machine fields
			   named _kwh): kWh MWh GWh TWh, also Wh */
	UNIT_KIND_COUNT
};

/*
 * Parse 'text' as a quantity of 'kind' into '*out' (SI).  Leading and
 * trailing blanks are allowed, and blanks between number and unit.  The
 * number is parsed with strtod (C locale decimal point); NaN, infinity,
 * negative values and values that overflow a double after scaling are
 * rejected.  Zero is accepted (callers check ranges).
 *
 * Returns 0 on success.  On error returns -1 and, when 'why' is not NULL,
 * points it at a static lowercase message such as "unknown unit 'XB' for a
 * size" or "not a number".  '*out' is left untouched on error.
 */
int units_parse(const char *text, enum unit_kind kind, double *out,
		const char **why);

/*
 * Whether 'text' is a valid quantity of 'kind' (units_parse accepts it)
 * that names its unit: "90d", "20MW", a count "15T"; for money a '$' or a
 * K, M, B multiplier ("$15", "2M").  A bare number ("90", "1e9") does
 * not.  For options where a bare number is an error rather than a guess
 * in the base unit (size --deadline 90: seconds or days?).
 */
bool units_has_unit(const char *text, enum unit_kind kind);

/* Human name of a kind for messages: "size", "bandwidth", ... */
const char *units_kind_name(enum unit_kind kind);

/* An example of a valid value of that kind for messages: "80GB", ... */
const char *units_example(enum unit_kind kind);

/*
 * Three examples of that kind written with their unit, quoted, for a
 * message that asks for one: "'90d', '36h' or '30min'".
 */
const char *units_examples(enum unit_kind kind);

/*
 * Format 'value' of 'kind' for people, with the largest decimal prefix that
 * keeps the number >= 1 and 'sig' significant digits (%.*g), e.g.
 * "2.04TB/s", "80GB", "700W", "1.5h".  Times use s, min, h, d.  Always
 * NUL-terminates.  Returns the number of characters that would have been
 * written, like snprintf.
 */
int units_format(char *buf, size_t size, double value, enum unit_kind kind,
		 int sig);

/*
 * Format for machine round trips (catalog export): like units_format but
 * with 15 significant digits and no spaces, so that units_parse reads back
 * the same value to within 1 ulp in the last printed digit (17 digits, or
 * the base unit, where 15 would round beyond the largest double); a size
 * that is a whole number of MiB but not of decimal MB is written in GiB or
 * MiB ("80GiB", "81559MiB"), exactly.
 */
int units_format_exact(char *buf, size_t size, double value,
		       enum unit_kind kind);

/*
 * 'x' in decimal without an exponent: 'sig' significant digits, trailing
 * zeros of the fraction dropped ("0.00003791", "12000000").
 */
void units_plain_number(char *buf, size_t n, double x, int sig);

/*
 * The rule of numbers for people (tables, their notes, the report): a
 * number whose magnitude, in the smallest unit of its kind, is below
 * UNITS_SMALL (and not zero) is written in scientific notation with
 * UNITS_SMALL_SIG significant digits and a short exponent ("$6.12e-5",
 * "1.06e-5"); any other without an exponent.
 */
#define UNITS_SMALL 1e-3
#define UNITS_SMALL_SIG 3

/*
 * 'x' in scientific notation for people: 'sig' significant digits, the
 * exponent without a '+' or leading zeros ("6.12e-5", "-1.1e-7",
 * "2.5e20"); trailing zeros of the mantissa dropped ("1e-5") unless
 * 'fixed' ("1.00e-5", for a column).
 */
void units_scientific(char *buf, size_t n, double x, int sig, bool fixed);

/*
 * A number without a unit for tables: units_plain_number ("0.0421",
 * "12000000"), or below UNITS_SMALL units_scientific ("1.06e-5").
 */
void units_table_number(char *buf, size_t n, double x, int sig);

/*
 * units_format for tables and notes: 'sig' significant digits in the
 * largest unit that keeps the number >= 1, never with an exponent
 * ("$37.91K", "0.0421s", "$0.5"), except a number below UNITS_SMALL of
 * the kind's smallest unit: "$6.12e-5", "2.14e-5" (a count).
 */
void units_format_plain(char *buf, size_t n, double v, enum unit_kind unit,
			int sig);

#endif
