/*
 * train_config.h - one fully resolved training configuration: how the
 * model is split over GPUs and how each GPU runs its share.
 */
#ifndef CAPPLAN_TRAIN_CONFIG_H
#define CAPPLAN_TRAIN_CONFIG_H

#include <stdbool.h>

#include "model_flops.h"
#include "precision.h"
#include "workload.h"

struct train_config {
	int gpus;
	int tp, pp, vp, cp, dp;   /* tensor, pipeline, virtual, context, data */
	int ep;                   /* expert parallelism, carved out of
				     dp * cp; 0 or 1: none */
	int micro_batch;          /* sequences per micro-batch */
	int global_batch;         /* sequences per iteration */
	int micro_batches;        /* per pipeline: global / (dp * micro) */
	int zero;                 /* 0..3 */
	enum recompute recompute;
	bool sequence_parallel;
	bool overlap_grad_reduce;
	bool dropout;
	enum precision precision;
	enum optimizer optimizer;
	enum attention_impl attention;
};

/*
 * Check that 'c' is a legal split of 'a' on nodes of 'gpus_per_node':
 * gpus = tp*pp*cp*dp, tp divides heads, kv heads split or replicate evenly,
 * pp*vp at most layers, cp divides seq_len, the global batch splits into
 * micro-batches, tp within a node, pp*vp at most the layers.
 * Returns true when legal.  Pure and allocation-free (the search's filter).
 */
bool train_config_valid(const struct arch *a, const struct train_config *c,
			int gpus_per_node);

/* Expert-parallel size: 'ep', where 0 means 1. */
int train_config_ep(const struct train_config *c);

/*
 * Transformer layers on the most loaded pipeline stage: layers are dealt
 * to pp x vp chunks as evenly as possible (Llama 3 ran 126 layers on 16
 * stages), so a stage holds ceil(layers / (pp vp)) x vp of them.
 */
int train_stage_layers(const struct arch *a, const struct train_config *c);

/*
 * Like train_config_valid, but writes why not into 'why' (size 'n'), for
 * configurations a user gave explicitly.
 */
bool train_config_explain(const struct arch *a, const struct train_config *c,
			  int gpus_per_node, char *why, unsigned n);

#endif
