/*
 * measure.h - a user's own measurements, the input of 'capplan
 * calibrate' (specs/calibration.md): a CSV with the columns command
 * (train or infer), workload (a workload file, relative to the CSV's
 * folder), gpu, gpus (empty: as the workload says), set (empty, or
 * KEY=VALUE pairs separated by ';', as --set), metric (a field of that
 * command's --format json output) and measured (in that field's unit);
 * other columns are ignored.  Read with libcsv (csv_read.h): '#' comment
 * lines, every error with file, line and column.
 */
#ifndef CAPPLAN_MEASURE_H
#define CAPPLAN_MEASURE_H

#include <stddef.h>

#include "diag.h"

#define MEASURE_PATH_MAX 512
#define MEASURE_TEXT_MAX 4096
#define MEASURE_NAME_MAX 64
#define MEASURE_ROWS_MAX 4096

enum measure_command {
	MEASURE_TRAIN = 0,
	MEASURE_INFER,
};

struct measurement {
	enum measure_command command;
	char workload[MEASURE_PATH_MAX]; /* as a path from here */
	char gpu[MEASURE_NAME_MAX];
	int gpus;                        /* 0: as the workload says */
	char set[MEASURE_TEXT_MAX];      /* "" or "k=v;k=v" */
	char metric[MEASURE_NAME_MAX];   /* a JSON field, "group.key" */
	double measured;                 /* > 0, finite */
	char file[256];                  /* where it was read, for messages */
	int line;
	int col_workload, col_set, col_metric, col_gpu;
};

struct measure_set {
	struct measurement *rows; /* owned */
	size_t n;
};

/*
 * Read measurements from 'buf' ('len' bytes; 'name' in messages and the
 * folder workload paths are relative to) and append them to 's' (zeroed
 * first by the caller).  Returns 0, or -1 with the error in 'err' (and
 * 's' as it was).
 */
int measure_parse(const char *buf, size_t len, const char *name,
		  struct measure_set *s, struct diag *err);
int measure_load_file(const char *path, struct measure_set *s,
		      struct diag *err);
void measure_release(struct measure_set *s);

const char *measure_command_name(enum measure_command c);

#endif
