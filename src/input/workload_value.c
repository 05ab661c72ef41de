/*
 * workload_value.c - the value of one workload key: parsing its text (numbers,
 * quantities with units, names, lists), its range, and the words that
 * describe what it accepts; see workload_keys.h.
 */
#include "workload_keys.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"

/* ---------------------------------------------------------------------
 * Values
 */

static void *key_field(const struct wl_key *k, struct workload *wl)
{
	return (char *)wl + k->offset;
}

const void *wl_key_cfield(const struct wl_key *k,
			      const struct workload *wl)
{
	return (const char *)wl + k->offset;
}

bool wl_key_is_enum(const struct wl_key *k)
{
	return k->type >= WLT_PRECISION;
}

static void enum_store(const struct wl_key *k, struct workload *wl, int v)
{
	void *f = key_field(k, wl);

	switch (k->type) {
	case WLT_PRECISION:
		*(enum precision *)f = (enum precision)v;
		break;
	case WLT_RECOMPUTE:
		*(enum recompute *)f = (enum recompute)v;
		break;
	case WLT_OPTIMIZER:
		*(enum optimizer *)f = (enum optimizer)v;
		break;
	case WLT_ATTENTION:
		*(enum attention_impl *)f = (enum attention_impl)v;
		break;
	case WLT_KIND:
		*(enum model_kind *)f = (enum model_kind)v;
		break;
	case WLT_PERCENTILE:
		*(enum slo_percentile *)f = (enum slo_percentile)v;
		break;
	case WLT_SPARSITY:
		*(bool *)f = v != 0;
		break;
	case WLT_INTENUM:
		*(int *)f = v;
		break;
	default:
		break;
	}
}

int wl_enum_load(const struct wl_key *k, const struct workload *wl)
{
	const void *f = wl_key_cfield(k, wl);

	switch (k->type) {
	case WLT_PRECISION:
		return (int)*(const enum precision *)f;
	case WLT_RECOMPUTE:
		return (int)*(const enum recompute *)f;
	case WLT_OPTIMIZER:
		return (int)*(const enum optimizer *)f;
	case WLT_ATTENTION:
		return (int)*(const enum attention_impl *)f;
	case WLT_KIND:
		return (int)*(const enum model_kind *)f;
	case WLT_PERCENTILE:
		return (int)*(const enum slo_percentile *)f;
	case WLT_SPARSITY:
		return *(const bool *)f ? 1 : 0;
	case WLT_INTENUM:
		return *(const int *)f;
	default:
		return -1;
	}
}

/* Index of 'text' in 'names' (case-insensitive), or -1. */
static int names_find(const struct wl_name *names, const char *text)
{
	for (int i = 0; names[i].name; i++)
		if (strcasecmp(names[i].name, text) == 0)
			return i;
	return -1;
}

bool wl_names_have(const struct wl_name *names, int value)
{
	for (; names->name; names++)
		if (names->value == value)
			return true;
	return false;
}

/* "a, b, c" */
void wl_names_list(const struct wl_name *names, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; names[i].name && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s",
				 i ? ", " : "", names[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static void describe_value(const struct wl_key *k, char *buf, size_t size);

/* What a key accepts, for messages: "a positive integer or 'auto'". */
void wl_key_describe(const struct wl_key *k, char *buf, size_t size)
{
	size_t n;

	describe_value(k, buf, size);
	/* an integer's text says 'auto' itself; a fraction's too */
	n = strlen(buf);
	if (k->type != WLT_INT && k->type != WLT_FRACTION &&
	    (k->flags & (WLK_AUTO | WLK_AUTO_NEG)) && n < size)
		snprintf(buf + n, size - n, " or 'auto'");
}

static void describe_value(const struct wl_key *k, char *buf, size_t size)
{
	const char *noun = k->type == WLT_QUANTITY ? units_kind_name(k->unit)
						   : "number";
	const char *or_auto = k->flags & (WLK_AUTO | WLK_AUTO_NEG) ?
				      " or 'auto'" : "";
	int n;

	if (k->type == WLT_FRACTION) {
		snprintf(buf, size, "true, false, 'auto' or a fraction from "
			 "%g to %g", k->min, k->max);
		return;
	}
	if (k->type == WLT_INT) {
		if (k->min == 1 && k->max == INT_MAX)
			snprintf(buf, size, "a positive integer%s", or_auto);
		else
			snprintf(buf, size, "an integer from %d to %d%s",
				 (int)k->min, (int)k->max, or_auto);
		return;
	}
	if (isfinite(k->max) && k->type == WLT_QUANTITY) {
		char most[32];

		if (k->unit == UNIT_COUNT || k->unit == UNIT_MONEY)
			snprintf(most, sizeof(most), "%g", k->max);
		else
			units_format(most, sizeof(most), k->max, k->unit, 4);
		double ex;

		n = snprintf(buf, size, "a %s%s of at most %s",
			     (k->flags & WLK_GT) ? "positive " : "", noun, most);
		/* the kind's example, when it is in range */
		if (units_parse(units_example(k->unit), k->unit, &ex, NULL) ==
			    0 &&
		    ex <= k->max && n > 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, " such as '%s'",
				 units_example(k->unit));
		return;
	}
	if (k->type == WLT_QUANTITY && k->min > 0 && !isfinite(k->max)) {
		char least[32];

		units_format(least, sizeof(least), k->min, k->unit, 4);
		snprintf(buf, size, "a %s of at least %s such as '%s'", noun,
			 least, units_example(k->unit));
		return;
	}
	if (isfinite(k->max) && (k->flags & WLK_GT))
		n = snprintf(buf, size, "a %s above %g, at most %g", noun,
			     k->min, k->max);
	else if (isfinite(k->max))
		n = snprintf(buf, size, "a %s from %g to %g", noun, k->min,
			     k->max);
	else if (k->min == 0 && (k->flags & WLK_GT))
		n = snprintf(buf, size, "a positive %s", noun);
	else if (k->min == 0)
		n = snprintf(buf, size, "a non-negative %s", noun);
	else
		n = snprintf(buf, size, "a %s of at least %g", noun, k->min);
	if (k->type == WLT_QUANTITY && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " such as '%s'",
			 units_example(k->unit));
}

bool wl_in_range(const struct wl_key *k, double v)
{
	if (k->flags & WLK_GT ? !(v > k->min) : !(v >= k->min))
		return false;
	return v <= k->max;
}

static int value_error(const struct wl_key *k, const char *label,
		       const char *text, const struct wl_where *at,
		       struct diag *err)
{
	char what[128];

	wl_key_describe(k, what, sizeof(what));
	return diag_set(err, at->file, at->line, at->col,
			"'%s' must be %s, got '%s'", label, what, text);
}

static int parse_int(const struct wl_key *k, const char *text,
		     const char *label, int *out, const struct wl_where *at,
		     struct diag *err)
{
	char *end;
	long long v;

	if (k->flags & (WLK_AUTO | WLK_AUTO_NEG) &&
	    strcasecmp(text, "auto") == 0) {
		*out = k->flags & WLK_AUTO ? WL_AUTO : WL_AUTO_NEG;
		return 0;
	}
	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end != '\0')
		return value_error(k, label, text, at, err);
	/* beyond long long, beyond int or beyond the key's bound: the
	   message gives the range */
	if (errno == ERANGE || !wl_in_range(k, (double)v))
		return value_error(k, label, text, at, err);
	*out = (int)v;
	return 0;
}

static int parse_number(const struct wl_key *k, const char *text,
			const char *label, double *out,
			const struct wl_where *at, struct diag *err)
{
	char *end;
	double v;

	if ((k->flags & (WLK_AUTO | WLK_AUTO_NEG)) &&
	    strcasecmp(text, "auto") == 0) {
		*out = k->flags & WLK_AUTO ? WL_AUTO : WL_AUTO_NEG;
		return 0;
	}
	/* strtod would take hexadecimal floats; units_parse does not */
	if (strpbrk(text, "xX"))
		return value_error(k, label, text, at, err);
	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end != '\0')
		return value_error(k, label, text, at, err);
	if (errno == ERANGE)
		return diag_set(err, at->file, at->line, at->col,
				"'%s' is out of range, got '%s'", label,
				text);
	if (isnan(v) || isinf(v))
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be a finite number, got '%s'",
				label, text);
	if (!wl_in_range(k, v))
		return value_error(k, label, text, at, err);
	*out = v;
	return 0;
}

static int parse_quantity(const struct wl_key *k, const char *text,
			  const char *label, double *out,
			  const struct wl_where *at, struct diag *err)
{
	const char *why = NULL;
	char what[128];
	double v = 0;

	if ((k->flags & WLK_AUTO_NEG) && strcasecmp(text, "auto") == 0) {
		*out = WL_AUTO_NEG;
		return 0;
	}
	if (units_parse(text, k->unit, &v, &why) < 0) {
		wl_key_describe(k, what, sizeof(what));
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be %s, got '%s': %s", label, what,
				text, why ? why : "invalid value");
	}
	if (!isfinite(v))
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be finite, got '%s'", label, text);
	if (!wl_in_range(k, v))
		return value_error(k, label, text, at, err);
	*out = v;
	return 0;
}

/* A name is UTF-8 without control characters; the column of the first
   offending byte when the value's column is known. */
static int name_check(const char *text, const char *label,
		      const struct wl_where *at, struct diag *err)
{
	size_t off = 0;
	unsigned char byte = 0;
	int col;

	switch (text_check_name(text, strlen(text), &off, &byte)) {
	case TEXT_OK:
		return 0;
	case TEXT_CONTROL:
		col = at->col > 0 ? at->col + (int)off : 0;
		return diag_set(err, at->file, at->line, col,
				"'%s' contains a control character (0x%02x)",
				label, byte);
	case TEXT_BAD_UTF8:
	default:
		col = at->col > 0 ? at->col + (int)off : 0;
		return diag_set(err, at->file, at->line, col,
				"'%s' is not valid UTF-8 (byte 0x%02x)", label,
				byte);
	}
}

/*
 * A comma-separated list of 'k->names' (blanks around each allowed) into
 * the OR of their values; the column of an unknown or empty item.
 */
static int parse_flags(const struct wl_key *k, const char *text,
		       const char *label, int *out, const struct wl_where *at,
		       struct diag *err)
{
	char list[128], item[WL_WORD_MAX + 1];
	const char *p = text;
	int bits = 0;

	wl_names_list(k->names, list, sizeof(list));
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t lead = 0, n;
		int i, col;

		while (lead < len && isspace((unsigned char)p[lead]))
			lead++;
		n = len - lead;
		while (n > 0 && isspace((unsigned char)p[lead + n - 1]))
			n--;
		col = at->col > 0 ? at->col + (int)(p - text) + (int)lead : 0;
		if (n == 0 || n > WL_WORD_MAX)
			return diag_set(err, at->file, at->line, col,
					"'%s' must be a comma-separated list "
					"of %s, got '%s'",
					label, list, text);
		memcpy(item, p + lead, n);
		item[n] = '\0';
		i = names_find(k->names, item);
		if (i < 0)
			return diag_set(err, at->file, at->line, col,
					"'%s': unknown item '%s'; expected "
					"%s",
					label, item, list);
		bits |= k->names[i].value;
		if (!end)
			break;
		p = end + 1;
	}
	*out = bits;
	return 0;
}

/*
 * Parse 'text' (blanks already stripped) for key 'k' and store it in 'wl'.
 * 'label' names the key in messages.
 */
int wl_key_parse(const struct wl_key *k, const char *text,
		     const char *label, struct workload *wl,
		     const struct wl_where *at, struct diag *err)
{
	void *f = key_field(k, wl);
	char list[128];
	size_t len = strlen(text);
	int i;

	if (len == 0)
		return diag_set(err, at->file, at->line, at->col,
				"empty value for '%s'", label);

	switch (k->type) {
	case WLT_STRING: {
		/* 'max' holds the buffer size where it is not WL_NAME_MAX */
		size_t size = k->max > 0 ? (size_t)k->max : WL_NAME_MAX;

		if (len >= size)
			return diag_set(err, at->file, at->line, at->col,
					"'%s' is too long (at most %zu bytes)",
					label, size - 1);
		/* a name reaches tables, JSON and SVG: text only (paths
		   are the file system's business) */
		if ((k->offset == WL_OFF(model.name) ||
		     k->offset == WL_OFF(inference.engine) ||
		     k->offset == WL_OFF(training.framework)) &&
		    name_check(text, label, at, err) < 0)
			return -1;
	}
		memcpy(f, text, len + 1);
		return 0;
	case WLT_INT:
		return parse_int(k, text, label, f, at, err);
	case WLT_BOOL:
		i = names_find(k->names, text);
		if (i < 0)
			return diag_set(err, at->file, at->line, at->col,
					"'%s' must be true or false (yes/no, "
					"on/off, 1/0), got '%s'",
					label, text);
		*(bool *)f = k->names[i].value != 0;
		return 0;
	case WLT_TRISTATE:
		if (strcasecmp(text, "auto") == 0) {
			*(int *)f = WL_AUTO_NEG;
			return 0;
		}
		i = names_find(k->names, text);
		if (i < 0)
			return diag_set(err, at->file, at->line, at->col,
					"'%s' must be true, false or auto, "
					"got '%s'", label, text);
		*(int *)f = k->names[i].value;
		return 0;
	case WLT_FRACTION:
		if (strcasecmp(text, "auto") == 0) {
			*(double *)f = WL_OFFLOAD_AUTO;
			return 0;
		}
		i = names_find(k->names, text);
		if (i >= 0) {
			*(double *)f = k->names[i].value;
			return 0;
		}
		return parse_number(k, text, label, f, at, err);
	case WLT_NUMBER:
		return parse_number(k, text, label, f, at, err);
	case WLT_QUANTITY:
		return parse_quantity(k, text, label, f, at, err);
	case WLT_FLAGS:
		return parse_flags(k, text, label, f, at, err);
	case WLT_WIDTHS: {
		char why[128];
		size_t off = 0;

		if (wl_parse_widths(text, f, &off, why, sizeof(why)) < 0)
			return diag_set(err, at->file, at->line,
					at->col > 0 ? at->col + (int)off : 0,
					"'%s' must be a comma-separated list "
					"of layer widths such as "
					"'512,256,128': %s, got '%s'",
					label, why, text);
		return 0;
	}
	case WLT_ROWS: {
		char why[128];
		size_t off = 0;
		struct wl_rows r;
		double sum = 0.0;

		if (wl_parse_rows(text, k->max, &r, &off, why, sizeof(why)) < 0)
			return diag_set(err, at->file, at->line,
					at->col > 0 ? at->col + (int)off : 0,
					"'%s' must be a row count, or a "
					"comma-separated list of one per table "
					"such as '40M,3,1.2M': %s, got '%s'",
					label, why, text);
		for (int j = 0; j < r.n; j++)
			sum += r.rows[j];
		/* one count: every table; a list: each table's */
		*(double *)f = sum / r.n;
		wl->model.table_rows.n = r.n > 1 ? r.n : 0;
		if (r.n > 1)
			memcpy(wl->model.table_rows.rows, r.rows,
			       sizeof(r.rows[0]) * (size_t)r.n);
		return 0;
	}
	default:
		break;
	}
	i = names_find(k->names, text);
	if (i < 0 && k->type == WLT_INTENUM && k->max > 0) {
		/* a keyword or an integer of the key's range
		   (training.zero_shard) */
		char *end;
		long long v;

		errno = 0;
		v = strtoll(text, &end, 10);
		if (end != text && *end == '\0' && errno != ERANGE &&
		    wl_in_range(k, (double)v)) {
			enum_store(k, wl, (int)v);
			return 0;
		}
		wl_names_list(k->names, list, sizeof(list));
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be one of %s or an integer from "
				"%.0f to %.0f, got '%s'", label, list, k->min,
				k->max, text);
	}
	if (i < 0) {
		wl_names_list(k->names, list, sizeof(list));
		return diag_set(err, at->file, at->line, at->col,
				"'%s' must be one of %s, got '%s'", label,
				list, text);
	}
	enum_store(k, wl, k->names[i].value);
	return 0;
}

/* What key 'k' accepts, in full: wl_key_describe's numbers, and the
   words of every other type as wl_key_parse's messages give them. */
static void key_accepts(const struct wl_key *k, char *buf, size_t size)
{
	char list[256];

	switch (k->type) {
	case WLT_STRING:
		/* a stack names a row of the stack table; a buffer of its
		   own ('max') is otherwise a path's */
		if (k->offset == WL_OFF(inference.engine) ||
		    k->offset == WL_OFF(training.framework)) {
			snprintf(buf, size, "a stack of the stack table, "
					    "NAME or NAME@VERSION ('capplan "
					    "stacks')");
			return;
		}
		snprintf(buf, size, "%s of at most %zu bytes",
			 k->max > 0 ? "a file path" : "a name",
			 (k->max > 0 ? (size_t)k->max : WL_NAME_MAX) - 1);
		return;
	case WLT_BOOL:
		snprintf(buf, size, "true or false (yes/no, on/off, 1/0)");
		return;
	case WLT_TRISTATE:
		snprintf(buf, size, "true, false or auto");
		return;
	case WLT_INT:
	case WLT_NUMBER:
	case WLT_QUANTITY:
	case WLT_FRACTION:
		wl_key_describe(k, buf, size);
		return;
	case WLT_FLAGS:
		wl_names_list(k->names, list, sizeof(list));
		snprintf(buf, size, "a comma-separated list of %s", list);
		return;
	case WLT_WIDTHS:
		snprintf(buf, size, "a comma-separated list of layer widths "
			 "such as '512,256,128'");
		return;
	case WLT_ROWS:
		snprintf(buf, size, "a row count, or a comma-separated list of "
			 "one per table such as '40M,3,1.2M'");
		return;
	default:
		break;
	}
	wl_names_list(k->names, list, sizeof(list));
	if (k->type == WLT_INTENUM && k->max > 0)
		snprintf(buf, size, "one of %s or an integer from %.0f to %.0f",
			 list, k->min, k->max);
	else
		snprintf(buf, size, "one of %s", list);
}

size_t workload_key_count(void)
{
	return wl_key_count;
}

int workload_key_find(const char *section, const char *key)
{
	return wl_key_find(section, key);
}

const char *workload_key_section(size_t i)
{
	return i < wl_key_count ? wl_keys[i].section : NULL;
}

const char *workload_key_name(size_t i)
{
	return i < wl_key_count ? wl_keys[i].key : NULL;
}

const char *workload_key_meaning(size_t i)
{
	return i < wl_key_count ? wl_keys[i].meaning : NULL;
}

bool workload_key_given(const struct workload *wl, size_t i)
{
	return i < wl_key_count && wl->given[i];
}

bool workload_key_stacked(const struct workload *wl, size_t i)
{
	return i < wl_key_count && wl->stacked[i] && !wl->given[i];
}

/* The bytes of a scalar field of key 'k' (0: not a scalar). */
static size_t scalar_size(const struct wl_key *k)
{
	switch (k->type) {
	case WLT_INT:
	case WLT_TRISTATE:
	case WLT_FLAGS:
	case WLT_INTENUM:
		return sizeof(int);
	case WLT_BOOL:
	case WLT_SPARSITY:
		return sizeof(bool);
	case WLT_NUMBER:
	case WLT_QUANTITY:
	case WLT_FRACTION:
		return sizeof(double);
	case WLT_PRECISION:
		return sizeof(enum precision);
	case WLT_RECOMPUTE:
		return sizeof(enum recompute);
	case WLT_OPTIMIZER:
		return sizeof(enum optimizer);
	case WLT_ATTENTION:
		return sizeof(enum attention_impl);
	case WLT_KIND:
		return sizeof(enum model_kind);
	case WLT_PERCENTILE:
		return sizeof(enum slo_percentile);
	default:
		return 0;
	}
}

void workload_key_unstack(struct workload *wl, const struct workload *init,
			  size_t i)
{
	const struct wl_key *k;
	size_t n;

	if (i >= wl_key_count || !wl->stacked[i])
		return;
	wl->stacked[i] = 0;
	if (wl->given[i])
		return;
	k = &wl_keys[i];
	n = scalar_size(k);
	if (n > 0)
		memcpy(key_field(k, wl), wl_key_cfield(k, init), n);
}

int workload_key_apply(struct workload *wl, size_t i, const char *text,
		       const char *file, int line, int col, struct diag *err)
{
	struct wl_where at = { file, line, col };
	char label[WL_SET_MAX];

	if (i >= wl_key_count)
		return diag_set(err, file, line, col, "no such key");
	snprintf(label, sizeof(label), "%s.%s", wl_keys[i].section,
		 wl_keys[i].key);
	return wl_key_parse(&wl_keys[i], text, label, wl, &at, err) < 0 ? -1 :
									      0;
}

void workload_key_info(size_t i, const char **section, const char **key,
		       char *accepts, size_t size)
{
	const struct wl_key *k = &wl_keys[i];

	*section = k->section;
	*key = k->key;
	key_accepts(k, accepts, size);
}

/* The name of 'v' among 'names', or NULL. */
static const char *name_of_value(const struct wl_name *names, int v)
{
	for (; names && names->name; names++)
		if (names->value == v)
			return names->name;
	return NULL;
}

/* What workload_init leaves in key 'k', written as a file would give it:
   "auto" for a key left to capplan, "unset" for one 0 leaves out. */
static void key_default(const struct wl_key *k, const struct workload *wl,
			char *buf, size_t size)
{
	const void *f = wl_key_cfield(k, wl);
	const char *name;
	double d;
	int v;

	if (wl_key_is_enum(k)) {
		v = wl_enum_load(k, wl);
		name = name_of_value(k->names, v);
		if (name)
			snprintf(buf, size, "%s", name);
		else if (k->type == WLT_INTENUM && v > 0)
			snprintf(buf, size, "%d", v);
		else
			snprintf(buf, size, "unset");
		return;
	}
	switch (k->type) {
	case WLT_STRING:
		snprintf(buf, size, "%s", *(const char *)f ? (const char *)f :
				  k->offset == WL_OFF(inference.engine) ||
				  k->offset == WL_OFF(training.framework) ?
							     "generic" :
							     "unset");
		return;
	case WLT_BOOL:
		snprintf(buf, size, "%s", *(const bool *)f ? "true" : "false");
		return;
	case WLT_TRISTATE:
		v = *(const int *)f;
		snprintf(buf, size, "%s", v == WL_AUTO_NEG ? "auto" :
					  v ? "true" : "false");
		return;
	case WLT_INT:
		v = *(const int *)f;
		if ((k->flags & WLK_AUTO) && v == WL_AUTO)
			snprintf(buf, size, "auto");
		else if ((k->flags & WLK_AUTO_NEG) && v == WL_AUTO_NEG)
			snprintf(buf, size, "auto");
		else if ((k->flags & WLK_UNSET0) && v == 0)
			snprintf(buf, size, "unset");
		else
			snprintf(buf, size, "%d", v);
		return;
	case WLT_FLAGS:
		v = *(const int *)f;
		name = name_of_value(k->names, v);
		snprintf(buf, size, "%s", name ? name : v ? "set" : "unset");
		return;
	case WLT_WIDTHS:
	case WLT_ROWS:
		snprintf(buf, size, "unset");
		return;
	case WLT_FRACTION:
	case WLT_NUMBER:
	case WLT_QUANTITY:
		d = *(const double *)f;
		if ((k->type == WLT_FRACTION && d == WL_OFFLOAD_AUTO) ||
		    ((k->flags & WLK_AUTO_NEG) && d == WL_AUTO_NEG) ||
		    ((k->flags & WLK_AUTO) && d == WL_AUTO))
			snprintf(buf, size, "auto");
		else if ((k->flags & WLK_UNSET0) && d == 0.0)
			snprintf(buf, size, "unset");
		else if (k->type == WLT_QUANTITY)
			units_format_plain(buf, size, d, k->unit, 4);
		else
			snprintf(buf, size, "%.4g", d);
		return;
	default:
		snprintf(buf, size, "unset");
		return;
	}
}

void workload_key_default(size_t i, char *buf, size_t size)
{
	struct workload *wl = malloc(sizeof(*wl));

	if (!wl) {
		snprintf(buf, size, "unset");
		return;
	}
	workload_init(wl);
	key_default(&wl_keys[i], wl, buf, size);
	free(wl);
}
