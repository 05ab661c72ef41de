/*
 * catalog.c - the hardware catalog: its columns, the container and the CSV
 * reader (libcsv -> struct gpu_spec); the checks of values are in
 * catalog_check.c, lookup by name in catalog_find.c, the CSV writer in
 * catalog_write.c.  See catalog.h and specs/catalog.md.
 */
#include "catalog.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_read.h"
#include "catalog_internal.h"
#include "readfile.h"
#include "text.h"
#include "units.h"

/* Generated at build time from specs/catalog.csv by scripts/embed.sh. */
extern const char catalog_default_csv[];
extern const size_t catalog_default_csv_len;

#define CATALOG_FILE_MAX (16u * 1024u * 1024u) /* refuse larger files */



#define SPEC_AT(m) offsetof(struct gpu_spec, m)
#define TEXT_COLUMN(n, m) \
	{ .name = n, .type = CELL_TEXT, .offset = SPEC_AT(m), \
	  .size = sizeof(((struct gpu_spec *)0)->m) }
#define QUANTITY_COLUMN(n, m, u, req) \
	{ .name = n, .type = CELL_QUANTITY, .offset = SPEC_AT(m), .unit = u, \
	  .required = req }
#define PEAK_COLUMN(n, p, i) \
	{ .name = n, .type = CELL_PEAK, .prec = p, .int_ops = i }

/* In the order of the header that catalog_write_csv writes. */
const struct column catalog_columns[COLUMN_COUNT] = {
	[COLUMN_NAME] = { .name = "name", .type = CELL_TEXT,
			  .offset = SPEC_AT(name), .size = GPU_NAME_MAX,
			  .required = true },
	[COLUMN_VENDOR] = TEXT_COLUMN("vendor", vendor),
	[COLUMN_KIND] = { .name = "kind", .type = CELL_KIND,
			  .offset = SPEC_AT(kind), .size = GPU_KIND_MAX },
	[COLUMN_MEMORY] = QUANTITY_COLUMN("memory", mem_bytes, UNIT_BYTES,
					  true),
	[COLUMN_MEM_BW] = QUANTITY_COLUMN("mem_bw", mem_bw_bytes_per_s,
					  UNIT_BANDWIDTH, true),
	[COLUMN_FP32] = PEAK_COLUMN("fp32", PREC_FP32, false),
	[COLUMN_TF32] = PEAK_COLUMN("tf32", PREC_TF32, false),
	[COLUMN_BF16] = PEAK_COLUMN("bf16", PREC_BF16, false),
	[COLUMN_FP16] = PEAK_COLUMN("fp16", PREC_FP16, false),
	[COLUMN_FP8] = PEAK_COLUMN("fp8", PREC_FP8, false),
	[COLUMN_INT8] = PEAK_COLUMN("int8", PREC_INT8, true),
	[COLUMN_INT4] = PEAK_COLUMN("int4", PREC_INT4, true),
	[COLUMN_FP4] = PEAK_COLUMN("fp4", PREC_FP4, false),
	[COLUMN_SPARSITY] = { .name = "sparsity", .type = CELL_BOOL,
			      .offset = SPEC_AT(sparsity_2_4) },
	[COLUMN_SMS] = { .name = "sms", .type = CELL_INT,
			 .offset = SPEC_AT(sms), .max = GPU_SMS_MAX },
	[COLUMN_TDP] = QUANTITY_COLUMN("tdp", tdp_w, UNIT_POWER, true),
	[COLUMN_IDLE_POWER] = QUANTITY_COLUMN("idle_power", idle_w,
					      UNIT_POWER, false),
	[COLUMN_GPUS_PER_NODE] = { .name = "gpus_per_node", .type = CELL_INT,
				   .offset = SPEC_AT(gpus_per_node),
				   .max = GPU_NODE_MAX },
	[COLUMN_INTRA_BW] = QUANTITY_COLUMN("intra_bw", intra_bw_bytes_per_s,
					    UNIT_BANDWIDTH, false),
	[COLUMN_NVLINK_SHARP] = { .name = "nvlink_sharp", .type = CELL_BOOL,
				  .offset = SPEC_AT(nvlink_sharp) },
	[COLUMN_INTRA_MESH] = { .name = "intra_mesh", .type = CELL_BOOL,
				.offset = SPEC_AT(intra_mesh) },
	[COLUMN_INTER_BW] = QUANTITY_COLUMN("inter_bw", inter_bw_bytes_per_s,
					    UNIT_BANDWIDTH, false),
	[COLUMN_HOST_LINK_BW] = QUANTITY_COLUMN("host_link_bw",
						host_link_bw_bytes_per_s,
						UNIT_BANDWIDTH, false),
	[COLUMN_HOST_MEMORY] = QUANTITY_COLUMN("host_memory",
					       host_memory_bytes, UNIT_BYTES,
					       false),
	[COLUMN_PRICE] = { .name = "price_usd_per_gpu_hour",
			   .type = CELL_PRICE,
			   .offset = SPEC_AT(price_usd_per_hour) },
	[COLUMN_PRICE_BASIS] = { .name = "price_basis", .type = CELL_WORD,
				 .offset = SPEC_AT(price_basis),
				 .size = GPU_BASIS_MAX },
	[COLUMN_RENT_MAX_GPUS] = { .name = "rent_max_gpus", .type = CELL_INT,
				   .offset = SPEC_AT(rent_max_gpus),
				   .max = GPU_RENT_MAX },
	[COLUMN_CAPEX] = { .name = "capex_usd_per_gpu", .type = CELL_AMOUNT,
			   .offset = SPEC_AT(capex_usd_per_gpu) },
	[COLUMN_MATMUL_EFF] = { .name = "matmul_eff", .type = CELL_FRACTION,
				.offset = SPEC_AT(matmul_eff) },
	[COLUMN_FP8_MATMUL_EFF] = { .name = "fp8_matmul_eff",
				    .type = CELL_UNSET_FRACTION,
				    .offset = SPEC_AT(fp8_matmul_eff) },
	[COLUMN_MEM_EFF] = { .name = "mem_eff", .type = CELL_FRACTION,
			     .offset = SPEC_AT(mem_eff) },
	[COLUMN_SOURCE] = TEXT_COLUMN("source", source),
};

/* A header needs at least one of these precision columns. */
static const enum column_id header_precisions[] = {
	COLUMN_BF16, COLUMN_FP16, COLUMN_FP32,
};

static const char *const kind_names[] = { "datacenter", "workstation",
					  "edge" };

static const struct {
	const char *text;
	bool value;
} bool_names[] = {
	{ "yes", true },  { "no", false }, { "true", true },
	{ "false", false }, { "1", true }, { "0", false },
};

/*
 * Values of optional cells left out or empty.  idle_power is 0 here and
 * becomes IDLE_FRACTION_OF_TDP * tdp after the row is read.
 */
static const struct gpu_spec gpu_defaults = {
	.kind = "datacenter",
	.gpus_per_node = 8,
	/* PCIe 4.0 x16: 16 GT/s * 16 lanes * 128/130 / 8 ~ 32 GB/s (PCI-SIG) */
	.intra_bw_bytes_per_s = 32e9,
	/* one 100 Gb/s NIC per GPU (100GbE / InfiniBand EDR), in bytes/s */
	.inter_bw_bytes_per_s = 100e9 / 8.0,
	/* the host link and memory: unknown unless a datasheet says
	   (optimizer offload needs them, from here or [cluster]) */
	.host_link_bw_bytes_per_s = 0.0,
	.host_memory_bytes = 0.0,
	.price_usd_per_hour = 0.0, /* unknown */
	.price_basis = GPU_BASIS_UNSTATED,
	.rent_max_gpus = 0,        /* no known limit */
	.capex_usd_per_gpu = 0.0,  /* unknown */
	.sms = 0,                  /* unknown */
	.matmul_eff = 0.8,
	.mem_eff = 0.85,
};

/* Idle draw of a powered, unused accelerator, as a fraction of its TDP. */
#define IDLE_FRACTION_OF_TDP 0.1

/* ------------------------------------------------------------------ */
/* The catalog container                                                */

void catalog_free(struct catalog *cat)
{
	if (!cat)
		return;
	free(cat->gpus);
	free(cat);
}

size_t catalog_count(const struct catalog *cat)
{
	return cat ? cat->count : 0;
}

const struct gpu_spec *catalog_at(const struct catalog *cat, size_t i)
{
	return cat && i < cat->count ? &cat->gpus[i] : NULL;
}

struct gpu_spec *catalog_at_mutable(struct catalog *cat, size_t i)
{
	return cat && i < cat->count ? &cat->gpus[i] : NULL;
}

/* Append a copy of 'g'; returns 0, or -1 when out of memory. */
static int catalog_append(struct catalog *cat, const struct gpu_spec *g)
{
	if (cat->count == cat->cap) {
		size_t cap = cat->cap ? 2 * cat->cap : 32;
		struct gpu_spec *gpus;

		if (cap > SIZE_MAX / sizeof(*gpus))
			return -1;
		gpus = realloc(cat->gpus, cap * sizeof(*gpus));
		if (!gpus)
			return -1;
		cat->gpus = gpus;
		cat->cap = cap;
	}
	cat->gpus[cat->count++] = *g;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */

struct parse_ctx {
	struct csv_reader rd;    /* first: the callbacks get it */
	struct catalog *cat;

	/* the header */
	bool header_done;
	int header_line;
	int ncols;
	enum column_id field_column[COLUMN_COUNT];
	bool have_column[COLUMN_COUNT];

	/* the row being read (its field: rd.field) */
	struct gpu_spec spec;
	bool given[COLUMN_COUNT];
	struct csv_pos at[COLUMN_COUNT];
	int row_line;

	/* the line of each device, for duplicate messages */
	int *lines;
	size_t lines_cap;

	/* the devices by name, case-insensitively: an open-addressing
	   table of 'nslots' (a power of two, 0 before the first row) of
	   index + 1 into cat->gpus, 0 for an empty slot; at most half
	   full, so the duplicate check of a row is O(1) on average and a
	   catalog of n rows loads in O(n) */
	size_t *slots;
	size_t nslots;
};

/* Record an error at 'p'; the first one wins (csv_read_fail). */
#define parse_fail(ctx, ...) csv_read_fail(&(ctx)->rd, __VA_ARGS__)

static const struct column *column_by_name(const char *name,
					   enum column_id *id)
{
	for (int i = 0; i < COLUMN_COUNT; i++) {
		if (strcasecmp(catalog_columns[i].name, name) == 0) {
			*id = (enum column_id)i;
			return &catalog_columns[i];
		}
	}
	return NULL;
}

static int header_field(struct parse_ctx *ctx, const char *s, size_t len,
			 struct csv_pos at)
{
	enum column_id id;

	if (ctx->rd.field == 0)
		ctx->header_line = at.line;
	if (len == 0)
		return parse_fail(ctx, at, "empty column name in the header");
	if (!column_by_name(s, &id))
		return parse_fail(ctx, at, "unknown column '%s'", s);
	if (ctx->have_column[id])
		return parse_fail(ctx, at, "duplicate column '%s'", s);
	ctx->have_column[id] = true;
	ctx->field_column[ctx->ncols++] = id;
	return 0;
}

static int header_end(struct parse_ctx *ctx)
{
	struct csv_pos at = { ctx->header_line, 1 };
	bool any = false;

	for (int i = 0; i < COLUMN_COUNT; i++) {
		if (catalog_columns[i].required && !ctx->have_column[i])
			return parse_fail(ctx, at,
					  "missing required column '%s'",
					  catalog_columns[i].name);
	}
	for (size_t i = 0; i < N_ELEMS(header_precisions); i++)
		any = any || ctx->have_column[header_precisions[i]];
	if (!any)
		return parse_fail(ctx, at,
				  "missing a precision column: need at least "
				  "one of 'bf16', 'fp16', 'fp32'");
	ctx->header_done = true;
	return 0;
}


/* A plain decimal number: no unit, no sign, no hex, inf or nan. */
static int parse_plain(const char *s, double *out)
{
	char *end;
	double v;

	if (!((s[0] >= '0' && s[0] <= '9') ||
	      (s[0] == '.' && s[1] >= '0' && s[1] <= '9')))
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(v))
		return -1;
	while (catalog_is_blank(*end))
		end++;
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!(s[0] >= '0' && s[0] <= '9'))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || errno == ERANGE || v > INT_MAX)
		return -1;
	while (catalog_is_blank(*end))
		end++;
	if (*end != '\0')
		return -1;
	*out = (int)v;
	return 0;
}

static int cell_text(struct parse_ctx *ctx, const struct column *c,
		      const char *s, size_t len, struct csv_pos at)
{
	char *dst = (char *)&ctx->spec + c->offset;
	size_t off = 0;
	unsigned char byte = 0;

	if (len >= c->size)
		return parse_fail(ctx, at,
				  "'%s' is longer than %zu bytes: '%s'",
				  c->name, c->size - 1, s);
	/* text reaches tables, JSON and SVG: UTF-8 without control
	   characters */
	switch (text_check_name(s, len, &off, &byte)) {
	case TEXT_OK:
		break;
	case TEXT_CONTROL:
		return parse_fail(ctx, at,
				  "'%s' contains a control character (0x%02x)",
				  c->name, byte);
	case TEXT_BAD_UTF8:
		return parse_fail(ctx, at,
				  "'%s' is not valid UTF-8 (byte 0x%02x at "
				  "byte %zu of the field)",
				  c->name, byte, off + 1);
	}
	/* a device name is one word: it is typed in --gpu lists and read
	   back from the columns of a table */
	if (c == &catalog_columns[COLUMN_NAME] && strpbrk(s, " \t"))
		return parse_fail(ctx, at,
				  "'name' must not contain blanks (write "
				  "'-', as in 'H100-SXM'), got '%s'",
				  s);
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

static int cell_word(struct parse_ctx *ctx, const struct column *c,
		     const char *s, size_t len, struct csv_pos at)
{
	char *dst = (char *)&ctx->spec + c->offset;

	if (len >= c->size || !catalog_is_word(s, len))
		return parse_fail(ctx, at,
				  "'%s' must be one word of letters, digits, "
				  "'-', '.' and '_' (at most %zu bytes), such "
				  "as 'cloud-on-demand-2026-05', got '%s'",
				  c->name, c->size - 1, s);
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

static int cell_int(struct parse_ctx *ctx, const struct column *c,
		    const char *s, struct csv_pos at)
{
	int *dst = (int *)(void *)((char *)&ctx->spec + c->offset);
	int v;

	if (parse_int(s, &v) || v < 1 || v > c->max)
		return parse_fail(ctx, at,
				  "'%s' must be a whole number from 1 to %d, "
				  "got '%s'",
				  c->name, c->max, s);
	*dst = v;
	return 0;
}

static int cell_kind(struct parse_ctx *ctx, const struct column *c,
		      const char *s, struct csv_pos at)
{
	char *dst = (char *)&ctx->spec + c->offset;

	for (size_t i = 0; i < N_ELEMS(kind_names); i++) {
		if (strcasecmp(s, kind_names[i]) == 0) {
			snprintf(dst, c->size, "%s", kind_names[i]);
			return 0;
		}
	}
	return parse_fail(ctx, at,
			  "'%s' must be one of 'datacenter', 'workstation', "
			  "'edge', got '%s'",
			  c->name, s);
}

static int cell_bool(struct parse_ctx *ctx, const struct column *c,
		      const char *s, struct csv_pos at)
{
	bool *dst = (bool *)(void *)((char *)&ctx->spec + c->offset);

	for (size_t i = 0; i < N_ELEMS(bool_names); i++) {
		if (strcasecmp(s, bool_names[i].text) == 0) {
			*dst = bool_names[i].value;
			return 0;
		}
	}
	return parse_fail(ctx, at, "'%s' must be yes or no, got '%s'", c->name,
			  s);
}

static int cell_number(struct parse_ctx *ctx, const struct column *c,
			const char *s, struct csv_pos at)
{
	double *dst = (double *)(void *)((char *)&ctx->spec + c->offset);
	enum value_rule rule = c->type == CELL_PRICE  ? RULE_NONNEG :
			       c->type == CELL_AMOUNT ? RULE_POSITIVE :
			       c->type == CELL_UNSET_FRACTION ?
							RULE_UNSET_FRACTION :
							RULE_FRACTION;
	double v;

	const char *least;
	double lo = catalog_min_of((enum column_id)(c - catalog_columns),
				   &least);

	if (parse_plain(s, &v) || !catalog_rule_holds(rule, v))
		return parse_fail(ctx, at, "'%s' must be %s, got '%s'",
				  c->name,
				  catalog_rule_text[c->type == CELL_AMOUNT ?
						    RULE_UNSET_POSITIVE :
						    rule],
				  s);
	if (v < lo && !(rule == RULE_UNSET_FRACTION && v == 0.0))
		return parse_fail(ctx, at, "'%s' must be at least %s, got '%s'",
				  c->name, least, s);
	*dst = v;
	return 0;
}

/*
 * Whether 's', which units_parse rejected, is a number of 'unit' that a
 * double cannot hold once scaled ('1e400TFLOPS', '1e300PB', '1e-400GB/s'):
 * a unit it accepts after a number that overflowed ('*big') or
 * underflowed.  Anything else is not a quantity at all.
 */
static bool beyond_double(const char *s, enum unit_kind unit, bool *big)
{
	char one[64], *end;
	double v, x;

	while (catalog_is_blank(*s))
		s++;
	if (*s == '+')
		s++;
	if (!((s[0] >= '0' && s[0] <= '9') ||
	      (s[0] == '.' && s[1] >= '0' && s[1] <= '9')) ||
	    (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return false;
	v = strtod(s, &end);
	if (end == s || (size_t)snprintf(one, sizeof(one), "1%s", end) >=
				sizeof(one) ||
	    units_parse(one, unit, &x, NULL) != 0)
		return false;
	*big = v >= 1.0;
	return true;
}

/*
 * A quantity or peak cell, in its bounds: above 0 (a peak may be 0: not
 * supported), at least the column's least value and at most its largest
 * (catalog_check.c), each message at the cell with the bound it broke.
 */
static int cell_quantity(struct parse_ctx *ctx, const struct column *c,
			  const char *s, struct csv_pos at)
{
	enum column_id id = (enum column_id)(c - catalog_columns);
	enum unit_kind unit = c->type == CELL_PEAK ? UNIT_FLOPS : c->unit;
	double *dst = c->type == CELL_PEAK
			      ? &ctx->spec.peak_flops[c->prec]
			      : (double *)(void *)((char *)&ctx->spec +
						   c->offset);
	const char *least, *most;
	double lo = catalog_min_of(id, &least), hi = catalog_max_of(id, &most);
	const char *none = c->type == CELL_PEAK ? " (or 0: none)" : "";
	bool big;
	double v;

	if (units_parse(s, unit, &v, NULL)) {
		if (!beyond_double(s, unit, &big))
			return parse_fail(ctx, at,
					  "'%s' must be a %s such as '%s', "
					  "got '%s'",
					  c->name, units_kind_name(unit),
					  c->int_ops ? "1979TOPS" :
						       units_example(unit),
					  s);
		/* a number a double cannot hold is out of the bounds */
		if (big)
			return parse_fail(ctx, at,
					  "'%s' must be at most %s, got '%s'",
					  c->name, most, s);
		return parse_fail(ctx, at,
				  "'%s' must be at least %s%s, got '%s'",
				  c->name, least, none, s);
	}
	if (c->type == CELL_QUANTITY && !(v > 0.0))
		return parse_fail(ctx, at, "'%s' must be positive, got '%s'",
				  c->name, s);
	/* 0 peak: not supported; anything else is at least the bound */
	if (v != 0.0 && v < lo)
		return parse_fail(ctx, at,
				  "'%s' must be at least %s%s, got '%s'",
				  c->name, least, none, s);
	if (v > hi)
		return parse_fail(ctx, at, "'%s' must be at most %s, got '%s'",
				  c->name, most, s);
	*dst = v;
	return 0;
}

static int row_field(struct parse_ctx *ctx, const char *s, size_t len,
		      struct csv_pos at)
{
	enum column_id id;
	const struct column *c;

	if (ctx->rd.field == 0) {
		ctx->spec = gpu_defaults;
		memset(ctx->given, 0, sizeof(ctx->given));
		ctx->row_line = at.line;
	}
	if (ctx->rd.field >= ctx->ncols)
		return parse_fail(ctx, at,
				  "too many fields: the header has %d",
				  ctx->ncols);
	id = ctx->field_column[ctx->rd.field];
	c = &catalog_columns[id];
	ctx->at[id] = at;
	if (len == 0) {
		if (c->required)
			parse_fail(ctx, at, "'%s' must not be empty", c->name);
		return 0;
	}
	ctx->given[id] = true;
	switch (c->type) {
	case CELL_TEXT:
		cell_text(ctx, c, s, len, at);
		break;
	case CELL_KIND:
		cell_kind(ctx, c, s, at);
		break;
	case CELL_QUANTITY:
	case CELL_PEAK:
		cell_quantity(ctx, c, s, at);
		break;
	case CELL_BOOL:
		cell_bool(ctx, c, s, at);
		break;
	case CELL_INT:
		cell_int(ctx, c, s, at);
		break;
	case CELL_WORD:
		cell_word(ctx, c, s, len, at);
		break;
	case CELL_PRICE:
	case CELL_AMOUNT:
	case CELL_FRACTION:
	case CELL_UNSET_FRACTION:
		cell_number(ctx, c, s, at);
		break;
	}
	return 0;
}

static int remember_line(struct parse_ctx *ctx, size_t i, int line)
{
	if (i >= ctx->lines_cap) {
		size_t cap = ctx->lines_cap ? 2 * ctx->lines_cap : 32;
		int *lines;

		if (cap > SIZE_MAX / sizeof(*lines))
			return -1;
		lines = realloc(ctx->lines, cap * sizeof(*lines));
		if (!lines)
			return -1;
		ctx->lines = lines;
		ctx->lines_cap = cap;
	}
	ctx->lines[i] = line;
	return 0;
}

/* FNV-1a (Fowler, Noll, Vo) of 'name' with ASCII letters folded to lower
   case, as strcasecmp compares them in the C locale. */
static size_t name_hash(const char *name)
{
	uint64_t h = 14695981039346656037u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		unsigned char c = *p >= 'A' && *p <= 'Z' ?
					  (unsigned char)(*p - 'A' + 'a') :
					  *p;

		h = (h ^ c) * 1099511628211u;
	}
	return (size_t)h;
}

/* The slot of 'name' in the index: the device of that name (*found set)
   or the empty slot where it would go. */
static size_t name_slot(const struct parse_ctx *ctx, const char *name,
			bool *found)
{
	size_t mask = ctx->nslots - 1;
	size_t i = name_hash(name) & mask;

	*found = false;
	while (ctx->slots[i] != 0) {
		if (strcasecmp(ctx->cat->gpus[ctx->slots[i] - 1].name, name) ==
		    0) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
	return i;
}

/* Make room in the index for one more device (rebuilding it twice as
   large when it would be more than half full); 0, or -1 when out of
   memory. */
static int index_reserve(struct parse_ctx *ctx)
{
	size_t n = ctx->cat->count, nslots = ctx->nslots ? ctx->nslots : 64;
	size_t *old = ctx->slots, old_n = ctx->nslots;
	bool found;

	if (ctx->nslots && 2 * (n + 1) <= ctx->nslots)
		return 0;
	while (2 * (n + 1) > nslots) {
		if (nslots > SIZE_MAX / 2 / sizeof(*old))
			return -1;
		nslots *= 2;
	}
	ctx->slots = calloc(nslots, sizeof(*ctx->slots));
	if (!ctx->slots) {
		ctx->slots = old;
		return -1;
	}
	ctx->nslots = nslots;
	for (size_t i = 0; i < old_n; i++) {
		if (old[i])
			ctx->slots[name_slot(ctx,
					     ctx->cat->gpus[old[i] - 1].name,
					     &found)] = old[i];
	}
	free(old);
	return 0;
}

static int row_end(struct parse_ctx *ctx)
{
	struct gpu_spec *g = &ctx->spec;
	struct csv_pos name_at = ctx->at[COLUMN_NAME];
	struct diag check;
	size_t slot;
	bool found;

	if (ctx->rd.field < ctx->ncols)
		return parse_fail(ctx, ctx->rd.cur,
				  "row has %d fields but the header has %d",
				  ctx->rd.field, ctx->ncols);
	if (!ctx->given[COLUMN_IDLE_POWER])
		g->idle_w = IDLE_FRACTION_OF_TDP * g->tdp_w;
	else if (g->idle_w > g->tdp_w)
		return parse_fail(ctx, ctx->at[COLUMN_IDLE_POWER],
				  "'idle_power' (%gW) must not exceed 'tdp' "
				  "(%gW)",
				  g->idle_w, g->tdp_w);
	if (!catalog_has_any_precision(g))
		return parse_fail(ctx, name_at,
				  "gpu '%s' has no peak throughput in any "
				  "precision column",
				  g->name);
	if (index_reserve(ctx))
		return parse_fail(ctx, name_at, "out of memory");
	slot = name_slot(ctx, g->name, &found);
	if (found)
		return parse_fail(ctx, name_at,
				  "duplicate gpu '%s' (first defined on line "
				  "%d)",
				  g->name, ctx->lines[ctx->slots[slot] - 1]);
	diag_clear(&check);
	if (gpu_spec_check(g, &check))
		return parse_fail(ctx, name_at, "%s", check.msg);
	if (remember_line(ctx, ctx->cat->count, ctx->row_line) ||
	    catalog_append(ctx->cat, g))
		return parse_fail(ctx, name_at, "out of memory");
	ctx->slots[slot] = ctx->cat->count;
	return 0;
}

/* A field and its place (csv_read.h). */
static void on_field(struct csv_reader *r, const char *text, size_t len,
		     struct csv_pos at)
{
	struct parse_ctx *ctx = (struct parse_ctx *)r;

	if (!ctx->header_done)
		header_field(ctx, text, len, at);
	else
		row_field(ctx, text, len, at);
}

/* The end of a record. */
static void on_record(struct csv_reader *r)
{
	struct parse_ctx *ctx = (struct parse_ctx *)r;

	if (!ctx->header_done)
		header_end(ctx);
	else
		row_end(ctx);
}

int catalog_parse(const char *buf, size_t len, const char *name,
		  struct catalog **out, struct diag *err)
{
	struct parse_ctx *ctx;
	int rc = -1;

	if (!name)
		name = "<catalog>";
	if (out)
		*out = NULL;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return diag_set(err, name, 0, 0, "out of memory");
	ctx->rd.file = name;
	ctx->rd.err = err;
	ctx->rd.on_field = on_field;
	ctx->rd.on_record = on_record;
	ctx->cat = calloc(1, sizeof(*ctx->cat));
	if (!ctx->cat) {
		diag_set(err, name, 0, 0, "out of memory");
		goto out_free_ctx;
	}
	if (csv_read(&ctx->rd, buf, len) != 0)
		goto out_free_cat;
	if (!ctx->header_done) {
		diag_set(err, name, 1, 1, "empty catalog: no header line");
		goto out_free_cat;
	}
	if (ctx->cat->count == 0) {
		diag_set(err, name, ctx->header_line, 1,
			 "no devices: the catalog has only a header line");
		goto out_free_cat;
	}
	if (out) {
		*out = ctx->cat;
		ctx->cat = NULL;
	}
	rc = 0;
out_free_cat:
	catalog_free(ctx->cat);
out_free_ctx:
	free(ctx->slots);
	free(ctx->lines);
	free(ctx);
	return rc;
}

int catalog_load_file(const char *path, struct catalog **out,
		      struct diag *err)
{
	char *buf;
	size_t len;
	int rc;

	if (out)
		*out = NULL;
	/* named on the command line: a FIFO (<(...)) reads too */
	if (readfile_all(path, READFILE_ANY, CATALOG_FILE_MAX, &buf, &len,
			 err) != 0)
		return -1;
	rc = catalog_parse(buf, len, readfile_display_name(path), out, err);
	free(buf);
	return rc;
}

int catalog_load_default(struct catalog **out, struct diag *err)
{
	return catalog_parse(catalog_default_csv, catalog_default_csv_len,
			     "<embedded>", out, err);
}

const char *catalog_default_text(size_t *len)
{
	if (len)
		*len = catalog_default_csv_len;
	return catalog_default_csv;
}
