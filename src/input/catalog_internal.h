/*
 * catalog_internal.h - what the files of the catalog share (catalog.c:
 * the columns, the container and the CSV reader; catalog_check.c: the
 * rules on values; catalog_find.c: lookup by name; catalog_write.c: the
 * CSV writer).  Private: nothing outside them includes it.
 */
#ifndef CAPPLAN_CATALOG_INTERNAL_H
#define CAPPLAN_CATALOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "units.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

struct catalog {
	struct gpu_spec *gpus;
	size_t count;
	size_t cap;
};

/* How a cell is read and written. */
enum cell_type {
	CELL_TEXT,     /* copied into a char array of 'size' bytes */
	CELL_KIND,     /* one of kind_names[] */
	CELL_QUANTITY, /* a positive quantity of 'unit' */
	CELL_PEAK,     /* FLOP/s of 'prec'; empty or 0 = not supported */
	CELL_BOOL,     /* yes/no, true/false, 1/0 */
	CELL_INT,      /* a whole number from 1 to 'max' */
	CELL_PRICE,    /* a non-negative plain number */
	CELL_AMOUNT,   /* a positive plain number; empty = 0, unknown */
	CELL_WORD,     /* text of letters, digits, '-', '.', '_' */
	CELL_FRACTION, /* a plain number in (0, 1] */
	CELL_UNSET_FRACTION, /* as CELL_FRACTION; empty = 0, not given */
};

enum column_id {
	COLUMN_NAME,
	COLUMN_VENDOR,
	COLUMN_KIND,
	COLUMN_MEMORY,
	COLUMN_MEM_BW,
	COLUMN_FP32,
	COLUMN_TF32,
	COLUMN_BF16,
	COLUMN_FP16,
	COLUMN_FP8,
	COLUMN_INT8,
	COLUMN_INT4,
	COLUMN_FP4,
	COLUMN_SPARSITY,
	COLUMN_SMS,
	COLUMN_TDP,
	COLUMN_IDLE_POWER,
	COLUMN_GPUS_PER_NODE,
	COLUMN_INTRA_BW,
	COLUMN_NVLINK_SHARP,
	COLUMN_INTRA_MESH,
	COLUMN_INTER_BW,
	COLUMN_HOST_LINK_BW,
	COLUMN_HOST_MEMORY,
	COLUMN_PRICE,
	COLUMN_PRICE_BASIS,
	COLUMN_RENT_MAX_GPUS,
	COLUMN_CAPEX,
	COLUMN_MATMUL_EFF,
	COLUMN_FP8_MATMUL_EFF,
	COLUMN_MEM_EFF,
	COLUMN_SOURCE,
	COLUMN_COUNT
};

struct column {
	const char *name;     /* header name, matched case-insensitively */
	enum cell_type type;
	size_t offset;        /* of the member in struct gpu_spec */
	size_t size;          /* CELL_TEXT, CELL_WORD: size of the array */
	int max;              /* CELL_INT: the largest value */
	enum unit_kind unit;  /* CELL_QUANTITY */
	enum precision prec;  /* CELL_PEAK */
	bool int_ops;         /* CELL_PEAK: written in TOPS, not TFLOPS */
	bool required;        /* the column must be present, the cell set */
};

/* The columns, in the order of the header that catalog_write_csv writes. */
extern const struct column catalog_columns[COLUMN_COUNT];

/* How a value is checked (catalog_check.c). */
enum value_rule {
	RULE_POSITIVE, /* finite, > 0 */
	RULE_NONNEG,   /* finite, >= 0 */
	RULE_FRACTION, /* finite, in (0, 1] */
	RULE_PEAK,     /* 0 (no math in the format), or as RULE_POSITIVE */
	RULE_UNSET_POSITIVE, /* 0 (unknown), or as RULE_POSITIVE */
	RULE_UNSET_FRACTION, /* 0 (not given), or as RULE_FRACTION */
};

/* True when 'v' obeys 'rule'. */
bool catalog_rule_holds(enum value_rule rule, double v);

/* What 'rule' asks, for messages. */
extern const char *const catalog_rule_text[];

/* The least value of column 'id' (its text in '*text'); 0 when none. */
double catalog_min_of(enum column_id id, const char **text);

/* The largest value of a quantity or peak column 'id' (its text, in the
   column's base unit, in '*text'); 0 when the column has none. */
double catalog_max_of(enum column_id id, const char **text);

/* A price basis: a non-empty word of ASCII letters, digits, '-', '.' and
   '_' (a key of JSON output and of comparisons, never free text). */
bool catalog_is_word(const char *s, size_t len);

/* True when 'g' has a peak in some precision. */
bool catalog_has_any_precision(const struct gpu_spec *g);

/* The double member of 'g' that column 'c' holds. */
static inline const double *
catalog_spec_double(const struct gpu_spec *g, const struct column *c)
{
	return (const double *)(const void *)((const char *)g + c->offset);
}

/* A space or a tab. */
static inline bool catalog_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

#endif
