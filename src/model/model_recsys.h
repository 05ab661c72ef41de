/*
 * model_recsys.h - recommenders as HugeCTR and TorchRec run them:
 * embedding tables sharded over the GPUs (data-parallel, table-wise,
 * row-wise or column-wise), gathered at a DRAM efficiency that depends
 * on the row size, pooled, exchanged in all-to-alls forward and backward,
 * updated sparsely; tables beyond HBM in host memory or on SSD behind a
 * hot-row cache; the dense network (bottom MLP, interaction or DCN cross
 * layers, top MLP) layer by layer on the roofline; the training data
 * read from storage; and, serving, the fixed costs of a small batch.
 *
 * Sources: Naumov et al. 2019 (DLRM); Wang et al. 2021 (DCNv2); Mudigere
 * et al. 2022 (sharding, row-wise Adagrad, all-to-all); TorchRec's
 * sharding types and pipelined training; NVIDIA DeepLearningExamples DLRM
 * (hybrid parallelism, blocking all-to-all, CUDA graphs); specs/models.md
 * 14.3-14.7.
 */
#ifndef CAPPLAN_MODEL_RECSYS_H
#define CAPPLAN_MODEL_RECSYS_H

#include "catalog.h"
#include "cluster.h"
#include "model_kernel.h"
#include "model_recsys_dense.h"
#include "model_train.h"
#include "train_config.h"
#include "workload.h"

/* Where the part of a GPU's tables that HBM cannot hold lives. */
enum recsys_tier {
	RECSYS_TIER_HBM = 0, /* all in HBM: no cache */
	RECSYS_TIER_HOST,    /* host memory behind an HBM cache */
	RECSYS_TIER_SSD,     /* local NVMe behind an HBM cache */
};

/* How the tables sit on the GPUs, as seen by the busiest one. */
struct recsys_place {
	int sharding;          /* enum emb_sharding, resolved (not auto) */
	int gpus;              /* GPUs the tables are split over */
	int column_shards;     /* column-wise: shards of each table; else 1 */
	double tables_max;     /* tables (column-wise: shards) on the
				  busiest GPU; data- and row-wise: all */
	double lookup_share;   /* of the global batch's lookups (of shard
				  rows, column-wise), the share the
				  busiest GPU serves */
	double row_bytes;      /* bytes of one gathered row (a shard's) */
	double bytes_per_gpu;  /* its tables with their optimizer rows */
	double hbm_bytes;      /* of them in HBM (the rest behind a cache) */
	double offload_bytes;  /* of them in host memory or on SSD */
	int tier;              /* enum recsys_tier */
	double hit_rate;       /* lookups served from HBM */
	double even_hit;       /* hit rate of an HBM cache of the budget
				  with lookups spread evenly over each
				  table's rows (the smallest tables cached
				  whole first) */
};

/* Shards a greedy placement deals one by one; beyond, a bound. */
#define RECSYS_DEAL_MAX 1024

/* The shardings a layout holds: data-parallel, row-, column- and
   table-wise. */
#define RECSYS_SHARDINGS 4

/*
 * The tables dealt under one sharding: the placement without what depends
 * on the memory left for the tables (even_hit, and the tier that
 * recsys_place_tier sets), and the busiest GPU's tables (shards) in bytes,
 * ascending, for its cache's hit rate: held_n of them, or -1 when the hit
 * rate is the cached fraction of its bytes (equal tables, or more shards
 * than are dealt one by one).
 */
struct recsys_deal {
	struct recsys_place place;
	int held_n;
	double held[RECSYS_DEAL_MAX];
};

/*
 * What of a recommender's placement a search computes once: its tables
 * in size order and their deals over 'gpus' GPUs under every sharding it
 * may try, for the one model, GPU count and optimizer (recsys_layout_init).
 * Neither the batch, the precision nor the ZeRO stage changes them.
 */
struct recsys_layout {
	const struct model_spec *m;
	int gpus;
	enum optimizer optimizer;
	bool have[RECSYS_SHARDINGS];
	double rows_desc[WL_TABLES_MAX];
	struct recsys_deal deal[RECSYS_SHARDINGS];
};

/*
 * Deal the tables of 'm' (training: with their optimizer's rows under
 * 'o') over 'gpus' GPUs under 'sharding' (EMB_AUTO: every sharding) into
 * 'lay', which keeps a pointer to 'm'.
 */
void recsys_layout_init(const struct model_spec *m, int sharding, int gpus,
			enum optimizer o, struct recsys_layout *lay);

/* The deal of 'sharding' in 'lay' when 'lay' (may be NULL) was made for
   'm', 'gpus' and 'o' and holds it; else NULL. */
const struct recsys_deal *recsys_layout_deal(const struct recsys_layout *lay,
					     const struct model_spec *m,
					     int sharding, int gpus,
					     enum optimizer o);

/* The placement of deal 'd' with 'budget' bytes of HBM free for its
   tables (all but the tier). */
void recsys_place_budget(const struct recsys_deal *d, double budget,
			 struct recsys_place *p);

/* One training step of a recommender on its busiest GPU. */
struct recsys_step {
	struct recsys_place place;
	double gather_efficiency;  /* of the rows' DRAM reads */
	double emb_fwd_s;          /* lookups and pooling (HBM) */
	double emb_bwd_s;          /* gradients and sparse optimizer */
	double miss_s;             /* cache misses to host memory or SSD */
	double wide_s;             /* of emb_bwd_s: the wide part's lookups
				      and update, forward and backward */
	double a2a_bytes;          /* pooled embeddings a GPU sends forward */
	double a2a_s;              /* forward and backward all-to-alls */
	double input_dist_s;       /* the indices sent to the tables' GPUs */
	double comm_exposed_s;     /* of a2a_s and input_dist_s, not hidden,
				      with the all-to-alls' cycle waits */
	double cycle_wait_s;       /* per step: waits for the collectives'
				      coordinator (collective_cycle) */
	double dense_s;            /* dense network forward and backward */
	double dense_bwd_s;        /* of it, backward (hides the reduction) */
	double parallel_s;         /* bottom MLP on its own GPU: the time its
				      work and the lookups on the other GPUs
				      overlap (subtracted from the sum) */
	double allreduce_s;        /* dense gradients (before overlap) */
	double table_sync_s;       /* data-parallel tables' gradients and
				      dense update */
	double data_s;             /* reading the step's training data */
	double gpu_s;              /* the step on the GPU */
	double stall_s;            /* waiting for the data beyond it */
	double kernels;            /* kernels per step (no communication) */
	const char *bound;         /* what the step spends most on */
};

struct sample_infer;

/* Fixed costs of a served batch (inference keys, specs/models.md 14.7). */
struct serve_costs {
	bool cuda_graphs;
	double framework_s;  /* host time per batch */
	double launch_s;     /* host time per kernel without CUDA graphs */
	bool fusion;         /* bias and activation in the GEMM epilogue */
	double request_s;    /* per request (the server's) */
};

/* The defaults of specs/workload.md: CUDA graphs, no server. */
struct serve_costs serve_costs_default(void);

/*
 * Fraction of the HBM bandwidth a gather of random rows of 'row_bytes'
 * delivers as useful bytes: whole 32-byte sectors are read (the row's
 * share of them), and each random row costs a DRAM page activation worth
 * about 128 bytes of transfer (specs/models.md 14.3).  Multiplies the
 * device's streaming efficiency.
 */
double recsys_gather_efficiency(double row_bytes);

/* The fraction of the device's GEMM efficiency the dense network's
   kernels reach: [model] kernel_efficiency, else 1 (GEMMs of large
   batches, each layer costed on its own). */
double recsys_kernel_efficiency(const struct model_spec *m);

/* Whether the tables' rows are listed one by one (model.table_rows). */
bool recsys_rows_listed(const struct model_spec *m);

/* Rows of all tables. */
double recsys_total_rows(const struct model_spec *m);

/* Rows gathered per sample over all tables. */
double recsys_lookups(const struct model_spec *m);

/* Bytes of the wide part's optimizer state per weight (0 without a wide
   part, or with wide_optimizer = sgd). */
double recsys_wide_state_bytes(const struct model_spec *m);

/* Bytes of all tables (rows x width x embedding precision), with the
   wide part's weights (one a row). */
double recsys_table_bytes(const struct model_spec *m);

/* Bytes of all tables with their sparse optimizer's rows under optimizer
   'o' (row-wise state; none for SGD) and the wide part's state: what a
   checkpoint of them holds. */
double recsys_table_state_bytes(const struct model_spec *m, enum optimizer o);

/* The GPUs that hold the tables of 'm' in configuration 'c': all of them,
   but the one of the bottom MLP (bottom_mlp_one_gpu). */
int recsys_table_gpus(const struct model_spec *m, const struct train_config *c);

/*
 * One training step of recommender 'm' (kind recsys) in configuration
 * 'c' (dp = gpus, micro_batch, micro_batches, precision, optimizer, zero,
 * overlap_grad_reduce, emb_sharding, emb_comm_overlap, emb_fused_update,
 * collective_cycle_s, input_bytes) on
 * 'g' with 'cl', the tables dealt as 'lay' has them when it was made for
 * this model, GPU count and optimizer (recsys_layout_init; NULL or
 * another: dealt here, the same result).  Fills 'r' as sample_train_eval
 * does, and 's' (may be NULL).  Returns
 * 0, or -1 when the device cannot run the precision.
 */
int recsys_train_eval(const struct model_spec *m, const struct train_config *c,
		      const struct gpu_spec *g, const struct cluster *cl,
		      const struct recsys_layout *lay, struct train_result *r,
		      struct recsys_step *s);

/*
 * Serve batches of 'batch' samples of recommender 'm' on a replica of
 * 'tp' GPUs (tables dealt over them, the pooled embeddings crossing them
 * in an all-to-all, each GPU running the dense network on its share) in
 * precision 'p', with the fixed costs 'sc'.  Fills 'r'.  Returns 0, or -1
 * when the device cannot run the precision.
 */
int recsys_infer_eval(const struct model_spec *m, int tp, int batch,
		      enum precision p, const struct serve_costs *sc,
		      const struct gpu_spec *g, const struct cluster *cl,
		      struct sample_infer *r);

/* The name of a sharding (enum emb_sharding) and of a tier. */
const char *recsys_sharding_name(int sharding);
const char *recsys_tier_name(int tier);

#endif
