/*
 * catalog.h - the hardware catalog: one row per accelerator.
 *
 * The format is specified in specs/catalog.md.  A default catalog
 * (specs/catalog.csv) is compiled into the binary.  All values are SI.
 */
#ifndef CAPPLAN_CATALOG_H
#define CAPPLAN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "precision.h"

#define GPU_NAME_MAX 64
#define GPU_VENDOR_MAX 32
#define GPU_KIND_MAX 16
#define GPU_SOURCE_MAX 256
#define GPU_BASIS_MAX 32

/* The price basis of a row whose catalog names none (specs/catalog.md). */
#define GPU_BASIS_UNSTATED "unstated"

/* Largest 'gpus_per_node' of a row: a NVLink (or ICI) domain of 65536
   devices is far beyond any built (GB200 NVL72: 72; a TPU v5p pod: 8960)
   and keeps GPU counts of a node and its powers of two inside an int
   (specs/catalog.md). */
#define GPU_NODE_MAX 65536

/* Largest 'rent_max_gpus' of a row: the most GPUs a plan may have
   (WL_GPUS_MAX, the bound of training.gpus). */
#define GPU_RENT_MAX (1 << 24)

/* Largest 'sms' of a row (streaming multiprocessors or compute units). */
#define GPU_SMS_MAX 4096

struct gpu_spec {
	char name[GPU_NAME_MAX];     /* unique, matched case-insensitively */
	char vendor[GPU_VENDOR_MAX]; /* "NVIDIA", "AMD", "Intel", ... */
	char kind[GPU_KIND_MAX];     /* "datacenter", "workstation", "edge" */
	double mem_bytes;            /* device memory capacity */
	double mem_bw_bytes_per_s;   /* peak device-memory bandwidth */
	/* dense peak tensor/matrix throughput per precision; 0 = not supported */
	double peak_flops[PREC_COUNT];
	bool sparsity_2_4;           /* 2:4 structured sparsity doubles math */
	int sms;                     /* streaming multiprocessors (NVIDIA)
					or compute units (AMD) that run the
					matrix math; 0 = unknown */
	double tdp_w;                /* board power limit */
	double idle_w;               /* power when idle but powered */
	int gpus_per_node;           /* GPUs in its usual server, 1 to
					GPU_NODE_MAX */
	double intra_bw_bytes_per_s; /* intra-node link, per GPU per direction */
	bool nvlink_sharp;           /* the node's NVLink switches reduce in
					the network (NVLink SHARP) */
	bool intra_mesh;             /* a link of its own to each other device
					of the node, intra_bw split evenly
					over them (no switch) */
	double inter_bw_bytes_per_s; /* inter-node network per GPU per direction */
	double host_link_bw_bytes_per_s; /* GPU <-> host CPU (PCIe, NVLink-C2C)
					    per GPU per direction; 0 =
					    unknown */
	double host_memory_bytes;    /* host (CPU) memory of its usual node
					of gpus_per_node; 0 = unknown */
	double price_usd_per_hour;   /* indicative price of one GPU-hour */
	char price_basis[GPU_BASIS_MAX]; /* what that price is, a word such
					    as "cloud-on-demand-2026-05" */
	int rent_max_gpus;           /* most GPUs the price basis rents as
					one job; 0 = no known limit */
	double capex_usd_per_gpu;    /* purchase price of one device with its
					share of server and network; 0 =
					unknown */
	double matmul_eff;           /* achievable fraction of dense peak, large GEMMs */
	double fp8_matmul_eff;       /* the same for fp8 GEMMs of the fp8 peak;
					0 = not given: matmul_eff */
	double mem_eff;              /* achievable fraction of memory bandwidth */
	/* achievable fraction of intra_bw and of inter_bw in collectives:
	   not catalog columns but a calibration profile's (profile.h);
	   0: the model's defaults (model_comm.c) */
	double intra_comm_eff;
	double inter_comm_eff;
	char source[GPU_SOURCE_MAX]; /* datasheet reference */
};

struct catalog;

/*
 * Parse a catalog from memory.  'name' is used in messages (a file name or
 * "<embedded>").  A UTF-8 BOM and CRLF line ends are accepted.  On success
 * returns 0 and a new catalog in '*out' (free with catalog_free); on error
 * returns -1, fills 'err' with file, line, column and message, and leaves
 * '*out' NULL.
 */
int catalog_parse(const char *buf, size_t len, const char *name,
		  struct catalog **out, struct diag *err);

/* Read and parse a file; as catalog_parse, with I/O errors reported. */
int catalog_load_file(const char *path, struct catalog **out,
		      struct diag *err);

/* Parse the catalog embedded at build time. */
int catalog_load_default(struct catalog **out, struct diag *err);

/* The text of the embedded catalog (specs/catalog.csv at build time). */
const char *catalog_default_text(size_t *len);

void catalog_free(struct catalog *cat); /* NULL is a no-op */

size_t catalog_count(const struct catalog *cat);
const struct gpu_spec *catalog_at(const struct catalog *cat, size_t i);
/* The same row, to change (a calibration profile's efficiencies). */
struct gpu_spec *catalog_at_mutable(struct catalog *cat, size_t i);

/*
 * Find a device by name, case-insensitively.  Returns NULL when there is
 * none; then, when 'err' is not NULL, its message names up to five closest
 * names ("unknown gpu 'h100'; did you mean 'H100-SXM', 'H100-PCIe'?").
 */
const struct gpu_spec *catalog_find(const struct catalog *cat,
				    const char *name, struct diag *err);

/*
 * Write the catalog as CSV in exactly the format catalog_parse reads, with
 * the header line.  Returns 0, or -1 when writing fails.
 */
int catalog_write_csv(FILE *out, const struct catalog *cat);

/* Like catalog_write_csv for the 'n' devices 'rows' only. */
int catalog_write_csv_rows(FILE *out, const struct gpu_spec *const *rows,
			   size_t n);

/*
 * The achievable fraction of the dense peak of precision 'q' in large
 * GEMMs: fp8_matmul_eff for fp8 and fp4 where the row gives one, else
 * matmul_eff.
 */
double gpu_matmul_eff(const struct gpu_spec *g, enum precision q);

/*
 * True when the price of 'g' covers a job of 'gpus' GPUs: its price basis
 * rents that many as one job (rent_max_gpus is 0 or at least 'gpus').
 */
bool gpu_price_covers(const struct gpu_spec *g, int gpus);

/*
 * Check one row's values for consistency (positive memory, bandwidth and
 * TDP, efficiencies in (0,1], at least one precision, a price basis that
 * is one word, rent_max_gpus and capex_usd_per_gpu unset or in range).
 * Returns 0 or -1 with a message in 'err' (no file position).
 */
int gpu_spec_check(const struct gpu_spec *g, struct diag *err);

#endif
