/*
 * catalog_find.c - a device of the catalog by name, case-insensitively,
 * and the names to suggest for an unknown one.  See catalog.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog_internal.h"

#define CATALOG_SUGGEST_MAX 5

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	}
	return n == 0;
}

/* Case-insensitive Levenshtein distance; 'b' has fewer than GPU_NAME_MAX
 * bytes. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t row[GPU_NAME_MAX + 1];
	size_t nb = strnlen(b, GPU_NAME_MAX);

	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; *a; a++, i++) {
		size_t corner = row[0];

		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t best = corner + (lower((unsigned char)*a) !=
					      lower((unsigned char)b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			corner = up;
			row[j] = best;
		}
	}
	return row[nb];
}

/*
 * How close 'cand' is to 'query' (lower is closer), or SIZE_MAX when it is
 * not worth suggesting: names containing one another come first, then
 * names within a few edits.
 */
static size_t closeness(const char *query, const char *cand)
{
	size_t nq = strlen(query);
	size_t nc = strlen(cand);
	size_t d;

	if (nq >= 2 &&
	    (contains_nocase(cand, query) || contains_nocase(query, cand)))
		return nq > nc ? nq - nc : nc - nq;
	d = edit_distance(query, cand);
	if (d <= 2 || d <= nq / 3)
		return GPU_NAME_MAX + d;
	return SIZE_MAX;
}

const struct gpu_spec *catalog_find(const struct catalog *cat,
				    const char *name, struct diag *err)
{
	size_t n = catalog_count(cat);
	size_t best[CATALOG_SUGGEST_MAX];
	size_t score[CATALOG_SUGGEST_MAX];
	size_t nbest = 0;
	char msg[DIAG_MSG_MAX];
	size_t used;

	if (!name)
		name = "";
	for (size_t i = 0; i < n; i++) {
		if (strcasecmp(cat->gpus[i].name, name) == 0)
			return &cat->gpus[i];
	}
	if (n == 0) {
		diag_set(err, NULL, 0, 0,
			 "unknown gpu '%s': the catalog is empty", name);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		size_t s = closeness(name, cat->gpus[i].name);
		size_t k;

		if (s == SIZE_MAX)
			continue;
		/* insert, keeping catalog order among equals */
		for (k = nbest; k > 0 && score[k - 1] > s; k--) {
			if (k < CATALOG_SUGGEST_MAX) {
				best[k] = best[k - 1];
				score[k] = score[k - 1];
			}
		}
		if (k < CATALOG_SUGGEST_MAX) {
			best[k] = i;
			score[k] = s;
			if (nbest < CATALOG_SUGGEST_MAX)
				nbest++;
		}
	}
	used = (size_t)snprintf(msg, sizeof(msg), "unknown gpu '%s'", name);
	for (size_t k = 0; k < nbest && used < sizeof(msg); k++)
		used += (size_t)snprintf(msg + used, sizeof(msg) - used,
					 "%s'%s'",
					 k == 0 ? "; did you mean " : ", ",
					 cat->gpus[best[k]].name);
	if (nbest > 0 && used < sizeof(msg))
		snprintf(msg + used, sizeof(msg) - used, "?");
	diag_set(err, NULL, 0, 0, "%s", msg);
	return NULL;
}
