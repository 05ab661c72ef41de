/* main.c - the capplan program: everything happens in cli_main. */
#include <locale.h>

#include "cli.h"

int main(int argc, char **argv)
{
	/* numbers are read and written in the C locale, whatever LANG says */
	setlocale(LC_ALL, "C");
	return cli_main(argc, argv);
}
