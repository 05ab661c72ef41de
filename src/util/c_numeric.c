/* c_numeric.c - the C numeric locale around a parser; see c_numeric.h. */
#include "c_numeric.h"

void c_numeric_enter(struct c_numeric *n)
{
	n->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	n->saved = n->c ? uselocale(n->c) : (locale_t)0;
}

void c_numeric_leave(struct c_numeric *n)
{
	if (!n->c)
		return;
	uselocale(n->saved);
	freelocale(n->c);
}
