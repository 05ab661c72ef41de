/*
 * workload_sample.h - the workload keys of per-sample models
 * (recommenders and their serving) and their checks: private to the
 * workload reader; workload_keys.c includes WL_SAMPLE_*_KEYS in its key
 * table after defining the KEY_* row macros, each row ending with the
 * key's meaning.  specs/workload.md lists the keys.
 */
#ifndef CAPPLAN_WORKLOAD_SAMPLE_H
#define CAPPLAN_WORKLOAD_SAMPLE_H

#include <stddef.h>

#include "diag.h"
#include "workload.h"

/* A name of an enumerated value (the first of a value is canonical,
   later ones are aliases); lists end with a NULL name. */
struct wl_name {
	const char *name;
	int value;
};

extern const struct wl_name wl_interaction_names[];
extern const struct wl_name wl_sharding_names[];
extern const struct wl_name wl_server_names[];
extern const struct wl_name wl_update_names[];
extern const struct wl_name wl_bottom_names[];
extern const struct wl_name wl_wide_optimizer_names[];

/*
 * The rows of the per-sample keys, in the order they join the key table
 * (the public interface of workload files: keep names stable).  Uses
 * workload_keys.c's KEY_* macros and the WLT_WIDTHS type.
 */
#define WL_SAMPLE_MODEL_KEYS \
	KEY_INT("model", "dense_features", model.dense_features, POS, 1, \
		WL_MLP_WIDTH_MAX, "recsys: numerical input features"), \
	{ "model", "bottom_mlp", WLT_WIDTHS, WL_OFF(model.bottom_mlp), 0, 1, \
	  WL_MLP_WIDTH_MAX, UNIT_COUNT, NULL, \
	  "recsys: layer widths of the MLP over the numerical inputs" }, \
	{ "model", "top_mlp", WLT_WIDTHS, WL_OFF(model.top_mlp), 0, 1, \
	  WL_MLP_WIDTH_MAX, UNIT_COUNT, NULL, \
	  "recsys: layer widths of the MLP after the interaction" }, \
	KEY_ENUM("model", "interaction", model.interaction, WLT_INTENUM, \
		 wl_interaction_names, \
		 "recsys: how the feature vectors meet (dot, cat, cross)"), \
	KEY_INT("model", "cross_layers", model.cross_layers, POS, 1, \
		WL_MLP_LAYERS_MAX, "recsys: DCN cross layers"), \
	KEY_INT("model", "cross_rank", model.cross_rank, POS, 1, \
		WL_MLP_WIDTH_MAX, \
		"recsys: rank of the low-rank cross weights (DCNv2)"), \
	KEY_NUM("model", "pooling_factor", model.pooling_factor, QTY_POS, 0, \
		1e6, "recsys: rows pooled per table per sample (multi-hot)"), \
	KEY_NUM("model", "cache_hit_rate", model.cache_hit_rate, \
		WLK_AUTO_NEG, 0, 1, \
		"recsys: share of lookups the HBM cache serves"), \
	KEY_BOOL("model", "wide", model.wide, \
		 "recsys: a wide linear part beside the deep one"), \
	KEY_ENUM("model", "wide_optimizer", model.wide_optimizer, \
		 WLT_INTENUM, wl_wide_optimizer_names, \
		 "recsys: how the wide part is trained")

#define WL_SAMPLE_TRAINING_KEYS \
	KEY_ENUM("training", "embedding_sharding", \
		 training.embedding_sharding, WLT_INTENUM, \
		 wl_sharding_names, \
		 "recsys: how the tables are split over the GPUs"), \
	KEY_ENUM("training", "embedding_update", training.embedding_update, \
		 WLT_INTENUM, wl_update_names, \
		 "recsys: sparse gradients, or fused into the backward"), \
	KEY_ENUM("training", "bottom_mlp_placement", \
		 training.bottom_mlp_placement, WLT_INTENUM, \
		 wl_bottom_names, \
		 "recsys: where the bottom MLP runs (every GPU or one)"), \
	KEY_TRI("training", "embedding_comm_overlap", \
		training.embedding_comm_overlap, \
		"recsys: embedding all-to-alls beside the dense network"), \
	KEY_QTYM("training", "input_bytes_per_sample", \
		 training.input_bytes_per_sample, QTY_POS, UNIT_BYTES, 1e12, \
		 "recsys: training data read per sample from the SSDs"), \
	KEY_QTYM("training", "collective_cycle", \
		 training.collective_cycle_s, 0, UNIT_TIME, 1.0, \
		 "recsys: cycle time of the collectives' coordinator"), \
	KEY_QTYM("training", "step_overhead", \
		 training.step_overhead_s, 0, UNIT_TIME, 1.0, \
		 "generic, recsys: host time per step no GPU work hides")

#define WL_SAMPLE_INFERENCE_KEYS \
	KEY_TRI("inference", "cuda_graphs", inference.cuda_graphs, \
		"per-sample: the forward pass replays a CUDA graph"), \
	KEY_QTYM("inference", "framework_overhead", \
		 inference.framework_overhead_s, 0, UNIT_TIME, 1.0, \
		 "per-sample: host time per batch beyond its kernels"), \
	KEY_QTYM("inference", "launch_overhead", \
		 inference.launch_overhead_s, 0, UNIT_TIME, 1.0, \
		 "per-sample: host time to issue one kernel, no graph"), \
	KEY_BOOL("inference", "fusion", inference.fusion, \
		 "per-sample: TensorRT-style fused kernels"), \
	KEY_ENUM("inference", "server", inference.server, WLT_INTENUM, \
		 wl_server_names, \
		 "per-sample: what serves the requests (Triton or none)"), \
	KEY_QTYM("inference", "request_overhead", \
		 inference.request_overhead_s, WLK_AUTO_NEG, UNIT_TIME, 1.0, \
		 "per-sample: time per request outside the framework")

#define WL_SAMPLE_CLUSTER_KEYS \
	KEY_QTYL("cluster", "ssd_bw", cluster.ssd_bw_bytes_per_s, 0, \
		 UNIT_BANDWIDTH, WL_MIN_BW_BYTES_PER_S, \
		 "local NVMe read bandwidth per node"), \
	KEY_INT("cluster", "nvlink_peers", cluster.nvlink_peers, POS_AUTO, 1, \
		WL_GPUS_PER_NODE_MAX, \
		"devices of the node one device reaches by its own links")

/* Defaults of the per-sample keys (after workload_init's own). */
void wl_sample_init(struct workload *wl);

/*
 * Parse a comma-separated list of layer widths, each an integer from 1 to
 * WL_MLP_WIDTH_MAX, at most WL_MLP_LAYERS_MAX of them (blanks around each
 * allowed), into 'out'.  On error returns -1 with a message in 'why' and
 * the byte offset of the offending item in '*offset'.
 */
int wl_parse_widths(const char *text, struct wl_widths *out, size_t *offset,
		    char *why, size_t why_size);

/*
 * Parse model.embedding_rows: a comma-separated list of row counts (each
 * a count such as 40M, above 0 and at most 'max'; blanks around each
 * allowed), at most WL_TABLES_MAX, into 'out'.  On error returns -1 with
 * a message in 'why' and the byte offset of the offending item in
 * '*offset'.
 */
int wl_parse_rows(const char *text, double max, struct wl_rows *out,
		  size_t *offset, char *why, size_t why_size);

/* 'w' as "512,256,128" in 'buf' of 'size' bytes; returns 'buf'. */
char *wl_widths_text(const struct wl_widths *w, char *buf, size_t size);

/*
 * The recommender's keys against each other: the tables and either the
 * dense totals or the layers, the interaction's needs, the pooling, and
 * what a generic or transformer model must leave out.  'given_dense'
 * tells whether the workload gave dense_params or dense_flops_per_sample.
 * Returns 0 or -1 with a message naming 'file'.
 */
int wl_check_recsys(const struct model_spec *m, bool given_dense,
		    const char *file, struct diag *err);

#endif
