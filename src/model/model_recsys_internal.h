/*
 * model_recsys_internal.h - what the files of the recommender model share
 * (model_recsys_place.c: the tables' placement and tier; model_recsys.c:
 * the lookups, exchanges and the step).  Private: nothing outside
 * src/model/ includes it.
 */
#ifndef CAPPLAN_MODEL_RECSYS_INTERNAL_H
#define CAPPLAN_MODEL_RECSYS_INTERNAL_H

#include "model_comm.h"
#include "model_recsys.h"

/* Bytes of one row's optimizer state under 'o' (row-wise Adagrad: one
   fp32 accumulator; SGD: none). */
double recsys_state_bytes_per_row(enum optimizer o);

/* The rows of the listed tables, largest first, in 'out' (WL_TABLES_MAX
   entries); nothing when the tables are not listed. */
void recsys_rows_descending(const struct model_spec *m, double *out);

/* The tables of 'm' dealt under 'sharding' over 'gpus' GPUs with their
   optimizer's rows under 'o' (and, 'training', the wide part's state),
   'rows_desc' from recsys_rows_descending: the deal of a layout. */
void recsys_deal_tables(const struct model_spec *m, const double *rows_desc,
			int sharding, int gpus, enum optimizer o,
			bool training, struct recsys_deal *out);

/* The busiest GPU's share of the tables under 'sharding' over 'gpus' GPUs
   with 'budget' bytes of HBM free for them ('rows_desc' from
   recsys_rows_descending); fills 'p' but its tier. */
void recsys_place_tables(const struct model_spec *m, const double *rows_desc,
			 int sharding, int gpus, enum optimizer o,
			 bool training, double budget, struct recsys_place *p);

/* The host link of one GPU (datasheet, else PCIe 4.0 x16). */
struct link recsys_pcie_link(const struct cluster *cl);

/* What of 'p's tables HBM holds with 'budget' bytes free, and where the
   rest lives (host memory or SSD) with its hit rate. */
void recsys_place_tier(const struct model_spec *m, const struct cluster *cl,
		       double budget, struct recsys_place *p);

#endif
