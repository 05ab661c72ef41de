/*
 * html.h - writing an HTML page: escaped text and the page around it.
 *
 * Every text that reaches a page (a device or workload name, a note, a
 * file name) goes through html_text: '&', '<', '>', '"' and '\'' become
 * entities and control characters spaces, so that no name can open an
 * element or an attribute.  The page needs nothing from the network and
 * no script: its style is inline, with a print style for A4 and Letter.
 */
#ifndef CAPPLAN_HTML_H
#define CAPPLAN_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Write 's' escaped for HTML text and attribute values. */
void html_text(FILE *out, const char *s);

/* html_text of a printf-style message. */
void html_textf(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* 'n' bytes of 'data' in base64 (RFC 4648), for a data: URI. */
void html_base64(FILE *out, const unsigned char *data, size_t n);

/* The page up to and including <body>, its <title> from 'title'. */
void html_begin(FILE *out, const char *title);

/* </body></html>. */
void html_end(FILE *out);

#endif
