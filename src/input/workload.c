/*
 * workload.c - the workload description: INI (inih) -> struct workload,
 * "section.key=value" overrides, and the files a key names (a Hugging
 * Face config.json, an ONNX graph); see workload.h.  The key table and
 * defaults are in workload_keys.c, one value's parsing in workload_value.c,
 * the checks in workload_check.c (workload_keys.h).
 *
 * Every key is a row of 'wl_keys': section, name, value type, the field it
 * fills and the accepted range.  The INI reader hands inih one physical line
 * at a time, so that messages can name line and column, and rejects what
 * inih would accept silently (NUL bytes, over-long lines, indented
 * continuation lines).  No global state of inih is changed.
 *
 * Conventions kept in the struct (the header has no room for "given"
 * flags):
 *   model.kv_heads, model.ffn_hidden: 0 when not given; consumers use
 *   'heads' and 4 * 'hidden' for 0.
 *   inference.kv_precision: follows weight_precision when a parse gives
 *   weight_precision but not kv_precision; an override of weight_precision
 *   (workload_set) moves kv_precision along when the two were equal.
 */
#include "workload_keys.h"
#include "hf_config.h"
#include "onnx_read.h"
#include "readfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "text.h"

/* ---------------------------------------------------------------------
 * INI reading
 */

struct ini_ctx {
	const char *buf;   /* text after any BOM */
	size_t len;
	size_t pos;        /* start of the next line */
	int lineno;        /* physical line of 'line', 1-based */
	const char *line;  /* current line, without its terminator */
	size_t line_len;
	const char *file;  /* for messages */
	struct workload *wl;
	struct diag err;   /* the first error, in line order */
	int seen[WL_GIVEN_MAX]; /* line where each key was given, 0 if not */
	int seen_col[WL_GIVEN_MAX]; /* column of its value */
};

static bool is_blank(char c)
{
	return isspace((unsigned char)c) != 0;
}

/* Offset of the first non-blank byte of a line, or 'len' when none. */
static size_t skip_blanks(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

/*
 * Checks inih does not make: indented lines (which inih would take as the
 * continuation of the previous value) and section headers, which are
 * checked here so that empty unknown sections are caught too.
 */
static int check_line(struct ini_ctx *c)
{
	const char *s = c->line;
	size_t len = c->line_len, i = skip_blanks(s, len), j, name_len;

	if (i == len || s[i] == ';' || s[i] == '#')
		return 0;
	if (i > 0)
		return diag_set(&c->err, c->file, c->lineno, (int)i + 1,
				"unexpected indented line (continuation "
				"lines are not supported)");
	if (s[0] != '[')
		return 0;
	for (j = 1; j < len && s[j] != ']'; j++)
		;
	if (j == len)
		return diag_set(&c->err, c->file, c->lineno, 1,
				"unterminated section header '%.*s'",
				(int)len, s);
	name_len = j - 1;
	if (!wl_section_known(s + 1, name_len))
		return diag_set(&c->err, c->file, c->lineno, 1,
				"unknown section '[%.*s]'; expected one of "
				"[model], [training], [inference], [cluster]",
				(int)name_len, s + 1);
	j += 1 + skip_blanks(s + j + 1, len - j - 1);
	if (j < len && s[j] != ';' && s[j] != '#')
		return diag_set(&c->err, c->file, c->lineno, (int)j + 1,
				"unexpected text after section header "
				"'[%.*s]'", (int)name_len, s + 1);
	return 0;
}

/* inih reader: one physical line per call, checked first. */
static char *ini_read_line(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	const char *p, *nl, *nul;
	size_t n, body;

	if (diag_has_error(&c->err) || c->pos >= c->len)
		return NULL;
	p = c->buf + c->pos;
	nl = memchr(p, '\n', c->len - c->pos);
	n = nl ? (size_t)(nl - p) + 1 : c->len - c->pos;
	c->pos += n;
	c->lineno++;
	body = nl ? n - 1 : n;
	if (body > 0 && p[body - 1] == '\r')
		body--;
	c->line = p;
	c->line_len = body;

	nul = memchr(p, '\0', body);
	if (nul) {
		diag_set(&c->err, c->file, c->lineno, (int)(nul - p) + 1,
			 "NUL byte in a text file");
		return NULL;
	}
	if (body > WL_LINE_MAX || num < 2 || body + 2 > (size_t)num) {
		/* a long path has a way round the line buffer */
		static const char *const paths[] = { "model.hf_config",
						     "model.onnx",
						     "inference.trace" };
		const char *hint = "";

		for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
			const char *key = strchr(paths[i], '.') + 1;
			size_t k = strlen(key), at = skip_blanks(p, body);

			if (body - at > k && strncmp(p + at, key, k) == 0 &&
			    (is_blank(p[at + k]) || p[at + k] == '=' ||
			     p[at + k] == ':'))
				hint = paths[i];
		}
		if (hint[0])
			diag_set(&c->err, c->file, c->lineno, 0,
				 "line is too long (%zu bytes; at most %d); a "
				 "longer path goes through --set %s=PATH",
				 body, WL_LINE_MAX, hint);
		else
			diag_set(&c->err, c->file, c->lineno, 0,
				 "line is too long (%zu bytes; at most %d)",
				 body, WL_LINE_MAX);
		return NULL;
	}
	if (check_line(c) < 0)
		return NULL;
	memcpy(str, p, body);
	str[body] = '\n';
	str[body + 1] = '\0';
	return str;
}

static int line_key_col(const struct ini_ctx *c)
{
	return (int)skip_blanks(c->line, c->line_len) + 1;
}

/* Column of the value: after the first '=' or ':' (as inih splits). */
static int line_value_col(const struct ini_ctx *c)
{
	size_t i = 0;

	while (i < c->line_len && c->line[i] != '=' && c->line[i] != ':')
		i++;
	if (i == c->line_len)
		return 0;
	i++;
	i += skip_blanks(c->line + i, c->line_len - i);
	return (int)i + 1;
}

static int ini_on_value(void *user, const char *section, const char *name,
			const char *value)
{
	struct ini_ctx *c = user;
	const struct wl_key *k, *near;
	struct wl_where at = { c->file, c->lineno, line_key_col(c) };
	int idx;

	if (section[0] == '\0') {
		diag_set(&c->err, at.file, at.line, at.col,
			 "key '%s' is outside any section; put it under "
			 "[model], [training], [inference] or [cluster]",
			 name);
		return 0;
	}
	if (name[0] == '\0') {
		diag_set(&c->err, at.file, at.line, at.col,
			 "missing key before '='");
		return 0;
	}
	idx = wl_key_find(section, name);
	if (idx < 0) {
		near = wl_key_closest(section, name);
		if (near)
			diag_set(&c->err, at.file, at.line, at.col,
				 "unknown key '%s' in [%s]; did you mean "
				 "'%s'?", name, section, near->key);
		else
			diag_set(&c->err, at.file, at.line, at.col,
				 "unknown key '%s' in [%s]", name, section);
		return 0;
	}
	k = &wl_keys[idx];
	if (c->seen[idx]) {
		diag_set(&c->err, at.file, at.line, at.col,
			 "duplicate key '%s' in [%s]; first given on line %d",
			 name, section, c->seen[idx]);
		return 0;
	}
	c->seen[idx] = c->lineno;
	c->wl->given[idx] = 1;
	at.col = line_value_col(c);
	c->seen_col[idx] = at.col;
	c->wl->given_line[idx] = c->lineno;
	c->wl->given_col[idx] = at.col;
	return wl_key_parse(k, value, k->key, c->wl, &at, &c->err) == 0;
}

/* Report inih's syntax error on line 'lineno' (no '=' on a key line). */
static void syntax_error(struct ini_ctx *c, int lineno)
{
	const char *p = c->buf, *end = c->buf + c->len, *nl;
	size_t len, i;

	for (int l = 1; l < lineno && p < end; l++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	i = skip_blanks(p, len);
	diag_clear(&c->err);
	diag_set(&c->err, c->file, lineno, (int)i + 1,
		 "expected 'key = value' or '[section]', got '%.*s'",
		 (int)(len - i), p + i);
}

int wl_find_key_index(const char *section, const char *key)
{
	int i = wl_key_find(section, key);

	return i < 0 ? 0 : i;
}

/*
 * Apply the file a key of the workload 'name' names ('value', relative to
 * the workload's folder unless absolute; the key is on 'line'): 'apply'
 * reads it into 'wl'.  Its errors are reported where they are, or at the
 * key.
 */
static int apply_file_key(struct workload *wl, const char *name, int line,
			  const char *label, const char *value,
			  int (*apply)(struct workload *, const char *,
				       struct diag *),
			  struct diag *err)
{
	char path[WL_PATH_MAX];
	const char *slash = name ? strrchr(name, '/') : NULL;
	struct diag file_err;
	int plen;

	if (value[0] == '/' || !slash)
		plen = snprintf(path, sizeof(path), "%s", value);
	else
		plen = snprintf(path, sizeof(path), "%.*s/%s",
				(int)(slash - name), name, value);
	/* the path is kept in the spec: never store a cut one */
	if (plen < 0 || (size_t)plen >= sizeof(path))
		return diag_set(err, name, line, 0,
				"'%s': the path, joined to the workload's "
				"folder, is longer than %zu bytes",
				label, sizeof(path) - 1);
	diag_clear(&file_err);
	if (apply(wl, path, &file_err) == 0)
		return 0;
	/* an unreadable file is reported where it is named */
	if (file_err.file[0])
		return diag_set_kind(err, file_err.kind, file_err.file,
				     file_err.line, file_err.col, "%s",
				     file_err.msg);
	return diag_set_kind(err, file_err.kind, name, line, 0, "%s",
			     file_err.msg);
}

int workload_parse(const char *buf, size_t len, const char *name,
		   struct workload *wl, struct diag *err)
{
	static const char bom[] = "\xEF\xBB\xBF";
	struct ini_ctx c;
	struct workload tmp = *wl;
	int r, weight, kv, hf, ox, tr, rows;

	memset(&c, 0, sizeof(c));
	if (name)
		snprintf(tmp.file, sizeof(tmp.file), "%s", name);
	if (len >= 3 && memcmp(buf, bom, 3) == 0) {
		buf += 3;
		len -= 3;
	}
	c.buf = buf;
	c.len = len;
	c.file = name;
	c.wl = &tmp;

	r = ini_parse_stream(ini_read_line, &c, ini_on_value, &c);
	if (r == -2)
		return diag_set(err, name, 0, 0, "out of memory");
	if (r > 0 && (!diag_has_error(&c.err) || c.err.line > r))
		syntax_error(&c, r);
	else if (r < 0 && !diag_has_error(&c.err))
		diag_set(&c.err, name, 0, 0, "cannot parse");
	if (diag_has_error(&c.err))
		return diag_set(err, c.err.file[0] ? c.err.file : NULL,
				c.err.line, c.err.col, "%s", c.err.msg);

	rows = wl_find_key_index("model", "embedding_rows");
	if (c.seen[rows] && tmp.model.table_rows.n > 0 &&
	    tmp.model.table_rows.n != tmp.model.embedding_tables)
		return diag_set(err, name, c.seen[rows], c.seen_col[rows],
				"'embedding_rows' lists %d tables, but "
				"'embedding_tables' is %d: give one row count "
				"per table (or a single count for all)",
				tmp.model.table_rows.n,
				tmp.model.embedding_tables);
	weight = wl_find_key_index("inference", "weight_precision");
	kv = wl_find_key_index("inference", "kv_precision");
	if (c.seen[weight] && !c.seen[kv])
		tmp.inference.kv_precision =
			wl_kv_following(tmp.inference.weight_precision);
	hf = wl_find_key_index("model", "hf_config");
	if (c.seen[hf] &&
	    apply_file_key(&tmp, name, c.seen[hf], "model.hf_config",
			   tmp.model.hf_config, workload_apply_hf_config,
			   err) != 0)
		return -1;
	ox = wl_find_key_index("model", "onnx");
	if (c.seen[ox] &&
	    apply_file_key(&tmp, name, c.seen[ox], "model.onnx",
			   tmp.model.onnx, workload_apply_onnx, err) != 0)
		return -1;
	tr = wl_find_key_index("inference", "trace");
	if (c.seen[tr] && tmp.inference.trace[0] != '/') {
		/* a relative path is relative to the workload's folder */
		const char *slash = name ? strrchr(name, '/') : NULL;
		char path[sizeof(tmp.inference.trace)];
		int plen;

		if (slash) {
			plen = snprintf(path, sizeof(path), "%.*s/%s",
					(int)(slash - name), name,
					tmp.inference.trace);
			if (plen < 0 || (size_t)plen >= sizeof(path))
				return diag_set(err, name, c.seen[tr], 0,
						"'inference.trace': the path, "
						"joined to the workload's "
						"folder, is longer than %zu "
						"bytes", sizeof(path) - 1);
			memcpy(tmp.inference.trace, path, (size_t)plen + 1);
		}
	}
	*wl = tmp;
	return 0;
}

int workload_load_file(const char *path, struct workload *wl,
		       struct diag *err)
{
	char *buf;
	size_t len;
	int ret;

	/* named on the command line: a FIFO (<(...)) reads too */
	if (readfile_all(path, READFILE_ANY, WL_FILE_MAX, &buf, &len, err) != 0)
		return -1;
	ret = workload_parse(buf, len, readfile_display_name(path), wl, err);
	free(buf);
	return ret;
}

/* ---------------------------------------------------------------------
 * --set
 */

/* Strip blanks at both ends of 's' in place; returns the new start. */
static char *trim(char *s)
{
	size_t len;

	while (is_blank(*s))
		s++;
	len = strlen(s);
	while (len > 0 && is_blank(s[len - 1]))
		s[--len] = '\0';
	return s;
}

int workload_set(struct workload *wl, const char *expr, struct diag *err)
{
	static const char *const file = "--set";
	const struct wl_key *k, *near;
	struct wl_where at = { file, 0, 0 };
	char copy[WL_SET_MAX], label[WL_SET_MAX], *eq, *dot, *section, *key;
	char *value;
	struct workload tmp = *wl;
	enum precision old_weight = wl->inference.weight_precision;
	int idx;

	if (strlen(expr) >= sizeof(copy))
		return diag_set(err, file, 0, 0,
				"expression is too long (at most %d bytes)",
				WL_SET_MAX - 1);
	memcpy(copy, expr, strlen(expr) + 1);
	eq = strchr(copy, '=');
	if (!eq)
		return diag_set(err, file, 0, 0,
				"expected 'section.key=value', got '%s'",
				expr);
	dot = memchr(copy, '.', (size_t)(eq - copy));
	if (!dot) {
		*eq = '\0';
		key = trim(copy);
		for (size_t i = 0; i < wl_key_count; i++)
			if (strcmp(wl_keys[i].key, key) == 0)
				return diag_set(err, file, 0, 0,
						"expected 'section.key=value', "
						"got '%s'; did you mean "
						"'%s.%s'?", expr,
						wl_keys[i].section, key);
		return diag_set(err, file, 0, 0,
				"expected 'section.key=value', got '%s'",
				expr);
	}
	*eq = '\0';
	*dot = '\0';
	section = trim(copy);
	key = trim(dot + 1);
	value = trim(eq + 1);
	if (!wl_section_known(section, strlen(section)))
		return diag_set(err, file, 0, 0,
				"unknown section '%s'; expected one of model, "
				"training, inference, cluster", section);
	idx = wl_key_find(section, key);
	if (idx < 0) {
		near = wl_key_closest(section, key);
		if (near)
			return diag_set(err, file, 0, 0,
					"unknown key '%s.%s'; did you mean "
					"'%s.%s'?", section, key,
					near->section, near->key);
		return diag_set(err, file, 0, 0, "unknown key '%s.%s'",
				section, key);
	}
	k = &wl_keys[idx];
	snprintf(label, sizeof(label), "%s.%s", k->section, k->key);
	if (wl_key_parse(k, value, label, &tmp, &at, err) < 0)
		return -1;
	tmp.given[idx] = 1;
	tmp.given_line[idx] = 0; /* the value is --set's now */
	tmp.given_col[idx] = 0;
	if (k->offset == WL_OFF(inference.weight_precision) &&
	    tmp.inference.kv_precision == wl_kv_following(old_weight))
		tmp.inference.kv_precision =
			wl_kv_following(tmp.inference.weight_precision);
	if (k->offset == WL_OFF(model.hf_config) &&
	    workload_apply_hf_config(&tmp, tmp.model.hf_config, err) != 0)
		return -1;
	if (k->offset == WL_OFF(model.onnx) &&
	    workload_apply_onnx(&tmp, tmp.model.onnx, err) != 0)
		return -1;
	*wl = tmp;
	return 0;
}

/*
 * The model's label when the workload names none: the file its
 * architecture came from, without folder and extension, or the folder
 * of a Hugging Face checkpoint's "config.json" ("Qwen3-14B/config.json"
 * is Qwen3-14B), so that tables and charts do not say "model".
 */
static void name_from_file(struct workload *wl, const char *path)
{
	const char *base, *dot, *end;
	size_t len;

	if (wl->given[wl_find_key_index("model", "name")])
		return;
	wl->model.name[0] = '\0'; /* not an earlier file's */
	end = path + strlen(path);
	while (end > path && end[-1] == '/')
		end--;
	base = end;
	while (base > path && base[-1] != '/')
		base--;
	dot = memchr(base, '.', (size_t)(end - base));
	len = (size_t)((dot && dot > base ? dot : end) - base);
	if (len == strlen("config") && memcmp(base, "config", len) == 0) {
		/* the checkpoint's folder, where the path names one */
		if (base == path)
			return;
		end = base - 1;
		while (end > path && end[-1] == '/')
			end--;
		base = end;
		while (base > path && base[-1] != '/')
			base--;
		len = (size_t)(end - base);
		if (len == 0 || (len == 1 && base[0] == '.') ||
		    (len == 2 && memcmp(base, "..", 2) == 0))
			return; /* no folder to name it by: "model" */
	}
	if (len == 0)
		return;
	snprintf(wl->model.name, sizeof(wl->model.name), "%.*s",
		 (int)(len < sizeof(wl->model.name) ? len :
						      sizeof(wl->model.name) -
							      1),
		 base);
}

int workload_apply_onnx(struct workload *wl, const char *path,
			struct diag *err)
{
	struct model_spec *m = &wl->model;

	if (onnx_summary_load(path, &m->graph, err) != 0)
		return -1;
	/* the graph is the network: what the per-sample form would give
	   follows from it (activations as 16-bit elements, for reports) */
	m->kind = MODEL_GENERIC;
	m->params = m->graph.params;
	m->flops_per_sample = m->graph.flops;
	m->activation_bytes_per_sample = 2.0 * m->graph.saved_elems;
	name_from_file(wl, path);
	if (path != m->onnx)
		snprintf(m->onnx, sizeof(m->onnx), "%s", path);
	return 0;
}

/*
 * A quantized checkpoint's formats for serving, where the workload gave
 * none: the weights', weight-only, and the KV cache's (the JSON's KV
 * scheme, else the checkpoint's 16-bit dtype, as vLLM's and SGLang's
 * kv_cache_dtype "auto").  A quantization capplan cannot read is an error
 * unless the workload gave the weights' format.
 */
static int apply_hf_quant(struct workload *wl, const char *path,
			  const struct hf_quant *q, struct diag *err)
{
	int w = wl_find_key_index("inference", "weight_precision");
	int kv = wl_find_key_index("inference", "kv_precision");
	int wo = wl_find_key_index("inference", "weight_only");
	int fmt = wl_find_key_index("inference", "fp4_format");
	int nx = wl_find_key_index("inference", "non_expert_precision");

	if (!q->present || wl->given[w])
		return 0;
	if (!q->known)
		return diag_set(err, path, 0, 0,
				"quantization_config: %s is not a format "
				"capplan has (it reads fp8, fbgemm_fp8, "
				"mxfp4, gptq, awq, bitsandbytes, "
				"compressed-tensors and modelopt checkpoints "
				"of 8- and 4-bit weights); give "
				"'inference.weight_precision' in the "
				"workload, or by --set ahead of --set "
				"model.hf_config",
				q->why);
	wl->inference.weight_precision = q->weights;
	if (!wl->given[kv])
		wl->inference.kv_precision = q->kv_given ? q->kv : q->dtype;
	if (!wl->given[wo])
		wl->inference.weight_only = q->weight_only;
	if (!wl->given[fmt])
		wl->inference.fp4_format = q->weights == PREC_FP4 && q->mxfp4;
	/* an MoE whose attention the checkpoint keeps unquantized: the
	   weights outside its routed experts in the 16-bit dtype */
	if (!wl->given[nx])
		wl->inference.non_expert_precision =
			q->attention_kept && wl->model.experts > 0 ?
				q->dtype :
				PREC_COUNT;
	return 0;
}

int workload_apply_hf_config(struct workload *wl, const char *path,
			     struct diag *err)
{
	struct model_spec json = wl->model;
	struct hf_quant q;
	char what[128];
	int v;

	if (hf_config_load(path, &json, &q, err) != 0)
		return -1;
	/* the JSON's integers are positive; the keys' bounds apply to them
	   as to values in the file (0: a field the JSON left out) */
	for (size_t i = 0; i < wl_key_count; i++) {
		const struct wl_key *k = &wl_keys[i];

		if (k->type != WLT_INT || strcmp(k->section, "model") != 0 ||
		    wl->given[i])
			continue;
		memcpy(&v, (const char *)&json + (k->offset - WL_OFF(model)),
		       sizeof(int));
		if (v != 0 && !wl_in_range(k, v)) {
			wl_key_describe(k, what, sizeof(what));
			return diag_set(err, path, 0, 0,
					"'%s' must be %s, got %d", k->key,
					what, v);
		}
	}
	for (size_t i = 0; i < wl_key_count; i++) {
		const struct wl_key *k = &wl_keys[i];
		char *dst = (char *)wl + k->offset;
		const char *src;

		if (strcmp(k->section, "model") != 0 || wl->given[i] ||
		    k->offset == WL_OFF(model.name) ||
		    k->offset == WL_OFF(model.params) ||
		    k->offset == WL_OFF(model.hf_config))
			continue;
		src = (const char *)&json + (k->offset - WL_OFF(model));
		switch (k->type) {
		case WLT_INT:
			memcpy(dst, src, sizeof(int));
			break;
		case WLT_BOOL:
			memcpy(dst, src, sizeof(bool));
			break;
		default:
			break;
		}
	}
	/* the formats once the architecture (its experts) is known */
	if (apply_hf_quant(wl, path, &q, err) != 0)
		return -1;
	name_from_file(wl, path);
	/* 'path' may be this very buffer (workload_set passes it) */
	if (path != wl->model.hf_config)
		snprintf(wl->model.hf_config, sizeof(wl->model.hf_config),
			 "%s", path);
	return 0;
}
