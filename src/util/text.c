/* text.c - UTF-8 checks and terminal-safe escaping; see text.h. */
#include "text.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

size_t text_utf8_len(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;
	size_t n;

	if (len == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	/* RFC 3629, section 4: the shortest form, no surrogates, at most
	   U+10FFFF */
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1fu;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0fu;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07u;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

size_t text_control_len(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	if (len == 0)
		return 0;
	if (p[0] < 0x20 || p[0] == 0x7f)
		return 1;
	/* U+0080..U+009F are C2 80..C2 9F */
	if (len >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	return 0;
}

enum text_fault text_check_name(const char *s, size_t len, size_t *at,
				unsigned char *byte)
{
	size_t i = 0;

	while (i < len) {
		size_t n = text_utf8_len(s + i, len - i);

		if (n == 0) {
			*at = i;
			*byte = (unsigned char)s[i];
			return TEXT_BAD_UTF8;
		}
		if (text_control_len(s + i, len - i)) {
			*at = i;
			*byte = (unsigned char)s[i];
			return TEXT_CONTROL;
		}
		i += n;
	}
	return TEXT_OK;
}

/* The escaped form of the character at 's' into 'out' (at least 9
   bytes); returns the bytes of 's' it stands for. */
static size_t escape_one(const char *s, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t c = text_control_len(s, len);
	size_t n = c ? c : text_utf8_len(s, len);
	size_t k = 0;

	if (c == 1 && (s[0] == '\t' || s[0] == '\n' || s[0] == '\r')) {
		out[0] = '\\';
		out[1] = s[0] == '\t' ? 't' : s[0] == '\n' ? 'n' : 'r';
		out[2] = '\0';
		return 1;
	}
	if (c == 0 && n > 0) {
		memcpy(out, s, n);
		out[n] = '\0';
		return n;
	}
	if (n == 0)
		n = 1; /* not UTF-8: one byte at a time */
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		out[k++] = '\\';
		out[k++] = 'x';
		out[k++] = hex[b >> 4];
		out[k++] = hex[b & 0xf];
	}
	out[k] = '\0';
	return n;
}

const char *text_escape(const char *s, char *buf, size_t n)
{
	size_t len = strlen(s), used = 0, i = 0, full = 0;
	char one[9];

	for (size_t j = 0; j < len;) {
		j += escape_one(s + j, len - j, one);
		full += strlen(one);
	}
	buf[0] = '\0';
	while (i < len) {
		size_t took = escape_one(s + i, len - i, one);
		size_t w = strlen(one);

		/* when all of it does not fit, keep room for "..." */
		if (full >= n && used + w + 3 >= n) {
			if (used + 3 < n)
				memcpy(buf + used, "...", 4);
			return buf;
		}
		memcpy(buf + used, one, w + 1);
		used += w;
		i += took;
	}
	return buf;
}

void text_fputs_escaped(const char *s, FILE *out)
{
	size_t len = strlen(s), i = 0;

	while (i < len) {
		char one[9];

		i += escape_one(s + i, len - i, one);
		fputs(one, out);
	}
}

bool text_list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (n == 0)
		return false; /* no name is in any list */
	while (*list) {
		size_t len;

		while (*list == ' ')
			list++;
		len = strcspn(list, ",");
		while (len > 0 && list[len - 1] == ' ')
			len--;
		if (len == n && strncasecmp(list, name, n) == 0)
			return true;
		list += strcspn(list, ",");
		if (*list == ',')
			list++;
	}
	return false;
}

void text_list_add(char *list, size_t size, const char *name)
{
	size_t n = strlen(list);

	if (!text_list_has(list, name) && n + 1 < size)
		snprintf(list + n, size - n, "%s%s", n ? "," : "", name);
}
