/*
 * sim_summary.c - the statistics of a finished serving simulation: latency
 * quantiles past the warm-up, throughput over the measured window, and
 * the overload test (specs/models.md 10.9; sim_internal.h).
 */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_statistics_double.h>

/* A Poisson run is overloaded when more than this fraction of its
   requests still wait for admission once the last one has arrived... */
static const double overload_waiting_fraction = 0.05;
/* ...and more than this many per replica: a run of a few requests, one
   of which waits behind another, is not a growing queue (issue 40). */
static const int overload_waiting_per_replica = 2;

/* A steady window that holds fewer completions' worth of tokens than
   this is too short to measure a rate in (a run of a few requests): the
   whole run is measured instead. */
static const double window_min_requests = 10.0;

/*
 * The quantile f of the n values of v as gsl_stats_quantile_from_sorted_
 * data gives it for the sorted values (the order statistics at floor and
 * floor + 1 of f (n - 1), interpolated), found by selection instead of a
 * sort (issue 43: the sorts were 7% of a sizing's instructions).  v is
 * rearranged; the result is the same, bit for bit.
 */
static double quantile(double *v, size_t n, double f)
{
	double index, delta, lo, hi;
	size_t lhs;

	if (n == 0)
		return 0.0;
	index = f * (n - 1);
	lhs = (size_t)(int)index;
	delta = index - lhs;
	lo = gsl_stats_select(v, 1, n, lhs);
	if (lhs == n - 1)
		return lo;
	hi = gsl_stats_select(v, 1, n, lhs + 1);
	return (1 - delta) * lo + delta * hi;
}

/* Requests of the warm-up: the first of them by arrival, none for a
   burst or a trace. */
int sim_warmup_count(const struct sim *s)
{
	int w;

	if (s->load->arrival != SIM_ARRIVAL_POISSON &&
	    s->load->arrival != SIM_ARRIVAL_CLOSED)
		return 0;
	w = (int)floor(SIM_WARMUP_FRACTION * s->n);
	while (w < s->n / 2 && s->req[w].arrival_s < s->load->warmup_s)
		w++;
	return w;
}

void sim_summarize(struct sim *s, struct sim_result *res, double *buf)
{
	int w = 0, m = 0;
	double first = HUGE_VAL, last = 0.0, out = 0.0, in = 0.0;
	double end = 0.0, mean_out = 0.0;
	size_t nt = 0;
	bool window;

	w = sim_warmup_count(s);
	m = s->n - w;
	for (int i = w; i < s->n; i++) {
		first = fmin(first, s->req[i].arrival_s);
		last = fmax(last, s->t_done[i]);
		out += s->req[i].output_tokens;
		in += s->req[i].prompt_tokens;
	}
	for (int i = 0; i < s->n; i++)
		end = fmax(end, s->t_done[i]);
	res->simulated_requests = s->n;
	res->shortened_requests = s->shortened;
	res->measured_requests = m;
	res->duration_s = end - s->req[0].arrival_s;
	for (int i = 0; i < s->n; i++)
		mean_out += s->req[i].output_tokens;
	mean_out /= s->n;
	window = s->load->arrival == SIM_ARRIVAL_POISSON &&
		      s->win_b > s->win_a &&
		      s->win_out >= window_min_requests * mean_out;

	if (window) {
		/* a steady load: the tokens emitted while requests still
		   arrive (neither the fill at the start nor the drain at the
		   end), in requests of the mean length */
		first = s->win_a;
		last = s->win_b;
		out = s->win_out;
		in = s->win_in;
		m = 0;
		res->request_throughput_per_s = out / mean_out / (last - first);
	} else if (w > 0) {
		/* a closed loop: the completions while requests are still
		   released */
		double a = s->req[w].arrival_s, b = 0.0;
		double done = 0.0, wout = 0.0, win = 0.0;

		for (int i = 0; i < s->n; i++)
			b = fmax(b, s->req[i].arrival_s);
		for (int i = 0; i < s->n; i++)
			if (s->t_done[i] >= a && s->t_done[i] < b) {
				done += 1.0;
				wout += s->req[i].output_tokens;
				win += s->req[i].prompt_tokens;
			}
		/* a window of no length, or of too few completions (as many
		   requests as clients): the whole run, as for a burst */
		if (b > a && done >= window_min_requests) {
			first = a;
			last = b;
			m = (int)done;
			out = wout;
			in = win;
		}
	}
	if (!window)
		res->request_throughput_per_s = last > first ?
							m / (last - first) :
							0;
	res->output_tokens_per_s = last > first ? out / (last - first) : 0.0;
	res->input_tokens_per_s = last > first ? in / (last - first) : 0.0;

#define SUMMARY(expr, mean, ...)                                        \
	do {                                                            \
		double sum_ = 0.0;                                      \
		nt = 0;                                                 \
		for (int i = w; i < s->n; i++) {                        \
			double x_ = (expr);                             \
			if (isfinite(x_)) {                             \
				buf[nt++] = x_;                         \
				sum_ += x_;                             \
			}                                               \
		}                                                       \
		mean = nt ? sum_ / nt : 0.0;                            \
		__VA_ARGS__;                                            \
	} while (0)

	SUMMARY(s->t_first[i] - s->req[i].arrival_s, res->ttft_mean_s,
		res->ttft_p50_s = quantile(buf, nt, 0.50),
		res->ttft_p90_s = quantile(buf, nt, 0.90),
		res->ttft_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->req[i].output_tokens > 1 ?
			(s->t_done[i] - s->t_first[i]) /
				(s->req[i].output_tokens - 1) :
			(double)NAN,
		res->tpot_mean_s, res->tpot_p50_s = quantile(buf, nt, 0.50),
		res->tpot_p90_s = quantile(buf, nt, 0.90),
		res->tpot_p99_s = quantile(buf, nt, 0.99));
	res->tpot_requests = (int)nt;
	SUMMARY(s->t_done[i] - s->req[i].arrival_s, res->e2e_mean_s,
		res->e2e_p50_s = quantile(buf, nt, 0.50),
		res->e2e_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->t_admit[i] - s->t_sched[i], res->queue_wait_mean_s,
		res->queue_wait_p99_s = quantile(buf, nt, 0.99));
	SUMMARY(s->t_xfer[i] >= 0.0 ? s->t_xfer[i] : (double)NAN,
		res->kv_transfer_mean_s, (void)0);
#undef SUMMARY
	res->mean_batch = s->busy_s > 0.0 ? s->batch_s / s->busy_s : 0.0;
	res->kv_utilization = s->busy_s > 0.0 ? s->kv_s / s->busy_s : 0.0;
	res->prefill_time_fraction = s->busy_s > 0.0 ?
					     s->prefill_busy_s / s->busy_s :
					     0.0;
	res->busy_fraction = res->duration_s > 0.0 ?
				     s->busy_s / (s->replicas * res->duration_s) :
				     0.0;
	res->tokens_per_decode_step = s->decode_steps > 0.0 ?
					      s->decode_adv / s->decode_steps :
					      0.0;
	if (s->caching) {
		double hit = 0.0, prompt = 0.0, any = 0.0;

		for (int i = w; i < s->n; i++) {
			hit += s->hit_tokens[i];
			prompt += s->req[i].prompt_tokens;
			any += s->hit_tokens[i] > 0;
		}
		res->prefix_hit_rate = prompt > 0.0 ? hit / prompt : 0.0;
		res->prefix_hit_requests = s->n > w ? any / (s->n - w) : 0.0;
		if (s->offload || s->storage) {
			double host = 0.0, disk = 0.0, load = 0.0, loads = 0.0;

			for (int i = w; i < s->n; i++) {
				host += s->host_hit_tokens[i];
				disk += s->disk_hit_tokens[i];
				if (s->host_hit_tokens[i] + s->disk_hit_tokens[i] >
				    0) {
					load += s->load_s[i];
					loads += 1.0;
				}
			}
			res->offload_hit_rate = prompt > 0.0 ? host / prompt :
							       0.0;
			res->storage_hit_rate = prompt > 0.0 ? disk / prompt :
							       0.0;
			res->offload_load_mean_s = loads > 0.0 ? load / loads :
								 0.0;
		}
	}
	res->sessions = s->sessions_released;
	res->preemptions = s->preemptions;
	res->steps = s->steps;
	res->request_steps = s->request_steps;
	res->overloaded = s->load->arrival == SIM_ARRIVAL_POISSON &&
			  s->waiting_at_last_arrival >
				  overload_waiting_fraction * s->n &&
			  s->waiting_at_last_arrival >
				  overload_waiting_per_replica * s->replicas;
}

