/*
 * model_sample.h - networks costed per sample: generic networks (CNNs,
 * vision transformers: parameters, forward FLOPs and activation bytes per
 * sample) and recommenders (DLRM: embedding tables sharded over the GPUs,
 * a dense network replicated).  Training is data parallel (with ZeRO for
 * the dense part); serving runs batches on replicas of 'tp' GPUs.
 *
 * Sources: Naumov et al. 2019 (DLRM); Mudigere et al. 2022 (embedding
 * sharding and all-to-all); specs/models.md, section "Per-sample models".
 */
#ifndef CAPPLAN_MODEL_SAMPLE_H
#define CAPPLAN_MODEL_SAMPLE_H

#include "catalog.h"
#include "cluster.h"
#include "model_memory.h"
#include "model_recsys.h"
#include "model_train.h"
#include "train_config.h"
#include "workload.h"

/* Dense parameters (replicated, optimised with the training optimizer):
   'params' for a generic model, 'dense_params' for a recommender. */
double sample_dense_params(const struct model_spec *m);

/* Bytes of all embedding tables (0 for a generic model). */
double sample_embedding_bytes(const struct model_spec *m);

/* Forward FLOPs per sample. */
double sample_fwd_flops(const struct model_spec *m);

/*
 * The rates of a per-sample training step in 'r' whose time is set: samples
 * ("tokens") per step and per second, per GPU of 'gpus', model and hardware
 * FLOPs (3 x 'fwd_flops' per sample: forward and backward), MFU against
 * 'peak_flops' and the busy fraction.
 */
void sample_result_rates(struct train_result *r, int global_batch, int gpus,
			 double fwd_flops, double peak_flops);

/*
 * One training step of 'c' (dp = gpus; micro_batch, global_batch,
 * micro_batches, zero, precision, optimizer, overlap_grad_reduce used) on
 * 'g'.  Fills time, memory and throughput of 'r' (tokens there count
 * samples).  Returns 0, or -1 when the device cannot run the precision.
 */
int sample_train_eval(const struct model_spec *m, const struct train_config *c,
		      const struct gpu_spec *g, const struct cluster *cl,
		      struct train_result *r);

struct sample_infer {
	double latency_s;            /* one batch, forward */
	double throughput_per_s;     /* samples per second, one replica */
	double weights_bytes;        /* per GPU */
	double memory_total_bytes;   /* per GPU */
	double capacity_bytes;
	bool fits;
	double gpu_power_w;
	/* the parts of latency_s (specs/models.md 14.7) */
	double gpu_s;                /* the kernels on the GPU */
	double host_s;               /* framework time per batch */
	double request_s;            /* the server's per request */
	double copy_s;               /* inputs to the GPU, scores back */
	double kernels;              /* kernels of the forward pass */
	bool launch_bound;           /* the host issues kernels slower than
					the GPU runs them (no CUDA graphs) */
	/* recommenders: the tables and the parts of gpu_s */
	struct recsys_place place;
	double emb_s;                /* lookups and pooling */
	double miss_s;               /* cache misses to host or SSD */
	double a2a_s;                /* pooled embeddings across the replica */
	double dense_s;              /* the dense network */
};

/*
 * Serve batches of 'batch' samples on a replica of 'tp' GPUs (embedding
 * tables and weights split over them; a recommender's pooled embeddings
 * cross them in an all-to-all).  Returns 0, or -1 as above.
 */
int sample_infer_eval(const struct model_spec *m, int tp, int batch,
		      enum precision p, const struct gpu_spec *g,
		      const struct cluster *cl, struct sample_infer *r);

/*
 * sample_infer_eval with the fixed costs of a served batch 'sc' (CUDA
 * graphs, framework, launch and request overheads, fusion) instead of
 * their defaults (serve_costs_default).
 */
int sample_infer_eval_costs(const struct model_spec *m, int tp, int batch,
			    enum precision p, const struct serve_costs *sc,
			    const struct gpu_spec *g, const struct cluster *cl,
			    struct sample_infer *r);

/*
 * The compute seconds of one training step of 'c' (forward and backward
 * of its micro-batches) by operator kind of a graph model, into
 * kind_s[GOP_KINDS].  Returns 0, or -1 without a graph or when the device
 * cannot run the precision.
 */
int sample_graph_train_kinds(const struct model_spec *m,
			     const struct train_config *c,
			     const struct gpu_spec *g, double *kind_s);

/* The seconds of one served batch by operator kind of a graph model
   (as sample_infer_eval times it, with inference.fusion 'fusion'), into
   kind_s[GOP_KINDS]; with 'fusion' a fused operator counts to the kind
   of the kernel it is fused into, without it each operator to its own. */
int sample_graph_infer_kinds(const struct model_spec *m, int tp, int batch,
			     enum precision p, bool fusion,
			     const struct gpu_spec *g, double *kind_s);

#endif
