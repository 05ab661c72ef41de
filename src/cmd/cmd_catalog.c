/* cmd_catalog.c - 'capplan catalog': list the hardware catalog. */
#include <stdio.h>

#include "cli.h"

struct csv_job {
	const struct gpu_spec *const *rows;
	size_t n;
};

/* CSV is exactly the catalog file format, so it can be edited and loaded
   back with --catalog; table and JSON show the same rows as records. */
static int write_catalog_csv(FILE *out, const void *arg, const char **why)
{
	const struct csv_job *job = arg;

	(void)why; /* only write errors, which the caller finds */
	catalog_write_csv_rows(out, job->rows, job->n);
	return 0;
}

static void add_gpu(struct record *rec, const struct gpu_spec *g)
{
	static const struct {
		enum precision p;
		const char *key, *label;
	} cols[] = {
		{ PREC_FP32, "fp32_flops", "fp32" },
		{ PREC_TF32, "tf32_flops", "tf32" },
		{ PREC_BF16, "bf16_flops", "bf16" },
		{ PREC_FP16, "fp16_flops", "fp16" },
		{ PREC_FP8, "fp8_flops", "fp8" },
		{ PREC_INT8, "int8_ops", "int8" },
		{ PREC_INT4, "int4_ops", "int4" },
		{ PREC_FP4, "fp4_flops", "fp4" },
	};

	rec_str(rec, NULL, "name", "name", g->name, RF_GRID);
	rec_str(rec, NULL, "vendor", "vendor", g->vendor, RF_GRID);
	rec_str(rec, NULL, "kind", "kind", g->kind, RF_GRID | RF_WIDE);
	rec_num(rec, NULL, "memory_bytes", "memory", g->mem_bytes, UNIT_BYTES,
		RF_GRID);
	rec_num(rec, NULL, "mem_bw_bytes_per_s", "mem bw",
		g->mem_bw_bytes_per_s, UNIT_BANDWIDTH, RF_GRID);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		/* bf16 always; fp8, int8 and fp4 where there is room */
		int grid = cols[i].p == PREC_BF16 ? RF_GRID :
			   cols[i].p == PREC_FP8 || cols[i].p == PREC_INT8 ||
					   cols[i].p == PREC_FP4 ?
							  RF_GRID | RF_WIDE :
							  0;

		if (g->peak_flops[cols[i].p] > 0.0)
			rec_num(rec, NULL, cols[i].key, cols[i].label,
				g->peak_flops[cols[i].p], UNIT_FLOPS, grid);
		else
			rec_null(rec, NULL, cols[i].key, cols[i].label, grid);
	}
	rec_bool(rec, NULL, "sparsity_2_4", "2:4 sparsity", g->sparsity_2_4, 0);
	rec_num(rec, NULL, "tdp_w", "tdp", g->tdp_w, UNIT_POWER, RF_GRID);
	rec_num(rec, NULL, "idle_w", "idle power", g->idle_w, UNIT_POWER, 0);
	rec_int(rec, NULL, "gpus_per_node", "GPUs/node", g->gpus_per_node,
		RF_GRID | RF_WIDE);
	rec_num(rec, NULL, "intra_bw_bytes_per_s", "intra-node",
		g->intra_bw_bytes_per_s, UNIT_BANDWIDTH, RF_GRID | RF_WIDE);
	rec_bool(rec, NULL, "nvlink_sharp", "NVLink SHARP", g->nvlink_sharp,
		 0);
	rec_bool(rec, NULL, "intra_mesh", "intra-node mesh", g->intra_mesh, 0);
	rec_num(rec, NULL, "inter_bw_bytes_per_s", "inter-node",
		g->inter_bw_bytes_per_s, UNIT_BANDWIDTH, RF_GRID | RF_WIDE);
	rec_num(rec, NULL, "price_usd_per_gpu_hour", "$/GPU-h",
		g->price_usd_per_hour, UNIT_KIND_COUNT, RF_GRID);
	rec_str(rec, NULL, "price_basis", "price basis", g->price_basis, 0);
	if (g->rent_max_gpus > 0)
		rec_int(rec, NULL, "rent_max_gpus", "rents at most",
			g->rent_max_gpus, 0);
	else
		rec_null(rec, NULL, "rent_max_gpus", "rents at most", 0);
	if (g->capex_usd_per_gpu > 0.0)
		rec_num(rec, NULL, "capex_usd_per_gpu", "capex per GPU",
			g->capex_usd_per_gpu, UNIT_MONEY, 0);
	else
		rec_null(rec, NULL, "capex_usd_per_gpu", "capex per GPU", 0);
	rec_num(rec, NULL, "matmul_eff", "GEMM efficiency", g->matmul_eff,
		UNIT_KIND_COUNT, 0);
	if (g->fp8_matmul_eff > 0.0)
		rec_num(rec, NULL, "fp8_matmul_eff", "fp8 GEMM efficiency",
			g->fp8_matmul_eff, UNIT_KIND_COUNT, 0);
	else
		rec_null(rec, NULL, "fp8_matmul_eff", "fp8 GEMM efficiency",
			 0);
	rec_num(rec, NULL, "mem_eff", "bandwidth efficiency", g->mem_eff,
		UNIT_KIND_COUNT, 0);
	rec_str(rec, NULL, "source", "source", g->source, 0);
}

int cmd_catalog(struct cli_ctx *ctx)
{
	struct report rep;
	int rc;

	rc = cli_resolve_gpus(ctx, true);
	if (rc != EXIT_OK)
		return rc;
	if (ctx->format == FORMAT_CSV) {
		struct csv_job job = { ctx->gpus, (size_t)ctx->ngpus };

		return cli_write(ctx, write_catalog_csv, &job);
	}
	report_init(&rep, true);
	/* one device asked for: all of it, a field a line */
	rep.one_as_record = true;
	if (ctx->ngpus == 1)
		snprintf(rep.title, sizeof(rep.title), "Catalog row: %s",
			 ctx->gpus[0]->name);
	for (int i = 0; i < ctx->ngpus; i++) {
		struct record *rec = report_add_record(&rep);

		if (!rec) {
			report_release(&rep);
			fprintf(stderr, "capplan: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		add_gpu(rec, ctx->gpus[i]);
	}
	rc = cli_emit(ctx, &rep);
	report_release(&rep);
	return rc;
}
