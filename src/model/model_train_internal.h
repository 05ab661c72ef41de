/*
 * model_train_internal.h - what the files of the training step model share
 * (model_layer.c: one layer's and one micro-batch's costs; model_train.c:
 * stages, pipeline, data-parallel traffic, offload and the step; the
 * stage chooser).  Private: nothing outside src/model/ includes it.
 */
#ifndef CAPPLAN_MODEL_TRAIN_INTERNAL_H
#define CAPPLAN_MODEL_TRAIN_INTERNAL_H

#include "model_comm.h"
#include "model_train.h"

/* The link of a collective among the 'group' GPUs it spans: NVLink
   within a node (comm_link).  Callers pass products of parallel sizes,
   saturated (ck_sat_mul_int) so that a group past an int is simply not
   within a node. */
static inline struct link train_tp_link(const struct cluster *cl, int group)
{
	return comm_link(cl, group, group);
}

#endif
