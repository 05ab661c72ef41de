/*
 * workload_keys.h - private to the files of the workload reader
 * (src/input/workload*.c): the key table and what reads, describes and
 * checks a key's value.
 *
 *   workload_keys.c   the key table, the names of enumerated values,
 *                     the defaults, key lookup
 *   workload_value.c  one key's value: parsing, ranges, descriptions
 *   workload.c        INI files, --set overrides, the files a key names
 *   workload_check.c  the consistency checks of a whole workload
 *   workload_sample.c the keys of per-sample models (workload_sample.h)
 */
#ifndef CAPPLAN_WORKLOAD_KEYS_H
#define CAPPLAN_WORKLOAD_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "units.h"
#include "workload.h"
#include "workload_sample.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define WL_OFF(field) offsetof(struct workload, field)

/* inih reads lines into a buffer of 200 bytes; keep well inside it. */
#define WL_LINE_MAX 190
/* A workload file is a page of text; anything this large is a mistake. */
#define WL_FILE_MAX (4 * 1024 * 1024)
/* Longest key or section name the suggestion search considers. */
#define WL_WORD_MAX 64
/* Slowest link a workload may give (cluster.intra_bw, inter_bw), B/s. */
#define WL_MIN_BW_BYTES_PER_S 1e6
/* Longest --set expression. */
#define WL_SET_MAX 512
/* Longest path of a file a workload names (model.hf_config, model.onnx). */
#define WL_PATH_MAX 256
_Static_assert(sizeof(((struct workload *)0)->model.hf_config) == WL_PATH_MAX &&
		       sizeof(((struct workload *)0)->model.onnx) == WL_PATH_MAX,
	       "model file paths are WL_PATH_MAX bytes");

enum wl_type {
	WLT_STRING,    /* char[WL_NAME_MAX] */
	WLT_INT,       /* int in [min, max] */
	WLT_BOOL,      /* bool */
	WLT_TRISTATE,  /* int: 0, 1 or WL_AUTO_NEG */
	WLT_NUMBER,    /* double, plain number (strtod) */
	WLT_QUANTITY,  /* double, units_parse of 'unit' */
	WLT_FLAGS,     /* int, a bit set: a comma-separated list of 'names' */
	WLT_FRACTION,  /* double in [min, max], a boolean of 'names' (1 or
			  0) or "auto" (WL_OFFLOAD_AUTO) */
	WLT_WIDTHS,    /* struct wl_widths: a comma-separated list of layer
			  widths in [min, max] */
	WLT_ROWS,      /* double model.embedding_rows: one count (every
			  table) or a comma-separated list of counts, one per
			  table, kept in model.table_rows (their mean in the
			  double) */
	WLT_PRECISION, /* enum precision, one of 'names' */
	WLT_RECOMPUTE, /* enum recompute, one of 'names' */
	WLT_OPTIMIZER, /* enum optimizer, one of 'names' */
	WLT_ATTENTION, /* enum attention_impl, one of 'names' */
	WLT_KIND,      /* enum model_kind, one of 'names' */
	WLT_PERCENTILE, /* enum slo_percentile, one of 'names' */
	WLT_SPARSITY,  /* bool, one of 'names' */
	WLT_INTENUM,   /* int, one of 'names' */
};

enum {
	WLK_AUTO = 1 << 0,     /* "auto" stores WL_AUTO (0) */
	WLK_AUTO_NEG = 1 << 1, /* "auto" stores WL_AUTO_NEG (-1) */
	WLK_UNSET0 = 1 << 2,   /* 0 means "not given" (allowed by validate) */
	WLK_GT = 1 << 3,       /* the value must exceed 'min' */
};

struct wl_key {
	const char *section;
	const char *key;
	enum wl_type type;
	size_t offset;        /* of the field in struct workload */
	unsigned flags;       /* WLK_* */
	double min, max;      /* accepted range (ints and numbers) */
	enum unit_kind unit;  /* WLT_QUANTITY */
	const struct wl_name *names; /* enum types; NULL-terminated */
	const char *meaning;  /* what the key means, in at most 60
				 characters with its unit where it has one
				 (specs/workload.md gives it in full) */
};

/* Where a value came from, for messages. */
struct wl_where {
	const char *file;
	int line;
	int col;
};

/* The key table (workload_keys.c): the public interface of workload files. */
extern const struct wl_key wl_keys[];
extern const size_t wl_key_count;

/* workload_keys.c */
/* The KV-cache format that follows a weight format. */
enum precision wl_kv_following(enum precision weight);
/* Whether 's' (length 'len') names a section. */
bool wl_section_known(const char *s, size_t len);
/* Index of 'section.key' in wl_keys, or -1. */
int wl_key_find(const char *section, const char *key);
/* The key of 'section' nearest 'key' by edit distance, or NULL. */
const struct wl_key *wl_key_closest(const char *section, const char *key);
/* "section.key", or "key" when no other section has it, in 'buf'. */
const char *wl_key_label(const struct wl_key *k, char *buf, size_t size);

/* workload_value.c */
const void *wl_key_cfield(const struct wl_key *k, const struct workload *wl);
bool wl_key_is_enum(const struct wl_key *k);
/* The value of an enumerated key, as an int. */
int wl_enum_load(const struct wl_key *k, const struct workload *wl);
bool wl_names_have(const struct wl_name *names, int value);
/* The names of 'names' as "a, b or c" in 'buf'. */
void wl_names_list(const struct wl_name *names, char *buf, size_t size);
/* What key 'k' accepts, in words, in 'buf'. */
void wl_key_describe(const struct wl_key *k, char *buf, size_t size);
bool wl_in_range(const struct wl_key *k, double v);
/*
 * Parse 'text' (blanks already stripped) for key 'k' and store it in 'wl';
 * 'label' names the key in messages, 'at' where the value stands.  0, or
 * -1 with the message in 'err'.
 */
int wl_key_parse(const struct wl_key *k, const char *text, const char *label,
		 struct workload *wl, const struct wl_where *at,
		 struct diag *err);

/* workload.c */
/* Index of 'section.key' in wl_keys, 0 when there is none. */
int wl_find_key_index(const char *section, const char *key);

#endif
