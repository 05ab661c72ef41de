/* workload_sample.c - the per-sample models' workload keys and checks;
   see workload_sample.h. */
#include "workload_sample.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

const struct wl_name wl_interaction_names[] = {
	{ "dot", RECSYS_DOT }, { "cat", RECSYS_CAT },
	{ "cross", RECSYS_CROSS }, { NULL, 0 },
};

const struct wl_name wl_sharding_names[] = {
	{ "auto", EMB_AUTO }, { "data_parallel", EMB_DATA_PARALLEL },
	{ "table_wise", EMB_TABLE_WISE }, { "row_wise", EMB_ROW_WISE },
	{ "column_wise", EMB_COLUMN_WISE }, { NULL, 0 },
};

const struct wl_name wl_update_names[] = {
	{ "sparse", EMB_UPDATE_SPARSE }, { "fused", EMB_UPDATE_FUSED },
	{ NULL, 0 },
};

const struct wl_name wl_bottom_names[] = {
	{ "data_parallel", BOTTOM_DATA_PARALLEL }, { "one_gpu", BOTTOM_ONE_GPU },
	{ NULL, 0 },
};

const struct wl_name wl_wide_optimizer_names[] = {
	{ "ftrl", WIDE_FTRL }, { "adagrad", WIDE_ADAGRAD }, { "sgd", WIDE_SGD },
	{ NULL, 0 },
};

const struct wl_name wl_server_names[] = {
	{ "none", SERVER_NONE }, { "triton", SERVER_TRITON }, { NULL, 0 },
};

void wl_sample_init(struct workload *wl)
{
	wl->model.interaction = RECSYS_DOT;
	wl->model.cache_hit_rate = WL_AUTO_NEG;
	wl->training.embedding_sharding = EMB_AUTO;
	wl->training.embedding_comm_overlap = WL_AUTO_NEG;
	wl->training.step_overhead_s = WL_STEP_OVERHEAD_S;
	wl->inference.cuda_graphs = WL_AUTO_NEG;
	wl->inference.framework_overhead_s = WL_FRAMEWORK_OVERHEAD_S;
	wl->inference.launch_overhead_s = WL_LAUNCH_OVERHEAD_S;
	wl->inference.fusion = false;
	wl->inference.server = SERVER_NONE;
	wl->inference.request_overhead_s = WL_AUTO_NEG;
	wl->cluster.ssd_bw_bytes_per_s = WL_SSD_BW_BYTES_PER_S;
}

/*
 * The item of comma-separated 'text' that starts at 'p', blanks trimmed,
 * into 'item' (of 'size' bytes); its offset in 'text' into '*offset';
 * '*next' the byte after its comma, NULL for the last item.  -1 (why set)
 * when it is empty or too long.
 */
static int list_item(const char *text, const char *p, char *item,
		     size_t size, size_t *offset, const char **next,
		     char *why, size_t why_size)
{
	const char *end = strchr(p, ',');
	size_t len = end ? (size_t)(end - p) : strlen(p);
	size_t lead = 0, n;

	while (lead < len && isspace((unsigned char)p[lead]))
		lead++;
	n = len - lead;
	while (n > 0 && isspace((unsigned char)p[lead + n - 1]))
		n--;
	*offset = (size_t)(p - text) + lead;
	if (n == 0 || n >= size) {
		snprintf(why, why_size, "%s item",
			 n == 0 ? "an empty" : "a too long");
		return -1;
	}
	memcpy(item, p + lead, n);
	item[n] = '\0';
	*next = end ? end + 1 : NULL;
	return 0;
}

int wl_parse_widths(const char *text, struct wl_widths *out, size_t *offset,
		    char *why, size_t why_size)
{
	struct wl_widths w = { 0, { 0 } };
	const char *next;

	for (const char *p = text; p; p = next) {
		char item[16], *stop;
		long long v;

		if (list_item(text, p, item, sizeof(item), offset, &next, why,
			      why_size) != 0)
			return -1;
		if (w.n == WL_MLP_LAYERS_MAX) {
			snprintf(why, why_size, "more than %d layers",
				 WL_MLP_LAYERS_MAX);
			return -1;
		}
		errno = 0;
		v = strtoll(item, &stop, 10);
		if (*stop != '\0' || errno == ERANGE || v < 1 ||
		    v > WL_MLP_WIDTH_MAX) {
			snprintf(why, why_size,
				 "'%s' is not a width from 1 to %d", item,
				 WL_MLP_WIDTH_MAX);
			return -1;
		}
		w.width[w.n++] = (int)v;
	}
	*out = w;
	return 0;
}

int wl_parse_rows(const char *text, double max, struct wl_rows *out,
		  size_t *offset, char *why, size_t why_size)
{
	struct wl_rows r;
	const char *next;

	r.n = 0;
	for (const char *p = text; p; p = next) {
		char item[64];
		const char *uwhy = NULL;
		double v = 0.0;

		if (list_item(text, p, item, sizeof(item), offset, &next, why,
			      why_size) != 0)
			return -1;
		if (r.n == WL_TABLES_MAX) {
			snprintf(why, why_size, "more than %d tables",
				 WL_TABLES_MAX);
			return -1;
		}
		if (units_parse(item, UNIT_COUNT, &v, &uwhy) < 0 ||
		    !isfinite(v) || !(v >= 1.0) || v != floor(v) ||
		    v > max) {
			snprintf(why, why_size,
				 "'%s' is not a whole row count from 1 to "
				 "%g", item, max);
			return -1;
		}
		r.rows[r.n++] = v;
	}
	*out = r;
	return 0;
}

char *wl_widths_text(const struct wl_widths *w, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < w->n; i++) {
		int n = snprintf(buf + used, size - used, "%s%d",
				 i ? "," : "", w->width[i]);

		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

/* The first recommender-only key 'm' gives, or NULL. */
static const char *recsys_key_given(const struct model_spec *m)
{
	if (m->bottom_mlp.n)
		return "bottom_mlp";
	if (m->top_mlp.n)
		return "top_mlp";
	if (m->dense_features)
		return "dense_features";
	if (m->cross_layers)
		return "cross_layers";
	if (m->cross_rank)
		return "cross_rank";
	if (m->pooling_factor > 0.0)
		return "pooling_factor";
	if (m->cache_hit_rate >= 0.0)
		return "cache_hit_rate";
	if (m->interaction != RECSYS_DOT)
		return "interaction";
	if (m->wide)
		return "wide";
	if (m->wide_optimizer != WIDE_FTRL)
		return "wide_optimizer";
	return NULL;
}

int wl_check_recsys(const struct model_spec *m, bool given_dense,
		    const char *file, struct diag *err)
{
	const char *k;
	bool layers = m->top_mlp.n > 0 || m->bottom_mlp.n > 0;

	if (m->kind != MODEL_RECSYS) {
		k = recsys_key_given(m);
		if (k)
			return diag_set(err, file, 0, 0,
					"'%s' describes a recommender: set "
					"[model] kind = recsys", k);
		return 0;
	}
	if (!(m->embedding_tables > 0) || !(m->embedding_rows > 0) ||
	    !(m->embedding_dim > 0))
		return diag_set(err, file, 0, 0,
				"a recsys model needs [model] "
				"embedding_tables, embedding_rows and "
				"embedding_dim");
	if (m->table_rows.n > 0 && m->table_rows.n != m->embedding_tables)
		return diag_set(err, file, 0, 0,
				"'embedding_rows' lists %d tables, but "
				"'embedding_tables' is %d: give one row count "
				"per table (or a single count for all)",
				m->table_rows.n, m->embedding_tables);
	if (m->wide_optimizer != WIDE_FTRL && !m->wide)
		return diag_set(err, file, 0, 0,
				"'wide_optimizer' needs a wide part: set "
				"[model] wide = true");
	if (m->lookups_per_sample > 0.0 && m->pooling_factor > 0.0 &&
	    fabs(m->lookups_per_sample -
		 m->pooling_factor * m->embedding_tables) >
		    1e-9 * m->lookups_per_sample)
		return diag_set(err, file, 0, 0,
				"'lookups_per_sample' (%g) must be "
				"'pooling_factor' (%g) x 'embedding_tables' "
				"(%d); give one of them",
				m->lookups_per_sample, m->pooling_factor,
				m->embedding_tables);
	if (layers && given_dense)
		return diag_set(err, file, 0, 0,
				"give the dense network either layer by layer "
				"(bottom_mlp, top_mlp) or as dense_params and "
				"dense_flops_per_sample, not both");
	if (!layers && !(m->dense_params > 0 && m->dense_flops_per_sample > 0))
		return diag_set(err, file, 0, 0,
				"a recsys model needs its dense network: "
				"[model] top_mlp (with bottom_mlp and "
				"dense_features when the numerical features "
				"have one), or dense_params and "
				"dense_flops_per_sample");
	if (!layers && (m->dense_features || m->cross_layers ||
			m->interaction != RECSYS_DOT))
		return diag_set(err, file, 0, 0,
				"'dense_features', 'interaction' and "
				"'cross_layers' describe the layers: give "
				"top_mlp (and bottom_mlp)");
	if (layers && m->top_mlp.n == 0)
		return diag_set(err, file, 0, 0,
				"'bottom_mlp' needs 'top_mlp' (the layers "
				"after the interaction)");
	if (m->bottom_mlp.n > 0 && m->dense_features == 0)
		return diag_set(err, file, 0, 0,
				"'bottom_mlp' needs 'dense_features' (its "
				"input width)");
	if (m->interaction == RECSYS_DOT && m->bottom_mlp.n > 0 &&
	    m->bottom_mlp.width[m->bottom_mlp.n - 1] != m->embedding_dim)
		return diag_set(err, file, 0, 0,
				"interaction = dot: the last width of "
				"'bottom_mlp' (%d) must be 'embedding_dim' (%d)",
				m->bottom_mlp.width[m->bottom_mlp.n - 1],
				m->embedding_dim);
	if (m->interaction == RECSYS_DOT && m->bottom_mlp.n == 0 &&
	    m->dense_features > 0)
		return diag_set(err, file, 0, 0,
				"interaction = dot: 'dense_features' need a "
				"'bottom_mlp' to reach 'embedding_dim'");
	if (m->interaction == RECSYS_CROSS && m->cross_layers == 0)
		return diag_set(err, file, 0, 0,
				"interaction = cross needs 'cross_layers'");
	if (m->interaction != RECSYS_CROSS &&
	    (m->cross_layers || m->cross_rank))
		return diag_set(err, file, 0, 0,
				"'cross_layers' and 'cross_rank' need "
				"interaction = cross");
	return 0;
}
