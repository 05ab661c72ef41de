/*
 * model_kernel.h - time of one GPU kernel: matrix multiplications,
 * attention cores and memory-bound element-wise work, as a roofline with
 * achievable fractions of peak.
 *
 * Sources: Williams et al. 2009 (roofline); NVIDIA "Matrix Multiplication
 * Background User's Guide" (tile quantization); Dao 2023 (FlashAttention-2
 * efficiency).  specs/models.md, section "Kernels".
 */
#ifndef CAPPLAN_MODEL_KERNEL_H
#define CAPPLAN_MODEL_KERNEL_H

#include <stdbool.h>

#include "catalog.h"
#include "precision.h"

/* What one device delivers for one precision. */
struct device_perf {
	double peak_flops;         /* dense tensor peak for the precision */
	double mem_bw_bytes_per_s; /* peak memory bandwidth */
	double matmul_eff;         /* achievable fraction of peak_flops */
	double mem_eff;            /* achievable fraction of bandwidth */
	double elem_bytes;         /* bytes per element of the operands */
	int sms;                   /* SMs / CUs; 0 = unknown (catalog) */
};

/*
 * Fill 'd' for math in precision 'p' on 'g'.  A precision the device lacks
 * falls back to the next wider one it has (fp8 -> bf16/fp16 -> tf32 ->
 * fp32, int4 -> int8 -> fp8, fp4 -> fp16: 4-bit weights dequantized into
 * 16-bit GEMMs), as frameworks do.  'sparse' doubles peak_flops on devices
 * with 2:4 sparsity support.  Returns 0, or -1 when the device has no
 * usable precision at all.
 */
int device_perf_init(struct device_perf *d, const struct gpu_spec *g,
		     enum precision p, bool sparse);

/* The precision that math asked for in 'p' runs in on 'g' (the fallback
   of device_perf_init); PREC_COUNT when the device has none. */
enum precision device_math_precision(const struct gpu_spec *g,
				     enum precision p);

/*
 * Seconds for C[m x n] = A[m x k] B[k x n]: the larger of the math time at
 * matmul_eff (with tile quantization) and the memory time of reading A, B
 * and writing C once, plus a fixed per-kernel gap.  'count' independent
 * GEMMs of that shape run as one batched kernel.
 */
double kernel_gemm_s(const struct device_perf *d, double m, double n,
		     double k, double count);

/*
 * kernel_gemm_s with the B operand (the weights) stored in 'w_bytes' bytes
 * per element: quantized or sparse weights are read in their stored size.
 */
double kernel_gemm_w_s(const struct device_perf *d, double m, double n,
		       double k, double count, double w_bytes);

/*
 * Seconds of 'count' GEMMs of m x n x k (tile quantization as
 * kernel_gemm_s, with the column tile also shortened for few columns)
 * that move 'bytes' in all: an implicit-GEMM convolution reads its input
 * once, not the m x k matrix it stands for.
 */
double kernel_gemm_io_s(const struct device_perf *d, double m, double n,
			double k, double count, double bytes);

/*
 * Seconds of work that executes 'flops' at matmul efficiency while moving
 * 'bytes' through memory, combined as kernel_gemm_s combines them (the
 * stall near the ridge point), plus one kernel gap: the layers of a
 * network costed per sample (convolutions run as implicit GEMMs).
 */
double kernel_roofline_s(const struct device_perf *d, double flops,
			 double bytes);

/* The fastest rate (FLOP/s) a compute kernel runs at on 'd': its peak
   times matmul_eff times the in-training fraction.  Every kernel time
   above is at least its FLOPs over it. */
double kernel_rate_ceiling(const struct device_perf *d);

/* Seconds to stream 'bytes' through memory once, plus the kernel gap. */
double kernel_stream_s(const struct device_perf *d, double bytes);

/*
 * Seconds of a fused (FlashAttention-style) attention core that executes
 * 'flops' FLOPs; 'backward' selects the backward kernel's efficiency.
 */
double kernel_flash_attention_s(const struct device_perf *d, double flops,
				bool backward);

/*
 * kernel_flash_attention_s for FlashAttention-2, a kernel of the Ampere
 * generation: no faster per SM than it runs on an H100 (Shah et al. 2024),
 * so on Hopper and later devices slower than their native fused kernel;
 * the native one where the SM count is unknown.
 */
double kernel_flash2_attention_s(const struct device_perf *d, double flops,
				 bool backward);

/* The fixed gap between dependent kernels, seconds. */
double kernel_gap_s(void);

#endif
