/* model_recsys_place.c - where a recommender's tables live: their
   placement over the GPUs (data-parallel, table-, row- and column-wise,
   listed tables dealt greedily) and the tier that holds each GPU's share
   (HBM, a cache in front of host memory or SSD); specs/models.md 14.3-14.4.
   See model_recsys.h and model_recsys_internal.h. */
#include "model_recsys.h"

#include <math.h>

#include "model_comm.h"
#include "model_recsys_internal.h"

/* Row-wise Adagrad (optimizer = adam): one fp32 accumulator per row
   (Mudigere et al. 2022); Adam proper would keep two per element. */
static const double rowwise_state_bytes = 4.0;

/* Bytes a table row adds for the wide part: its weight in the tables'
   precision and, training, the weight's optimizer state; 0 without. */
static double wide_row_bytes(const struct model_spec *m, bool training)
{
	if (!m->wide)
		return 0.0;
	return precision_bytes(m->embedding_precision) +
	       (training ? recsys_wide_state_bytes(m) : 0.0);
}


/* ---------------------------------------------------------------------
 * Placement of the tables
 */

/* Bytes of one row's optimizer state. */
double recsys_state_bytes_per_row(enum optimizer o)
{
	return o == OPTIMIZER_SGD ? 0.0 : rowwise_state_bytes;
}

double recsys_table_state_bytes(const struct model_spec *m, enum optimizer o)
{
	return recsys_table_bytes(m) +
	       recsys_total_rows(m) * (recsys_state_bytes_per_row(o) +
				       recsys_wide_state_bytes(m));
}

bool recsys_rows_listed(const struct model_spec *m)
{
	return m->table_rows.n > 1 && m->table_rows.n == m->embedding_tables;
}

double recsys_total_rows(const struct model_spec *m)
{
	double sum = 0.0;

	if (!recsys_rows_listed(m))
		return (double)m->embedding_tables * m->embedding_rows;
	for (int i = 0; i < m->table_rows.n; i++)
		sum += m->table_rows.rows[i];
	return sum;
}

/*
 * The hit rate of a cache of 'budget' bytes in front of 'n' tables (or
 * shards) of 'bytes' each, in ascending order, when every table serves
 * the same number of lookups spread evenly over its rows: a row of a
 * small table is looked up more often, so the cache holds the smallest
 * tables whole first.  Equal tables: budget / their bytes.
 */
static double even_hit(const double *bytes, int n, double budget)
{
	double h = 0.0;

	for (int i = 0; i < n; i++) {
		if (budget >= bytes[i]) {
			h += 1.0;
			budget -= bytes[i];
			continue;
		}
		h += budget > 0.0 ? budget / bytes[i] : 0.0;
		break;
	}
	return n > 0 ? h / n : 1.0;
}

/*
 * Deal 'n' items of 'bytes' each (descending) over 'bins' GPUs, each to
 * the GPU with the fewest bytes so far among those holding fewer than
 * ceil(n / bins) items (DeepLearningExamples DLRM's greedy with a
 * maximal bucket size: the lookups stay balanced): the most items a GPU
 * gets ('*most'), and the items of the GPU with the most bytes in
 * ascending order in 'held' ('*held_n' of them), whose sum it returns.
 */
static double deal(const double *bytes, int n, int bins, double *most,
		   double *held, int *held_n)
{
	double load[RECSYS_DEAL_MAX];
	int count[RECSYS_DEAL_MAX], heap[RECSYS_DEAL_MAX];
	short bin_of[RECSYS_DEAL_MAX];
	int b = bins < n ? bins : n, top = 0, h = 0, open, cap;

	*most = 0.0;
	*held_n = 0;
	if (b <= 0)
		return 0.0;
	cap = (n + b - 1) / b;
	/* a binary min-heap of the GPUs not yet full, by load (then by
	   index) */
	for (int i = 0; i < b; i++) {
		load[i] = 0.0;
		count[i] = 0;
		heap[i] = i;
	}
	open = b;
	for (int i = 0; i < n && open > 0; i++) {
		int g = heap[0], at = 0;

		load[g] += bytes[i];
		count[g]++;
		bin_of[i] = (short)g;
		if (count[g] == cap)
			heap[0] = heap[--open];
		g = heap[0];
		for (;;) {
			int l = 2 * at + 1, r = l + 1, lo = at;

			if (l < open && (load[heap[l]] < load[heap[lo]] ||
					 (load[heap[l]] == load[heap[lo]] &&
					  heap[l] < heap[lo])))
				lo = l;
			if (r < open && (load[heap[r]] < load[heap[lo]] ||
					 (load[heap[r]] == load[heap[lo]] &&
					  heap[r] < heap[lo])))
				lo = r;
			if (lo == at)
				break;
			heap[at] = heap[lo];
			heap[lo] = g;
			at = lo;
		}
	}
	for (int i = 0; i < b; i++) {
		if (count[i] > *most)
			*most = count[i];
		if (load[i] > load[top])
			top = i;
	}
	for (int i = n - 1; i >= 0; i--)
		if (bin_of[i] == top)
			held[h++] = bytes[i];
	*held_n = h;
	return load[top];
}

/*
 * The rows of the listed tables (recsys_rows_listed), largest first, in
 * 'out' (WL_TABLES_MAX); sorted once per evaluation, as every placement
 * deals the same order.
 */
void recsys_rows_descending(const struct model_spec *m, double *out)
{
	if (!recsys_rows_listed(m))
		return;
	for (int i = 0; i < m->embedding_tables; i++) {
		double v = m->table_rows.rows[i];
		int j = i;

		while (j > 0 && out[j - 1] < v) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = v;
	}
}

/*
 * The tables listed one by one (recsys_rows_listed): the busiest GPU's
 * share under d->place.sharding over 'g' GPUs, 'k' shards of each table,
 * their rows of 'rowb' bytes with the optimizer state; the tables are
 * sorted largest first and dealt (table- and column-wise), or every GPU
 * holds all of them (data-parallel) or 1/g of each (row-wise); 'rows_desc'
 * holds the tables' rows largest first (rows_descending).  The busiest
 * GPU's tables, ascending, go to d->held for the cache's hit rate.
 */
static void place_listed(const struct model_spec *m,
			 const double *rows_desc, int g, int k, double rowb,
			 struct recsys_deal *d)
{
	double sorted[WL_TABLES_MAX], shards[RECSYS_DEAL_MAX];
	double most = 0.0;
	int t = m->embedding_tables, n = 0, held_n = 0;
	struct recsys_place *p = &d->place;

	for (int i = 0; i < t; i++)
		sorted[i] = rows_desc[i] * rowb;
	if (p->sharding == EMB_DATA_PARALLEL || p->sharding == EMB_ROW_WISE) {
		double share = p->sharding == EMB_ROW_WISE ? 1.0 / g : 1.0;

		p->bytes_per_gpu = 0.0;
		for (int i = 0; i < t; i++) {
			d->held[i] = sorted[t - 1 - i] * share;
			p->bytes_per_gpu += d->held[i];
		}
		d->held_n = t;
		return;
	}
	if ((long)t * k > RECSYS_DEAL_MAX) {
		/* beyond what is dealt one by one: the busiest GPU takes
		   ceil(shards / g) shards of the largest table (a bound) */
		p->tables_max = ceil((double)t * k / g);
		p->bytes_per_gpu = p->tables_max * sorted[0];
		d->held_n = -1;
		return;
	}
	for (int i = 0; i < t; i++)
		for (int j = 0; j < k; j++)
			shards[n++] = sorted[i];
	p->bytes_per_gpu = deal(shards, n, g, &most, d->held, &held_n);
	p->tables_max = most;
	d->held_n = held_n;
}

/*
 * The share of the tables the busiest GPU holds and serves under
 * 'sharding' over 'gpus' GPUs (with the optimizer's and, 'training', the
 * wide part's state), whatever the memory left for them (tables dealt
 * greedily, largest first: equal tables go ceil(T / G) to a GPU).  Listed
 * tables of unequal rows ('rows_desc', largest first): the GPU that
 * serves the most lookups (the most tables) and the one that holds the
 * most bytes.
 */
void recsys_deal_tables(const struct model_spec *m, const double *rows_desc,
			int sharding, int gpus, enum optimizer o,
			bool training, struct recsys_deal *out)
{
	double t = m->embedding_tables, rows = m->embedding_rows;
	double eb = precision_bytes(m->embedding_precision);
	double e = m->embedding_dim, g = gpus;
	double w = wide_row_bytes(m, training); /* the wide weight of a row */
	struct recsys_place *p = &out->place;

	*p = (struct recsys_place){ 0 };
	out->held_n = -1;
	p->sharding = sharding;
	p->gpus = gpus;
	p->column_shards = 1;
	p->row_bytes = e * eb;
	switch (sharding) {
	case EMB_DATA_PARALLEL:
		p->tables_max = t;
		p->lookup_share = 1.0 / g;
		p->bytes_per_gpu = t * rows *
				   (e * eb + recsys_state_bytes_per_row(o) + w);
		break;
	case EMB_ROW_WISE:
		p->tables_max = t;
		p->lookup_share = 1.0 / g;
		p->bytes_per_gpu = t * rows *
				   (e * eb + recsys_state_bytes_per_row(o) + w) / g;
		break;
	case EMB_COLUMN_WISE: {
		/* the fewest shards per table that give every GPU one */
		int k = (int)ceil(g / t);
		double shards, width;

		if (k < 2)
			k = 2;
		if (k > m->embedding_dim)
			k = m->embedding_dim;
		width = e / k;
		shards = t * k;
		p->column_shards = k;
		p->row_bytes = width * eb;
		p->tables_max = ceil(shards / g);
		/* each shard holds 1/k of the table's wide weights */
		p->bytes_per_gpu = p->tables_max * rows *
				   (width * eb + recsys_state_bytes_per_row(o) +
				    w / k);
		break;
	}
	case EMB_TABLE_WISE:
	default:
		p->sharding = EMB_TABLE_WISE;
		p->tables_max = ceil(t / g);
		p->bytes_per_gpu = p->tables_max * rows *
				   (e * eb + recsys_state_bytes_per_row(o) + w);
		break;
	}
	if (recsys_rows_listed(m))
		place_listed(m, rows_desc, gpus, p->column_shards,
			     p->row_bytes + recsys_state_bytes_per_row(o) +
				     w / p->column_shards,
			     out);
	if (sharding == EMB_COLUMN_WISE)
		p->lookup_share = p->tables_max / (t * p->column_shards);
	else if (p->sharding == EMB_TABLE_WISE)
		p->lookup_share = p->tables_max / t;
}

void recsys_place_budget(const struct recsys_deal *d, double budget,
			 struct recsys_place *p)
{
	*p = d->place;
	budget = fmax(0.0, budget);
	/* all of them cached: the sum of d->held */
	if (budget >= p->bytes_per_gpu)
		p->even_hit = 1.0;
	else if (d->held_n >= 0)
		p->even_hit = even_hit(d->held, d->held_n, budget);
	else
		p->even_hit = p->bytes_per_gpu > 0.0 ?
				      fmin(1.0, budget / p->bytes_per_gpu) :
				      1.0;
}

void recsys_place_tables(const struct model_spec *m, const double *rows_desc,
			 int sharding, int gpus, enum optimizer o,
			 bool training, double budget, struct recsys_place *p)
{
	struct recsys_deal d;

	recsys_deal_tables(m, rows_desc, sharding, gpus, o, training, &d);
	recsys_place_budget(&d, budget, p);
}

/* The shardings a layout deals, in the order of its deals. */
static const int layout_shardings[RECSYS_SHARDINGS] = {
	EMB_DATA_PARALLEL, EMB_ROW_WISE, EMB_COLUMN_WISE, EMB_TABLE_WISE
};

/* The index of a sharding in a layout's deals (another: table-wise, as
   recsys_deal_tables resolves it). */
static int layout_slot(int sharding)
{
	for (int i = 0; i < RECSYS_SHARDINGS; i++)
		if (layout_shardings[i] == sharding)
			return i;
	return RECSYS_SHARDINGS - 1;
}

void recsys_layout_init(const struct model_spec *m, int sharding, int gpus,
			enum optimizer o, struct recsys_layout *lay)
{
	lay->m = m;
	lay->gpus = gpus;
	lay->optimizer = o;
	recsys_rows_descending(m, lay->rows_desc);
	for (int i = 0; i < RECSYS_SHARDINGS; i++) {
		lay->have[i] = sharding == EMB_AUTO ||
			       sharding == layout_shardings[i];
		if (lay->have[i])
			recsys_deal_tables(m, lay->rows_desc,
					   layout_shardings[i], gpus, o, true,
					   &lay->deal[i]);
	}
}

const struct recsys_deal *recsys_layout_deal(const struct recsys_layout *lay,
					     const struct model_spec *m,
					     int sharding, int gpus,
					     enum optimizer o)
{
	int i = layout_slot(sharding);

	if (!lay || lay->m != m || lay->gpus != gpus || lay->optimizer != o ||
	    !lay->have[i])
		return NULL;
	return &lay->deal[i];
}

/* The host link of one GPU (PCIe, NVLink-C2C): the cluster's or catalog
   row's datasheet figure, else PCIe 4.0 x16 (WL_HOST_LINK_BW_BYTES_PER_S),
   at the achievable share of intra-node links.  It also joins the GPUs of
   a node that have no link of their own. */
struct link recsys_pcie_link(const struct cluster *cl)
{
	return link_intra_node(cl->host_link_bw_bytes_per_s > 0.0 ?
				       cl->host_link_bw_bytes_per_s :
				       WL_HOST_LINK_BW_BYTES_PER_S,
			       false);
}

/*
 * What of the busiest GPU's tables HBM holds with 'budget' bytes free:
 * all of them, else a cache of 'budget' bytes in front of host memory
 * (the node's, shared by the job's GPUs on it) or, beyond that, the SSD.  The cache serves
 * model.cache_hit_rate of the lookups when given, else the cached
 * fraction of the rows (lookups spread evenly: real data is skewed, and
 * hits more).
 */
void recsys_place_tier(const struct model_spec *m, const struct cluster *cl,
		       double budget, struct recsys_place *p)
{
	int per_node = cl->gpus_per_node > 0 ? cl->gpus_per_node : 1;
	int users = p->gpus < per_node ? p->gpus : per_node;
	double host_per_gpu = (cl->host_memory_bytes > 0.0 ?
				       cl->host_memory_bytes :
				       WL_HOST_MEMORY_BYTES) /
			      (users > 0 ? users : 1);

	if (budget < 0.0)
		budget = 0.0;
	if (p->bytes_per_gpu <= budget) {
		p->hbm_bytes = p->bytes_per_gpu;
		p->offload_bytes = 0.0;
		p->tier = RECSYS_TIER_HBM;
		p->hit_rate = 1.0;
		return;
	}
	p->hbm_bytes = budget;
	p->offload_bytes = p->bytes_per_gpu - budget;
	p->tier = p->offload_bytes <= host_per_gpu ? RECSYS_TIER_HOST :
						     RECSYS_TIER_SSD;
	p->hit_rate = m->cache_hit_rate >= 0.0 ? m->cache_hit_rate :
						  p->even_hit;
}
