/*
 * catalog_check.c - the rules a device's values obey (gpu_spec_check):
 * plausible magnitudes, the least value of each column, idle power within
 * TDP, a price basis that is one word.  See catalog.h, specs/catalog.md.
 */
#include <math.h>
#include <string.h>

#include "catalog_internal.h"

/*
 * Plausible magnitudes of any catalog quantity in SI units: below 1e-9 or
 * above 1e21 no device is meant, and products of such values (price x
 * hours, power x seconds) would leave the range of a double.
 */
static const double value_min = 1e-9;
static const double value_max = 1e21;

bool catalog_rule_holds(enum value_rule rule, double v)
{
	switch (rule) {
	case RULE_POSITIVE:
		return isfinite(v) && v >= value_min && v <= value_max;
	case RULE_NONNEG:
		return isfinite(v) && v >= 0.0 && v <= value_max;
	case RULE_FRACTION:
		return isfinite(v) && v > 0.0 && v <= 1.0;
	case RULE_PEAK:
		/* a positive rate below value_min would make a time of any
		   work on it infinite */
		return v == 0.0 || catalog_rule_holds(RULE_POSITIVE, v);
	case RULE_UNSET_POSITIVE:
		return v == 0.0 || catalog_rule_holds(RULE_POSITIVE, v);
	case RULE_UNSET_FRACTION:
		return v == 0.0 || catalog_rule_holds(RULE_FRACTION, v);
	}
	return false;
}

const char *const catalog_rule_text[] = {
	[RULE_POSITIVE] = "positive (1e-9 to 1e21 in SI units)",
	[RULE_NONNEG] = "a non-negative number (at most 1e21)",
	[RULE_FRACTION] = "a number in (0, 1]",
	[RULE_PEAK] = "0 or 1e-9 to 1e21 FLOP/s",
	[RULE_UNSET_POSITIVE] = "a positive number (1e-9 to 1e21), or empty "
				"when unknown",
	[RULE_UNSET_FRACTION] = "a number in (0, 1], or empty",
};

static const struct {
	enum column_id column;
	enum value_rule rule;
} spec_rules[] = {
	{ COLUMN_MEMORY, RULE_POSITIVE },
	{ COLUMN_MEM_BW, RULE_POSITIVE },
	{ COLUMN_TDP, RULE_POSITIVE },
	{ COLUMN_IDLE_POWER, RULE_POSITIVE },
	{ COLUMN_INTRA_BW, RULE_POSITIVE },
	{ COLUMN_INTER_BW, RULE_POSITIVE },
	{ COLUMN_HOST_LINK_BW, RULE_UNSET_POSITIVE },
	{ COLUMN_HOST_MEMORY, RULE_UNSET_POSITIVE },
	{ COLUMN_PRICE, RULE_NONNEG },
	{ COLUMN_CAPEX, RULE_UNSET_POSITIVE },
	{ COLUMN_MATMUL_EFF, RULE_FRACTION },
	{ COLUMN_FP8_MATMUL_EFF, RULE_UNSET_FRACTION },
	{ COLUMN_MEM_EFF, RULE_FRACTION },
};

/*
 * The least value of a column that is a device and not a typo: a plan
 * divides by bandwidths, peaks and efficiencies, and 1e-300B/s or
 * 1e-300 FLOP/s give times (and energies) beyond a double.  The bounds lie
 * far below any accelerator made: 1 MB of memory, 1 MB/s of bandwidth (a
 * thousandth of 10 Gb Ethernet), 1 GFLOP/s of peak (a 2005 CPU core), 1%
 * efficiency.  A peak of 0 still means "not supported".
 */
static const struct {
	enum column_id column;
	double min;
	const char *text;
} column_min[] = {
	{ COLUMN_MEMORY, 1e6, "1MB" },
	{ COLUMN_MEM_BW, 1e6, "1MB/s" },
	{ COLUMN_INTRA_BW, 1e6, "1MB/s" },
	{ COLUMN_INTER_BW, 1e6, "1MB/s" },
	{ COLUMN_HOST_LINK_BW, 1e6, "1MB/s" },
	{ COLUMN_HOST_MEMORY, 1e6, "1MB" },
	{ COLUMN_FP32, 1e9, "1GFLOPS" },
	{ COLUMN_TF32, 1e9, "1GFLOPS" },
	{ COLUMN_BF16, 1e9, "1GFLOPS" },
	{ COLUMN_FP16, 1e9, "1GFLOPS" },
	{ COLUMN_FP8, 1e9, "1GFLOPS" },
	{ COLUMN_INT8, 1e9, "1GOPS" },
	{ COLUMN_INT4, 1e9, "1GOPS" },
	{ COLUMN_FP4, 1e9, "1GFLOPS" },
	{ COLUMN_MATMUL_EFF, 0.01, "0.01" },
	{ COLUMN_FP8_MATMUL_EFF, 0.01, "0.01" },
	{ COLUMN_MEM_EFF, 0.01, "0.01" },
	/* no bound of their own: value_min */
	{ COLUMN_TDP, 1e-9, "1e-9W" },
	{ COLUMN_IDLE_POWER, 1e-9, "1e-9W" },
};

double catalog_min_of(enum column_id id, const char **text)
{
	for (size_t i = 0; i < N_ELEMS(column_min); i++)
		if (column_min[i].column == id) {
			*text = column_min[i].text;
			return column_min[i].min;
		}
	*text = "";
	return 0.0;
}

double catalog_max_of(enum column_id id, const char **text)
{
	const struct column *c = &catalog_columns[id];

	/* value_max in the base unit of the column, as a cell may give it */
	if (c->type == CELL_PEAK) {
		*text = c->int_ops ? "1e21OPS" : "1e21FLOPS";
		return value_max;
	}
	if (c->type == CELL_QUANTITY) {
		switch (c->unit) {
		case UNIT_BYTES:
			*text = "1e21B";
			return value_max;
		case UNIT_BANDWIDTH:
			*text = "1e21B/s";
			return value_max;
		case UNIT_POWER:
			*text = "1e21W";
			return value_max;
		default:
			break;
		}
	}
	*text = "";
	return 0.0;
}


bool catalog_is_word(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		      c == '_'))
			return false;
	}
	return true;
}

bool catalog_has_any_precision(const struct gpu_spec *g)
{
	for (int p = 0; p < PREC_COUNT; p++) {
		if (g->peak_flops[p] > 0.0)
			return true;
	}
	return false;
}

/* The largest peak of precision 'p', as its column writes it. */
static const char *peak_max_text(enum precision p)
{
	const char *text = "1e21FLOPS";

	for (int i = 0; i < COLUMN_COUNT; i++)
		if (catalog_columns[i].type == CELL_PEAK &&
		    catalog_columns[i].prec == p)
			catalog_max_of((enum column_id)i, &text);
	return text;
}

int gpu_spec_check(const struct gpu_spec *g, struct diag *err)
{
	if (!g)
		return diag_set(err, NULL, 0, 0, "no gpu given");
	if (g->name[0] == '\0' || !memchr(g->name, '\0', sizeof(g->name)))
		return diag_set(err, NULL, 0, 0, "gpu has no valid name");
	for (size_t i = 0; i < N_ELEMS(spec_rules); i++) {
		const struct column *c = &catalog_columns[spec_rules[i].column];
		double v = *catalog_spec_double(g, c);
		const char *most;
		double hi = catalog_max_of(spec_rules[i].column, &most);

		/* past the bound is not "must be positive" */
		if (hi > 0.0 && v > hi && isfinite(v))
			return diag_set(err, NULL, 0, 0,
					"gpu '%s': '%s' must be at most %s, "
					"got %g",
					g->name, c->name, most, v);
		if (!catalog_rule_holds(spec_rules[i].rule, v))
			return diag_set(err, NULL, 0, 0,
					"gpu '%s': '%s' must be %s, got %g",
					g->name, c->name,
					catalog_rule_text[spec_rules[i].rule], v);
	}
	for (size_t i = 0; i < N_ELEMS(column_min); i++) {
		const struct column *c = &catalog_columns[column_min[i].column];
		double v = c->type == CELL_PEAK ? g->peak_flops[c->prec] :
						  *catalog_spec_double(g, c);

		/* 0: no math in the format, (host columns) unknown, or
		   (fp8_matmul_eff) not given */
		if (v < column_min[i].min &&
		    !(v == 0 && (c->type == CELL_PEAK ||
				 column_min[i].column == COLUMN_HOST_LINK_BW ||
				 column_min[i].column == COLUMN_HOST_MEMORY ||
				 column_min[i].column == COLUMN_FP8_MATMUL_EFF)))
			return diag_set(err, NULL, 0, 0,
					"gpu '%s': '%s' must be at least %s, "
					"got %g",
					g->name, c->name, column_min[i].text,
					v);
	}
	if (g->idle_w > g->tdp_w)
		return diag_set(err, NULL, 0, 0,
				"gpu '%s': 'idle_power' (%gW) must not exceed "
				"'tdp' (%gW)",
				g->name, g->idle_w, g->tdp_w);
	for (int p = 0; p < PREC_COUNT; p++) {
		if (isfinite(g->peak_flops[p]) && g->peak_flops[p] > value_max)
			return diag_set(err, NULL, 0, 0,
					"gpu '%s': '%s' must be at most %s, "
					"got %g",
					g->name,
					precision_name((enum precision)p),
					peak_max_text((enum precision)p),
					g->peak_flops[p]);
		if (!catalog_rule_holds(RULE_PEAK, g->peak_flops[p]))
			return diag_set(err, NULL, 0, 0,
					"gpu '%s': '%s' must be %s, got %g",
					g->name,
					precision_name((enum precision)p),
					catalog_rule_text[RULE_PEAK],
					g->peak_flops[p]);
	}
	if (!catalog_has_any_precision(g))
		return diag_set(err, NULL, 0, 0,
				"gpu '%s' has no peak throughput in any "
				"precision",
				g->name);
	if (g->gpus_per_node < 1 || g->gpus_per_node > GPU_NODE_MAX)
		return diag_set(err, NULL, 0, 0,
				"gpu '%s': 'gpus_per_node' must be a whole "
				"number from 1 to %d, got %d",
				g->name, GPU_NODE_MAX, g->gpus_per_node);
	if (!memchr(g->price_basis, '\0', sizeof(g->price_basis)) ||
	    !catalog_is_word(g->price_basis, strlen(g->price_basis)))
		return diag_set(err, NULL, 0, 0,
				"gpu '%s': 'price_basis' must be one word of "
				"letters, digits, '-', '.' and '_'",
				g->name);
	if (g->sms < 0 || g->sms > GPU_SMS_MAX)
		return diag_set(err, NULL, 0, 0,
				"gpu '%s': 'sms' must be a whole number from "
				"1 to %d, or 0 for unknown, got %d",
				g->name, GPU_SMS_MAX, g->sms);
	if (g->rent_max_gpus < 0 || g->rent_max_gpus > GPU_RENT_MAX)
		return diag_set(err, NULL, 0, 0,
				"gpu '%s': 'rent_max_gpus' must be a whole "
				"number from 1 to %d, or 0 for no known "
				"limit, got %d",
				g->name, GPU_RENT_MAX, g->rent_max_gpus);
	return 0;
}

double gpu_matmul_eff(const struct gpu_spec *g, enum precision q)
{
	/* fp4 GEMMs run on the same low-precision tensor path as fp8 */
	if ((q == PREC_FP8 || q == PREC_FP4) && g->fp8_matmul_eff > 0.0)
		return g->fp8_matmul_eff;
	return g->matmul_eff;
}

bool gpu_price_covers(const struct gpu_spec *g, int gpus)
{
	return g->rent_max_gpus == 0 || gpus <= g->rent_max_gpus;
}
