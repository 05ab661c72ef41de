/* report.c - records as table, CSV or JSON; see report.h. */
#include "report.h"
#include "text.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[FORMAT_COUNT] = {
	[FORMAT_TABLE] = "table",
	[FORMAT_CSV] = "csv",
	[FORMAT_JSON] = "json",
};

int report_format_parse(const char *name, enum report_format *out)
{
	for (int i = 0; i < FORMAT_COUNT; i++) {
		if (strcmp(name, format_names[i]) == 0) {
			*out = (enum report_format)i;
			return 0;
		}
	}
	return -1;
}

void report_init(struct report *r, bool list)
{
	memset(r, 0, sizeof(*r));
	r->list = list;
	r->notes_key = "notes";
}

void report_release(struct report *r)
{
	free(r->rec);
	r->rec = NULL;
	r->nrec = r->cap = 0;
}

struct record *report_add_record(struct report *r)
{
	if (r->nrec == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 8;
		struct record *p = realloc(r->rec, cap * sizeof(*p));

		if (!p)
			return NULL;
		r->rec = p;
		r->cap = cap;
	}
	memset(&r->rec[r->nrec], 0, sizeof(r->rec[0]));
	return &r->rec[r->nrec++];
}

void report_note(struct report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nnotes >= REPORT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], REPORT_NOTE_MAX, fmt, ap);
	va_end(ap);
}

static struct rfield *add(struct record *rec, const char *group,
			  const char *key, const char *label,
			  enum rfield_type type, int flags)
{
	struct rfield *f;

	if (rec->n >= REPORT_MAX_FIELDS) {
		rec->overflow = true; /* report_write refuses the report */
		return NULL;
	}
	f = &rec->f[rec->n++];
	memset(f, 0, sizeof(*f));
	f->group = group;
	f->key = key;
	f->label = label;
	f->type = type;
	f->flags = flags;
	f->unit = UNIT_KIND_COUNT;
	return f;
}

void rec_num(struct record *rec, const char *group, const char *key,
	     const char *label, double v, enum unit_kind unit, int flags)
{
	struct rfield *f = add(rec, group, key, label, RF_NUM, flags);

	if (f) {
		f->num = v;
		f->unit = unit;
	}
}

void rec_int(struct record *rec, const char *group, const char *key,
	     const char *label, long long v, int flags)
{
	struct rfield *f = add(rec, group, key, label, RF_INT, flags);

	if (f)
		f->inum = v;
}

void rec_bool(struct record *rec, const char *group, const char *key,
	      const char *label, bool v, int flags)
{
	struct rfield *f = add(rec, group, key, label, RF_BOOL, flags);

	if (f)
		f->b = v;
}

void rec_str(struct record *rec, const char *group, const char *key,
	     const char *label, const char *v, int flags)
{
	struct rfield *f = add(rec, group, key, label, RF_STR, flags);

	if (f)
		snprintf(f->str, sizeof(f->str), "%s", v ? v : "");
}

void rec_null(struct record *rec, const char *group, const char *key,
	      const char *label, int flags)
{
	add(rec, group, key, label, RF_NULL, flags);
}

void rec_num_finite(struct record *rec, const char *group, const char *key,
		    const char *label, double v, enum unit_kind unit,
		    int flags)
{
	if (isfinite(v))
		rec_num(rec, group, key, label, v, unit, flags);
	else
		rec_null(rec, group, key, label, flags);
}

void rec_pair(struct record *rec, const char *group, const char *key,
	      const char *label, double lo, double hi, enum unit_kind unit,
	      int flags)
{
	struct rfield *f = add(rec, group, key, label, RF_PAIR, flags);

	if (f) {
		f->num = lo;
		f->num2 = hi;
		f->unit = unit;
	}
}

void rec_heading(struct record *rec, const char *title)
{
	add(rec, NULL, "", title, RF_HEADING, 0);
}

/* Human text of a field's value. */
static void human(const struct rfield *f, char *buf, size_t n)
{
	switch (f->type) {
	case RF_NUM:
		if (f->flags & RF_PERCENT)
			snprintf(buf, n, "%.1f%%", 100.0 * f->num);
		else if (f->unit != UNIT_KIND_COUNT)
			units_format(buf, n, f->num, f->unit, 4);
		else
			snprintf(buf, n, "%.4g", f->num);
		break;
	case RF_INT:
		snprintf(buf, n, "%lld", f->inum);
		break;
	case RF_BOOL:
		snprintf(buf, n, "%s", f->b ? "yes" : "no");
		break;
	case RF_STR:
		/* names and echoed values: never raw control bytes */
		text_escape(f->str, buf, n);
		break;
	case RF_PAIR: {
		char lo[40], hi[40];

		if (f->flags & RF_PERCENT) {
			snprintf(lo, sizeof(lo), "%.1f%%", 100.0 * f->num);
			snprintf(hi, sizeof(hi), "%.1f%%", 100.0 * f->num2);
		} else if (f->unit != UNIT_KIND_COUNT) {
			units_format(lo, sizeof(lo), f->num, f->unit, 3);
			units_format(hi, sizeof(hi), f->num2, f->unit, 3);
		} else {
			snprintf(lo, sizeof(lo), "%.3g", f->num);
			snprintf(hi, sizeof(hi), "%.3g", f->num2);
		}
		snprintf(buf, n, "%s - %s", lo, hi);
		break;
	}
	case RF_NULL:
	case RF_HEADING:
		snprintf(buf, n, "-");
		break;
	}
}

/*
 * The shortest decimal that reads back as exactly 'v' (15, 16 or 17
 * significant digits), in the C locale the program runs in.
 */
static void exact_number(char *buf, size_t n, double v)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, n, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static int check_finite(const struct report *r, const char **why)
{
	if (r->meta.overflow) {
		*why = "a record has more fields than REPORT_MAX_FIELDS";
		return -1;
	}
	for (size_t i = 0; i < r->nrec; i++)
		if (r->rec[i].overflow) {
			*why = "a record has more fields than "
			       "REPORT_MAX_FIELDS";
			return -1;
		}
	for (int j = 0; j < r->meta.n; j++)
		if ((r->meta.f[j].type == RF_NUM ||
		     r->meta.f[j].type == RF_PAIR) &&
		    (!isfinite(r->meta.f[j].num) ||
		     !isfinite(r->meta.f[j].num2))) {
			*why = "a result is not a finite number";
			return -1;
		}
	for (size_t i = 0; i < r->nrec; i++)
		for (int j = 0; j < r->rec[i].n; j++)
			if ((r->rec[i].f[j].type == RF_NUM &&
			     !isfinite(r->rec[i].f[j].num)) ||
			    (r->rec[i].f[j].type == RF_PAIR &&
			     (!isfinite(r->rec[i].f[j].num) ||
			      !isfinite(r->rec[i].f[j].num2)))) {
				*why = "a result is not a finite number";
				return -1;
			}
	return 0;
}

static void write_fields(FILE *out, const struct record *rec);

/* A line of a table (a title, a note) and its newline; the text may hold
   names, so control characters are escaped. */
static void put_line(FILE *out, const char *text)
{
	text_fputs_escaped(text, out);
	fputc('\n', out);
}

static void write_table_single(FILE *out, const struct report *r)
{
	if (r->title[0])
		put_line(out, r->title);
	write_fields(out, &r->rec[0]);
}

static void write_table_grid(FILE *out, const struct report *r)
{
	int width[REPORT_MAX_FIELDS] = { 0 };
	const struct record *first = &r->rec[0];
	char val[REPORT_STR_MAX + 16];

	if (r->title[0])
		put_line(out, r->title);
	for (int j = 0; j < first->n; j++) {
		if (!(first->f[j].flags & RF_GRID))
			continue;
		width[j] = (int)strlen(first->f[j].label);
		for (size_t i = 0; i < r->nrec; i++) {
			int w;

			human(&r->rec[i].f[j], val, sizeof(val));
			w = (int)strlen(val);
			width[j] = w > width[j] ? w : width[j];
		}
	}
	for (int j = 0, sep = 0; j < first->n; j++)
		if (width[j]) {
			fprintf(out, "%s%-*s", sep++ ? "  " : "", width[j],
				first->f[j].label);
		}
	fputc('\n', out);
	for (size_t i = 0; i < r->nrec; i++) {
		for (int j = 0, sep = 0; j < first->n; j++) {
			if (!width[j])
				continue;
			human(&r->rec[i].f[j], val, sizeof(val));
			/* text left-aligned, numbers right-aligned */
			fprintf(out, "%s%*s", sep++ ? "  " : "",
				r->rec[i].f[j].type == RF_STR ? -width[j] :
								width[j],
				val);
		}
		fputc('\n', out);
	}
}

static void write_fields(FILE *out, const struct record *rec)
{
	char val[REPORT_STR_MAX + 16];

	for (int j = 0; j < rec->n; j++) {
		const struct rfield *f = &rec->f[j];

		if (f->type == RF_HEADING) {
			fputc('\n', out);
			put_line(out, f->label);
			continue;
		}
		if (f->flags & RF_MACHINE)
			continue;
		human(f, val, sizeof(val));
		fprintf(out, "  %-30s %s\n", f->label, val);
	}
}

static void write_table(FILE *out, const struct report *r)
{
	if (r->list && r->list_key && r->meta.n) {
		if (r->title[0])
			put_line(out, r->title);
		write_fields(out, &r->meta);
		fputc('\n', out);
		if (r->nrec == 0)
			fprintf(out, "(nothing to show)\n");
		else {
			struct report grid = *r;

			grid.title[0] = '\0';
			write_table_grid(out, &grid);
		}
	} else if (r->nrec == 0) {
		if (r->title[0])
			put_line(out, r->title);
		fprintf(out, "(nothing to show)\n");
	} else if (r->list)
		write_table_grid(out, r);
	else
		write_table_single(out, r);
	if (r->nnotes)
		fputc('\n', out);
	for (int k = 0; k < r->nnotes; k++)
		put_line(out, r->notes[k]);
}

/* CSV cell: quote when needed (RFC 4180). */
static void csv_cell(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void machine_value(const struct rfield *f, char *buf, size_t n)
{
	switch (f->type) {
	case RF_NUM:
		exact_number(buf, n, f->num);
		break;
	case RF_INT:
		snprintf(buf, n, "%lld", f->inum);
		break;
	case RF_BOOL:
		snprintf(buf, n, "%s", f->b ? "true" : "false");
		break;
	case RF_STR:
		snprintf(buf, n, "%s", f->str);
		break;
	case RF_PAIR: { /* two CSV cells: write_csv splits at the comma */
		char hi[40];

		exact_number(buf, n, f->num);
		exact_number(hi, sizeof(hi), f->num2);
		snprintf(buf + strlen(buf), n - strlen(buf), ",%s", hi);
		break;
	}
	case RF_NULL:
	case RF_HEADING:
		buf[0] = '\0';
		break;
	}
}

static void write_csv(FILE *out, const struct report *r)
{
	char name[160], val[REPORT_STR_MAX + 16];

	if (r->nrec == 0)
		return;
	for (int j = 0, sep = 0; j < r->rec[0].n; j++) {
		const struct rfield *f = &r->rec[0].f[j];

		if (f->type == RF_HEADING)
			continue;
		if (f->group)
			snprintf(name, sizeof(name), "%s.%s", f->group, f->key);
		else
			snprintf(name, sizeof(name), "%s", f->key);
		if (sep++)
			fputc(',', out);
		if (f->type == RF_PAIR) {
			char lo[170];

			snprintf(lo, sizeof(lo), "%s.lo", name);
			csv_cell(out, lo);
			fputc(',', out);
			snprintf(lo, sizeof(lo), "%s.hi", name);
			csv_cell(out, lo);
			continue;
		}
		csv_cell(out, name);
	}
	fputc('\n', out);
	for (size_t i = 0; i < r->nrec; i++) {
		for (int j = 0, sep = 0; j < r->rec[i].n; j++) {
			if (r->rec[i].f[j].type == RF_HEADING)
				continue;
			machine_value(&r->rec[i].f[j], val, sizeof(val));
			if (sep++)
				fputc(',', out);
			if (r->rec[i].f[j].type == RF_PAIR)
				fputs(val, out); /* two plain numbers */
			else
				csv_cell(out, val);
		}
		fputc('\n', out);
	}
}

static cJSON *json_record(const struct record *rec)
{
	cJSON *obj = cJSON_CreateObject();

	if (!obj)
		return NULL;
	for (int j = 0; j < rec->n; j++) {
		const struct rfield *f = &rec->f[j];
		cJSON *dst = obj, *v = NULL;
		char num[40];

		if (f->group) {
			dst = cJSON_GetObjectItemCaseSensitive(obj, f->group);
			if (!dst) {
				dst = cJSON_AddObjectToObject(obj, f->group);
				if (!dst)
					goto fail;
			}
		}
		if (f->type == RF_HEADING)
			continue;
		switch (f->type) {
		case RF_HEADING:
			break;
		case RF_NUM:
			/* cJSON would print 15 digits when they are merely
			   close: write the exact shortest form ourselves */
			exact_number(num, sizeof(num), f->num);
			v = cJSON_AddRawToObject(dst, f->key, num);
			break;
		case RF_INT:
			snprintf(num, sizeof(num), "%lld", f->inum);
			v = cJSON_AddRawToObject(dst, f->key, num);
			break;
		case RF_BOOL:
			v = cJSON_AddBoolToObject(dst, f->key, f->b);
			break;
		case RF_STR:
			v = cJSON_AddStringToObject(dst, f->key, f->str);
			break;
		case RF_NULL:
			v = cJSON_AddNullToObject(dst, f->key);
			break;
		case RF_PAIR: {
			char pair[90], hi[40];

			exact_number(num, sizeof(num), f->num);
			exact_number(hi, sizeof(hi), f->num2);
			snprintf(pair, sizeof(pair), "[%s, %s]", num, hi);
			v = cJSON_AddRawToObject(dst, f->key, pair);
			break;
		}
		}
		if (!v)
			goto fail;
	}
	return obj;
fail:
	cJSON_Delete(obj);
	return NULL;
}

/* The notes as an array under notes_key (when set). */
static int add_notes(cJSON *root, const struct report *r)
{
	cJSON *notes;

	if (!r->notes_key)
		return 0;
	notes = cJSON_AddArrayToObject(root, r->notes_key);
	if (!notes)
		return -1;
	for (int k = 0; k < r->nnotes; k++) {
		cJSON *s = cJSON_CreateString(r->notes[k]);

		if (!s || !cJSON_AddItemToArray(notes, s)) {
			cJSON_Delete(s);
			return -1;
		}
	}
	return 0;
}

static int write_json(FILE *out, const struct report *r)
{
	cJSON *root = NULL;
	char *text;

	if (r->list) {
		cJSON *arr;

		if (r->list_key) {
			root = json_record(&r->meta);
			arr = root ? cJSON_AddArrayToObject(root, r->list_key) :
				     NULL;
		} else {
			root = arr = cJSON_CreateArray();
		}
		if (!arr)
			goto fail;
		for (size_t i = 0; i < r->nrec; i++) {
			cJSON *o = json_record(&r->rec[i]);

			if (!o || !cJSON_AddItemToArray(arr, o)) {
				cJSON_Delete(o);
				goto fail;
			}
		}
		if (r->list_key && add_notes(root, r) != 0)
			goto fail;
	} else {
		root = r->nrec ? json_record(&r->rec[0]) : cJSON_CreateObject();
		if (!root || add_notes(root, r) != 0)
			goto fail;
	}
	if (!root)
		goto fail;
	text = cJSON_Print(root);
	if (!text)
		goto fail;
	fputs(text, out);
	fputc('\n', out);
	cJSON_free(text);
	cJSON_Delete(root);
	return 0;
fail:
	cJSON_Delete(root);
	return -1;
}

int report_write(FILE *out, const struct report *r, enum report_format fmt,
		 const char **why)
{
	if (check_finite(r, why) != 0)
		return -1;
	switch (fmt) {
	case FORMAT_CSV:
		write_csv(out, r);
		return 0;
	case FORMAT_JSON:
		if (write_json(out, r) != 0) {
			*why = "out of memory";
			return -1;
		}
		return 0;
	case FORMAT_TABLE:
	case FORMAT_COUNT:
		break;
	}
	write_table(out, r);
	return 0;
}
