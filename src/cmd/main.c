/* main.c - the capplan program: everything happens in cli_main. */
#include <locale.h>

#include <gsl/gsl_errno.h>

#include "cli.h"

int main(int argc, char **argv)
{
	/* numbers are read and written in the C locale, whatever LANG says */
	setlocale(LC_ALL, "C");
	/* GSL's default handler aborts; every GSL status is checked instead */
	gsl_set_error_handler_off();
	return cli_main(argc, argv);
}
