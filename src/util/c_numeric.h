/*
 * c_numeric.h - run a parser with the C locale for numbers (a decimal
 * point, whatever the user's locale), thread by thread (uselocale), and
 * restore the caller's locale after.  Used by the CSV readers.
 */
#ifndef CAPPLAN_C_NUMERIC_H
#define CAPPLAN_C_NUMERIC_H

#include <locale.h>

struct c_numeric {
	locale_t c;
	locale_t saved;
};

/* Switch this thread to the C numeric locale (no-op when it cannot). */
void c_numeric_enter(struct c_numeric *n);

/* Restore what c_numeric_enter replaced. */
void c_numeric_leave(struct c_numeric *n);

#endif
