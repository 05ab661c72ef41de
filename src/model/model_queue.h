/*
 * model_queue.h - replicas for a request rate under a latency target.
 *
 * The serving system is an M/M/c queue (Erlang 1917; Kleinrock 1975,
 * section 3.5): requests arrive as a Poisson stream of 'rate' per second,
 * each replica offers 'slots' concurrent sequences (its batch), and a slot
 * is held for the service time of a request.  Erlang C gives the
 * probability of waiting; the waiting time beyond it is exponential, which
 * gives its percentiles.  specs/models.md, section "Replicas".
 *
 * GSL reports errors through its error handler before returning them:
 * callers must turn GSL's default, aborting handler off
 * (gsl_set_error_handler_off, as main does) to get the -1 returns.
 */
#ifndef CAPPLAN_MODEL_QUEUE_H
#define CAPPLAN_MODEL_QUEUE_H

/*
 * Erlang C: probability that an arrival waits, for 'servers' servers and
 * offered load 'load' = rate x service time (Erlangs).  Computed through
 * GSL's log-gamma and incomplete gamma functions, stable for thousands of
 * servers.  Returns 1 when load >= servers (unstable), and -1 on a GSL
 * error.
 */
double queue_erlang_c(double servers, double load);

/*
 * Waiting time (seconds) that a fraction 'p' (0..1) of requests do not
 * exceed, in M/M/c with 'servers', arrival 'rate' (1/s) and mean 'service_s'.
 * HUGE_VAL when the queue is unstable; -1 on a GSL error.
 */
double queue_wait_percentile_s(double servers, double rate, double service_s,
			       double p);

/* Mean waiting time in the same queue; HUGE_VAL when unstable. */
double queue_wait_mean_s(double servers, double rate, double service_s);

#endif
