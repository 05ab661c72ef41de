/* report.c - records as table, CSV or JSON; see report.h. */
#include "report.h"
#include "html.h"
#include "text.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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
			units_format_plain(buf, n, f->num, f->unit, 4);
		else
			units_table_number(buf, n, f->num, 4);
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
			units_format_plain(lo, sizeof(lo), f->num, f->unit, 3);
			units_format_plain(hi, sizeof(hi), f->num2, f->unit, 3);
		} else {
			units_table_number(lo, sizeof(lo), f->num, 3);
			units_table_number(hi, sizeof(hi), f->num2, 3);
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

static void write_fields(FILE *out, const struct record *rec, int width);

/* A line of a table (a title, a note) and its newline; the text may hold
   names, so control characters are escaped. */
static void put_line(FILE *out, const char *text)
{
	text_fputs_escaped(text, out);
	fputc('\n', out);
}

/* The last blank among p[1..limit] of a text longer than 'limit', where
   a line of at most 'limit' columns may end; NULL when there is none. */
static const char *break_at(const char *p, int limit)
{
	const char *brk = NULL;

	for (const char *q = p + 1; q <= p + limit; q++)
		if (*q == ' ')
			brk = q;
	return brk;
}

/*
 * A line of notes: at most 'width' columns unless 'wide', broken at
 * blanks, the lines after the first indented by two.
 */
static void put_wrapped(FILE *out, const char *text, bool wide, int width)
{
	char buf[4 * REPORT_NOTE_MAX];
	const char *p = buf;
	int limit = width;

	text_escape(text, buf, sizeof(buf));
	while (!wide && (int)strlen(p) > limit) {
		const char *brk = break_at(p, limit);

		if (!brk)
			break;
		fprintf(out, "%.*s\n", (int)(brk - p), p);
		p = brk + 1;
		fputs("  ", out);
		limit = width - 2;
	}
	fprintf(out, "%s\n", p);
}

/*
 * A field of a record, "  LABEL  VALUE": a value that would pass 'width'
 * columns (a datasheet's title) is broken at blanks, its lines after the
 * first under its start.
 */
static void put_field(FILE *out, const char *label, const char *val,
		      int width)
{
	const int indent = 33; /* "  " + 30 columns of label + " " */
	int limit = width - indent;
	const char *p = val;

	fprintf(out, "  %-30s ", label);
	while ((int)strlen(p) > limit) {
		const char *brk = break_at(p, limit);

		if (!brk)
			break;
		fprintf(out, "%.*s\n%*s", (int)(brk - p), p, indent, "");
		p = brk + 1;
	}
	fprintf(out, "%s\n", p);
}

static void write_table_single(FILE *out, const struct report *r,
			       int width)
{
	if (r->title[0])
		put_line(out, r->title);
	write_fields(out, &r->rec[0], width);
}

/* The one unit of a number column of the grid: values are divided by
   'factor' and printed with 'decimals' digits after the point, or in
   scientific notation ('small': a column of values too small for its
   kind's smallest unit, units.h's UNITS_SMALL). */
struct col_unit {
	bool on;
	bool small;
	const char *suffix;
	double factor;
	int decimals;
};

/* The units a grid column may be shown in, per kind, by factor. */
static const struct {
	enum unit_kind kind;
	const char *suffix;
	double factor;
} col_units[] = {
	{ UNIT_BYTES, "B", 1.0 },	  { UNIT_BYTES, "kB", 1e3 },
	{ UNIT_BYTES, "MB", 1e6 },	  { UNIT_BYTES, "GB", 1e9 },
	{ UNIT_BYTES, "TB", 1e12 },	  { UNIT_BYTES, "PB", 1e15 },
	{ UNIT_BANDWIDTH, "B/s", 1.0 },	  { UNIT_BANDWIDTH, "kB/s", 1e3 },
	{ UNIT_BANDWIDTH, "MB/s", 1e6 },  { UNIT_BANDWIDTH, "GB/s", 1e9 },
	{ UNIT_BANDWIDTH, "TB/s", 1e12 }, { UNIT_FLOPS, "FLOP/s", 1.0 },
	{ UNIT_FLOPS, "GFLOPS", 1e9 },	  { UNIT_FLOPS, "TFLOPS", 1e12 },
	{ UNIT_FLOPS, "PFLOPS", 1e15 },  { UNIT_POWER, "W", 1.0 },
	{ UNIT_POWER, "kW", 1e3 },	  { UNIT_POWER, "MW", 1e6 },
	{ UNIT_TIME, "us", 1e-6 },	  { UNIT_TIME, "ms", 1e-3 },
	{ UNIT_TIME, "s", 1.0 },	  { UNIT_TIME, "min", 60.0 },
	{ UNIT_TIME, "h", 3600.0 },	  { UNIT_TIME, "d", 86400.0 },
	{ UNIT_TIME, "y", 365.0 * 86400.0 },
	{ UNIT_COUNT, "", 1.0 },	  { UNIT_COUNT, "K", 1e3 },
	{ UNIT_COUNT, "M", 1e6 },	  { UNIT_COUNT, "B", 1e9 },
	{ UNIT_COUNT, "T", 1e12 },	  { UNIT_ENERGY, "J", 1.0 },
	{ UNIT_ENERGY, "kJ", 1e3 },	  { UNIT_ENERGY, "MJ", 1e6 },
	{ UNIT_ENERGY, "GJ", 1e9 },	  { UNIT_MONEY, "$", 1.0 },
	{ UNIT_MONEY, "$K", 1e3 },	  { UNIT_MONEY, "$M", 1e6 },
	{ UNIT_MONEY, "$B", 1e9 },	  { UNIT_ENERGY_KWH, "kWh", 1.0 },
	{ UNIT_ENERGY_KWH, "MWh", 1e3 },  { UNIT_ENERGY_KWH, "GWh", 1e6 },
	{ UNIT_ENERGY_KWH, "TWh", 1e9 },  { UNIT_KIND_COUNT, "", 1.0 },
};

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/*
 * The unit of column 'j': the largest of its kind not above the median
 * magnitude of the column's numbers; decimals for three significant
 * digits of the smallest, no more than four of the largest need (and no
 * more than three, or six for a column of values below 0.01; such a
 * column with a value below UNITS_SMALL is in scientific notation).  Off
 * (each cell its own unit) for columns of percentages or without
 * numbers.
 */
static struct col_unit column_unit(const struct report *r, int j)
{
	struct col_unit cu = { false, false, "", 1.0, 0 };
	const struct rfield *f0 = &r->rec[0].f[j];

	/* the unit of the column: that of its first number */
	for (size_t i = 0; i < r->nrec; i++)
		if (r->rec[i].f[j].type == RF_NUM) {
			f0 = &r->rec[i].f[j];
			break;
		}
	double *v, lo, hi, med;
	size_t nv = 0;
	int dlo, dhi, cap;

	if (f0->flags & RF_PERCENT || f0->type != RF_NUM)
		return cu;
	v = malloc(r->nrec * sizeof(*v));
	if (!v)
		return cu;
	for (size_t i = 0; i < r->nrec; i++) {
		const struct rfield *f = &r->rec[i].f[j];

		if (f->type == RF_NUM && isfinite(f->num) && f->num != 0.0 &&
		    !(f->flags & RF_PERCENT))
			v[nv++] = fabs(f->num);
	}
	if (nv == 0) {
		free(v);
		return cu;
	}
	qsort(v, nv, sizeof(*v), by_value);
	lo = v[0];
	hi = v[nv - 1];
	med = v[nv / 2];
	free(v);
	for (size_t k = 0; k < sizeof(col_units) / sizeof(col_units[0]); k++) {
		if (col_units[k].kind != f0->unit)
			continue;
		if (!cu.on || col_units[k].factor <= med * (1.0 + 1e-9)) {
			cu.on = true;
			cu.suffix = col_units[k].suffix;
			cu.factor = col_units[k].factor;
		}
	}
	if (!cu.on)
		return cu;
	dlo = 2 - (int)floor(log10(lo / cu.factor));
	dhi = 3 - (int)floor(log10(hi / cu.factor));
	cu.decimals = dlo < dhi ? dlo : (dhi > 0 ? dhi : 0);
	/* at most three decimals, unless every value is below 0.01 of the
	   kind's smallest unit (a cost per million inferences of $0.00016):
	   then up to six, which keep two digits of it */
	cap = hi / cu.factor < 0.01 ? 6 : 3;
	cu.decimals = cu.decimals < 0 ? 0 : cu.decimals > cap ? cap :
								   cu.decimals;
	/* values that six decimals would not show to three digits: the
	   column is in scientific notation, as a record's small values */
	cu.small = cap == 6 && lo / cu.factor < UNITS_SMALL;
	return cu;
}

/* The text of a grid cell in its column's unit. */
static void grid_cell(const struct rfield *f, const struct col_unit *cu,
		      char *buf, size_t n)
{
	if (cu->on && cu->small && f->type == RF_NUM &&
	    !(f->flags & RF_PERCENT)) {
		units_scientific(buf, n, f->num / cu->factor, UNITS_SMALL_SIG,
				 true);
	} else if (cu->on && f->type == RF_NUM && !(f->flags & RF_PERCENT)) {
		double x = f->num / cu->factor;
		double tiny = 0.5 * pow(10.0, -cu->decimals);

		/* no "-0.00" */
		snprintf(buf, n, "%.*f", cu->decimals,
			 fabs(x) < tiny ? 0.0 : x);
	} else {
		human(f, buf, n);
	}
}

/* The heading of grid column 'j': its label and its unit. */
static void grid_heading(const struct rfield *f, const struct col_unit *cu,
			 char *buf, size_t n)
{
	if (!cu->on || !cu->suffix[0] ||
	    (strcmp(cu->suffix, "$") == 0 && strchr(f->label, '$')))
		snprintf(buf, n, "%s", f->label);
	else
		snprintf(buf, n, "%s (%s)", f->label, cu->suffix);
}

/* Whether every row shows the same text in column 'j'. */
static bool column_constant(const struct report *r, int j,
			    const struct col_unit *cu)
{
	char a[REPORT_STR_MAX + 16], b[REPORT_STR_MAX + 16];

	grid_cell(&r->rec[0].f[j], cu, a, sizeof(a));
	for (size_t i = 1; i < r->nrec; i++) {
		grid_cell(&r->rec[i].f[j], cu, b, sizeof(b));
		if (strcmp(a, b) != 0)
			return false;
	}
	return true;
}

/*
 * Where the reason (column 'reason', -1: none) of row 'rec' goes: the
 * first shown column after the first one from which every shown cell is
 * empty; -1 when it has no reason or no such column.
 */
static int reason_from(const struct record *rec, const int *width,
		       int reason)
{
	int from = -1, seen = 0;

	if (reason < 0 || rec->f[reason].type != RF_STR ||
	    !rec->f[reason].str[0])
		return -1;
	for (int j = 0; j < rec->n; j++) {
		if (!width[j])
			continue;
		if (rec->f[j].type != RF_NULL)
			from = -1;
		else if (from < 0 && seen)
			from = j;
		seen++;
	}
	return from;
}

static void write_table_grid(FILE *out, const struct report *r, bool wide,
			     int table_width)
{
	int width[REPORT_MAX_FIELDS] = { 0 };
	struct col_unit cu[REPORT_MAX_FIELDS];
	char head[REPORT_MAX_FIELDS][REPORT_STR_MAX];
	const struct record *first = &r->rec[0];
	char val[REPORT_STR_MAX + 16];
	char left[REPORT_NOTE_MAX] = "";
	int total = 0, shown = 0, nleft = 0, last = -1, reason = -1;

	if (r->title[0])
		put_line(out, r->title);
	for (int j = 0; j < first->n; j++) {
		cu[j].on = false;
		if (!(first->f[j].flags & RF_GRID))
			continue;
		cu[j] = column_unit(r, j);
		grid_heading(&first->f[j], &cu[j], head[j], sizeof(head[j]));
		width[j] = (int)strlen(head[j]);
		for (size_t i = 0; i < r->nrec; i++) {
			int w;

			grid_cell(&r->rec[i].f[j], &cu[j], val, sizeof(val));
			w = (int)strlen(val);
			width[j] = w > width[j] ? w : width[j];
		}
		total += width[j];
		shown++;
	}
	total += 2 * (shown - 1);
	/* too wide: optional columns out, those with one value in every
	   row first, then from the right */
	for (int pass = 0; pass < 2; pass++)
		for (int j = first->n - 1;
		     !wide && total > table_width && j >= 0; j--) {
			if (width[j] <= 0 || !(first->f[j].flags & RF_WIDE) ||
			    (pass == 0 && !column_constant(r, j, &cu[j])))
				continue;
			total -= width[j] + 2;
			width[j] = -1;
			nleft++;
		}
	for (int j = 0, k = 0; j < first->n; j++) {
		size_t used = strlen(left);

		if (width[j] >= 0)
			continue;
		snprintf(left + used, sizeof(left) - used, "%s%s",
			 k++ ? ", " : "", first->f[j].label);
		width[j] = 0;
	}
	/* a reason goes in its row, unless the table is wide */
	for (int j = 0; !wide && j < first->n; j++)
		if (width[j] > 0 && (first->f[j].flags & RF_REASON)) {
			total -= width[j] + 2;
			width[j] = 0;
			reason = j;
		}
	for (int j = 0; j < first->n; j++)
		if (width[j])
			last = j;
	for (int j = 0, sep = 0; j < first->n; j++)
		if (width[j]) {
			fprintf(out, "%s%-*s", sep++ ? "  " : "",
				j == last ? 0 : width[j], head[j]);
		}
	fputc('\n', out);
	for (size_t i = 0; i < r->nrec; i++) {
		char line[REPORT_MAX_FIELDS * 24];
		size_t used = 0;
		int from;

		line[0] = '\0';
		from = reason_from(&r->rec[i], width, reason);
		for (int j = 0, sep = 0; j < first->n; j++) {
			if (j == from) {
				human(&r->rec[i].f[reason], val, sizeof(val));
				snprintf(line + used, sizeof(line) - used,
					 "  %s", val);
				break;
			}
			if (!width[j] || used >= sizeof(line))
				continue;
			grid_cell(&r->rec[i].f[j], &cu[j], val, sizeof(val));
			/* text left-aligned, numbers right-aligned */
			used += (size_t)snprintf(
				line + used, sizeof(line) - used, "%s%*s",
				sep++ ? "  " : "",
				r->rec[i].f[j].type == RF_STR ? -width[j] :
								width[j],
				val);
		}
		/* no blanks at the end of a line */
		used = strlen(line);
		while (used > 0 && line[used - 1] == ' ')
			line[--used] = '\0';
		fputs(line, out);
		fputc('\n', out);
	}
	if (nleft) {
		char note[2 * REPORT_NOTE_MAX];

		snprintf(note, sizeof(note),
			 "(--wide adds %d column%s: %s)", nleft,
			 nleft > 1 ? "s" : "", left);
		put_wrapped(out, note, false, table_width);
	}
}

static void write_fields(FILE *out, const struct record *rec, int width)
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
		put_field(out, f->label, val, width);
	}
}

static void write_table(FILE *out, const struct report *r, bool wide,
			int width)
{
	if (r->list && r->list_key && r->meta.n) {
		if (r->title[0])
			put_line(out, r->title);
		write_fields(out, &r->meta, width);
		fputc('\n', out);
		if (r->nrec == 0)
			fprintf(out, "(nothing to show)\n");
		else {
			struct report grid = *r;

			grid.title[0] = '\0';
			write_table_grid(out, &grid, wide, width);
		}
	} else if (r->nrec == 0) {
		if (r->title[0])
			put_line(out, r->title);
		fprintf(out, "(nothing to show)\n");
	} else if (r->list && !(r->one_as_record && r->nrec == 1))
		write_table_grid(out, r, wide, width);
	else
		write_table_single(out, r, width);
	if (r->nnotes)
		fputc('\n', out);
	for (int k = 0; k < r->nnotes; k++)
		put_wrapped(out, r->notes[k], wide, width);
}

/*
 * A CSV cell, quoted when needed (RFC 4180).  A text cell that a
 * spreadsheet would take for a formula (one that begins with '=', '+',
 * '-', '@', a tab or CR) gets a single quote in front, inside the quotes
 * (OWASP's advice on CSV injection); numbers are never text.
 */
static void csv_cell(FILE *out, const char *s, bool text)
{
	bool formula = text && s[0] && strchr("=+-@\t\r", s[0]);

	if (!formula && strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputs(formula ? "\"'" : "\"", out);
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
	case RF_PAIR: { /* two CSV cells: csv_row writes them as they are */
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

/* A column of the CSV: a field's group and key; an interval in any row
   makes it two columns, KEY.lo and KEY.hi. */
struct csv_col {
	const char *group;
	const char *key;
	bool pair;
};

static bool in_csv(const struct rfield *f)
{
	return f->type != RF_HEADING && !(f->flags & RF_TABLE);
}

/* Whether two names, NULL or not, are the same. */
static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool csv_match(const struct csv_col *c, const struct rfield *f)
{
	return in_csv(f) && same_name(c->key, f->key) &&
	       same_name(c->group, f->group);
}

/*
 * The field of 'rec' in column 'c', NULL when it has none.  The search
 * starts at field '*next' and wraps around (records mostly keep one
 * order, so the next column's field is usually the next field); '*next'
 * moves past the field found.
 */
static const struct rfield *csv_field(const struct record *rec,
				      const struct csv_col *c, int *next)
{
	for (int t = 0; t < rec->n; t++) {
		int j = (*next + t) % rec->n;

		if (csv_match(c, &rec->f[j])) {
			*next = j + 1;
			return &rec->f[j];
		}
	}
	return NULL;
}

/* The column of 'f' among col[0..n), n when none: as csv_field, from
   column '*next' on. */
static size_t csv_find(const struct csv_col *col, size_t n,
		       const struct rfield *f, size_t *next)
{
	for (size_t t = 0; t < n; t++) {
		size_t k = (*next + t) % n;

		if (csv_match(&col[k], f)) {
			*next = k + 1;
			return k;
		}
	}
	return n;
}

/*
 * The columns of the records of 'r' (free them): those of the first
 * record in its order, then those first seen in a later one, in its
 * order.  NULL when memory runs out.
 */
static struct csv_col *csv_columns(const struct report *r, size_t *n)
{
	size_t cap = REPORT_MAX_FIELDS;
	struct csv_col *col = malloc(cap * sizeof(*col));

	*n = 0;
	if (!col)
		return NULL;
	for (size_t i = 0; i < r->nrec; i++) {
		size_t next = 0;

		for (int j = 0; j < r->rec[i].n; j++) {
			const struct rfield *f = &r->rec[i].f[j];
			size_t k;

			if (!in_csv(f))
				continue;
			k = csv_find(col, *n, f, &next);
			if (k == *n && *n == cap) {
				struct csv_col *p;

				cap *= 2;
				p = realloc(col, cap * sizeof(*p));
				if (!p) {
					free(col);
					return NULL;
				}
				col = p;
			}
			if (k == *n)
				col[(*n)++] = (struct csv_col){ f->group,
								f->key, false };
			col[k].pair |= f->type == RF_PAIR ||
				       (f->flags & RF_PAIR_NULL);
		}
	}
	return col;
}

static void csv_header(FILE *out, const struct csv_col *col, size_t n)
{
	char name[160], half[170];

	for (size_t k = 0; k < n; k++) {
		if (col[k].group)
			snprintf(name, sizeof(name), "%s.%s", col[k].group,
				 col[k].key);
		else
			snprintf(name, sizeof(name), "%s", col[k].key);
		if (k)
			fputc(',', out);
		if (!col[k].pair) {
			csv_cell(out, name, false);
			continue;
		}
		snprintf(half, sizeof(half), "%s.lo", name);
		csv_cell(out, half, false);
		fputc(',', out);
		snprintf(half, sizeof(half), "%s.hi", name);
		csv_cell(out, half, false);
	}
	fputc('\n', out);
}

/* A row: in every column its field's value, or an empty cell. */
static void csv_row(FILE *out, const struct record *rec,
		    const struct csv_col *col, size_t n)
{
	char val[REPORT_STR_MAX + 16];
	int next = 0;

	for (size_t k = 0; k < n; k++) {
		const struct rfield *f = csv_field(rec, &col[k], &next);

		if (k)
			fputc(',', out);
		if (f && f->type == RF_PAIR) {
			machine_value(f, val, sizeof(val));
			fputs(val, out); /* two plain numbers */
			continue;
		}
		if (f) {
			machine_value(f, val, sizeof(val));
			csv_cell(out, val, f->type == RF_STR);
		}
		if (col[k].pair)
			fputc(',', out); /* no interval: its upper cell */
	}
	fputc('\n', out);
}

/*
 * The records as CSV: one header, the union of their fields, and one row
 * per record with a cell for every column of the header, so that a record
 * without a field (an infeasible device) shifts no later column.
 * Returns 0, or -1 when memory runs out.
 */
static int write_csv(FILE *out, const struct report *r)
{
	struct csv_col *col;
	size_t n;

	if (r->nrec == 0)
		return 0;
	col = csv_columns(r, &n);
	if (!col)
		return -1;
	csv_header(out, col, n);
	for (size_t i = 0; i < r->nrec; i++)
		csv_row(out, &r->rec[i], col, n);
	free(col);
	return 0;
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
		if (f->type == RF_HEADING || (f->flags & RF_TABLE))
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

/* The JSON value of 'r': an array, an object with the list, or one
   record; NULL when out of memory. */
static cJSON *json_root(const struct report *r)
{
	cJSON *root = NULL;

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
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

static int write_json(FILE *out, const struct report *r)
{
	cJSON *root = json_root(r);
	char *text;

	if (!root)
		return -1;
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return -1;
	fputs(text, out);
	fputc('\n', out);
	cJSON_free(text);
	return 0;
}

struct cJSON *report_json(const struct report *r, const char **why)
{
	cJSON *root;

	if (check_finite(r, why) != 0)
		return NULL;
	root = json_root(r);
	if (!root)
		*why = "out of memory";
	return root;
}

int report_write_html(FILE *out, const struct report *r, const char **why)
{
	char val[REPORT_STR_MAX + 16], head[REPORT_STR_MAX];
	struct col_unit cu[REPORT_MAX_FIELDS];
	const struct record *first;

	if (check_finite(r, why) != 0)
		return -1;
	if (r->nrec == 0) {
		fputs("<p class=\"note\">(nothing to show)</p>\n", out);
		return 0;
	}
	first = &r->rec[0];
	fputs("<div class=\"wrap\"><table>\n", out);
	if (!r->list) {
		for (int j = 0; j < first->n; j++) {
			const struct rfield *f = &first->f[j];

			if (f->flags & RF_MACHINE)
				continue;
			if (f->type == RF_HEADING) {
				fputs("<tr><th class=\"t\" colspan=\"2\">",
				      out);
				html_text(out, f->label);
				fputs("</th></tr>\n", out);
				continue;
			}
			human(f, val, sizeof(val));
			fputs("<tr><td class=\"t\">", out);
			html_text(out, f->label);
			fputs("</td><td class=\"t\">", out);
			html_text(out, val);
			fputs("</td></tr>\n", out);
		}
		fputs("</table></div>\n", out);
		return 0;
	}
	fputs("<tr>", out);
	for (int j = 0; j < first->n; j++) {
		cu[j].on = false;
		if (!(first->f[j].flags & RF_GRID))
			continue;
		cu[j] = column_unit(r, j);
		grid_heading(&first->f[j], &cu[j], head, sizeof(head));
		fputs(first->f[j].type == RF_STR ? "<th class=\"t\">" : "<th>",
		      out);
		html_text(out, head);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t i = 0; i < r->nrec; i++) {
		fputs("<tr>", out);
		for (int j = 0; j < first->n; j++) {
			const struct rfield *f = &r->rec[i].f[j];

			if (!(first->f[j].flags & RF_GRID))
				continue;
			grid_cell(f, &cu[j], val, sizeof(val));
			fputs(f->flags & RF_REASON ? "<td class=\"w\">" :
			      f->type == RF_STR	   ? "<td class=\"t\">" :
							     "<td>",
			      out);
			html_text(out, val);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	return 0;
}

int report_write(FILE *out, const struct report *r, enum report_format fmt,
		 const char **why)
{
	return report_write_wide(out, r, fmt, false, why);
}

int report_table_width(FILE *out)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	long cols = 0;
	int fd;

	/* $COLUMNS first (a user's choice, and the only one a pipe or a
	   file hears of); one that is not a whole number is not set */
	if (env && *env) {
		char *end;

		errno = 0;
		cols = strtol(env, &end, 10);
		if (errno || *end || cols <= 0)
			cols = 0;
	}
	if (cols <= 0 && out && (fd = fileno(out)) >= 0 && isatty(fd) &&
	    ioctl(fd, TIOCGWINSZ, &ws) == 0)
		cols = ws.ws_col;
	if (cols <= 0)
		return REPORT_TABLE_WIDTH;
	return cols < REPORT_TABLE_MIN_WIDTH ? REPORT_TABLE_MIN_WIDTH :
	       cols > REPORT_TABLE_MAX_WIDTH ? REPORT_TABLE_MAX_WIDTH :
					       (int)cols;
}

int report_write_wide(FILE *out, const struct report *r,
		      enum report_format fmt, bool wide, const char **why)
{
	return report_write_width(out, r, fmt, wide, REPORT_TABLE_WIDTH, why);
}

int report_write_width(FILE *out, const struct report *r,
		       enum report_format fmt, bool wide, int width,
		       const char **why)
{
	if (check_finite(r, why) != 0)
		return -1;
	switch (fmt) {
	case FORMAT_CSV:
		if (write_csv(out, r) != 0) {
			*why = "out of memory";
			return -1;
		}
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
	width = width < REPORT_TABLE_MIN_WIDTH ? REPORT_TABLE_MIN_WIDTH :
		width > REPORT_TABLE_MAX_WIDTH ? REPORT_TABLE_MAX_WIDTH :
						 width;
	write_table(out, r, wide, width);
	return 0;
}
