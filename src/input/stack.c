/*
 * stack.c - the stack table: serving engines and training frameworks as
 * rows of the values they give workload keys; see stack.h and
 * specs/stacks.md.
 */
#include "stack.h"

#include <csv.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_read.h"
#include "readfile.h"
#include "text.h"

/* Generated at build time from specs/stacks.csv by scripts/embed.sh. */
extern const char stacks_default_csv[];
extern const size_t stacks_default_csv_len;

#define STACK_FILE_MAX (1024 * 1024)
#define STACK_COLUMN_NAME_MAX 64

static const char *const kind_names[STACK_KIND_COUNT] = {
	[STACK_ENGINE] = "engine",
	[STACK_FRAMEWORK] = "framework",
};

/* the section of a kind's keys, and the key that names its stack */
static const char *const kind_sections[STACK_KIND_COUNT] = {
	[STACK_ENGINE] = "inference",
	[STACK_FRAMEWORK] = "training",
};

static const char *const kind_keys[STACK_KIND_COUNT] = {
	[STACK_ENGINE] = "inference.engine",
	[STACK_FRAMEWORK] = "training.framework",
};

const char *stack_kind_name(enum stack_kind k)
{
	return k < STACK_KIND_COUNT ? kind_names[k] : "?";
}

const char *stack_kind_key(enum stack_kind k)
{
	return k < STACK_KIND_COUNT ? kind_keys[k] : "?";
}

/* ---------------------------------------------------------------------
 * Reading
 */

enum column_role {
	COL_KIND,
	COL_NAME,
	COL_VERSION,
	COL_SOURCE,
	COL_KEY, /* a workload key of one section or both */
};

struct column {
	enum column_role role;
	char name[STACK_COLUMN_NAME_MAX];
	int key[STACK_KIND_COUNT]; /* its index in each kind's section, or
				      -1 */
	struct csv_pos at;
};

struct parse_ctx {
	struct csv_reader rd; /* first: the callbacks get it */
	struct stack_table *t;
	size_t cap;
	struct column cols[STACK_COLUMNS_MAX];
	int ncols;
	bool header_done;
	bool have[COL_KEY];     /* the header's required columns */
	struct stack_row row;   /* being read */
	bool row_kind_known;
	/* the row's fields until its kind is known (kind may come last) */
	char text[STACK_COLUMNS_MAX][STACK_VALUE_MAX];
	struct csv_pos at[STACK_COLUMNS_MAX];
	int nfields;
};

#define parse_fail(ctx, ...) csv_read_fail(&(ctx)->rd, __VA_ARGS__)

static void header_field(struct parse_ctx *c, const char *text, size_t len,
			 struct csv_pos at)
{
	static const struct {
		const char *name;
		enum column_role role;
	} fixed[] = {
		{ "kind", COL_KIND },
		{ "name", COL_NAME },
		{ "version", COL_VERSION },
		{ "source", COL_SOURCE },
	};
	struct column *col;

	if (c->ncols == STACK_COLUMNS_MAX) {
		parse_fail(c, at, "more than %d columns", STACK_COLUMNS_MAX);
		return;
	}
	col = &c->cols[c->ncols];
	memset(col, 0, sizeof(*col));
	col->at = at;
	if (len == 0 || len >= sizeof(col->name)) {
		parse_fail(c, at, "expected a column name of 1 to %zu bytes",
			   sizeof(col->name) - 1);
		return;
	}
	memcpy(col->name, text, len + 1);
	for (int i = 0; i < c->ncols; i++)
		if (strcmp(c->cols[i].name, col->name) == 0) {
			parse_fail(c, at, "column '%s' appears twice (first "
					  "at column %d)",
				   col->name, c->cols[i].at.col);
			return;
		}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(col->name, fixed[i].name) == 0) {
			col->role = fixed[i].role;
			c->have[col->role] = true;
			c->ncols++;
			return;
		}
	col->role = COL_KEY;
	for (int k = 0; k < STACK_KIND_COUNT; k++)
		col->key[k] = workload_key_find(kind_sections[k], col->name);
	/* the stack's own names are not values a stack gives */
	if ((col->key[STACK_ENGINE] >= 0 &&
	     strcmp(col->name, "engine") == 0) ||
	    (col->key[STACK_FRAMEWORK] >= 0 &&
	     strcmp(col->name, "framework") == 0)) {
		parse_fail(c, at, "column '%s': a stack cannot name another",
			   col->name);
		return;
	}
	if (col->key[STACK_ENGINE] < 0 && col->key[STACK_FRAMEWORK] < 0) {
		parse_fail(c, at,
			   "unknown column '%s': expected kind, name, version, "
			   "source or a key of [inference] (engines) or "
			   "[training] (frameworks), as 'capplan help keys' "
			   "lists them",
			   col->name);
		return;
	}
	c->ncols++;
}

static void header_end(struct parse_ctx *c)
{
	static const char *const need[] = { "kind", "name", "version",
					    "source" };

	for (int r = 0; r < COL_KEY; r++)
		if (!c->have[r]) {
			parse_fail(c, c->rd.cur,
				   "the header lacks column '%s' (expected "
				   "kind, name, version, source and workload "
				   "keys)",
				   need[r]);
			return;
		}
	c->header_done = true;
}

static void row_field(struct parse_ctx *c, const char *text, size_t len,
		      struct csv_pos at)
{
	int i = c->nfields;
	size_t max = c->cols[i < c->ncols ? i : 0].role == COL_SOURCE ?
			     STACK_SOURCE_MAX :
			     STACK_VALUE_MAX;

	if (i >= c->ncols) {
		if (i == c->ncols)
			parse_fail(c, at,
				   "expected %d fields as the header has, "
				   "found more",
				   c->ncols);
		c->nfields++;
		return;
	}
	c->at[i] = at;
	if (len >= max) {
		parse_fail(c, at, "'%s' is too long (at most %zu bytes)",
			   c->cols[i].name, max - 1);
		return;
	}
	if (c->cols[i].role == COL_SOURCE) {
		memcpy(c->row.source, text, len + 1);
		c->text[i][0] = '\0';
	} else {
		memcpy(c->text[i], text, len + 1);
	}
	c->nfields++;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-' &&
		    *s != '_')
			return false;
	return true;
}

static bool valid_version(const char *s)
{
	if (!isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-')
			return false;
	return true;
}

/* The rest of a version part (to the next '.') compared as text, both
   pointers moved past it. */
static int text_part_cmp(const char **a, const char **b)
{
	size_t la = strcspn(*a, "."), lb = strcspn(*b, ".");
	int d = strncmp(*a, *b, la < lb ? la : lb);

	if (d == 0 && la != lb)
		d = la < lb ? -1 : 1;
	*a += la;
	*b += lb;
	return d;
}

/* Versions as dotted numbers ("0.11.0" > "0.6.3"); what follows a
   part's number ("1.0rc1"), or a part that is not one, compares as
   text. */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		int d;

		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			char *ea, *eb;
			unsigned long x = strtoul(a, &ea, 10);
			unsigned long y = strtoul(b, &eb, 10);

			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
		}
		d = text_part_cmp(&a, &b);
		if (d)
			return d;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
	}
	return 0;
}

static void row_end(struct parse_ctx *c)
{
	struct stack_row *r = &c->row;
	struct workload scratch;
	int kind_col = -1;

	if (c->nfields != c->ncols) {
		if (c->nfields < c->ncols)
			parse_fail(c, c->rd.cur,
				   "expected %d fields as the header has, "
				   "found %d",
				   c->ncols, c->nfields);
		return;
	}
	r->line = c->at[0].line;
	for (int i = 0; i < c->ncols; i++) {
		const char *v = c->text[i];

		switch (c->cols[i].role) {
		case COL_KIND:
			kind_col = i;
			if (strcmp(v, "engine") == 0)
				r->kind = STACK_ENGINE;
			else if (strcmp(v, "framework") == 0)
				r->kind = STACK_FRAMEWORK;
			else {
				parse_fail(c, c->at[i],
					   "'kind' must be engine or "
					   "framework, got '%s'",
					   v);
				return;
			}
			break;
		case COL_NAME:
			if (!valid_name(v) ||
			    strlen(v) >= sizeof(r->name)) {
				parse_fail(c, c->at[i],
					   "'name' must be 1 to %zu letters, "
					   "digits, '.', '-' or '_', got '%s'",
					   sizeof(r->name) - 1, v);
				return;
			}
			snprintf(r->name, sizeof(r->name), "%s", v);
			break;
		case COL_VERSION:
			if (!valid_version(v) ||
			    strlen(v) >= sizeof(r->version)) {
				parse_fail(c, c->at[i],
					   "'version' must start with a digit "
					   "and hold at most %zu letters, "
					   "digits, '.' or '-', got '%s'",
					   sizeof(r->version) - 1, v);
				return;
			}
			snprintf(r->version, sizeof(r->version), "%s", v);
			break;
		default:
			break;
		}
	}
	if (kind_col < 0)
		return;
	if (!r->source[0]) {
		parse_fail(c, c->at[0],
			   "'source' is empty: say where the values of %s "
			   "'%s' come from",
			   kind_names[r->kind], r->name);
		return;
	}
	for (size_t i = 0; i < c->t->n; i++) {
		const struct stack_row *o = &c->t->rows[i];

		if (o->kind == r->kind && strcasecmp(o->name, r->name) == 0 &&
		    version_cmp(o->version, r->version) == 0) {
			parse_fail(c, c->at[0],
				   "%s '%s' version %s is on line %d already",
				   kind_names[r->kind], r->name, r->version,
				   o->line);
			return;
		}
	}
	/* each value as the workload would take it */
	workload_init(&scratch);
	r->ncells = 0;
	for (int i = 0; i < c->ncols; i++) {
		const struct column *col = &c->cols[i];
		struct stack_cell *cell;
		struct diag e;

		if (col->role != COL_KEY || !c->text[i][0])
			continue;
		if (col->key[r->kind] < 0) {
			parse_fail(c, c->at[i],
				   "'%s' is not a key of [%s]: %s rows leave "
				   "it empty",
				   col->name, kind_sections[r->kind],
				   kind_names[r->kind]);
			return;
		}
		diag_clear(&e);
		if (workload_key_apply(&scratch, (size_t)col->key[r->kind],
				       c->text[i], c->t->file, c->at[i].line,
				       c->at[i].col, &e) != 0) {
			parse_fail(c, c->at[i], "%s", e.msg);
			return;
		}
		cell = &r->cells[r->ncells++];
		cell->key = col->key[r->kind];
		snprintf(cell->value, sizeof(cell->value), "%s", c->text[i]);
		cell->line = c->at[i].line;
		cell->col = c->at[i].col;
	}
	if (c->t->n == STACK_ROWS_MAX) {
		parse_fail(c, c->at[0], "more than %d rows", STACK_ROWS_MAX);
		return;
	}
	if (c->t->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct stack_row *rows =
			realloc(c->t->rows, cap * sizeof(*rows));

		if (!rows) {
			parse_fail(c, c->at[0], "out of memory");
			return;
		}
		c->t->rows = rows;
		c->cap = cap;
	}
	c->t->rows[c->t->n++] = *r;
}

static void on_field(struct csv_reader *rd, const char *text, size_t len,
		     struct csv_pos at)
{
	struct parse_ctx *c = (struct parse_ctx *)rd;

	if (!c->header_done)
		header_field(c, text, len, at);
	else
		row_field(c, text, len, at);
}

static void on_record(struct csv_reader *rd)
{
	struct parse_ctx *c = (struct parse_ctx *)rd;

	if (!c->header_done) {
		header_end(c);
		return;
	}
	row_end(c);
	memset(&c->row, 0, sizeof(c->row));
	c->nfields = 0;
}

int stack_parse(const char *buf, size_t len, const char *name,
		struct stack_table *t, struct diag *err)
{
	struct parse_ctx *c = calloc(1, sizeof(*c));
	int rc;

	memset(t, 0, sizeof(*t));
	if (!c)
		return diag_set(err, name, 0, 0, "out of memory");
	snprintf(t->file, sizeof(t->file), "%s", name ? name : "stacks");
	c->t = t;
	c->rd.file = t->file;
	c->rd.err = err;
	c->rd.comments = true;
	c->rd.on_field = on_field;
	c->rd.on_record = on_record;
	rc = csv_read(&c->rd, buf, len);
	if (rc == 0 && !c->header_done)
		rc = diag_set(err, t->file, 0, 0,
			      "no header: expected kind, name, version, "
			      "source and workload keys");
	free(c);
	if (rc != 0) {
		stack_release(t);
		return -1;
	}
	return 0;
}

int stack_load_file(const char *path, struct stack_table *t,
		    struct diag *err)
{
	char *buf;
	size_t len;
	int rc;

	if (readfile_all(path, READFILE_ANY, STACK_FILE_MAX, &buf, &len,
			 err) != 0)
		return -1;
	rc = stack_parse(buf, len, readfile_display_name(path), t, err);
	free(buf);
	return rc;
}

int stack_load_default(struct stack_table *t, struct diag *err)
{
	return stack_parse(stacks_default_csv, stacks_default_csv_len,
			   "<embedded stacks>", t, err);
}

const char *stack_default_csv(size_t *len)
{
	if (len)
		*len = stacks_default_csv_len;
	return stacks_default_csv;
}

void stack_release(struct stack_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

/* ---------------------------------------------------------------------
 * Finding and applying
 */

const struct stack_row *stack_find(const struct stack_table *t,
				   enum stack_kind kind, const char *spec)
{
	const struct stack_row *best = NULL;
	const char *at = strchr(spec, '@');
	size_t nlen = at ? (size_t)(at - spec) : strlen(spec);
	const char *want = at ? at + 1 : NULL;
	size_t wlen = want ? strlen(want) : 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct stack_row *r = &t->rows[i];

		if (r->kind != kind || strlen(r->name) != nlen ||
		    strncasecmp(r->name, spec, nlen) != 0)
			continue;
		if (want && !(strcmp(r->version, want) == 0 ||
			      (strncmp(r->version, want, wlen) == 0 &&
			       r->version[wlen] == '.')))
			continue;
		if (!best || version_cmp(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

/* The names (and versions) the table has of 'kind', for a message. */
static void list_names(const struct stack_table *t, enum stack_kind kind,
		       const char *name, size_t nlen, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && at < size; i++) {
		const struct stack_row *r = &t->rows[i];
		bool seen = false;
		int w;

		if (r->kind != kind)
			continue;
		if (name && !(strlen(r->name) == nlen &&
			      strncasecmp(r->name, name, nlen) == 0))
			continue;
		for (size_t j = 0; j < i && !name; j++)
			seen |= t->rows[j].kind == kind &&
				strcasecmp(t->rows[j].name, r->name) == 0;
		if (seen)
			continue;
		w = snprintf(buf + at, size - at, "%s%s", at ? ", " : "",
			     name ? r->version : r->name);
		if (w < 0)
			break;
		at += (size_t)w;
	}
	if (at >= size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

/* Edit distance of 'a' (its first 'alen' bytes) and 'b', ignoring case,
   stopping at 3 (far enough to suggest nothing). */
static int distance(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	int prev[STACK_NAME_MAX + 1], cur[STACK_NAME_MAX + 1];

	if (alen > STACK_NAME_MAX || blen > STACK_NAME_MAX)
		return 3;
	for (size_t j = 0; j <= blen; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= alen; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= blen; j++) {
			int sub = prev[j - 1] +
				  (tolower((unsigned char)a[i - 1]) !=
				   tolower((unsigned char)b[j - 1]));
			int del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) :
					     (del < ins ? del : ins);
		}
		memcpy(prev, cur, (blen + 1) * sizeof(int));
	}
	return prev[blen] < 3 ? prev[blen] : 3;
}

/* The name of 'kind' closest to 'name' (at most two edits), or NULL. */
static const char *closest(const struct stack_table *t, enum stack_kind kind,
			   const char *name, size_t nlen)
{
	const char *best = NULL;
	int bd = 3;

	for (size_t i = 0; i < t->n; i++) {
		int d;

		if (t->rows[i].kind != kind)
			continue;
		d = distance(name, nlen, t->rows[i].name);
		if (d < bd) {
			bd = d;
			best = t->rows[i].name;
		}
	}
	return best;
}

/* The keys an earlier row of 'kind' set go back to their defaults: the
   row applied next gives what it gives, and no more. */
static void unstack_kind(enum stack_kind kind, struct workload *wl,
			 const struct workload *init)
{
	size_t n = workload_key_count();

	for (size_t i = 0; i < n; i++)
		if (strcmp(workload_key_section(i), kind_sections[kind]) == 0)
			workload_key_unstack(wl, init, i);
}

static int apply_kind(const struct stack_table *t, enum stack_kind kind,
		      struct workload *wl, const struct workload *init,
		      struct diag *err)
{
	char *spec = kind == STACK_ENGINE ? wl->inference.engine :
					    wl->training.framework;
	char *version = kind == STACK_ENGINE ? wl->inference.engine_version :
					       wl->training.framework_version;
	size_t spec_size = kind == STACK_ENGINE ?
				   sizeof(wl->inference.engine) :
				   sizeof(wl->training.framework);
	int idx = workload_key_find(kind_sections[kind],
			      kind == STACK_ENGINE ? "engine" : "framework");
	const char *file = wl->given_line[idx] ? wl->file : "--set";
	const struct stack_row *r;
	const char *near;
	char names[512];

	unstack_kind(kind, wl, init);
	if (!spec[0] || strcasecmp(spec, STACK_GENERIC) == 0) {
		r = stack_find(t, kind, STACK_GENERIC);
		if (!r) {
			/* a user's table without the generic row: the
			   workload's own defaults */
			version[0] = '\0';
			return 0;
		}
	} else {
		const char *at = strchr(spec, '@');
		size_t nlen = at ? (size_t)(at - spec) : strlen(spec);

		r = stack_find(t, kind, spec);
		if (!r) {
			list_names(t, kind, spec, nlen, names, sizeof(names));
			if (at && names[0])
				return diag_set(err, file, wl->given_line[idx],
						wl->given_col[idx],
						"'%s': %s '%.*s' has no version "
						"'%s' in the stack table (%s), "
						"which has %s",
						kind_keys[kind], kind_names[kind],
						(int)nlen, spec, at + 1, t->file,
						names);
			list_names(t, kind, NULL, 0, names, sizeof(names));
			near = closest(t, kind, spec, nlen);
			return diag_set(err, file, wl->given_line[idx],
					wl->given_col[idx],
					"'%s': no %s '%.*s' in the stack table "
					"(%s), which has %s%s%s%s",
					kind_keys[kind], kind_names[kind],
					(int)nlen, spec, t->file,
					names[0] ? names : "none",
					near ? "; did you mean '" : "",
					near ? near : "", near ? "'?" : "");
		}
	}
	for (int i = 0; i < r->ncells; i++) {
		const struct stack_cell *c = &r->cells[i];

		if (workload_key_given(wl, (size_t)c->key))
			continue; /* the workload's value wins */
		if (workload_key_apply(wl, (size_t)c->key, c->value, t->file,
				       c->line, c->col, err) != 0)
			return -1;
		wl->stacked[c->key] = 1;
	}
	snprintf(spec, spec_size, "%s", r->name);
	snprintf(version, WL_STACK_VERSION_MAX, "%s", r->version);
	return 0;
}

int stack_apply(const struct stack_table *t, struct workload *wl,
		struct diag *err)
{
	/* the workload as read, and the defaults a row's keys go back to
	   before another row applies */
	struct workload *tmp = malloc(2 * sizeof(*tmp));
	int rc = 0;

	if (!tmp)
		return diag_set(err, NULL, 0, 0, "out of memory");
	tmp[0] = *wl;
	workload_init(&tmp[1]);
	for (int k = 0; k < STACK_KIND_COUNT && rc == 0; k++)
		rc = apply_kind(t, (enum stack_kind)k, &tmp[0], &tmp[1], err);
	if (rc == 0)
		*wl = tmp[0];
	free(tmp);
	return rc;
}

/* ---------------------------------------------------------------------
 * Writing
 */

const char *stack_value(const struct stack_row *r, int key)
{
	for (int i = 0; i < r->ncells; i++)
		if (r->cells[i].key == key)
			return r->cells[i].value;
	return NULL;
}

static int put_text(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") || (s[0] && (s[0] == ' ' ||
						 s[strlen(s) - 1] == ' ')))
		return csv_fwrite(out, s, strlen(s)) == 0 ? 0 : -1;
	return fputs(s, out) == EOF ? -1 : 0;
}

/* The value row 'r' gives the key named 'name' of its kind's section. */
static const char *value_named(const struct stack_row *r, const char *name)
{
	int key = workload_key_find(kind_sections[r->kind], name);

	return key < 0 ? NULL : stack_value(r, key);
}

/* Whether key 'k' names a column of 't': some row gives a key of that
   name, and no key before it in the table has the name (the inference
   and training keys of one name, such as tp, share their column). */
static bool column_of(const struct stack_table *t, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (strcmp(workload_key_name(j), workload_key_name(k)) == 0)
			return false;
	for (size_t i = 0; i < t->n; i++)
		if (value_named(&t->rows[i], workload_key_name(k)))
			return true;
	return false;
}

int stack_write_csv(FILE *out, const struct stack_table *t)
{
	size_t nkeys = workload_key_count();
	bool *col = calloc(nkeys, sizeof(*col));
	int bad = 0;

	if (!col)
		return -1;
	for (size_t k = 0; k < nkeys; k++)
		col[k] = column_of(t, k);
	bad |= fputs("kind,name,version", out) == EOF;
	for (size_t k = 0; k < nkeys; k++)
		if (col[k])
			bad |= fprintf(out, ",%s", workload_key_name(k)) < 0;
	bad |= fputs(",source\n", out) == EOF;
	for (size_t i = 0; i < t->n; i++) {
		const struct stack_row *r = &t->rows[i];

		bad |= fprintf(out, "%s,", kind_names[r->kind]) < 0;
		bad |= put_text(out, r->name) != 0;
		bad |= fputc(',', out) == EOF;
		bad |= put_text(out, r->version) != 0;
		for (size_t k = 0; k < nkeys; k++) {
			const char *v;

			if (!col[k])
				continue;
			bad |= fputc(',', out) == EOF;
			v = value_named(r, workload_key_name(k));
			if (v)
				bad |= put_text(out, v) != 0;
		}
		bad |= fputc(',', out) == EOF;
		bad |= put_text(out, r->source) != 0;
		bad |= fputc('\n', out) == EOF;
	}
	free(col);
	return bad ? -1 : 0;
}
