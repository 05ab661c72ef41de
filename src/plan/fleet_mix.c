/* fleet_mix.c - the buckets, integer program and routing of a mixed
   fleet; see fleet_mix.h and specs/models.md 10.9.22. */
#include "fleet_mix.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lower edges of the length ranges, tokens, per side: factors of four
   from 128 (capplan's choice; Melange leaves the edges to its user, "to
   reach a desired balance of granularity and solver complexity").  The
   last range is unbounded. */
static const int range_lo[MIX_LENGTH_RANGES] = { 1,    128,  512,
						 2048, 8192, 32768 };

/* A load no greater than a whole number of replicas by this much is held
   by that number (the program's own rounding). */
static const double load_tolerance = 1e-9;

static int range_of(int tokens)
{
	int k = 0;

	while (k + 1 < MIX_LENGTH_RANGES && tokens >= range_lo[k + 1])
		k++;
	return k;
}

int mix_bucket_of(int prompt_tokens, int output_tokens)
{
	return range_of(prompt_tokens) * MIX_LENGTH_RANGES +
	       range_of(output_tokens);
}

void mix_bucket_range(int b, int *prompt_lo, int *prompt_hi, int *output_lo,
		      int *output_hi)
{
	int p = b / MIX_LENGTH_RANGES, o = b % MIX_LENGTH_RANGES;

	*prompt_lo = range_lo[p];
	*prompt_hi = p + 1 < MIX_LENGTH_RANGES ? range_lo[p + 1] : 0;
	*output_lo = range_lo[o];
	*output_hi = o + 1 < MIX_LENGTH_RANGES ? range_lo[o + 1] : 0;
}

int mix_buckets_make(const struct sim_request *q, size_t n, double rate_per_s,
		     struct mix_bucket *out, int *dense)
{
	struct mix_bucket all[MIX_BUCKETS];
	int where[MIX_BUCKETS], nb = 0;

	memset(all, 0, sizeof(all));
	for (size_t i = 0; i < n; i++) {
		struct mix_bucket *b =
			&all[mix_bucket_of(q[i].prompt_tokens,
					   q[i].output_tokens)];
		int tokens = q[i].prompt_tokens + q[i].output_tokens;

		b->count++;
		b->prompt_mean += q[i].prompt_tokens;
		b->output_mean += q[i].output_tokens;
		if (tokens > b->tokens_max)
			b->tokens_max = tokens;
	}
	for (int k = 0; k < MIX_BUCKETS; k++) {
		where[k] = -1;
		if (all[k].count == 0)
			continue;
		all[k].id = k;
		all[k].prompt_mean /= (double)all[k].count;
		all[k].output_mean /= (double)all[k].count;
		all[k].share = (double)all[k].count / (double)n;
		all[k].rate_per_s = rate_per_s * all[k].share;
		where[k] = nb;
		out[nb++] = all[k];
	}
	if (dense)
		for (size_t i = 0; i < n; i++)
			dense[i] = where[mix_bucket_of(q[i].prompt_tokens,
						       q[i].output_tokens)];
	return nb;
}

static int check_problem(const struct mix_problem *p, struct diag *err)
{
	if (p->nb < 1 || p->no < 1 || p->no > MIX_OPTIONS_MAX ||
	    p->slices < 1 || p->replicas_max < 1)
		return diag_set(err, NULL, 0, 0,
				"a mixed fleet needs buckets, options (at most "
				"%d), slices and replicas", MIX_OPTIONS_MAX);
	for (int o = 0; o < p->no; o++)
		if (!(p->price_per_h[o] >= 0.0) || !isfinite(p->price_per_h[o]))
			return diag_set(err, NULL, 0, 0,
					"option %d has no price", o);
	if (p->min_power && !p->power_w)
		return diag_set(err, NULL, 0, 0,
				"the least power needs each option's power");
	for (int o = 0; o < p->no && p->power_w; o++)
		if (!(p->power_w[o] > 0.0) || !isfinite(p->power_w[o]))
			return diag_set(err, NULL, 0, 0,
					"option %d has no power", o);
	for (int b = 0; b < p->nb; b++) {
		bool served = false;

		if (!(p->rate_per_s[b] > 0.0) || !isfinite(p->rate_per_s[b]))
			return diag_set(err, NULL, 0, 0,
					"bucket %d has no rate", b);
		for (int o = 0; o < p->no; o++) {
			double c = p->cap_qps[(size_t)o * p->nb + b];

			if (!(c >= 0.0) || !isfinite(c))
				return diag_set(err, NULL, 0, 0,
						"option %d has no capacity "
						"for bucket %d", o, b);
			served = served || c > 0.0;
		}
		if (!served)
			return diag_set(err, NULL, 0, 0,
					"no option serves bucket %d", b);
	}
	return 0;
}

/* Column of y_ob in the program: 1-based after the no A_o columns; 0
   where option o cannot serve bucket b. */
static void number_columns(const struct mix_problem *p, int *col, int *ncols)
{
	int j = p->no;

	for (int o = 0; o < p->no; o++)
		for (int b = 0; b < p->nb; b++)
			col[o * p->nb + b] =
				p->cap_qps[(size_t)o * p->nb + b] > 0.0 ? ++j :
									  0;
	*ncols = j;
}

int mix_solve(const struct mix_problem *p, struct mix_solution *s,
	      struct diag *err)
{
	size_t cells = (size_t)p->no * (size_t)p->nb;
	int *col = NULL, *ia = NULL, *ja = NULL;
	double *ar = NULL;
	glp_prob *lp = NULL;
	glp_iocp parm;
	int ncols, ne = 0, rc = -1, ret, status;

	if (check_problem(p, err) != 0)
		return -1;
	col = malloc(cells * sizeof(*col));
	/* each y_ob is in its bucket's row and its option's row; each A_o
	   in its option's row */
	ia = malloc((2 * cells + (size_t)p->no + 1) * sizeof(*ia));
	ja = malloc((2 * cells + (size_t)p->no + 1) * sizeof(*ja));
	ar = malloc((2 * cells + (size_t)p->no + 1) * sizeof(*ar));
	if (!col || !ia || !ja || !ar) {
		diag_set_kind(err, DIAG_NOMEM, NULL, 0, 0, "out of memory");
		goto out_free;
	}
	number_columns(p, col, &ncols);

	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_cols(lp, ncols);
	for (int o = 0; o < p->no; o++) {
		glp_set_col_kind(lp, o + 1, GLP_IV);
		glp_set_col_bnds(lp, o + 1, GLP_DB, 0.0, p->replicas_max);
		glp_set_obj_coef(lp, o + 1, p->min_power ? p->power_w[o] :
							   p->price_per_h[o]);
	}
	for (size_t k = 0; k < cells; k++) {
		if (!col[k])
			continue;
		glp_set_col_kind(lp, col[k], GLP_IV);
		glp_set_col_bnds(lp, col[k], GLP_DB, 0.0, p->slices);
	}
	/* rows 1..nb: every slice of a bucket is served; rows nb+1..nb+no:
	   an option's replicas hold its slices */
	glp_add_rows(lp, p->nb + p->no);
	for (int b = 0; b < p->nb; b++)
		glp_set_row_bnds(lp, b + 1, GLP_FX, p->slices, p->slices);
	for (int o = 0; o < p->no; o++) {
		glp_set_row_bnds(lp, p->nb + o + 1, GLP_UP, 0.0, 0.0);
		ne++;
		ia[ne] = p->nb + o + 1;
		ja[ne] = o + 1;
		ar[ne] = -1.0;
	}
	for (int o = 0; o < p->no; o++)
		for (int b = 0; b < p->nb; b++) {
			size_t k = (size_t)o * p->nb + b;

			if (!col[k])
				continue;
			ne++;
			ia[ne] = b + 1;
			ja[ne] = col[k];
			ar[ne] = 1.0;
			/* replicas one slice needs: requests/s over a
			   replica's */
			ne++;
			ia[ne] = p->nb + o + 1;
			ja[ne] = col[k];
			ar[ne] = p->rate_per_s[b] / (p->slices * p->cap_qps[k]);
		}
	glp_load_matrix(lp, ne, ia, ja, ar);

	glp_init_iocp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_ON;
	parm.mip_gap = 0.0;
	parm.tm_lim = p->time_limit_s > 0.0 ?
			      (int)fmin(p->time_limit_s * 1e3, 1e9) :
			      INT_MAX;
	ret = glp_intopt(lp, &parm);
	status = glp_mip_status(lp);
	if (status != GLP_OPT && status != GLP_FEAS) {
		if (ret == GLP_ENOPFS || status == GLP_NOFEAS)
			diag_set(err, NULL, 0, 0,
				 "no fleet of at most %d replicas of each "
				 "device serves the load", p->replicas_max);
		else
			diag_set(err, NULL, 0, 0,
				 "the integer program found no fleet (GLPK "
				 "status %d, return %d)", status, ret);
		goto out_free;
	}
	s->optimal = status == GLP_OPT;
	s->cost_per_h = 0.0;
	s->power_w = 0.0;
	for (int o = 0; o < p->no; o++) {
		double load = 0.0;
		int used = 0;

		for (int b = 0; b < p->nb; b++) {
			size_t k = (size_t)o * p->nb + b;
			double v = col[k] ? glp_mip_col_val(lp, col[k]) : 0.0;
			int y = (int)lround(v);

			s->slices[k] = y;
			used += y;
			if (y > 0)
				load += y * p->rate_per_s[b] /
					(p->slices * p->cap_qps[k]);
		}
		/* the fewest replicas that hold the option's slices: the
		   program's own, or fewer where a price (or power) of 0
		   left it free */
		s->replicas[o] = used ? (int)ceil(load - load_tolerance) : 0;
		if (used && s->replicas[o] < 1)
			s->replicas[o] = 1;
		s->cost_per_h += s->replicas[o] * p->price_per_h[o];
		if (p->power_w)
			s->power_w += s->replicas[o] * p->power_w[o];
	}
	rc = 0;
out_free:
	if (lp) {
		glp_delete_prob(lp);
		/* GLPK's environment of this thread, until the next solve */
		glp_free_env();
	}
	free(ar);
	free(ja);
	free(ia);
	free(col);
	return rc;
}

int mix_route(const int *dense, size_t n, const int *slices, int no, int nb,
	      int *option)
{
	size_t cells = (size_t)no * (size_t)nb;
	long *given = calloc(cells, sizeof(*given));
	long *seen = calloc((size_t)nb, sizeof(*seen));
	int rc = 0;

	if (!given || !seen) {
		rc = -1;
		goto out_free;
	}
	for (size_t i = 0; i < n; i++) {
		int b = dense[i], best = -1, total = 0;
		double most = -HUGE_VAL;

		if (b < 0 || b >= nb) {
			rc = -1;
			goto out_free;
		}
		for (int o = 0; o < no; o++)
			total += slices[(size_t)o * nb + b];
		if (total <= 0) {
			rc = -1;
			goto out_free;
		}
		seen[b]++;
		/* the option furthest behind its share of the bucket */
		for (int o = 0; o < no; o++) {
			size_t k = (size_t)o * nb + b;
			double behind;

			if (slices[k] <= 0)
				continue;
			behind = (double)slices[k] * seen[b] / total -
				 (double)given[k];
			if (behind > most) {
				most = behind;
				best = o;
			}
		}
		given[(size_t)best * nb + b]++;
		option[i] = best;
	}
out_free:
	free(seen);
	free(given);
	return rc;
}
