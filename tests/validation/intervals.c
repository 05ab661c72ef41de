/*
 * intervals.c - the 80% prediction intervals of src/model/interval_table.c from
 * the validation residuals.
 *
 * Reads the lines "CLASS LOG_RATIO GPU SOURCE BATCH" that `validate
 * --residuals=FILE` and `validate_serving DIR --residuals=FILE` write
 * (LOG_RATIO = ln(measured / predicted) of a rate, SOURCE the validation
 * file, BATCH the row's batch or 0), and writes C source: for each class
 * the number of rows, the conformal 80% band of the log ratios (order
 * statistics, band() below), the smallest and largest batch of its rows
 * (0 when one of them has none: a fleet under load, a training run) and
 * the devices they came from.  With --check it prints instead two
 * coverages: leave-one-out, how often a row falls inside the interval
 * computed without it (the estimate for a new measurement like the old
 * ones), and leave-one-source-out, how often the rows of one file fall
 * inside the interval computed without that whole file (the estimate for
 * a new publication, engine or generation of hardware).
 * specs/validation.md, "Prediction intervals".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#define MAX_ROWS 512
#define MAX_DEVICES 32
#define MAX_SOURCES 64

/* The last, "production" (a whole run's GPU-hours and wall clock, each
   row its own source), is no class of estimate: its band is
   interval_production_band, which interval_of_production uses. */
static const char *const classes[] = { "training", "per_sample", "ttft",
				       "tpot", "throughput", "offline",
				       "sample_serving", "production" };
static const char *const enums[] = { "INTERVAL_TRAINING",
				     "INTERVAL_PER_SAMPLE", "INTERVAL_TTFT",
				     "INTERVAL_TPOT", "INTERVAL_THROUGHPUT",
				     "INTERVAL_OFFLINE",
				     "INTERVAL_SAMPLE_SERVING", NULL };
#define NCLASS (sizeof(classes) / sizeof(classes[0]))

struct cls {
	double e[MAX_ROWS];
	int src[MAX_ROWS]; /* index into 'sources' */
	int n;
	char dev[MAX_DEVICES][64];
	int ndev;
	int batch_lo, batch_hi; /* the batches of its rows; 0 when a row
				   gives none */
	int unbatched;          /* rows without a batch */
};

static struct cls data[NCLASS];
static char sources[MAX_SOURCES][64];
static int nsources;

/* The index of source 'name' in 'sources', added when new; -1 when full. */
static int source_index(const char *name)
{
	int k;

	for (k = 0; k < nsources && strcmp(sources[k], name); k++)
		;
	if (k == nsources) {
		if (nsources == MAX_SOURCES)
			return -1;
		snprintf(sources[nsources++], sizeof(sources[0]), "%s", name);
	}
	return k;
}

static int read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char name[32], gpu[64], src[64];
	double e;
	int batch;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fscanf(f, "%31s %lf %63s %63s %d", name, &e, gpu, src,
		      &batch) == 5) {
		size_t c;
		int k, si = source_index(src);

		for (c = 0; c < NCLASS && strcmp(name, classes[c]); c++)
			;
		if (c == NCLASS || data[c].n == MAX_ROWS || si < 0) {
			fprintf(stderr, "%s: unknown class '%s', too many "
					"rows or sources\n", path, name);
			fclose(f);
			return -1;
		}
		data[c].src[data[c].n] = si;
		data[c].e[data[c].n++] = e;
		data[c].unbatched += batch <= 0;
		if (batch > 0 && (data[c].batch_lo == 0 ||
				  batch < data[c].batch_lo))
			data[c].batch_lo = batch;
		if (batch > data[c].batch_hi)
			data[c].batch_hi = batch;
		for (k = 0; k < data[c].ndev && strcmp(data[c].dev[k], gpu);
		     k++)
			;
		if (k == data[c].ndev && k < MAX_DEVICES &&
		    strcmp(gpu, "-") != 0)
			snprintf(data[c].dev[data[c].ndev++], 64, "%s", gpu);
	}
	if (!feof(f)) {
		fprintf(stderr, "%s: malformed line\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/*
 * The conformal 80% band of 'n' values (copied and sorted): the k-th
 * smallest and k-th largest with k = max(1, floor(0.1 (n + 1))).  For
 * exchangeable errors a new one falls between them with probability
 * (n + 1 - 2k) / (n + 1) >= 0.8 for n >= 9 (Vovk et al. 2005; Lei et al.
 * 2018, split conformal prediction); plain 10% and 90% quantiles cover
 * less on few rows.
 */
static void band(const double *e, int n, double *lo, double *hi)
{
	double s[MAX_ROWS];
	int k = (int)(0.1 * (n + 1));

	if (k < 1)
		k = 1;
	memcpy(s, e, (size_t)n * sizeof(*s));
	gsl_sort(s, 1, (size_t)n);
	*lo = s[k - 1];
	*hi = s[n - k];
}

/* Rows inside the interval computed from the other rows of the class. */
static int loo_inside(const struct cls *c)
{
	int in = 0;

	for (int i = 0; i < c->n; i++) {
		double rest[MAX_ROWS], lo, hi;
		int m = 0;

		for (int j = 0; j < c->n; j++)
			if (j != i)
				rest[m++] = c->e[j];
		band(rest, m, &lo, &hi);
		in += c->e[i] >= lo && c->e[i] <= hi;
	}
	return in;
}

/*
 * Rows of source 'src' in class 'c' inside the band made from the class's
 * rows of the other sources, its log bounds times 'w' (into *in of *n);
 * -1 when the other sources have fewer than 3 rows, too few for a band,
 * or there are none.
 */
static int lso_inside(const struct cls *c, int src, double w, int *in,
		      int *n)
{
	double rest[MAX_ROWS], lo, hi;
	int m = 0;

	*in = *n = 0;
	for (int j = 0; j < c->n; j++)
		if (c->src[j] != src)
			rest[m++] = c->e[j];
	if (m < 3 || m == c->n)
		return -1;
	band(rest, m, &lo, &hi);
	for (int j = 0; j < c->n; j++)
		if (c->src[j] == src) {
			(*n)++;
			*in += c->e[j] >= w * lo && c->e[j] <= w * hi;
		}
	return 0;
}

/* Rows of class 'c' inside the band made without their source, each band's
   log bounds times 'w' (into *in of *n). */
static void lso_widened(const struct cls *c, double w, int *in, int *n)
{
	*in = *n = 0;
	for (int k = 0; k < nsources; k++) {
		int ik, nk;

		if (lso_inside(c, k, w, &ik, &nk) == 0) {
			*in += ik;
			*n += nk;
		}
	}
}

/*
 * The factor on both log bounds for a new source: the smallest of 1, 1.05,
 * ... SOURCE_WIDEN_MAX with which at least 80% of the class's rows fall
 * inside the band made without their own source; SOURCE_WIDEN_MAX when
 * none does (the coverage stays short: --check says so).  1 with a single
 * source.
 */
#define SOURCE_WIDEN_MAX 2.0

static double source_widen(const struct cls *c)
{
	for (int i = 0; 1.0 + 0.05 * i <= SOURCE_WIDEN_MAX + 1e-9; i++) {
		double w = 1.0 + 0.05 * i;
		int in, n;

		lso_widened(c, w, &in, &n);
		if (n == 0 || in >= 0.8 * n)
			return w;
	}
	return SOURCE_WIDEN_MAX;
}

/* Print both coverages of every class (--check). */
static void print_coverage(void)
{
	printf("prediction intervals (80%%): leave-one-out coverage, and "
	       "leave-one-source-out\n(each file's rows against the band "
	       "made without that file)\n");
	for (size_t c = 0; c < NCLASS; c++) {
		int loo;

		if (data[c].n <= 2)
			continue;
		loo = loo_inside(&data[c]);
		printf("  %-10s rows %3d  inside %3d (%.0f%%)\n", classes[c],
		       data[c].n, loo, 100.0 * loo / data[c].n);
		for (int k = 0; k < nsources; k++) {
			int in, n;

			if (lso_inside(&data[c], k, 1.0, &in, &n) == 0)
				printf("    %-26s rows %3d  inside %3d "
				       "(%.0f%%)\n",
				       sources[k], n, in, 100.0 * in / n);
		}
		{
			double w = source_widen(&data[c]);
			int in, n;

			lso_widened(&data[c], w, &in, &n);
			printf("    new-source widening %.2f: %d of %d rows "
			       "inside (%.0f%%)%s\n",
			       w, in, n, n ? 100.0 * in / n : 0.0,
			       n && in < 0.8 * n ? ", short of 80%" : "");
		}
	}
}

/* Class 'c''s band as C: an element of interval_bands[] when it has an
   enum, else a struct's initializer; -1 with too few rows. */
static int print_band(size_t c)
{
	double lo = 0.0, hi = 0.0;

	if (data[c].n < 3) {
		fprintf(stderr, "class '%s' has %d rows: at least 3 are "
				"needed\n",
			classes[c], data[c].n);
		return -1;
	}
	band(data[c].e, data[c].n, &lo, &hi);
	if (enums[c])
		printf("\t[%s] = ", enums[c]);
	printf("{ %d, %.4f, %.4f, %.2f, %d, %d,\n\t\t\"", data[c].n, lo, hi,
	       source_widen(&data[c]), data[c].unbatched ? 0 : data[c].batch_lo,
	       data[c].unbatched ? 0 : data[c].batch_hi);
	for (int k = 0; k < data[c].ndev; k++)
		printf("%s%s", k ? "," : "", data[c].dev[k]);
	printf(enums[c] ? "\" },\n" : "\" };\n");
	return 0;
}

int main(int argc, char **argv)
{
	int check = argc > 1 && strcmp(argv[1], "--check") == 0;

	if (argc < 2 + check) {
		fprintf(stderr, "usage: intervals [--check] RESIDUALS...\n");
		return 2;
	}
	for (int i = 1 + check; i < argc; i++)
		if (read_file(argv[i]) != 0)
			return 2;
	if (check) {
		print_coverage();
		return 0;
	}
	printf("/* interval_table.c - 80%% prediction intervals by class.\n"
	       "   Generated by 'make intervals' (tests/validation/"
	       "intervals.c) from\n"
	       "   the validation residuals; 'make validate' fails when it "
	       "is stale.\n"
	       "   Do not edit. */\n"
	       "#include \"interval.h\"\n\n"
	       "const struct interval_band interval_bands[INTERVAL_COUNT] = "
	       "{\n");
	for (size_t c = 0; c < NCLASS - 1; c++)
		if (print_band(c) != 0)
			return 1;
	printf("};\n\n/* production runs: a whole run's GPU-hours and wall "
	       "clock (interval_of_production) */\n"
	       "const struct interval_band interval_production_band = ");
	if (print_band(NCLASS - 1) != 0)
		return 1;
	return 0;
}
