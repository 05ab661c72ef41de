/* test_text.c - UTF-8 checks and escaping of untrusted text (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "text.h"

static size_t len_of(const char *s)
{
	return text_utf8_len(s, strlen(s));
}

static void test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(len_of("a"), 1);
	assert_int_equal(len_of("\x1b"), 1);
	assert_int_equal(len_of("\xc3\xa9"), 2);          /* U+00E9 */
	assert_int_equal(len_of("\xe4\xb8\xad"), 3);      /* U+4E2D */
	assert_int_equal(len_of("\xf0\x9f\x9a\x80"), 4);  /* U+1F680 */
	assert_int_equal(len_of("\xf4\x8f\xbf\xbf"), 4);  /* U+10FFFF */
	/* not UTF-8 */
	assert_int_equal(len_of("\x80"), 0);              /* continuation */
	assert_int_equal(len_of("\xff"), 0);
	assert_int_equal(len_of("\xc0\xaf"), 0);          /* overlong '/' */
	assert_int_equal(len_of("\xc1\xbf"), 0);
	assert_int_equal(len_of("\xe0\x80\xaf"), 0);      /* overlong */
	assert_int_equal(len_of("\xf0\x80\x80\xaf"), 0);  /* overlong */
	assert_int_equal(len_of("\xed\xa0\x80"), 0);      /* U+D800 */
	assert_int_equal(len_of("\xf4\x90\x80\x80"), 0);  /* U+110000 */
	assert_int_equal(len_of("\xc3("), 0);             /* cut short */
	assert_int_equal(text_utf8_len("\xe4\xb8\xad", 2), 0);
	assert_int_equal(text_utf8_len("", 0), 0);
}

static void test_control_len(void **state)
{
	(void)state;
	assert_int_equal(text_control_len("\x07", 1), 1);
	assert_int_equal(text_control_len("\x7f", 1), 1);
	assert_int_equal(text_control_len("\t", 1), 1);
	assert_int_equal(text_control_len("\xc2\x9b", 2), 2);  /* U+009B */
	assert_int_equal(text_control_len("\xc2\xa0", 2), 0);  /* NBSP */
	assert_int_equal(text_control_len("a", 1), 0);
	assert_int_equal(text_control_len("", 0), 0);
}

static void test_check_name(void **state)
{
	size_t at = 99;
	unsigned char byte = 0;

	(void)state;
	assert_int_equal(text_check_name("H100-SXM", 8, &at, &byte), TEXT_OK);
	assert_int_equal(text_check_name("caf\xc3\xa9 1", 7, &at, &byte),
			 TEXT_OK);
	assert_int_equal(text_check_name("ab\x1b]0;x\x07", 8, &at, &byte),
			 TEXT_CONTROL);
	assert_int_equal(at, 2);
	assert_int_equal(byte, 0x1b);
	assert_int_equal(text_check_name("caf\xe9", 4, &at, &byte),
			 TEXT_BAD_UTF8);
	assert_int_equal(at, 3);
	assert_int_equal(byte, 0xe9);
	assert_int_equal(text_check_name("x\xc2\x85", 3, &at, &byte),
			 TEXT_CONTROL);
	assert_int_equal(at, 1);
	assert_int_equal(byte, 0xc2);
}

static void test_escape(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(text_escape("H100-SXM", buf, sizeof(buf)),
			    "H100-SXM");
	assert_string_equal(text_escape("\x1b]0;pwn\x07", buf, sizeof(buf)),
			    "\\x1b]0;pwn\\x07");
	assert_string_equal(text_escape("a\tb\nc\rd\x7f", buf, sizeof(buf)),
			    "a\\tb\\nc\\rd\\x7f");
	assert_string_equal(text_escape("caf\xc3\xa9", buf, sizeof(buf)),
			    "caf\xc3\xa9");
	assert_string_equal(text_escape("caf\xe9!", buf, sizeof(buf)),
			    "caf\\xe9!");
	assert_string_equal(text_escape("\xc2\x9b" "1m", buf, sizeof(buf)),
			    "\\xc2\\x9b1m");
	/* cut at a character, with "..." */
	assert_string_equal(text_escape("abcdefghij", buf, 8), "abcd...");
	assert_string_equal(text_escape("abcdefg", buf, 8), "abcdefg");
	assert_string_equal(text_escape("ab\x1b" "cdef", buf, 8), "ab...");
	assert_string_equal(text_escape("\xe4\xb8\xad\xe4\xb8\xad\xe4\xb8\xad",
					buf, 8),
			    "\xe4\xb8\xad...");
	assert_string_equal(text_escape("", buf, 1), "");
}

/* What a stream got, as a string. */
static char *captured(void (*write)(FILE *, const void *), const void *arg)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	assert_non_null(f);
	write(f, arg);
	fclose(f);
	return text;
}

static void put_escaped(FILE *f, const void *arg)
{
	text_fputs_escaped(arg, f);
}

static void put_diag(FILE *f, const void *arg)
{
	diag_print(f, arg);
}

static void test_fputs_and_diag(void **state)
{
	struct diag d;
	char *s;

	(void)state;
	s = captured(put_escaped, "x\x1b[2Jy\xff");
	assert_string_equal(s, "x\\x1b[2Jy\\xff");
	free(s);
	/* a message that echoes a value never writes it raw */
	diag_clear(&d);
	diag_set(&d, "w\x07.ini", 3, 9, "unknown gpu '%s'", "\x1b]0;x\x07");
	s = captured(put_diag, &d);
	assert_string_equal(s,
			    "w\\x07.ini:3:9: unknown gpu '\\x1b]0;x\\x07'\n");
	free(s);
	diag_clear(&d);
	diag_set(&d, NULL, 0, 0, "bad '%s'", "a\nb");
	s = captured(put_diag, &d);
	assert_string_equal(s, "capplan: error: bad 'a\\nb'\n");
	free(s);
}

/* A comma-separated list of names: items, blanks around them, case. */
static void test_list_has(void **state)
{
	(void)state;
	assert_true(text_list_has("H100-SXM,A100-SXM-80GB", "a100-sxm-80gb"));
	assert_true(text_list_has("H100-SXM , L40S", "L40S"));
	assert_true(text_list_has(" H100-SXM ,L40S", "h100-sxm"));
	/* a name that is part of an item is not an item */
	assert_false(text_list_has("H100-SXM-80GB", "H100-SXM"));
	assert_false(text_list_has("H100-SXM", "H100-SXM-80GB"));
	assert_false(text_list_has("", "H100-SXM"));
	assert_false(text_list_has("A,,B", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_control_len),
		cmocka_unit_test(test_check_name),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_fputs_and_diag),
		cmocka_unit_test(test_list_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
