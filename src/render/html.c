/* html.c - escaped HTML text and the page skeleton; see html.h. */
#include "html.h"

#include <stdarg.h>
#include <stdlib.h>

void html_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
		}
	}
}

void html_textf(FILE *out, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	html_text(out, buf);
}

void html_base64(FILE *out, const unsigned char *data, size_t n)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned long v = (unsigned long)data[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (unsigned long)data[i + 1] << 8;
		if (left > 2)
			v |= data[i + 2];
		fputc(digits[(v >> 18) & 63], out);
		fputc(digits[(v >> 12) & 63], out);
		fputc(left > 1 ? digits[(v >> 6) & 63] : '=', out);
		fputc(left > 2 ? digits[v & 63] : '=', out);
	}
}

/* The style of the page: screen, then print (A4 and Letter both fit a
   180 mm wide body). */
static const char style[] =
	"body{font-family:\"DejaVu Sans\",\"Helvetica Neue\",Arial,"
	"sans-serif;color:#1b1b1b;max-width:1120px;margin:1.5rem auto;"
	"padding:0 1rem;line-height:1.4}\n"
	"h1{font-size:1.6rem;margin-bottom:.2rem}\n"
	"h2{font-size:1.2rem;border-bottom:2px solid #0072b2;"
	"padding-bottom:.15rem;margin-top:2rem}\n"
	"h3{font-size:1rem;margin:1.2rem 0 .3rem}\n"
	".sub{color:#555;margin-top:0}\n"
	".wrap{overflow-x:auto}\n"
	"table{border-collapse:collapse;font-size:.82rem;margin:.4rem 0 .8rem}\n"
	"th,td{border-bottom:1px solid #ddd;padding:.2rem .55rem;"
	"text-align:right;white-space:nowrap;vertical-align:top}\n"
	"th{background:#eef3f8;font-weight:600;white-space:normal}\n"
	"td.t,th.t{text-align:left}\n"
	"td.w{white-space:normal;text-align:left;min-width:14rem}\n"
	"tr.bad td{color:#6b6b6b}\n"
	".note{color:#555;font-size:.85rem}\n"
	".pick{background:#eef7f1;border-left:4px solid #009e73;"
	"padding:.4rem 1rem;margin:.6rem 0}\n"
	".pick li{margin:.25rem 0}\n"
	"figure{margin:1rem 0 1.6rem;break-inside:avoid;"
	"page-break-inside:avoid}\n"
	"figure svg,figure img{display:block;width:100%;height:auto}\n"
	"figcaption{font-size:.85rem;color:#444;margin-top:.2rem}\n"
	"@media print{\n"
	"@page{margin:14mm}\n"
	"body{max-width:none;margin:0;padding:0;font-size:9.5pt}\n"
	"h2{break-after:avoid;page-break-after:avoid}\n"
	"table{font-size:7.5pt}\n"
	"th,td{padding:.1rem .3rem}\n"
	".wrap{overflow:visible}\n"
	"section.charts figure{break-before:auto}\n"
	"a{color:inherit;text-decoration:none}\n"
	"}\n";

void html_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n<title>",
	      out);
	html_text(out, title);
	fputs("</title>\n<style>\n", out);
	fputs(style, out);
	fputs("</style>\n</head>\n<body>\n", out);
}

void html_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
}
