/* test_model_memory.c - model states, activations, memory of one GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "model_memory.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

/* MHA, f = 4h, not gated (Korthikanti et al.'s setting): h=1536, a=12,
   s=1280, V=50257, l=8. */
static struct arch mha_arch(void)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 8;
	m.hidden = 1536;
	m.heads = 12;
	m.vocab = 50257;
	m.seq_len = 1280;
	m.tied_embeddings = true;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/* Micro-batch 3, no recomputation, unfused attention with dropout. */
static struct train_config korthikanti_config(int tp, bool sp)
{
	struct train_config c;

	memset(&c, 0, sizeof(c));
	c.tp = tp;
	c.pp = 1;
	c.vp = 1;
	c.cp = 1;
	c.dp = 1;
	c.gpus = tp;
	c.micro_batch = 3;
	c.global_batch = 3;
	c.micro_batches = 1;
	c.recompute = RECOMPUTE_NONE;
	c.sequence_parallel = sp;
	c.dropout = true;
	c.attention = ATTN_UNFUSED;
	c.precision = PREC_BF16;
	c.optimizer = OPTIMIZER_ADAM;
	return c;
}

/*
 * fp8 training keeps the inputs of the four GEMMs in one byte: the QKV and
 * FFN-up inputs (h each, outside the tensor-parallel region), the output
 * projection's input (h) and the FFN-down input (f = 4h), so a layer holds
 * s b (2h + h + f) bytes less than in bf16: 7 s b h for Korthikanti's MHA.
 * With full recomputation only the layer input is kept, in 16 bits.
 */
static void test_fp8_gemm_inputs(void **state)
{
	struct arch a = mha_arch();
	double s = 1280.0, b = 3.0, h = 1536.0, n = 12.0;
	struct train_config c = korthikanti_config(1, false);

	(void)state;
	c.precision = PREC_FP8;
	assert_rel(train_layer_activation_bytes(&a, &c),
		   s * b * h * (34.0 - 7.0 + 5.0 * n * s / h), 1e-14);
	/* over tp 4 with sequence parallelism, all of it divides */
	c = korthikanti_config(4, true);
	c.precision = PREC_FP8;
	assert_rel(train_layer_activation_bytes(&a, &c),
		   s * b * h / 4.0 * (27.0 + 5.0 * n * s / h), 1e-14);
	c.recompute = RECOMPUTE_FULL;
	assert_rel(train_layer_activation_bytes(&a, &c), 2.0 * s * b * h / 4.0,
		   1e-14);
}

static void check_state(enum precision p, enum optimizer o, double w,
			double g, double opt)
{
	struct state_bytes s = train_state_bytes(p, o);

	if (s.weights != w || s.gradients != g || s.optimizer != opt) {
		print_error("%s/%d: got %g/%g/%g, want %g/%g/%g\n",
			    precision_name(p), (int)o, s.weights, s.gradients,
			    s.optimizer, w, g, opt);
		fail();
	}
}

static void test_state_bytes(void **state)
{
	(void)state;
	/* mixed precision Adam: fp32 master + m + v (ZeRO's K = 12) */
	check_state(PREC_BF16, OPTIMIZER_ADAM, 2.0, 2.0, 12.0);
	check_state(PREC_FP16, OPTIMIZER_ADAM, 2.0, 2.0, 12.0);
	/* fp8 keeps 16-bit weights */
	check_state(PREC_FP8, OPTIMIZER_ADAM, 2.0, 2.0, 12.0);
	/* pure fp32: no separate master copy */
	check_state(PREC_FP32, OPTIMIZER_ADAM, 4.0, 4.0, 8.0);
	/* SGD with momentum: master + momentum, or momentum alone */
	check_state(PREC_BF16, OPTIMIZER_SGD, 2.0, 2.0, 8.0);
	check_state(PREC_FP32, OPTIMIZER_SGD, 4.0, 4.0, 4.0);
}

/* Rajbhandari et al. 2020, figure 1: 7.5B parameters, Nd = 64, K = 12:
   120 GB, 31.4 GB, 16.6 GB, 1.9 GB. */
static void test_zero_paper(void **state)
{
	static const double want[4] = { 120e9, 31.4e9, 16.6e9, 1.9e9 };

	(void)state;
	for (int z = 0; z <= 3; z++) {
		struct train_memory m;

		memset(&m, 0, sizeof(m));
		train_memory_states(7.5e9, z, 64, PREC_BF16, OPTIMIZER_ADAM,
				    &m);
		assert_rel(m.weights_bytes + m.gradients_bytes +
				   m.optimizer_bytes,
			   want[z], 0.02);
	}
}

static void test_zero_stages_exact(void **state)
{
	double p = 3.17e9;
	int d = 24;
	struct train_memory m;

	(void)state;
	train_memory_states(p, 0, d, PREC_BF16, OPTIMIZER_ADAM, &m);
	assert_rel(m.weights_bytes, 2.0 * p, 1e-15);
	assert_rel(m.gradients_bytes, 2.0 * p, 1e-15);
	assert_rel(m.optimizer_bytes, 12.0 * p, 1e-15);
	train_memory_states(p, 1, d, PREC_BF16, OPTIMIZER_ADAM, &m);
	assert_rel(m.weights_bytes, 2.0 * p, 1e-15);
	assert_rel(m.gradients_bytes, 2.0 * p, 1e-15);
	assert_rel(m.optimizer_bytes, 12.0 * p / d, 1e-15);
	train_memory_states(p, 2, d, PREC_BF16, OPTIMIZER_ADAM, &m);
	assert_rel(m.weights_bytes, 2.0 * p, 1e-15);
	assert_rel(m.gradients_bytes, 2.0 * p / d, 1e-15);
	assert_rel(m.optimizer_bytes, 12.0 * p / d, 1e-15);
	train_memory_states(p, 3, d, PREC_FP32, OPTIMIZER_SGD, &m);
	assert_rel(m.weights_bytes, 4.0 * p / d, 1e-15);
	assert_rel(m.gradients_bytes, 4.0 * p / d, 1e-15);
	assert_rel(m.optimizer_bytes, 4.0 * p / d, 1e-15);
	/* no data-parallel ranks: nothing to shard over */
	train_memory_states(p, 3, 0, PREC_BF16, OPTIMIZER_ADAM, &m);
	assert_rel(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes,
		   16.0 * p, 1e-15);
}

static void test_params_per_gpu(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = korthikanti_config(4, true);

	(void)state;
	/* pp = 1: all layers, embedding and final norm over tp */
	assert_rel(train_params_per_gpu(&a, &c), 75929472.0, 1e-15);
	a.tied_embeddings = false;
	assert_rel(train_params_per_gpu(&a, &c), 95228160.0, 1e-15);
	/* pp = 4: the last stage has 2 layers, the output projection (a copy
	   of the tied embedding) and the final norm */
	a.tied_embeddings = true;
	c.pp = 4;
	assert_rel(train_params_per_gpu(&a, &c), 33457536.0, 1e-15);
	/* pp = 3: uneven, the most loaded stage has ceil(8/3) = 3 layers */
	c.pp = 3;
	assert_rel(train_params_per_gpu(&a, &c), 40536192.0, 1e-15);
}

/*
 * Korthikanti et al. 2022, section 4, activation bytes of one layer (no
 * recomputation, 16-bit activations, dropout, MHA, f = 4h):
 *   tp = 1:          s b h (34 + 5 a s / h)
 *   tp = t:          s b h (10 + 24/t + 5 a s / (h t))       eq. 2
 *   t + SP:          s b h / t (34 + 5 a s / h)              eq. 4
 *   selective + SP:  34 s b h / t                            eq. 5
 *   full:            2 s b h (/ t with SP)
 * s = 1280, b = 3, h = 1536, a = 12, t = 4.
 */
static void test_korthikanti(void **state)
{
	struct arch a = mha_arch();
	double s = 1280.0, b = 3.0, h = 1536.0, n = 12.0, t = 4.0;
	struct train_config c;

	(void)state;
	c = korthikanti_config(1, false);
	assert_rel(train_layer_activation_bytes(&a, &c),
		   s * b * h * (34.0 + 5.0 * n * s / h), 1e-14);
	assert_rel(train_layer_activation_bytes(&a, &c), 495452160.0, 1e-14);

	c = korthikanti_config(4, false);
	assert_rel(train_layer_activation_bytes(&a, &c),
		   s * b * h * (10.0 + 24.0 / t + 5.0 * n * s / (h * t)),
		   1e-14);
	assert_rel(train_layer_activation_bytes(&a, &c), 168099840.0, 1e-14);

	c = korthikanti_config(4, true);
	assert_rel(train_layer_activation_bytes(&a, &c),
		   s * b * h / t * (34.0 + 5.0 * n * s / h), 1e-14);
	assert_rel(train_layer_activation_bytes(&a, &c), 123863040.0, 1e-14);

	c.recompute = RECOMPUTE_SELECTIVE;
	assert_rel(train_layer_activation_bytes(&a, &c),
		   34.0 * s * b * h / t, 1e-14);
	assert_rel(train_layer_activation_bytes(&a, &c), 50135040.0, 1e-14);
	c.sequence_parallel = false; /* the 10 sbh outside stays replicated */
	assert_rel(train_layer_activation_bytes(&a, &c),
		   s * b * h * (10.0 + 24.0 / t), 1e-14);

	c.recompute = RECOMPUTE_FULL;
	assert_rel(train_layer_activation_bytes(&a, &c), 2.0 * s * b * h,
		   1e-14);
	c.sequence_parallel = true;
	assert_rel(train_layer_activation_bytes(&a, &c), 2.0 * s * b * h / t,
		   1e-14);
}

/* Fused attention keeps no s x s tensors: bytes per token do not depend on
   the sequence length, and are below the unfused ones. */
static void test_flash_linear_in_seq(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = korthikanti_config(4, true);
	double unfused = train_layer_activation_bytes(&a, &c);
	double one, two;

	(void)state;
	c.attention = ATTN_FLASH;
	one = train_layer_activation_bytes(&a, &c);
	assert_true(one < unfused);
	assert_true(one > 34.0 * 1280.0 * 3.0 * 1536.0 / 4.0);
	a.seq_len *= 2;
	two = train_layer_activation_bytes(&a, &c);
	assert_rel(two, 2.0 * one, 1e-14);
	/* without dropout masks less is kept */
	c.dropout = false;
	assert_true(train_layer_activation_bytes(&a, &c) < two);
}

/* Context parallelism splits the tokens of a micro-batch. */
static void test_cp_splits_tokens(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = korthikanti_config(4, true);
	double one;

	(void)state;
	c.attention = ATTN_FLASH;
	one = train_layer_activation_bytes(&a, &c);
	c.cp = 2;
	assert_rel(train_layer_activation_bytes(&a, &c), one / 2.0, 1e-14);
}

static void test_reserve(void **state)
{
	(void)state;
	assert_true(train_memory_reserve(80e9) > train_memory_reserve(40e9));
	assert_rel(train_memory_reserve(80e9) - train_memory_reserve(40e9),
		   train_memory_reserve(160e9) - train_memory_reserve(120e9),
		   1e-12);
	assert_true(train_memory_reserve(0.0) > 0.0);
	assert_true(train_memory_reserve(80e9) < 0.2 * 80e9);
}

static struct train_config pipeline_config(void)
{
	struct train_config c = korthikanti_config(4, true);

	c.pp = 4;
	c.vp = 2;
	c.dp = 2;
	c.gpus = 32;
	c.micro_batches = 16;
	c.global_batch = 16 * 2 * 3;
	return c;
}

/*
 * pp 4 x vp 2, 16 micro-batches, 8 layers dealt evenly: 2 a stage, 1 a
 * chunk.  The first stage runs 2 (p - 1) + (v - 1) p + 1 = 11 chunk
 * forward passes before its first backward (Korthikanti et al.'s
 * p (1 + (p - 1) / (p v)) = 5.5 micro-batches of 2 layers); it holds
 * 8 + 2 + 3 (states 33456000 x 16 B = 535.3 MB), more than the last
 * stage (5 chunks, 33457536 parameters, the logits: 1347.6 MB).
 */
static void test_eval_inflight_interleaved(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = pipeline_config();
	struct train_memory m;
	double cap = 80e9;

	(void)state;
	train_memory_eval(&a, &c, cap, &m);
	assert_rel(m.activations_bytes, 11.0 * 123863040.0, 1e-14);
	assert_rel(m.activations_bytes, 1362493440.0, 1e-14);
	assert_rel(m.reserve_bytes, train_memory_reserve(cap), 1e-15);
	assert_rel(m.total_bytes,
		   m.weights_bytes + m.gradients_bytes + m.optimizer_bytes +
			   m.activations_bytes + m.reserve_bytes,
		   1e-15);
	assert_rel(m.capacity_bytes, cap, 0.0);
	assert_true(m.fits);
	/* states of the first stage, ZeRO 0: 2 layers of 7078656 and the
	   embedding, 19298688 (the last holds 1536 more: the final norm) */
	assert_rel(m.weights_bytes, 2.0 * 33456000.0, 1e-15);
	assert_rel(m.optimizer_bytes, 12.0 * 33456000.0, 1e-15);
	assert_rel(train_params_per_gpu(&a, &c), 33457536.0, 1e-15);
}

static void test_eval_inflight_capped(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = pipeline_config();
	struct train_memory m;

	(void)state;
	/* fewer micro-batches than the schedule would hold: all of them,
	   3 x 2 layers on the first stage */
	c.vp = 1;
	c.micro_batches = 3;
	c.global_batch = 3 * 2 * 3;
	train_memory_eval(&a, &c, 80e9, &m);
	assert_rel(m.activations_bytes, 6.0 * 123863040.0, 1e-14);
	assert_rel(m.activations_bytes, 743178240.0, 1e-14);
	/* 1F1B without interleaving: p = 4 micro-batches */
	c.micro_batches = 16;
	train_memory_eval(&a, &c, 80e9, &m);
	assert_rel(m.activations_bytes, 2.0 * 123863040.0 * 4.0, 1e-14);
}

/*
 * Full recomputation keeps 2 s b h / t = 2949120 bytes a layer and the
 * one being recomputed whole (123863040).  First stage: 4 in flight x 2
 * layers, 147.5 MB, and 535.3 MB of states; the last stage holds one
 * micro-batch (5.9 MB), the layer recomputed, the fp32 logits
 * (4 b s V / t = 192986880) and 535.3 MB of states: it is the most
 * loaded GPU.
 */
static void test_eval_full_recompute(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = pipeline_config();
	struct train_memory m;

	(void)state;
	c.vp = 1;
	c.recompute = RECOMPUTE_FULL;
	train_memory_eval(&a, &c, 80e9, &m);
	assert_rel(m.activations_bytes,
		   2.0 * 2949120.0 + 123863040.0 + 192986880.0, 1e-14);
	assert_rel(m.activations_bytes, 322748160.0, 1e-14);
	assert_rel(m.weights_bytes, 2.0 * 33457536.0, 1e-15);
}

/*
 * First and last stage counts given: pp 4, 1 + 3 + 3 + 1 layers.  First:
 * 4 micro-batches of 1 layer (495.5 MB) and 26377344 parameters (422.0
 * MB); the second stage: 3 micro-batches of 3 layers (1114.8 MB) and
 * 21235968 parameters (339.8 MB), the most loaded; last: 1 layer, the
 * logits and 26378880 parameters (738.9 MB).
 */
static void test_eval_uneven_stages(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = pipeline_config();
	struct train_memory m;

	(void)state;
	c.vp = 1;
	c.first_stage_layers = 1;
	c.last_stage_layers = 1;
	train_memory_eval(&a, &c, 80e9, &m);
	assert_rel(m.activations_bytes, 9.0 * 123863040.0, 1e-14);
	assert_rel(m.weights_bytes, 2.0 * 21235968.0, 1e-15);
	assert_rel(m.total_bytes - m.reserve_bytes, 1454542848.0, 1e-14);
	/* the most parameters: the last stage */
	assert_rel(train_params_per_gpu(&a, &c), 26378880.0, 1e-15);
}

/*
 * pp 2 x vp 4, 3 + 5 layers: the first stage's first chunk holds only the
 * embedding (chunks 0, 1, 1, 1), the last stage's chunks hold 2, 1, 1, 1.
 * Rank 0 runs 2 + 6 + 1 = 9 chunk forward passes before its first
 * backward, two of each chunk and one more of the empty chunk 0: 6 layer
 * micro-batches (not the 6.75 of equal chunks); rank 1 runs 7: chunks
 * 0 to 2 twice and chunk 3 once, 9.  The last stage (9 x 123863040, the
 * logits, 54693504 parameters: 2182.9 MB) outweighs the first (6 x
 * 123863040 and 40534656 parameters: 1391.7 MB).
 */
static void test_eval_empty_chunk(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = pipeline_config();
	struct train_memory m;

	(void)state;
	c.pp = 2;
	c.vp = 4;
	c.dp = 4;
	c.first_stage_layers = 3;
	c.last_stage_layers = 5;
	train_memory_eval(&a, &c, 80e9, &m);
	assert_rel(m.activations_bytes, 9.0 * 123863040.0 + 192986880.0,
		   1e-14);
	assert_rel(m.total_bytes - m.reserve_bytes, 2182850304.0, 1e-14);
	/* the split of the first stage alone: 6 of the 9 */
	c.first_stage_layers = 7;
	c.last_stage_layers = 1;
	train_memory_eval(&a, &c, 80e9, &m);
	/* first: chunks 1, 2, 2, 2: 2 x 7 + 1 = 15 layer micro-batches and
	   7 x 7078656 + 19298688 = 68849280 parameters (2616.4 MB) */
	assert_rel(m.activations_bytes, 15.0 * 123863040.0, 1e-14);
	assert_rel(m.weights_bytes, 2.0 * 68849280.0, 1e-15);
}

static void test_eval_zero3_reserve(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = korthikanti_config(4, true);
	struct train_memory m0, m3;

	(void)state;
	c.dp = 8;
	c.gpus = 32;
	c.global_batch = 24;
	train_memory_eval(&a, &c, 80e9, &m0);
	c.zero = 3;
	train_memory_eval(&a, &c, 80e9, &m3);
	/* two layers of 16-bit weights gathered at a time */
	assert_rel(m3.reserve_bytes - m0.reserve_bytes,
		   2.0 * arch_layer_params(&a) / 4.0 * 2.0, 1e-12);
	assert_rel(m3.weights_bytes, m0.weights_bytes / 8.0, 1e-15);
	assert_rel(m3.activations_bytes, m0.activations_bytes, 1e-15);
}

static void test_eval_fits_boundary(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = pipeline_config();
	struct train_memory m;
	double fixed, cap;

	(void)state;
	train_memory_eval(&a, &c, 80e9, &m);
	/* total = fixed + reserve(cap), reserve linear in cap */
	fixed = m.total_bytes - m.reserve_bytes;
	/* capacity where total == capacity:
	   fixed + r0 + k cap = cap with r0 = reserve(0), k the slope */
	{
		double r0 = train_memory_reserve(0.0);
		double k = (train_memory_reserve(1e10) - r0) / 1e10;

		cap = (fixed + r0) / (1.0 - k);
	}
	train_memory_eval(&a, &c, cap * (1.0 + 1e-9), &m);
	assert_true(m.fits);
	train_memory_eval(&a, &c, cap * (1.0 - 1e-9), &m);
	assert_false(m.fits);
	assert_true(m.total_bytes > m.capacity_bytes);
}

/*
 * Optimizer offload (specs/models.md 3.10): the offloaded share f of the
 * GPU's optimizer shard leaves the device; its host holds, per offloaded
 * parameter, the fp32 weight, the moments and an fp32 gradient; a node's
 * host holds its GPUs' shares.  By hand for Korthikanti's MHA on tp 4, dp
 * 8, ZeRO-1: the shard is P_gpu / 8 parameters of 12 bytes of states.
 */
static void test_eval_offload(void **state)
{
	struct arch a = mha_arch();
	struct train_config c = korthikanti_config(4, true);
	struct train_memory m0, m1, mq;
	double p_gpu, shard;

	(void)state;
	c.dp = 8;
	c.gpus = 32;
	c.global_batch = 24;
	c.zero = 1;
	p_gpu = train_params_per_gpu(&a, &c);
	shard = p_gpu / 8.0;
	train_memory_eval(&a, &c, 80e9, &m0);
	assert_rel(m0.optimizer_bytes, 12.0 * shard, 1e-14);
	assert_rel(m0.host_bytes, 0.0, 0.0);
	assert_rel(m0.offloadable_bytes, 12.0 * shard, 1e-14);
	/* all of it: 16 bytes per parameter of the shard on the host */
	c.offload_fraction = 1.0;
	train_memory_eval(&a, &c, 80e9, &m1);
	assert_rel(m1.optimizer_bytes, 0.0, 0.0);
	assert_rel(m1.host_bytes, 16.0 * shard, 1e-14);
	assert_rel(m1.total_bytes, m0.total_bytes - 12.0 * shard, 1e-14);
	assert_rel(m1.weights_bytes, m0.weights_bytes, 0.0);
	assert_rel(m1.gradients_bytes, m0.gradients_bytes, 0.0);
	assert_rel(m1.activations_bytes, m0.activations_bytes, 0.0);
	/* a quarter of it (Megatron-Core's --optimizer-offload-fraction) */
	c.offload_fraction = 0.25;
	train_memory_eval(&a, &c, 80e9, &mq);
	assert_rel(mq.optimizer_bytes, 0.75 * 12.0 * shard, 1e-14);
	assert_rel(mq.host_bytes, 0.25 * 16.0 * shard, 1e-14);
	/* the node's host: its 8 GPUs' shares against its memory */
	c.offload_fraction = 1.0;
	train_memory_host(&m1, &c, 8, 8.0 * 16.0 * shard * (1.0 + 1e-9));
	assert_rel(m1.node_host_bytes, 8.0 * 16.0 * shard, 1e-15);
	assert_true(m1.fits);
	train_memory_eval(&a, &c, 80e9, &m1);
	train_memory_host(&m1, &c, 8, 8.0 * 16.0 * shard * (1.0 - 1e-9));
	assert_false(m1.fits);
	/* a job of fewer GPUs than a node shares the host among them */
	c.gpus = 4;
	c.dp = 1;
	train_memory_eval(&a, &c, 80e9, &m1);
	train_memory_host(&m1, &c, 8, 1e15);
	assert_rel(m1.node_host_bytes, 4.0 * 16.0 * p_gpu, 1e-14);
	/* without an offload the host changes nothing */
	c.offload_fraction = 0.0;
	train_memory_eval(&a, &c, 80e9, &m0);
	train_memory_host(&m0, &c, 8, 1.0);
	assert_rel(m0.node_host_bytes, 0.0, 0.0);
	assert_true(m0.fits == (m0.total_bytes <= 80e9));
	/* host bytes per parameter: fp32 weight + moments + fp32 gradient */
	assert_rel(train_offload_host_bytes_per_param(PREC_BF16,
						      OPTIMIZER_ADAM),
		   16.0, 0.0);
	assert_rel(train_offload_host_bytes_per_param(PREC_FP32,
						      OPTIMIZER_ADAM),
		   16.0, 0.0);
	assert_rel(train_offload_host_bytes_per_param(PREC_FP8,
						      OPTIMIZER_SGD),
		   12.0, 0.0);
	assert_rel(train_offload_host_bytes_per_param(PREC_FP32,
						      OPTIMIZER_SGD),
		   12.0, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_bytes),
		cmocka_unit_test(test_zero_paper),
		cmocka_unit_test(test_zero_stages_exact),
		cmocka_unit_test(test_params_per_gpu),
		cmocka_unit_test(test_korthikanti),
		cmocka_unit_test(test_fp8_gemm_inputs),
		cmocka_unit_test(test_flash_linear_in_seq),
		cmocka_unit_test(test_cp_splits_tokens),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_eval_inflight_interleaved),
		cmocka_unit_test(test_eval_inflight_capped),
		cmocka_unit_test(test_eval_full_recompute),
		cmocka_unit_test(test_eval_uneven_stages),
		cmocka_unit_test(test_eval_empty_chunk),
		cmocka_unit_test(test_eval_zero3_reserve),
		cmocka_unit_test(test_eval_fits_boundary),
		cmocka_unit_test(test_eval_offload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
