/*
 * model_goodput.h - time to train as operations see it: failures,
 * checkpoints, restarts and planned maintenance.
 *
 * Failures of a job are a Poisson process whose rate is a per-GPU rate
 * times the GPUs of the job (Kokolis et al. 2024 find job MTTF falling in
 * inverse proportion to the GPU count; Llama 3, Grattafiori et al. 2024
 * section 3.3.4, gives the rate).  The job checkpoints every 'interval'
 * of work, and after a failure restarts from the last checkpoint.  The
 * expected wall-clock time is Daly's complete model (Daly 2006, "A higher
 * order estimate of the optimum checkpoint interval for restart dumps",
 * FGCS 22(3)); the optimal interval is Daly's higher-order estimate, which
 * tends to Young's sqrt(2 delta M) (Young 1974) when the checkpoint is
 * short beside the MTBF.  specs/models.md, section "Goodput".
 *
 * Pure arithmetic: no I/O, no allocation.  Seconds, bytes, bytes/s.
 */
#ifndef CAPPLAN_MODEL_GOODPUT_H
#define CAPPLAN_MODEL_GOODPUT_H

#include <stdbool.h>

/*
 * Bandwidth of the copy of a GPU's checkpoint shard into host memory that
 * an asynchronous checkpoint blocks on (bytes/s): a PCIe Gen4 x16 device
 * to host copy as CUDA's bandwidthTest measures it (about 25 GB/s of the
 * link's 32 GB/s); Gen5 and NVLink-C2C hosts copy faster, so this errs on
 * the slow side.
 */
#define GOODPUT_SNAPSHOT_BW_BYTES_PER_S 25e9

/*
 * Lowest goodput that is still a plan: below it the expected time is more
 * than 100 times the failure-free one, failures outpace progress, and the
 * job is reported as not finishing (no time, energy or cost).
 */
#define GOODPUT_MIN 0.01

struct goodput_input {
	int gpus;                     /* GPUs of the job */
	int nodes;                    /* nodes that write checkpoint shards */
	double ideal_s;               /* failure-free time to train */
	double step_s;                /* one iteration (> 0): a checkpoint is
					 taken between iterations */
	double checkpoint_bytes;      /* one full checkpoint */
	double storage_bw_bytes_per_s;/* write bandwidth per node */
	double snapshot_bw_bytes_per_s;/* GPU to host copy, per GPU */
	double failures_per_gpu_s;    /* >= 0; 0: a cluster that never fails */
	double restart_s;             /* detect, reschedule, reload, warm up */
	double maintenance;           /* planned down time, fraction 0..1 */
	bool async_checkpoint;        /* the write overlaps training */
	double interval_s;            /* work between checkpoints; 0: optimal */
};

struct goodput {
	double ideal_s;               /* failure-free time, as given */
	double checkpoint_bytes;      /* as given */
	double job_mtbf_s;            /* HUGE_VAL when failures_per_gpu_s = 0 */
	double checkpoint_write_s;    /* a checkpoint to storage */
	double checkpoint_stall_s;    /* training blocked per checkpoint */
	double checkpoint_interval_s; /* work between checkpoints, whole steps */
	double checkpoint_interval_steps;
	double young_interval_s;      /* sqrt(2 stall MTBF), for reference */
	double lost_per_failure_s;    /* expected rework plus restart */
	double expected_interruptions;/* failures over the run */
	double time_s;                /* expected wall clock; HUGE_VAL when the
					 job does not finish */
	double busy_s;                /* of which the GPUs compute: the ideal
					 time plus rework */
	double goodput;               /* ideal_s / time_s, 0..1 */
	bool finishes;                /* false: the failures outpace the
					 progress: the time without failures
					 over the time with them is below
					 GOODPUT_MIN */
};

/* Young's interval sqrt(2 stall M). */
double goodput_young_interval_s(double stall_s, double mtbf_s);

/*
 * Daly's higher-order optimum: sqrt(2 d M) [1 + (1/3) sqrt(d / 2M) +
 * (1/9) (d / 2M)] - d for d < 2M, else M.  HUGE_VAL when M is.
 */
double goodput_daly_interval_s(double stall_s, double mtbf_s);

/*
 * Natural log of Daly's expected wall-clock time of 'solve_s' of work in
 * intervals of 'interval_s', each followed by a stall of 'stall_s', with
 * failures every 'mtbf_s' on average and 'restart_s' to restart:
 * M e^(R/M) (e^((tau + d)/M) - 1) Ts / tau.  As a log, so that a job that
 * cannot finish gives a finite number.
 */
double goodput_daly_log_time(double solve_s, double interval_s,
			     double stall_s, double restart_s, double mtbf_s);

/* Evaluate 'in' into 'out'. */
void goodput_eval(const struct goodput_input *in, struct goodput *out);

#endif
