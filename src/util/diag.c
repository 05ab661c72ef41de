/* diag.c - error records; see diag.h. */
#include "diag.h"
#include "text.h"

#include <stdarg.h>
#include <string.h>

void diag_clear(struct diag *d)
{
	if (d)
		memset(d, 0, sizeof(*d));
}

int diag_has_error(const struct diag *d)
{
	return d && d->msg[0] != '\0';
}

static void vset(struct diag *d, enum diag_kind kind, const char *file,
		 int line, int col, const char *fmt, va_list ap)
{
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	d->line = line;
	d->col = col;
	d->kind = kind;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	if (d->msg[0] == '\0')
		snprintf(d->msg, sizeof(d->msg), "unknown error");
}

int diag_set(struct diag *d, const char *file, int line, int col,
	     const char *fmt, ...)
{
	va_list ap;

	if (!d || d->msg[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vset(d, DIAG_INPUT, file, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

int diag_set_kind(struct diag *d, enum diag_kind kind, const char *file,
		  int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (!d || d->msg[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vset(d, kind, file, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

int diag_set_io(struct diag *d, const char *file, int line, int col,
		const char *fmt, ...)
{
	va_list ap;

	if (!d || d->msg[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vset(d, DIAG_IO, file, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

void diag_print(FILE *out, const struct diag *d)
{
	if (!d || d->msg[0] == '\0')
		return;
	/* both may hold bytes from the input: a terminal gets them escaped */
	if (d->file[0] == '\0') {
		fputs("capplan: error: ", out);
		text_fputs_escaped(d->msg, out);
		fputc('\n', out);
		return;
	}
	text_fputs_escaped(d->file, out);
	if (d->line > 0) {
		fprintf(out, ":%d", d->line);
		if (d->col > 0)
			fprintf(out, ":%d", d->col);
	}
	fputs(": ", out);
	text_fputs_escaped(d->msg, out);
	fputc('\n', out);
}
