/* hf_config.c - read Hugging Face config.json; see hf_config.h. */
#include "hf_config.h"
#include "readfile.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest config.json read (real ones are a few kB). */
#define HF_FILE_MAX (1 << 20)

/*
 * Where a family keeps each field: JSON names tried in order (the first
 * present wins); NULL entries end the lists.  Defaults apply when none is
 * present and the field is optional.
 */
struct hf_family {
	const char *types[8];        /* "model_type" values */
	const char *layers[3];
	const char *hidden[3];
	const char *heads[3];
	const char *kv_heads[3];     /* optional: default heads */
	const char *ffn[3];          /* optional: default 4 x hidden */
	const char *positions[3];
	bool gated;                  /* SwiGLU/GeGLU FFN */
	bool tied_default;           /* when tie_word_embeddings is absent */
	int positions_default;       /* when no position field exists */
	bool moe;                    /* may carry experts */
	bool mla;                    /* multi-head latent attention */
	bool multi_query;            /* Falcon: "multi_query" means 1 KV head */
	/* mixtures of experts; absent (zero) for the others */
	const char *expert_ffn[3];   /* default "moe_intermediate_size" */
	int shared_default;          /* shared experts when the JSON names none */
	bool interleaved;            /* every "interleave_moe_layer_step"-th
					layer is MoE, the others dense */
};

static const struct hf_family families[] = {
	{ { "llama", "mistral", "qwen2", "qwen3", "yi", "phi3", "granite",
	    NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { "num_key_value_heads" }, { "intermediate_size" },
	  { "max_position_embeddings" }, true, false, 2048, false, false,
	  false, { NULL }, 0, false },
	{ { "mixtral", "qwen2_moe", "qwen3_moe", "gpt_oss", "glm4_moe", "olmoe",
	    NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { "num_key_value_heads" }, { "intermediate_size" },
	  { "max_position_embeddings" }, true, false, 2048, true, false,
	  false, { NULL }, 0, false },
	{ { "gemma", "gemma2", "gemma3_text", NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { "num_key_value_heads" }, { "intermediate_size" },
	  { "max_position_embeddings" }, true, true, 8192, false, false,
	  false, { NULL }, 0, false },
	{ { "gpt2", NULL },
	  { "n_layer" }, { "n_embd" }, { "n_head" }, { NULL },
	  { "n_inner" }, { "n_positions", "n_ctx" }, false, true, 1024, false,
	  false, false, { NULL }, 0, false },
	{ { "gpt_neox", NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { NULL }, { "intermediate_size" }, { "max_position_embeddings" },
	  false, false, 2048, false, false, false, { NULL }, 0, false },
	{ { "opt", NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { NULL }, { "ffn_dim" }, { "max_position_embeddings" }, false, true,
	  2048, false, false, false, { NULL }, 0, false },
	{ { "falcon", "RefinedWeb", "RefinedWebModel", NULL },
	  { "num_hidden_layers", "n_layer" }, { "hidden_size" },
	  { "num_attention_heads", "n_head" },
	  { "num_kv_heads", "n_head_kv" }, { "ffn_hidden_size" },
	  { "max_position_embeddings" }, false, true, 2048, false, false,
	  true, { NULL }, 0, false },
	/* Llama 4: dense layers of "intermediate_size_mlp", experts of
	   "intermediate_size" and one shared expert in every MoE layer */
	{ { "llama4_text", NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { "num_key_value_heads" }, { "intermediate_size_mlp" },
	  { "max_position_embeddings" }, true, false, 8192, true, false, false,
	  { "intermediate_size" }, 1, true },
	{ { "deepseek_v2", "deepseek_v3", "kimi_k2", NULL },
	  { "num_hidden_layers" }, { "hidden_size" }, { "num_attention_heads" },
	  { "num_key_value_heads" }, { "intermediate_size" },
	  { "max_position_embeddings" }, true, false, 4096, true, true, false,
	  { NULL }, 0, false },
};

static const struct hf_family *family_find(const char *type)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		for (int j = 0; families[i].types[j]; j++)
			if (strcmp(type, families[i].types[j]) == 0)
				return &families[i];
	return NULL;
}

/* The first present field of 'names'; NULL when none is (a JSON null
   counts as absent, as GPT-2's "n_inner": null means the default). */
static const cJSON *field(const cJSON *root, const char *const *names,
			  const char **which)
{
	for (int i = 0; i < 3 && names[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, names[i]);

		if (v && !cJSON_IsNull(v)) {
			*which = names[i];
			return v;
		}
	}
	return NULL;
}

/*
 * A JSON value that is not an integer from 'lo' to 'hi', for messages:
 * a number as its shortest decimal form that reads back the same
 * ("2147483648", "1e+300", "-4", "11008.5"), else what the JSON holds
 * ("the string \"4096\"", "true", "an array").
 */
static const char *int_value_text(const cJSON *v, char *buf, size_t size)
{
	double d;

	if (cJSON_IsString(v)) {
		snprintf(buf, size, "the string \"%.32s\"", v->valuestring);
		return buf;
	}
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? "true" : "false";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	if (!cJSON_IsNumber(v))
		return "a value of another type";
	d = v->valuedouble;
	/* strtod gave +-HUGE_VAL for a number beyond a double (1e400) */
	if (!isfinite(d))
		return d > 0 ? "a number beyond the range of a double" :
			       "a negative number beyond the range of a double";
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return buf;
}

/*
 * An integer field from 'lo' to 'hi' (the bound of the workload key it
 * fills, workload.h); 'required' makes absence an error.  The name in
 * messages is the alias the JSON has.
 */
static int get_int(const cJSON *root, const char *const *names,
		   bool required, int lo, int hi, int *out, const char *file,
		   struct diag *err)
{
	const char *which = names[0];
	const cJSON *v = field(root, names, &which);
	char got[64];
	double d;

	if (!v) {
		if (required)
			return diag_set(err, file, 0, 0,
					"missing field '%s' (an integer from "
					"%d to %d)",
					names[0], lo, hi);
		return 0;
	}
	d = v->valuedouble; /* 0 unless a number */
	if (!cJSON_IsNumber(v) || !(d >= lo && d <= hi && d == floor(d)))
		return diag_set(err, file, 0, 0,
				"field '%s' must be an integer from %d to %d, "
				"got %s",
				which, lo, hi,
				int_value_text(v, got, sizeof(got)));
	*out = (int)d;
	return 0;
}

static int get_int1(const cJSON *root, const char *name, bool required,
		    int lo, int hi, int *out, const char *file,
		    struct diag *err)
{
	const char *names[3] = { name, NULL, NULL };

	return get_int(root, names, required, lo, hi, out, file, err);
}

/* The alias of 'names' the JSON has (the first when none), for
   messages about a field read before. */
static const char *field_name(const cJSON *root, const char *const *names)
{
	const char *which = names[0];

	field(root, names, &which);
	return which;
}

static int get_bool(const cJSON *root, const char *name, bool *out,
		    const char *file, struct diag *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsBool(v))
		return diag_set(err, file, 0, 0,
				"field '%s' must be true or false", name);
	*out = cJSON_IsTrue(v);
	return 0;
}

/* ------------------------------------------------------------------
 * The JSON text: cJSON parses it; the checks cJSON does not make
 * (trailing text, duplicate keys) and the positions of errors are found
 * here, on the same NUL-terminated text.
 */

/* Line and column (1-based, in bytes) of offset 'off' of 'text'. */
static void locate(const char *text, size_t off, int *line, int *col)
{
	int l = 1;
	size_t start = 0;

	for (size_t i = 0; i < off && text[i]; i++)
		if (text[i] == '\n') {
			l++;
			start = i + 1;
		}
	*line = l;
	*col = (int)(off - start) + 1;
}

static bool json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Walk the JSON text up to 'stop' (outside strings; a string is skipped
 * whole).  Returns the arrays and objects open at 'stop'.  With 'obj' >= 0
 * it instead finds the 'key'-th key (0-based) of the 'obj'-th object (in
 * the order their '{' appear) and returns its offset in '*found'.
 */
static int json_walk(const char *t, size_t stop, int obj, int key,
		     size_t *found)
{
	int depth = 0, objects = 0, target_depth = -1, keys = 0;

	for (size_t i = 0; t[i] && (obj >= 0 || i < stop); i++) {
		char c = t[i];

		if (c == '"') {
			size_t start = i;

			for (i++; t[i] && t[i] != '"'; i++)
				if (t[i] == '\\' && t[i + 1])
					i++;
			if (!t[i])
				break;
			if (target_depth >= 0 && depth == target_depth) {
				size_t j = i + 1;

				while (json_space(t[j]))
					j++;
				if (t[j] == ':' && keys++ == key) {
					*found = start;
					return depth;
				}
			}
		} else if (c == '{' || c == '[') {
			depth++;
			if (c == '{' && obj >= 0 && objects++ == obj)
				target_depth = depth;
		} else if (c == '}' || c == ']') {
			if (depth == target_depth)
				return -1; /* not found: the object ended */
			depth--;
		}
	}
	return depth;
}

struct json_key {
	const char *key;
	int index;  /* among its object's members */
};

static int by_key_then_index(const void *x, const void *y)
{
	const struct json_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : a->index - b->index;
}

/* Where a duplicate key is: the ordinal of its object (in the order of
   the '{'), its member index, the index of the key's first member. */
struct json_dup {
	int obj, dup, first;
	const char *key;
};

/*
 * The first duplicate key of 'node' and of the objects in it, in the
 * order of the text, into '*d'; '*next' counts the objects seen.  Returns
 * 1 when found, 0 when none, -1 when out of memory.
 */
static int find_duplicate(const cJSON *node, int *next, struct json_dup *d)
{
	if (cJSON_IsObject(node)) {
		int me = (*next)++, n = 0, k = 0, best = -1, best_first = 0;
		const char *best_key = NULL;
		struct json_key *keys;

		for (const cJSON *c = node->child; c; c = c->next)
			n++;
		keys = malloc((size_t)(n ? n : 1) * sizeof(*keys));
		if (!keys)
			return -1;
		for (const cJSON *c = node->child; c; c = c->next, k++) {
			keys[k].key = c->string ? c->string : "";
			keys[k].index = k;
		}
		qsort(keys, (size_t)n, sizeof(*keys), by_key_then_index);
		for (int i = 1, g = 0; i < n; i++) {
			if (strcmp(keys[i].key, keys[g].key) != 0) {
				g = i;
				continue;
			}
			if (best < 0 || keys[i].index < best) {
				best = keys[i].index;
				best_first = keys[g].index;
				best_key = keys[i].key;
			}
		}
		free(keys);
		if (best >= 0) {
			/* a duplicate here comes before any in its members
			   only if it is earlier in the text; members before
			   it are searched first */
			k = 0;
			for (const cJSON *c = node->child; c && k < best;
			     c = c->next, k++) {
				int r = find_duplicate(c, next, d);

				if (r != 0)
					return r;
			}
			d->obj = me;
			d->dup = best;
			d->first = best_first;
			d->key = best_key;
			return 1;
		}
	}
	for (const cJSON *c = node->child; c; c = c->next) {
		int r = find_duplicate(c, next, d);

		if (r != 0)
			return r;
	}
	return 0;
}

/* Parse 'text' (NUL-terminated, 'len' bytes) into one JSON object. */
static cJSON *parse_document(const char *text, size_t len, const char *name,
			     struct diag *err)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &end, 0);
	size_t off;
	struct json_dup d = { 0, 0, 0, NULL };
	int line, col, next = 0, r;

	if (!root) {
		off = end && end >= text ? (size_t)(end - text) : 0;
		if (off > len)
			off = len;
		locate(text, off, &line, &col);
		if (json_walk(text, off, -1, 0, NULL) >= CJSON_NESTING_LIMIT)
			diag_set(err, name, line, col,
				 "nested too deeply (more than %d levels of "
				 "arrays and objects)",
				 CJSON_NESTING_LIMIT);
		else if (strspn(text, " \t\r\n") == len)
			diag_set(err, name, 0, 0,
				 "empty file: expected a JSON object (a "
				 "Hugging Face config.json)");
		else if (off + 1 >= len)
			diag_set(err, name, line, col,
				 "invalid JSON: the text ends inside a value");
		else
			diag_set(err, name, line, col,
				 "invalid JSON at '%.*s'",
				 (int)strcspn(text + off, "\r\n") < 16 ?
					 (int)strcspn(text + off, "\r\n") :
					 16,
				 text + off);
		return NULL;
	}
	off = (size_t)(end - text);
	off += strspn(text + off, " \t\r\n");
	if (off < len) {
		locate(text, off, &line, &col);
		diag_set(err, name, line, col,
			 "unexpected text after the JSON object");
		goto out_free;
	}
	if (!cJSON_IsObject(root)) {
		off = strspn(text, " \t\r\n");
		locate(text, off, &line, &col);
		diag_set(err, name, line, col,
			 "not a JSON object (a Hugging Face config.json)");
		goto out_free;
	}
	r = find_duplicate(root, &next, &d);
	if (r < 0) {
		diag_set(err, name, 0, 0, "out of memory");
		goto out_free;
	}
	if (r > 0) {
		size_t at = 0, at_first = 0;
		int first_line = 0, first_col = 0;

		json_walk(text, 0, d.obj, d.dup, &at);
		json_walk(text, 0, d.obj, d.first, &at_first);
		locate(text, at, &line, &col);
		locate(text, at_first, &first_line, &first_col);
		diag_set(err, name, line, col,
			 "duplicate key '%.64s'; first given on line %d, "
			 "column %d",
			 d.key, first_line, first_col);
		goto out_free;
	}
	return root;
out_free:
	cJSON_Delete(root);
	return NULL;
}

/* ------------------------------------------------------------------
 * The checkpoint's quantization ("quantization_config", as Hugging Face
 * transformers, llm-compressor and NVIDIA ModelOpt write it).
 */

/* A string field 'where.key' of 'obj', or NULL when absent or null. */
static int get_string(const cJSON *obj, const char *where, const char *key,
		      const char **out, const char *file, struct diag *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return diag_set(err, file, 0, 0,
				"field '%s%s%s' must be a string", where,
				where[0] ? "." : "", key);
	*out = v->valuestring;
	return 0;
}

/* A boolean field 'where.key' of 'obj', false when absent or null. */
static int get_flag(const cJSON *obj, const char *where, const char *key,
		    bool *out, const char *file, struct diag *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = false;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsBool(v))
		return diag_set(err, file, 0, 0,
				"field '%s.%s' must be true or false", where,
				key);
	*out = cJSON_IsTrue(v);
	return 0;
}

/* A bit count 'where.key' of 'obj' (1 to 64), 0 when absent or null. */
static int get_bits(const cJSON *obj, const char *where, const char *key,
		    int *out, const char *file, struct diag *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char got[64];
	double d;

	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	d = v->valuedouble; /* 0 unless a number */
	if (!cJSON_IsNumber(v) || !(d >= 1.0 && d <= 64.0 && d == floor(d)))
		return diag_set(err, file, 0, 0,
				"field '%s.%s' must be an integer from 1 to "
				"64, got %s",
				where, key,
				int_value_text(v, got, sizeof(got)));
	*out = (int)d;
	return 0;
}

/* A scheme capplan has no format for: q->known false, q->why says it. */
static void quant_unknown(struct hf_quant *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void quant_unknown(struct hf_quant *q, const char *fmt, ...)
{
	va_list ap;

	q->known = false;
	va_start(ap, fmt);
	vsnprintf(q->why, sizeof(q->why), fmt, ap);
	va_end(ap);
}

/* 8 or 4 bits of integers or floats as a format; false for other widths. */
static bool bits_format(int bits, bool is_float, enum precision *p)
{
	if (bits == 8)
		*p = is_float ? PREC_FP8 : PREC_INT8;
	else if (bits == 4)
		*p = is_float ? PREC_FP4 : PREC_INT4;
	else
		return false;
	return true;
}

/* One compressed-tensors scheme ({"num_bits": 8, "type": "float", ...}):
   its bits and format ('ok' false when capplan has none). */
static int ct_scheme(const cJSON *s, const char *where, int *bits,
		     enum precision *p, bool *ok, const char *file,
		     struct diag *err)
{
	const char *type;

	if (!cJSON_IsObject(s))
		return diag_set(err, file, 0, 0,
				"field '%s' must be an object", where);
	if (get_bits(s, where, "num_bits", bits, file, err) ||
	    get_string(s, where, "type", &type, file, err))
		return -1;
	*ok = bits_format(*bits, type && strcmp(type, "float") == 0, p);
	return 0;
}

/* compressed-tensors (llm-compressor, read by vLLM): the weights of every
   "config_groups" entry, their activations (none: weight-only) and the
   "kv_cache_scheme". */
static int quant_compressed(const cJSON *qc, struct hf_quant *q,
			    const char *file, struct diag *err)
{
	const cJSON *groups, *kv, *g;
	int n = 0, bits;
	bool ok;

	groups = cJSON_GetObjectItemCaseSensitive(qc, "config_groups");
	kv = cJSON_GetObjectItemCaseSensitive(qc, "kv_cache_scheme");
	if (!cJSON_IsObject(groups) || !groups->child)
		return diag_set(err, file, 0, 0,
				"field 'quantization_config.config_groups' "
				"must be an object of one or more schemes");
	cJSON_ArrayForEach(g, groups)
	{
		char where[96];
		const cJSON *w, *act;
		enum precision p = PREC_BF16;
		bool wo;

		snprintf(where, sizeof(where),
			 "quantization_config.config_groups.%.32s.weights",
			 g->string);
		w = cJSON_IsObject(g) ?
			    cJSON_GetObjectItemCaseSensitive(g, "weights") :
			    NULL;
		if (!w)
			return diag_set(err, file, 0, 0,
					"missing field '%s' (an object)",
					where);
		if (ct_scheme(w, where, &bits, &p, &ok, file, err))
			return -1;
		act = cJSON_GetObjectItemCaseSensitive(g, "input_activations");
		wo = !act || cJSON_IsNull(act);
		if (p == PREC_FP4) {
			/* MXFP4 blocks of 32 values, NVFP4 ones of 16 */
			const cJSON *gs = cJSON_GetObjectItemCaseSensitive(
				w, "group_size");

			q->mxfp4 = cJSON_IsNumber(gs) &&
				   gs->valuedouble == 32.0;
		}
		if (!ok) {
			quant_unknown(q, "compressed-tensors with %d-bit "
				      "weights", bits);
			return 0;
		}
		if (n++ > 0 && (p != q->weights || wo != q->weight_only)) {
			quant_unknown(q, "compressed-tensors with schemes of "
				      "different formats in one model");
			return 0;
		}
		q->weights = p;
		q->weight_only = wo;
	}
	if (kv && !cJSON_IsNull(kv)) {
		if (ct_scheme(kv, "quantization_config.kv_cache_scheme", &bits,
			      &q->kv, &ok, file, err))
			return -1;
		if (!ok || bits != 8) {
			quant_unknown(q, "compressed-tensors with a %d-bit "
				      "KV cache", bits);
			return 0;
		}
		q->kv_given = true;
	}
	return 0;
}

/* NVIDIA ModelOpt: "quant_algo" and "kv_cache_quant_algo". */
static int quant_modelopt(const cJSON *qc, struct hf_quant *q,
			  const char *file, struct diag *err)
{
	static const struct {
		const char *algo;
		enum precision p;
	} algos[] = {
		{ "FP8", PREC_FP8 },
		{ "FP8_PER_CHANNEL_PER_TOKEN", PREC_FP8 },
		{ "FP8_BLOCK_SCALES", PREC_FP8 },
		{ "NVFP4", PREC_FP4 },
		{ "W4A16_AWQ", PREC_INT4 },
		{ "INT8_SQ", PREC_INT8 },
	};
	const char *algo, *kv;
	size_t i, n = sizeof(algos) / sizeof(algos[0]);

	if (get_string(qc, "quantization_config", "quant_algo", &algo, file,
		       err) ||
	    get_string(qc, "quantization_config", "kv_cache_quant_algo", &kv,
		       file, err))
		return -1;
	if (!algo)
		return diag_set(err, file, 0, 0,
				"missing field 'quantization_config."
				"quant_algo' (a string such as \"FP8\")");
	for (i = 0; i < n && strcmp(algo, algos[i].algo) != 0; i++)
		;
	if (i == n) {
		quant_unknown(q, "modelopt with quant_algo '%.40s'", algo);
		return 0;
	}
	q->weights = algos[i].p;
	if (!kv)
		return 0;
	if (strcmp(kv, "FP8") != 0 && strcmp(kv, "INT8") != 0) {
		quant_unknown(q, "modelopt with kv_cache_quant_algo '%.40s'",
			      kv);
		return 0;
	}
	q->kv = kv[0] == 'F' ? PREC_FP8 : PREC_INT8;
	q->kv_given = true;
	return 0;
}

/* Whether a list of modules left unquantized ("modules_to_not_convert",
   "ignore", "exclude_modules": names or patterns) names the attention. */
static bool keeps_attention(const cJSON *qc)
{
	static const char *const lists[] = { "modules_to_not_convert",
					     "ignore", "exclude_modules" };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(qc, lists[i]);
		const cJSON *e;

		if (!cJSON_IsArray(l))
			continue;
		cJSON_ArrayForEach(e, l)
		{
			if (cJSON_IsString(e) && strstr(e->valuestring, "attn"))
				return true;
		}
	}
	return false;
}

/*
 * Read "torch_dtype" and "quantization_config" (absent or null:
 * q->present false).  A method or format capplan has no format for
 * leaves q->known false, q->why saying what it is; a field of the wrong
 * type is an error.
 */
static int quant_read(const cJSON *root, struct hf_quant *q,
		      const char *file, struct diag *err)
{
	const cJSON *qc = cJSON_GetObjectItemCaseSensitive(root,
							    "quantization_"
							    "config");
	const char *dtype, *method, *where = "quantization_config";

	memset(q, 0, sizeof(*q));
	q->weights = q->kv = q->dtype = PREC_BF16;
	if (get_string(root, "", "torch_dtype", &dtype, file, err) ||
	    (!dtype && get_string(root, "", "dtype", &dtype, file, err)))
		return -1;
	if (dtype && strcmp(dtype, "float16") == 0)
		q->dtype = q->kv = PREC_FP16;
	if (!qc || cJSON_IsNull(qc))
		return 0;
	if (!cJSON_IsObject(qc))
		return diag_set(err, file, 0, 0,
				"field 'quantization_config' must be an "
				"object");
	if (get_string(qc, where, "quant_method", &method, file, err))
		return -1;
	if (!method)
		return diag_set(err, file, 0, 0,
				"missing field 'quantization_config."
				"quant_method' (a string such as \"fp8\")");
	q->present = q->known = true;
	q->attention_kept = keeps_attention(qc);
	snprintf(q->method, sizeof(q->method), "%.40s", method);
	if (strcmp(method, "fp8") == 0 || strcmp(method, "fbgemm_fp8") == 0) {
		q->weights = PREC_FP8;
	} else if (strcmp(method, "mxfp4") == 0) {
		q->weights = PREC_FP4;
		q->mxfp4 = true;
	} else if (strcmp(method, "gptq") == 0 || strcmp(method, "awq") == 0) {
		int bits;

		if (get_bits(qc, where, "bits", &bits, file, err))
			return -1;
		if (bits == 4 || (bits == 8 && method[0] == 'g')) {
			q->weights = bits == 4 ? PREC_INT4 : PREC_INT8;
			q->weight_only = true;
		} else {
			quant_unknown(q, "%s with %d-bit weights", method,
				      bits);
		}
	} else if (strcmp(method, "bitsandbytes") == 0) {
		bool b4, b8;

		if (get_flag(qc, where, "load_in_4bit", &b4, file, err) ||
		    get_flag(qc, where, "load_in_8bit", &b8, file, err))
			return -1;
		if (b4 || b8) {
			q->weights = b4 ? PREC_INT4 : PREC_INT8;
			q->weight_only = true;
		} else {
			quant_unknown(q, "bitsandbytes without load_in_4bit "
				      "or load_in_8bit");
		}
	} else if (strcmp(method, "compressed-tensors") == 0) {
		if (quant_compressed(qc, q, file, err))
			return -1;
	} else if (strcmp(method, "modelopt") == 0) {
		if (quant_modelopt(qc, q, file, err))
			return -1;
	} else {
		quant_unknown(q, "quant_method '%.40s'", method);
	}
	/* int4 weights always run 16-bit math (specs/models.md 9.2) */
	if (q->weights == PREC_INT4)
		q->weight_only = false;
	return 0;
}

/*
 * The experts of a mixture-of-experts family into 't': the routed ones,
 * top-k, the shared ones, their width, the leading dense layers (or
 * every layer but each interleave step-th).  A field about experts in a
 * config without routed experts, top-k above the experts or no MoE layer
 * left is an error here, naming the JSON's fields: the workload's check
 * of the keys they fill would name neither the file nor the fields.
 */
static int hf_experts(const cJSON *arch, const struct hf_family *f,
		      struct model_spec *t, const char *file,
		      struct diag *err)
{
	static const char *const experts[3] = { "n_routed_experts",
						"num_local_experts",
						"num_experts" };
	static const char *const moe_ffn[3] = { "moe_intermediate_size", NULL,
						NULL };
	const char *const *expert_ffn = f->expert_ffn[0] ? f->expert_ffn :
							   moe_ffn;
	const char *given = NULL;
	int step = 0, shared_ffn = 0, shared = -1;

	if (get_int(arch, experts, false, 1, WL_EXPERTS_MAX, &t->experts,
		    file, err) ||
	    get_int1(arch, "num_experts_per_tok", t->experts > 0, 1,
		     WL_EXPERTS_MAX, &t->experts_per_token, file, err) ||
	    get_int1(arch, "n_shared_experts", false, 0, WL_EXPERTS_MAX,
		     &shared, file, err) ||
	    get_int(arch, expert_ffn, false, 1, WL_FFN_MAX,
		    &t->expert_ffn_hidden, file, err) ||
	    get_int1(arch, "first_k_dense_replace", false, 0, WL_LAYERS_MAX,
		     &t->dense_layers, file, err) ||
	    (f->interleaved &&
	     get_int1(arch, "interleave_moe_layer_step", false, 1,
		      WL_LAYERS_MAX, &step, file, err)) ||
	    get_int1(arch, "shared_expert_intermediate_size", false, 1,
		     WL_FFN_MAX, &shared_ffn, file, err))
		return -1;
	if (t->experts == 0) {
		/* a dense model of the family: its default shared expert
		   is none */
		if (t->experts_per_token)
			given = "num_experts_per_tok";
		else if (shared > 0)
			given = "n_shared_experts";
		else if (t->expert_ffn_hidden)
			given = field_name(arch, expert_ffn);
		else if (t->dense_layers)
			given = "first_k_dense_replace";
		else if (shared_ffn)
			given = "shared_expert_intermediate_size";
		if (given)
			return diag_set(err, file, 0, 0,
					"field '%s' needs the routed experts "
					"('n_routed_experts', "
					"'num_local_experts' or "
					"'num_experts')",
					given);
		t->shared_experts = 0;
		return 0;
	}
	t->shared_experts = shared >= 0 ? shared : f->shared_default;
	if (t->experts_per_token > t->experts)
		return diag_set(err, file, 0, 0,
				"'num_experts_per_tok' (%d) must not exceed "
				"'%s' (%d)",
				t->experts_per_token,
				field_name(arch, experts), t->experts);
	/* every step-th layer MoE: the others counted as the dense layers
	   (their place does not change the counts) */
	if (step > t->layers)
		return diag_set(err, file, 0, 0,
				"'interleave_moe_layer_step' (%d) must not "
				"exceed '%s' (%d)",
				step, field_name(arch, f->layers), t->layers);
	if (step > 1)
		t->dense_layers = t->layers - t->layers / step;
	else if (t->dense_layers >= t->layers)
		return diag_set(err, file, 0, 0,
				"'first_k_dense_replace' (%d) must be less "
				"than '%s' (%d): no layer would have experts",
				t->dense_layers, field_name(arch, f->layers),
				t->layers);
	/* Qwen-MoE gives its one shared expert as a width: count it in
	   experts of 'moe_intermediate_size' (Qwen1.5-MoE-A2.7B: 5632 =
	   4 x 1408) */
	if (shared_ffn > 0 && t->shared_experts == 0) {
		if (t->expert_ffn_hidden <= 0 ||
		    shared_ffn % t->expert_ffn_hidden != 0)
			return diag_set(err, file, 0, 0,
					"'shared_expert_intermediate_size' "
					"(%d) must be a multiple of '%s' (%d)",
					shared_ffn,
					field_name(arch, expert_ffn),
					t->expert_ffn_hidden);
		t->shared_experts = shared_ffn / t->expert_ffn_hidden;
	}
	return 0;
}

/*
 * The attention heads of 't' against one another, named as the JSON
 * names them: the query heads divide the width unless 'head_dim' is
 * given, and the key/value heads are at most the query heads and divide
 * them (grouped-query attention).
 */
static int hf_heads_check(const cJSON *arch, const struct hf_family *f,
			  const struct model_spec *t, const char *file,
			  struct diag *err)
{
	const char *heads = field_name(arch, f->heads);

	if (t->head_dim == 0 && t->hidden % t->heads != 0)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must divide '%s' (%d) when "
				"'head_dim' is absent",
				heads, t->heads, field_name(arch, f->hidden),
				t->hidden);
	/* none: as many as the query heads; one (Falcon's "multi_query"
	   too): multi-query attention */
	if (t->kv_heads <= 1)
		return 0;
	if (t->kv_heads > t->heads)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must not exceed '%s' (%d)",
				field_name(arch, f->kv_heads), t->kv_heads,
				heads, t->heads);
	if (t->heads % t->kv_heads != 0)
		return diag_set(err, file, 0, 0,
				"'%s' (%d) must divide '%s' (%d)",
				field_name(arch, f->kv_heads), t->kv_heads,
				heads, t->heads);
	return 0;
}

int hf_config_parse(const char *text, size_t len, const char *name,
		    struct model_spec *m, struct hf_quant *q, struct diag *err)
{
	static const char *const vocab_names[3] = { "vocab_size", NULL, NULL };
	const struct hf_family *f;
	const cJSON *type, *tc, *ttype, *arch;
	cJSON *root;
	struct model_spec t = *m;
	struct hf_quant tq;
	int rc = -1;

	const char *nul = memchr(text, '\0', len);
	char *copy;

	if (nul) {
		int line, col;

		/* 'locate' stops at a NUL: count on a copy of what is before */
		copy = malloc((size_t)(nul - text) + 1);
		if (!copy)
			return diag_set(err, name, 0, 0, "out of memory");
		memcpy(copy, text, (size_t)(nul - text));
		copy[nul - text] = '\0';
		locate(copy, (size_t)(nul - text), &line, &col);
		free(copy);
		return diag_set(err, name, line, col,
				"NUL byte in a JSON file");
	}
	/* cJSON reads to a NUL: a copy that ends there */
	copy = malloc(len + 1);
	if (!copy)
		return diag_set(err, name, 0, 0, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	root = parse_document(copy, len, name, err);
	free(copy);
	if (!root)
		return -1;
	arch = root;
	type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
	if (!cJSON_IsString(type)) {
		diag_set(err, name, 0, 0,
			 "missing field 'model_type' (a string such as "
			 "\"llama\")");
		goto out;
	}
	f = family_find(type->valuestring);
	/* a multimodal wrapper (Gemma 3, Mistral 3, Kimi K2.5): the
	   language model's own config under "text_config" */
	tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
	ttype = cJSON_IsObject(tc) ?
			cJSON_GetObjectItemCaseSensitive(tc, "model_type") :
			NULL;
	if (!cJSON_IsString(ttype))
		ttype = NULL;
	if (!f && ttype && (f = family_find(ttype->valuestring)) != NULL)
		arch = tc;
	if (!f) {
		/* every type the table reads, so the list cannot go stale */
		char known[512];
		size_t used = 0;

		known[0] = '\0';
		for (size_t i = 0; i < sizeof(families) / sizeof(families[0]);
		     i++)
			for (int j = 0; families[i].types[j]; j++) {
				int w = snprintf(known + used,
						 sizeof(known) - used, "%s%s",
						 used ? ", " : "",
						 families[i].types[j]);

				if (w > 0 && (size_t)w < sizeof(known) - used)
					used += (size_t)w;
			}
		diag_set(err, name, 0, 0,
			 "unknown model_type '%.64s'%s%.64s%s; capplan reads "
			 "%s",
			 type->valuestring, ttype ? " (text_config: '" : "",
			 ttype ? ttype->valuestring : "", ttype ? "')" : "",
			 known);
		goto out;
	}
	t.layers = t.hidden = t.heads = t.kv_heads = t.ffn_hidden = 0;
	t.head_dim = t.experts = t.experts_per_token = t.shared_experts = 0;
	t.expert_ffn_hidden = t.dense_layers = t.mtp_layers = 0;
	t.kv_lora_rank = t.q_lora_rank = t.rope_head_dim = t.v_head_dim = 0;
	t.gated_ffn = f->gated;
	t.tied_embeddings = f->tied_default;
	t.seq_len = f->positions_default;
	if (get_int(arch, f->layers, true, 1, WL_LAYERS_MAX, &t.layers, name,
		    err) ||
	    get_int(arch, f->hidden, true, 1, WL_WIDTH_MAX, &t.hidden, name,
		    err) ||
	    get_int(arch, f->heads, true, 1, WL_HEADS_MAX, &t.heads, name,
		    err) ||
	    get_int(cJSON_GetObjectItemCaseSensitive(arch, "vocab_size") ?
			    arch : root,
		    vocab_names, true, 1, WL_VOCAB_MAX, &t.vocab, name, err) ||
	    get_int(arch, f->kv_heads, false, 1, WL_HEADS_MAX, &t.kv_heads,
		    name, err) ||
	    get_int(arch, f->ffn, false, 1, WL_FFN_MAX, &t.ffn_hidden, name,
		    err) ||
	    get_int(arch, f->positions, false, 1, WL_TOKENS_MAX, &t.seq_len,
		    name, err) ||
	    get_int1(arch, "head_dim", false, 1, WL_HEAD_DIM_MAX, &t.head_dim,
		     name, err) ||
	    get_bool(arch, "tie_word_embeddings", &t.tied_embeddings, name,
		     err))
		goto out;
	if (f->multi_query && t.kv_heads == 0) {
		bool mq = false;

		if (get_bool(arch, "multi_query", &mq, name, err))
			goto out;
		if (mq)
			t.kv_heads = 1;
	}
	if (f->moe && hf_experts(arch, f, &t, name, err))
		goto out;
	/* DeepSeek-V3's and GLM-4.5's multi-token prediction modules */
	if (get_int1(arch, "num_nextn_predict_layers", false, 0,
		     WL_LAYERS_MAX, &t.mtp_layers, name, err))
		goto out;
	if (f->mla &&
	    (get_int1(arch, "kv_lora_rank", true, 1, WL_WIDTH_MAX,
		      &t.kv_lora_rank, name, err) ||
	     get_int1(arch, "q_lora_rank", false, 1, WL_WIDTH_MAX,
		      &t.q_lora_rank, name, err) ||
	     get_int1(arch, "qk_rope_head_dim", true, 1, WL_HEAD_DIM_MAX,
		      &t.rope_head_dim, name, err) ||
	     get_int1(arch, "qk_nope_head_dim", true, 1, WL_HEAD_DIM_MAX,
		      &t.head_dim, name, err) ||
	     get_int1(arch, "v_head_dim", true, 1, WL_HEAD_DIM_MAX,
		      &t.v_head_dim, name, err)))
		goto out;
	if (hf_heads_check(arch, f, &t, name, err))
		goto out;
	if (quant_read(root, &tq, name, err))
		goto out;
	*m = t;
	if (q)
		*q = tq;
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

int hf_config_load(const char *path, struct model_spec *m, struct hf_quant *q,
		   struct diag *err)
{
	char *buf;
	size_t n;
	int rc;

	/* named inside an input (or by --model): a regular file, so that a
	   FIFO is an error, not a hang */
	if (readfile_all(path, READFILE_REGULAR, HF_FILE_MAX, &buf, &n, err) !=
	    0)
		return -1;
	rc = hf_config_parse(buf, n, path, m, q, err);
	free(buf);
	return rc;
}
