/* model_goodput.c - failures, checkpoints and restarts; see
   model_goodput.h. */
#include "model_goodput.h"

#include <float.h>
#include <math.h>

double goodput_young_interval_s(double stall_s, double mtbf_s)
{
	return sqrt(2.0 * stall_s * mtbf_s);
}

double goodput_daly_interval_s(double stall_s, double mtbf_s)
{
	double xi;

	if (!isfinite(mtbf_s))
		return HUGE_VAL;
	if (stall_s >= 2.0 * mtbf_s)
		return mtbf_s;
	xi = stall_s / (2.0 * mtbf_s);
	return goodput_young_interval_s(stall_s, mtbf_s) *
		       (1.0 + sqrt(xi) / 3.0 + xi / 9.0) -
	       stall_s;
}

/* log(e^x - 1) for x > 0, without overflow for large x */
static double log_expm1(double x)
{
	return x > 30.0 ? x + log1p(-exp(-x)) : log(expm1(x));
}

double goodput_daly_log_time(double solve_s, double interval_s,
			     double stall_s, double restart_s, double mtbf_s)
{
	double segments = log(solve_s / interval_s);

	if (!isfinite(mtbf_s)) /* no failures: every segment and its stall */
		return log(interval_s + stall_s) + segments;
	return log(mtbf_s) + restart_s / mtbf_s +
	       log_expm1((interval_s + stall_s) / mtbf_s) + segments;
}

/* The interval in whole steps, at least one, at most the whole run. */
static double whole_steps(double interval_s, double step_s, double solve_s)
{
	double total = ceil(solve_s / step_s);
	double steps = isfinite(interval_s) ? nearbyint(interval_s / step_s) :
					      total;

	return fmin(fmax(steps, 1.0), fmax(total, 1.0));
}

void goodput_eval(const struct goodput_input *in, struct goodput *out)
{
	double rate = in->failures_per_gpu_s * in->gpus;
	double m = rate > 0.0 ? 1.0 / rate : HUGE_VAL;
	double write_s = in->checkpoint_bytes /
			 (in->storage_bw_bytes_per_s * in->nodes);
	double stall_s, restart_s, tau, steps, log_w, work_s, checkpoints;

	/* an asynchronous checkpoint blocks for the copy of the GPU's shard
	   to host memory; the write goes on behind training, and a failure
	   during it falls back to the checkpoint before: on average one
	   write time more of lost work per failure (the failure falls in
	   the first write_s of an interval with probability write_s / tau
	   and then loses tau more) */
	if (in->async_checkpoint) {
		stall_s = in->checkpoint_bytes / in->gpus /
			  in->snapshot_bw_bytes_per_s;
		restart_s = in->restart_s + write_s;
	} else {
		stall_s = write_s;
		restart_s = in->restart_s;
	}

	tau = in->interval_s > 0.0 ? in->interval_s :
				     goodput_daly_interval_s(stall_s, m);
	/* a checkpoint cannot start before the one before it is written */
	if (in->async_checkpoint && in->interval_s <= 0.0)
		tau = fmax(tau, write_s);
	steps = whole_steps(tau, in->step_s, in->ideal_s);
	tau = fmin(steps * in->step_s, in->ideal_s);

	out->ideal_s = in->ideal_s;
	out->checkpoint_bytes = in->checkpoint_bytes;
	out->job_mtbf_s = m;
	out->checkpoint_write_s = write_s;
	out->checkpoint_stall_s = stall_s;
	out->checkpoint_interval_s = tau;
	out->checkpoint_interval_steps = steps;
	out->young_interval_s = goodput_young_interval_s(stall_s, m);

	log_w = goodput_daly_log_time(in->ideal_s, tau, stall_s, restart_s,
				      m) -
		log1p(-in->maintenance);
	out->goodput = exp(log(in->ideal_s) - log_w);
	/* a job that does not finish is one whose failures outpace its
	   progress: the expected time against the same run without
	   failures (its checkpoints, stalls and maintenance kept), not
	   against the work alone, whose ratio a run shorter than one
	   checkpoint write also makes small (issue 40) */
	out->finishes = exp(goodput_daly_log_time(in->ideal_s, tau, stall_s,
						  restart_s, HUGE_VAL) -
			    log1p(-in->maintenance) - log_w) >= GOODPUT_MIN;
	if (!out->finishes) {
		out->time_s = HUGE_VAL;
		out->busy_s = HUGE_VAL;
		out->expected_interruptions = HUGE_VAL;
		out->lost_per_failure_s = HUGE_VAL;
		return;
	}
	out->time_s = exp(log_w);
	/* the time not in planned maintenance */
	work_s = out->time_s * (1.0 - in->maintenance);
	checkpoints = in->ideal_s / tau;
	out->expected_interruptions = isfinite(m) ? work_s / m : 0.0;
	out->lost_per_failure_s =
		out->expected_interruptions > 0.0 ?
			(work_s - in->ideal_s - checkpoints * stall_s) /
				out->expected_interruptions :
			0.0;
	/* the GPUs compute except while they restart and stall */
	out->busy_s = fmax(in->ideal_s,
			   work_s - out->expected_interruptions * in->restart_s -
				   checkpoints * stall_s);
}
