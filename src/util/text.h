/*
 * text.h - text that came from outside: UTF-8 checks and terminal-safe
 * escaping.
 *
 * Names (of models, of devices) end up in tables, JSON and SVG; values
 * given on the command line are echoed in messages.  The readers reject
 * control characters and invalid UTF-8 in names (text_check_name); what
 * reaches a terminal anyway (a file name, an unknown --gpu) is escaped
 * (text_escape), so that no ESC, OSC or BEL sequence is ever written raw.
 * No state; thread-safe.
 */
#ifndef CAPPLAN_TEXT_H
#define CAPPLAN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Length of the valid UTF-8 sequence at the start of 's' (of 'len'
 * bytes): 1 to 4, or 0 when it is not one (a stray continuation byte, an
 * overlong form, a surrogate, a code point above U+10FFFF, a truncated
 * sequence).  An ASCII byte, control characters included, is 1.
 */
size_t text_utf8_len(const char *s, size_t len);

/* A control character at 's': C0 (below 0x20), DEL (0x7f) or a C1 code
   point (U+0080 to U+009F) in UTF-8; its length in bytes, else 0. */
size_t text_control_len(const char *s, size_t len);

/* What is wrong with a name, for text_check_name. */
enum text_fault {
	TEXT_OK = 0,
	TEXT_CONTROL,      /* a control character */
	TEXT_BAD_UTF8,     /* bytes that are not UTF-8 */
};

/*
 * Check that 's' (of 'len' bytes) is valid UTF-8 without control
 * characters.  Returns TEXT_OK, or the first fault with its byte offset
 * in '*at' and, for TEXT_CONTROL, the character's first byte in '*byte'
 * (TEXT_BAD_UTF8: the offending byte).
 */
enum text_fault text_check_name(const char *s, size_t len, size_t *at,
				unsigned char *byte);

/*
 * Copy 's' into 'buf' (of 'n' bytes, n >= 1), with control characters
 * written as \t, \n, \r or \xHH and bytes that are not UTF-8 as \xHH;
 * valid UTF-8 text is copied as it is.  A copy that does not fit is cut
 * at a character and ends in "...".  Returns 'buf'.
 */
const char *text_escape(const char *s, char *buf, size_t n);

/* Whether 'name' is an item of the comma-separated 'list' (blanks around
   an item ignored, letters in any case). */
bool text_list_has(const char *list, const char *name);

/* Append 'name' to the comma-separated 'list' (a buffer of 'size'
   bytes, cut where it is full) unless text_list_has finds it there. */
void text_list_add(char *list, size_t size, const char *name);

/* Write 's' to 'out' escaped as text_escape does, whatever its length. */
void text_fputs_escaped(const char *s, FILE *out);

#endif
