/*
 * benchlog_internal.h - what the readers of benchmark results
 * (benchlog.c) and of training logs (benchlog_train.c) share; not for use
 * outside src/input/.
 */
#ifndef CAPPLAN_BENCHLOG_INTERNAL_H
#define CAPPLAN_BENCHLOG_INTERNAL_H

#include "diag.h"
#include "measure.h"

/* 0 when 'workload' and 'gpu' fit a measurement's fields, else -1 with
   the error (at 'name'). */
int benchlog_check_names(const char *name, const char *workload,
			 const char *gpu, struct diag *err);

/* 'm' cleared: a measurement of command 'c' read at 'line' of 'name',
   of 'workload' on 'gpu'. */
void benchlog_measurement_init(struct measurement *m, enum measure_command c,
			       const char *name, int line,
			       const char *workload, const char *gpu);

#endif
