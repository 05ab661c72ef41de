/*
 * catalog_write.c - the catalog as CSV, in the columns and units that
 * catalog_parse reads back (quoted where needed, numbers in the C locale).
 * See catalog.h.
 */
#include <csv.h>
#include <stdio.h>
#include <string.h>

#include "c_numeric.h"
#include "catalog_internal.h"

static bool needs_quotes(const char *s)
{
	size_t n = strlen(s);

	if (n > 0 && (catalog_is_blank(s[0]) || catalog_is_blank(s[n - 1])))
		return true;
	return strpbrk(s, ",\"\r\n") != NULL;
}

static int write_text(FILE *out, const char *s)
{
	if (needs_quotes(s))
		return csv_fwrite(out, s, strlen(s)) == 0 ? 0 : -1;
	return fputs(s, out) == EOF ? -1 : 0;
}

static int write_cell(FILE *out, const struct column *c,
		      const struct gpu_spec *g)
{
	const char *base = (const char *)g;
	char buf[64];

	switch (c->type) {
	case CELL_TEXT:
	case CELL_KIND:
		return write_text(out, base + c->offset);
	case CELL_QUANTITY:
		if (*catalog_spec_double(g, c) == 0.0)
			return 0; /* host_link_bw, host_memory: unknown */
		units_format_exact(buf, sizeof(buf), *catalog_spec_double(g, c),
				   c->unit);
		return fputs(buf, out) == EOF ? -1 : 0;
	case CELL_PEAK: {
		double v = g->peak_flops[c->prec];

		if (v == 0.0)
			return 0;
		/* below a TFLOP/s in the base unit, exactly: "1e-21TFLOPS"
		   would read back below the bound of 1e-9 FLOP/s */
		if (v < 1e12)
			return fprintf(out, "%.17g%s", v,
				       c->int_ops ? "OPS" : "FLOPS") < 0 ?
				       -1 : 0;
		return fprintf(out, "%.15g%s", v / 1e12,
			       c->int_ops ? "TOPS" : "TFLOPS") < 0 ? -1 : 0;
	}
	case CELL_BOOL:
		return fputs(*(const bool *)(const void *)(base + c->offset)
				     ? "yes"
				     : "no",
			     out) == EOF ? -1 : 0;
	case CELL_INT: {
		int v = *(const int *)(const void *)(base + c->offset);

		if (v == 0)
			return 0; /* rent_max_gpus, sms: no known value */
		return fprintf(out, "%d", v) < 0 ? -1 : 0;
	}
	case CELL_WORD:
		return fputs(base + c->offset, out) == EOF ? -1 : 0;
	case CELL_AMOUNT:
	case CELL_UNSET_FRACTION:
		if (*catalog_spec_double(g, c) == 0.0)
			return 0; /* unknown */
		return fprintf(out, "%.15g", *catalog_spec_double(g, c)) < 0 ? -1 : 0;
	case CELL_PRICE:
	case CELL_FRACTION:
		return fprintf(out, "%.15g", *catalog_spec_double(g, c)) < 0 ? -1 : 0;
	}
	return -1;
}

/* Header and rows: rows[i] when 'rows' is given, else every row. */
static int write_rows(FILE *out, const struct catalog *cat,
		      const struct gpu_spec *const *rows, size_t n)
{
	for (int i = 0; i < COLUMN_COUNT; i++) {
		if (fprintf(out, "%s%s", i ? "," : "", catalog_columns[i].name) < 0)
			return -1;
	}
	if (fputc('\n', out) == EOF)
		return -1;
	for (size_t r = 0; r < n; r++) {
		const struct gpu_spec *g = rows ? rows[r] : &cat->gpus[r];

		for (int i = 0; i < COLUMN_COUNT; i++) {
			if (i && fputc(',', out) == EOF)
				return -1;
			if (write_cell(out, &catalog_columns[i], g))
				return -1;
		}
		if (fputc('\n', out) == EOF)
			return -1;
	}
	return 0;
}

static int write_csv(FILE *out, const struct catalog *cat,
		     const struct gpu_spec *const *rows, size_t n)
{
	struct c_numeric loc;
	int rc;

	c_numeric_enter(&loc);
	rc = write_rows(out, cat, rows, n);
	c_numeric_leave(&loc);
	if (rc || ferror(out))
		return -1;
	return 0;
}

int catalog_write_csv(FILE *out, const struct catalog *cat)
{
	return write_csv(out, cat, NULL, catalog_count(cat));
}

int catalog_write_csv_rows(FILE *out, const struct gpu_spec *const *rows,
			   size_t n)
{
	return write_csv(out, NULL, rows, n);
}
