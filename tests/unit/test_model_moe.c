/*
 * test_model_moe.c - mixture of experts and multi-head latent attention
 * across the models: parameter and FLOP counts (model_flops.c), training
 * memory with expert parallelism (model_memory.c), the all-to-all in the
 * training step (model_train.c), legality of ep (train_config.c) and
 * serving (model_infer.c).
 *
 * Published totals: DeepSeek-AI 2024, "DeepSeek-V3 Technical Report",
 * section 1 and table 1 (671B total, 37B activated, without the 14B of the
 * multi-token-prediction module); Jiang et al. 2024, "Mixtral of Experts",
 * section 2 (46.7B total, 12.9B active).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <string.h>

#include "model_comm.h"
#include "model_ep.h"
#include "model_flops.h"
#include "model_infer.h"
#include "model_memory.h"
#include "model_train.h"
#include "train_config.h"

static void assert_rel(double got, double want, double tol)
{
	double scale = fabs(want) > 0.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
		fail();
	}
}

static void assert_contains(const char *s, const char *sub)
{
	if (!strstr(s, sub)) {
		print_error("'%s' does not contain '%s'\n", s, sub);
		fail();
	}
}

/* ------------------------------------------------------------------ */
/* Models */

static struct model_spec deepseek_v3_spec(void)
{
	struct model_spec m;

	memset(&m, 0, sizeof(m));
	m.layers = 61;
	m.hidden = 7168;
	m.heads = 128;
	m.kv_heads = 128;
	m.head_dim = 128;         /* qk_nope_head_dim */
	m.rope_head_dim = 64;
	m.v_head_dim = 128;
	m.q_lora_rank = 1536;
	m.kv_lora_rank = 512;
	m.ffn_hidden = 18432;     /* the 3 dense layers */
	m.gated_ffn = true;
	m.vocab = 129280;
	m.seq_len = 4096;
	m.tied_embeddings = false;
	m.experts = 256;
	m.experts_per_token = 8;
	m.shared_experts = 1;
	m.expert_ffn_hidden = 2048;
	m.dense_layers = 3;
	return m;
}

static struct arch deepseek_v3(void)
{
	struct model_spec m = deepseek_v3_spec();
	struct arch a;

	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

static struct arch mixtral(void)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 32;
	m.hidden = 4096;
	m.heads = 32;
	m.kv_heads = 8;
	m.ffn_hidden = 14336;
	m.gated_ffn = true;
	m.vocab = 32000;
	m.seq_len = 32768;
	m.tied_embeddings = false;
	m.experts = 8;
	m.experts_per_token = 2;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/*
 * A small MoE with unround sizes: 5 layers (2 dense), h = 96, 6 heads of
 * 16, 2 KV heads, dense FFN 352, 12 experts of 40 (top-3, 1 shared),
 * SwiGLU, V = 1009, s = 160, untied.  By hand:
 *   attention: (96 + 2*2*16) * 96 + 96 * 96        = 24576
 *   dense FFN: 3 * 96 * 352                          = 101376
 *   one expert: 3 * 96 * 40                          = 11520
 *   MoE FFN (all): 13 * 11520 + 96 * 12 (router)     = 150912
 *   MoE FFN (active): 3 * 96 * (3+1)*40 + 1152       = 47232
 *   routed experts: 3 layers * 12 * 11520            = 414720
 *   layers: 5 * (24576 + 192) + 2 * 101376 + 3 * 150912 = 779328
 *   embeddings: 2 * 1009 * 96                        = 193728
 *   total: 779328 + 193728 + 96                      = 973152
 *   active: 5 * 24768 + 2 * 101376 + 3 * 47232 + 193728 + 96 = 662112
 */
static struct model_spec small_moe_spec(void)
{
	struct model_spec m;

	memset(&m, 0, sizeof(m));
	m.layers = 5;
	m.hidden = 96;
	m.heads = 6;
	m.kv_heads = 2;
	m.ffn_hidden = 352;
	m.gated_ffn = true;
	m.vocab = 1009;
	m.seq_len = 160;
	m.tied_embeddings = false;
	m.experts = 12;
	m.experts_per_token = 3;
	m.shared_experts = 1;
	m.expert_ffn_hidden = 40;
	m.dense_layers = 2;
	return m;
}

static struct arch small_moe(void)
{
	struct model_spec m = small_moe_spec();
	struct arch a;

	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/* A small dense MLA model: 4 layers, h = 120, 5 heads, nope 24, rope 8,
   v 20, q_lora 36 (or none), kv_lora 28, FFN 200, V = 777, s = 96. */
static struct arch small_mla(int q_lora)
{
	struct model_spec m;
	struct arch a;

	memset(&m, 0, sizeof(m));
	m.layers = 4;
	m.hidden = 120;
	m.heads = 5;
	m.head_dim = 24;
	m.rope_head_dim = 8;
	m.v_head_dim = 20;
	m.q_lora_rank = q_lora;
	m.kv_lora_rank = 28;
	m.ffn_hidden = 200;
	m.gated_ffn = true;
	m.vocab = 777;
	m.seq_len = 96;
	m.tied_embeddings = true;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	return a;
}

/* ------------------------------------------------------------------ */
/* Devices */

static struct gpu_spec test_gpu(void)
{
	struct gpu_spec g;

	memset(&g, 0, sizeof(g));
	strcpy(g.name, "moe-test");
	g.mem_bytes = 80e9;
	g.mem_bw_bytes_per_s = 3.35e12;
	g.peak_flops[PREC_FP32] = 67e12;
	g.peak_flops[PREC_TF32] = 494.7e12;
	g.peak_flops[PREC_BF16] = 989.4e12;
	g.peak_flops[PREC_FP16] = 989.4e12;
	g.peak_flops[PREC_FP8] = 1978.9e12;
	g.matmul_eff = 0.8;
	g.mem_eff = 0.9;
	g.tdp_w = 700.0;
	g.idle_w = 90.0;
	g.gpus_per_node = 8;
	g.intra_bw_bytes_per_s = 450e9;
	g.inter_bw_bytes_per_s = 50e9;
	return g;
}

static struct cluster test_cluster(void)
{
	struct cluster cl;

	memset(&cl, 0, sizeof(cl));
	cl.gpus_per_node = 8;
	cl.intra_bw_bytes_per_s = 450e9;
	cl.inter_bw_bytes_per_s = 50e9;
	cl.pue = 1.2;
	cl.host_overhead = 0.35;
	return cl;
}

/* ------------------------------------------------------------------ */
/* arch_from_spec */

static void test_from_spec_moe(void **state)
{
	struct model_spec m = small_moe_spec();
	struct arch a;

	(void)state;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_true(arch_is_moe(&a));
	assert_int_equal(a.experts, 12);
	assert_int_equal(a.experts_per_token, 3);
	assert_int_equal(a.shared_experts, 1);
	assert_int_equal(a.expert_ffn, 40);
	assert_int_equal(a.dense_layers, 2);
	assert_int_equal(arch_moe_layers(&a), 3);
	assert_int_equal(a.kv_lora, 0);
	assert_int_equal(a.rope_dim, 0);
	assert_int_equal(a.v_dim, 16);
	assert_int_equal(a.q_dim, 96);

	/* defaults: top-1, experts as wide as the dense FFN */
	m.experts_per_token = 0;
	m.expert_ffn_hidden = 0;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.experts_per_token, 1);
	assert_int_equal(a.expert_ffn, 352);

	/* no experts: the MoE fields are ignored */
	m = small_moe_spec();
	m.experts = 0;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_false(arch_is_moe(&a));
	assert_int_equal(a.experts_per_token, 0);
	assert_int_equal(a.shared_experts, 0);
	assert_int_equal(a.dense_layers, 0);
	assert_int_equal(arch_moe_layers(&a), 0);
	assert_true(arch_expert_params(&a) == 0.0);

	/* top-k beyond the experts, dense layers beyond the layers */
	m = small_moe_spec();
	m.experts_per_token = 13;
	assert_int_equal(arch_from_spec(&m, &a), -1);
	m = small_moe_spec();
	m.dense_layers = 6;
	assert_int_equal(arch_from_spec(&m, &a), -1);
}

static void test_from_spec_mla(void **state)
{
	struct model_spec m = deepseek_v3_spec();
	struct arch a;

	(void)state;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.kv_lora, 512);
	assert_int_equal(a.q_lora, 1536);
	assert_int_equal(a.rope_dim, 64);
	assert_int_equal(a.v_dim, 128);
	assert_int_equal(a.head_dim, 128);
	assert_int_equal(a.q_dim, 128 * 128);
	assert_int_equal(arch_moe_layers(&a), 58);

	/* without kv_lora_rank the MLA-only fields are ignored; v_head_dim
	   still sets the value width */
	m.kv_lora_rank = 0;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.kv_lora, 0);
	assert_int_equal(a.q_lora, 0);
	assert_int_equal(a.rope_dim, 0);

	/* v_head_dim defaults to head_dim */
	m = deepseek_v3_spec();
	m.v_head_dim = 0;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	assert_int_equal(a.v_dim, 128);
}

/* ------------------------------------------------------------------ */
/* Attention shapes */

static void assert_gemm(const struct attn_gemm *g, double out, double in,
			int split)
{
	assert_true(g->out == out);
	assert_true(g->in == in);
	assert_int_equal(g->split, split);
}

static void test_attn_gemms_gqa(void **state)
{
	struct arch a = small_moe();
	struct attn_gemm g[ATTN_GEMM_MAX];

	(void)state;
	/* fused QKV: 96 + 2 * 2 * 16 = 160 outputs, column-parallel; output
	   projection row-parallel */
	assert_int_equal(arch_attn_gemms(&a, g), 2);
	assert_gemm(&g[0], 160, 96, 1);
	assert_gemm(&g[1], 96, 96, 2);
	/* per query-key pair: 2 heads x (16 + 16) x 6 = 384 */
	assert_rel(arch_attn_core_flops_per_pair(&a), 384.0, 1e-15);
	/* a decode query's the same without MLA */
	assert_rel(arch_attn_decode_flops_per_pair(&a), 384.0, 1e-15);
	assert_rel(arch_kv_elems_per_token_layer(&a), 64.0, 1e-15);
	/* Q, K, V (160) and the core's output (96) */
	assert_rel(arch_attn_act_elems(&a), 256.0, 1e-15);
	/* grouped-query attention splits every projection over tp */
	assert_true(arch_attn_act_elems_replicated(&a) == 0.0);

	/* head_dim wider than hidden / heads (Gemma-7B: 16 x 256 = 4096
	   against h = 3072) */
	{
		struct model_spec m;
		struct arch b;

		memset(&m, 0, sizeof(m));
		m.layers = 28;
		m.hidden = 3072;
		m.heads = 16;
		m.head_dim = 256;
		m.vocab = 256000;
		m.seq_len = 8192;
		assert_int_equal(arch_from_spec(&m, &b), 0);
		assert_int_equal(arch_attn_gemms(&b, g), 2);
		assert_gemm(&g[0], 3 * 4096, 3072, 1);
		assert_gemm(&g[1], 3072, 4096, 2);
		assert_rel(arch_kv_elems_per_token_layer(&b), 2.0 * 4096,
			   1e-15);
	}
}

static void test_attn_gemms_mla(void **state)
{
	struct arch a = small_mla(36), b = small_mla(0);
	struct attn_gemm g[ATTN_GEMM_MAX];

	(void)state;
	/* with q_lora: W_DQ [120 -> 36] replicated, W_UQ [36 -> 5 * (24+8)]
	   column, W_DKV + W_KR [120 -> 28 + 8] replicated, W_UK + W_UV
	   [28 -> 5 * (24+20)] column, W_O [5 * 20 -> 120] row */
	assert_int_equal(arch_attn_gemms(&a, g), 5);
	assert_gemm(&g[0], 36, 120, 0);
	assert_gemm(&g[1], 160, 36, 1);
	assert_gemm(&g[2], 36, 120, 0);
	assert_gemm(&g[3], 220, 28, 1);
	assert_gemm(&g[4], 120, 100, 2);
	/* without: queries straight from the hidden state */
	assert_int_equal(arch_attn_gemms(&b, g), 4);
	assert_gemm(&g[0], 160, 120, 1);
	assert_gemm(&g[1], 36, 120, 0);
	assert_gemm(&g[2], 220, 28, 1);
	assert_gemm(&g[3], 120, 100, 2);

	/* scores over 24 + 8, weighted sum over 20: 2 * 5 * 52 */
	assert_rel(arch_attn_core_flops_per_pair(&a), 520.0, 1e-15);
	assert_rel(arch_attn_core_flops_per_pair(&b), 520.0, 1e-15);
	/* a decode query attends in the latent: scores over 28 + 8, the
	   weighted sum over 28, 2 * 5 * 64 */
	assert_rel(arch_attn_decode_flops_per_pair(&a), 640.0, 1e-15);
	assert_rel(arch_attn_decode_flops_per_pair(&b), 640.0, 1e-15);
	/* the cache holds the latent and the rotary key */
	assert_rel(arch_kv_elems_per_token_layer(&a), 36.0, 1e-15);
	assert_rel(arch_kv_elems_per_token_layer(&b), 36.0, 1e-15);
	/* outputs of all but W_O, and the core's output (5 * 20) */
	assert_rel(arch_attn_act_elems(&a), 36 + 160 + 36 + 220 + 100, 1e-15);
	assert_rel(arch_attn_act_elems(&b), 160 + 36 + 220 + 100, 1e-15);
	/* the replicated ones: W_DQ and W_DKV + W_KR outputs */
	assert_rel(arch_attn_act_elems_replicated(&a), 36 + 36, 1e-15);
	assert_rel(arch_attn_act_elems_replicated(&b), 36, 1e-15);

	/* parameters: the projections, an FFN of 3 * 120 * 200, two norms;
	   tied embeddings 777 * 120, final norm */
	{
		double attn_q = 36 * 120 + 160 * 36 + 36 * 120 + 220 * 28 +
				120 * 100;
		double attn_n = 160 * 120 + 36 * 120 + 220 * 28 + 120 * 100;
		double rest = 3.0 * 120 * 200 + 2 * 120;

		assert_rel(arch_layer_params(&a), attn_q + rest, 1e-15);
		assert_rel(arch_layer_params(&b), attn_n + rest, 1e-15);
		assert_rel(arch_params(&a),
			   4 * (attn_q + rest) + 777.0 * 120 + 120, 1e-15);
		/* a dense model uses all of its parameters */
		assert_rel(arch_active_params(&a), arch_params(&a), 1e-15);
	}

	/* DeepSeek-V3: 576 cached elements per token and layer */
	{
		struct arch d = deepseek_v3();

		assert_int_equal(arch_attn_gemms(&d, g), 5);
		assert_gemm(&g[0], 1536, 7168, 0);
		assert_gemm(&g[1], 128 * 192, 1536, 1);
		assert_gemm(&g[2], 576, 7168, 0);
		assert_gemm(&g[3], 128 * 256, 512, 1);
		assert_gemm(&g[4], 7168, 128 * 128, 2);
		assert_rel(arch_kv_elems_per_token_layer(&d), 576.0, 1e-15);
		assert_rel(arch_attn_core_flops_per_pair(&d),
			   2.0 * 128 * (192 + 128), 1e-15);
		/* FlashMLA's count, s_q h_q (d + d_v) 2 with d = 576 and
		   d_v = 512 */
		assert_rel(arch_attn_decode_flops_per_pair(&d),
			   2.0 * 128 * (576 + 512), 1e-15);
	}
}

/* ------------------------------------------------------------------ */
/* Parameters */

static void test_params_small_moe(void **state)
{
	struct arch a = small_moe();

	(void)state;
	assert_rel(arch_ffn_params(&a, 40), 11520.0, 1e-15);
	assert_rel(arch_expert_params(&a), 414720.0, 1e-15);
	assert_rel(arch_moe_active_ffn(&a), 160.0, 1e-15);
	assert_rel(arch_embedding_params(&a), 193728.0, 1e-15);
	/* averaged over the layers: 779328 / 5 */
	assert_rel(arch_layer_params(&a), 155865.6, 1e-15);
	assert_rel(arch_params(&a), 973152.0, 1e-15);
	assert_rel(arch_active_params(&a), 662112.0, 1e-15);

	/* forward FLOPs of a layer: 2 x (attention + active FFN per layer
	   (344448 / 5)) + 160 x 384 */
	assert_rel(arch_layer_fwd_flops_per_token(&a, 160),
		   2.0 * (24576 + 344448.0 / 5) + 160.0 * 384, 1e-15);
	assert_rel(train_model_flops_per_token(&a),
		   3.0 * (5 * (2.0 * (24576 + 344448.0 / 5) + 160.0 * 384) +
			  2.0 * 96 * 1009),
		   1e-15);
	/* 6 x active non-embedding parameters plus attention and logits
	   (the router counted in the active parameters) */
	assert_rel(train_model_flops_per_token(&a),
		   6.0 * (662112.0 - 193728 - 96 - 5 * 192) +
			   3.0 * 5 * 160 * 384 + 6.0 * 96 * 1009,
		   1e-14);
}

static void test_params_deepseek_v3(void **state)
{
	struct arch a = deepseek_v3();
	struct attn_gemm g[ATTN_GEMM_MAX];
	double attn = 0.0;
	int n = arch_attn_gemms(&a, g);

	(void)state;
	for (int i = 0; i < n; i++)
		attn += g[i].out * g[i].in;
	/* 187.1M attention parameters per layer (MLA) */
	assert_rel(attn, 187105280.0, 1e-15);
	/* routed experts: 58 layers x 256 x 3 x 7168 x 2048 */
	assert_rel(arch_expert_params(&a), 58.0 * 256 * 3 * 7168 * 2048,
		   1e-15);
	/* the report's totals (MTP module excluded) */
	assert_rel(arch_params(&a), 671e9, 0.01);
	assert_rel(arch_active_params(&a), 37.5e9, 0.01);
	/* and the exact counts they round */
	assert_rel(arch_params(&a), 671026279424.0, 1e-12);
	assert_rel(arch_active_params(&a), 37552157696.0, 1e-12);
}

static void test_params_mixtral(void **state)
{
	struct arch a = mixtral();

	(void)state;
	assert_int_equal(a.expert_ffn, 14336);
	assert_rel(arch_params(&a), 46.7e9, 0.01);
	assert_rel(arch_active_params(&a), 12.9e9, 0.01);
	assert_rel(arch_params(&a), 46702792704.0, 1e-12);
	assert_rel(arch_active_params(&a), 12879925248.0, 1e-12);
}

/* ------------------------------------------------------------------ */
/* Training */

static struct train_config moe_cfg(int tp, int pp, int dp, int ep, int zero)
{
	struct train_config c;

	memset(&c, 0, sizeof(c));
	c.tp = tp;
	c.pp = pp;
	c.vp = 1;
	c.cp = 1;
	c.dp = dp;
	c.ep = ep;
	c.gpus = tp * pp * dp;
	c.micro_batch = 1;
	c.global_batch = 4 * dp;
	c.micro_batches = 4;
	c.zero = zero;
	c.recompute = RECOMPUTE_NONE;
	c.sequence_parallel = false;
	c.overlap_grad_reduce = false;
	c.precision = PREC_BF16;
	c.optimizer = OPTIMIZER_ADAM;
	c.attention = ATTN_FLASH;
	return c;
}

/*
 * Most loaded GPU of the small MoE, tp = 2, pp = 1: replicated parameters
 * (779328 - 414720) / 2 + 193728 / 2 + 96 = 279264; routed experts
 * 414720 / (2 ep).  pp = 2 (3 layers on the first stage, layer averages):
 * max(3 x 72921.6 / 2 + 48432, the same + 96) = 157910.4 and experts
 * 3 x 82944 / (2 ep).
 */
static void test_params_split_ep(void **state)
{
	struct arch a = small_moe();
	struct train_config c;
	double dense, expert;
	static const int eps[] = { 0, 1, 2, 3, 6 };

	(void)state;
	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		int ep = eps[i] > 1 ? eps[i] : 1;

		c = moe_cfg(2, 1, 6, eps[i], 0);
		train_params_split(&a, &c, &dense, &expert);
		assert_rel(dense, 279264.0, 1e-14);
		assert_rel(expert, 414720.0 / (2.0 * ep), 1e-14);
		assert_rel(train_params_per_gpu(&a, &c),
			   279264.0 + 414720.0 / (2.0 * ep), 1e-14);

		c = moe_cfg(2, 2, 6, eps[i], 0);
		train_params_split(&a, &c, &dense, &expert);
		assert_rel(dense, 157910.4, 1e-14);
		assert_rel(expert, 3.0 * 82944 / (2.0 * ep), 1e-14);
	}
	/* a dense model has no expert share */
	{
		struct model_spec m = small_moe_spec();
		struct arch d;

		m.experts = 0;
		assert_int_equal(arch_from_spec(&m, &d), 0);
		c = moe_cfg(2, 1, 6, 1, 0);
		train_params_split(&d, &c, &dense, &expert);
		assert_true(expert == 0.0);
		/* everything over tp but the final norm */
		assert_rel(dense, arch_params(&d) / 2.0 + 96 / 2.0, 1e-14);
	}
}

/* More ep on the same 12 GPUs (tp 2, dp 6): expert weights and gradients
   shrink as 1 / ep; the expert optimizer states, sharded by ZeRO over the
   dp / ep ranks that share the experts, do not move. */
static void test_memory_ep(void **state)
{
	struct arch a = small_moe();
	struct train_memory m;
	static const int eps[] = { 1, 2, 3, 6 };

	(void)state;
	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		double ep = eps[i];
		double expert = 414720.0 / (2.0 * ep);
		struct train_config c = moe_cfg(2, 1, 6, eps[i], 0);

		train_memory_eval(&a, &c, 80e9, &m);
		assert_rel(m.weights_bytes, 2.0 * (279264.0 + expert), 1e-14);
		assert_rel(m.gradients_bytes, 2.0 * (279264.0 + expert),
			   1e-14);
		assert_rel(m.optimizer_bytes, 12.0 * (279264.0 + expert),
			   1e-14);

		c = moe_cfg(2, 1, 6, eps[i], 1);
		train_memory_eval(&a, &c, 80e9, &m);
		assert_rel(m.weights_bytes, 2.0 * (279264.0 + expert), 1e-14);
		assert_rel(m.optimizer_bytes,
			   12.0 * 279264.0 / 6 + 12.0 * expert / (6 / ep),
			   1e-14);
		assert_rel(m.optimizer_bytes, 12.0 * (279264.0 + 207360.0) / 6,
			   1e-14);

		c = moe_cfg(2, 1, 6, eps[i], 2);
		train_memory_eval(&a, &c, 80e9, &m);
		assert_rel(m.gradients_bytes,
			   2.0 * 279264.0 / 6 + 2.0 * expert / (6 / ep), 1e-14);
	}
}

static double sum_parts(const struct train_time *t)
{
	return t->compute_s + t->tp_comm_s + t->pp_comm_s + t->cp_comm_s +
	       t->bubble_s + t->dp_comm_s + t->optimizer_s;
}

/*
 * tp 2, ep 3 (6 GPUs, one node): each token's hidden state goes to its 3
 * experts and back, split over tp: 160 x 3 x 96 x 2 bytes / 2 = 46080
 * bytes, an all-to-all over 3 ranks on NVLink (0.78 x 450 GB/s, 3 us per
 * tree level, 2 levels): a2a = 2 x (2/3 x 46080 / 351e9 + 6e-6), in 3 of
 * the 5 layers.
 */
static void test_train_a2a(void **state)
{
	struct arch a = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c1 = moe_cfg(2, 1, 6, 1, 1);
	struct train_config c3 = moe_cfg(2, 1, 6, 3, 1);
	struct train_config c6 = moe_cfg(2, 1, 6, 6, 1);
	struct train_micro m1, m3, m6;
	struct train_result r1, r3;
	double one = 2.0 / 3.0 * 46080.0 / (0.78 * 450e9) + 2 * 3e-6;

	(void)state;
	assert_true(train_config_valid(&a, &c1, 8));
	assert_true(train_config_valid(&a, &c3, 8));
	assert_int_equal(train_micro_eval(&a, &c1, &g, &cl, &m1), 0);
	assert_int_equal(train_micro_eval(&a, &c3, &g, &cl, &m3), 0);
	assert_true(m1.layer.a2a_s == 0.0);
	assert_rel(m3.layer.a2a_s, 3.0 / 5.0 * 2.0 * one, 1e-12);

	/* ep 6 with tp 2 spans 12 GPUs: the network (0.9 x 50 GB/s, 6 us,
	   3 levels) */
	assert_int_equal(train_micro_eval(&a, &c6, &g, &cl, &m6), 0);
	assert_rel(m6.layer.a2a_s,
		   3.0 / 5.0 * 2.0 *
			   (5.0 / 6.0 * 46080.0 / (0.9 * 50e9) + 3 * 6e-6),
		   1e-12);

	/* in the step: both passes of every layer of all 4 micro-batches;
	   the TP all-reduces are the same for both */
	assert_int_equal(train_evaluate(&a, &c1, &g, &cl, &r1), 0);
	assert_int_equal(train_evaluate(&a, &c3, &g, &cl, &r3), 0);
	assert_rel(r3.time.tp_comm_s - r1.time.tp_comm_s,
		   4.0 * 5 * 2 * m3.layer.a2a_s, 1e-9);
	assert_rel(r3.time.step_s, sum_parts(&r3.time), 1e-12);
	assert_rel(r1.time.step_s, sum_parts(&r1.time), 1e-12);
	assert_true(r3.time.tp_comm_s > r1.time.tp_comm_s);
	/* the same model, the same tokens */
	assert_rel(r3.model_flops_per_token, r1.model_flops_per_token, 1e-15);
	assert_rel(r3.params, 973152.0, 1e-15);
	/* expert weights are smaller per GPU */
	assert_true(r3.memory.weights_bytes < r1.memory.weights_bytes);
	assert_rel(r1.memory.weights_bytes - r3.memory.weights_bytes,
		   2.0 * (207360.0 - 69120.0), 1e-12);
}

/*
 * ep_comm_overlap (DualPipe, Megatron-Core's EP overlap): the two passes'
 * all-to-alls run beside the layer's compute of both passes,
 * a2a' = T_overlapped(2 a2a, fwd + bwd) / 2 with NVLink's overlap cost
 * 0.15; all of it hidden here, so a2a' = 0.15 a2a.  fp8: the dispatch in
 * fp8 (1 byte), the combine in bf16 (2 bytes).
 */
static void test_train_a2a_overlap_fp8(void **state)
{
	struct arch a = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = moe_cfg(2, 1, 6, 3, 1);
	struct train_micro off, on, f8;
	double one = 2.0 / 3.0 * 46080.0 / (0.78 * 450e9) + 2 * 3e-6;
	double half = 2.0 / 3.0 * 23040.0 / (0.78 * 450e9) + 2 * 3e-6;

	(void)state;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &off), 0);
	c.ep_comm_overlap = true;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &on), 0);
	assert_true(2.0 * off.layer.a2a_s < off.layer.fwd_s + off.layer.bwd_s);
	assert_rel(on.layer.a2a_s, 0.15 * off.layer.a2a_s, 1e-12);
	assert_rel(on.layer.fwd_s, off.layer.fwd_s, 0.0);
	c.ep_comm_overlap = false;
	c.precision = PREC_FP8;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &f8), 0);
	assert_rel(f8.layer.a2a_s, 3.0 / 5.0 * (one + half), 1e-12);
	/* the attention core stays in bf16 */
	assert_rel(f8.layer.attn_fwd_s, off.layer.attn_fwd_s, 1e-12);
}

/*
 * Selective recomputation of MLA's up-projections (recompute_modules
 * mla_up_proj) keeps the latents and drops the up-projected queries,
 * keys and values: a (d_h + d_r) + a (d_h + d_v) = 5 x 32 + 5 x 44 = 380
 * elements of 2 bytes per token and layer, over tp 1, for the 96 x 1
 * tokens of a micro-batch; layernorm drops the two GEMM inputs after the
 * norms (2 h = 240 elements).
 */
static void test_memory_recompute_modules(void **state)
{
	struct arch a = small_mla(16);
	struct train_config c = moe_cfg(1, 1, 1, 1, 0);
	double base, mla, norm;

	(void)state;
	assert_rel(arch_attn_up_proj_elems(&a), 380.0, 0.0);
	/* their weights: 28 x 5 x (24 + 20) + 16 x 5 x (24 + 8) */
	assert_rel(arch_attn_up_proj_params(&a), 8720.0, 0.0);
	c.recompute = RECOMPUTE_SELECTIVE;
	base = train_layer_activation_bytes(&a, &c);
	c.recompute_modules = RECOMPUTE_MOD_CORE_ATTN | RECOMPUTE_MOD_MLA_UP_PROJ;
	mla = train_layer_activation_bytes(&a, &c);
	assert_rel(base - mla, 96.0 * 2.0 * 380.0, 1e-12);
	c.recompute_modules = RECOMPUTE_MOD_CORE_ATTN | RECOMPUTE_MOD_LAYERNORM;
	norm = train_layer_activation_bytes(&a, &c);
	assert_rel(base - norm, 96.0 * 2.0 * 240.0, 1e-12);
	/* without MLA the module frees nothing */
	{
		struct arch g = small_moe();

		c.recompute_modules = RECOMPUTE_MOD_CORE_ATTN;
		base = train_layer_activation_bytes(&g, &c);
		c.recompute_modules |= RECOMPUTE_MOD_MLA_UP_PROJ;
		assert_rel(train_layer_activation_bytes(&g, &c), base, 0.0);
	}
}

static void test_config_ep_rules(void **state)
{
	struct arch a = small_moe();
	struct model_spec m = small_moe_spec();
	struct arch d;
	struct train_config c;
	char why[200];

	(void)state;
	m.experts = 0;
	assert_int_equal(arch_from_spec(&m, &d), 0);

	/* ep 0 means 1 */
	c = moe_cfg(2, 1, 6, 0, 1);
	assert_int_equal(train_config_ep(&c), 1);
	assert_true(train_config_valid(&d, &c, 8));
	assert_true(train_config_valid(&a, &c, 8));
	c.ep = 1;
	assert_int_equal(train_config_ep(&c), 1);
	assert_true(train_config_valid(&d, &c, 8));
	c.ep = 6;
	assert_int_equal(train_config_ep(&c), 6);
	assert_true(train_config_valid(&a, &c, 8));

	/* dense models: ep must be 1 */
	c.ep = 2;
	assert_false(train_config_valid(&d, &c, 8));
	assert_false(train_config_explain(&d, &c, 8, why, sizeof(why)));
	assert_string_equal(why, "ep (2) must be 1 for a dense model");

	/* ep must divide the experts (12) */
	c = moe_cfg(2, 1, 10, 5, 1);
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	assert_string_equal(why, "ep (5) must divide experts (12)");

	/* and dp * cp: 4 divides 12 experts but not dp 6 */
	c = moe_cfg(2, 1, 6, 4, 1);
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	assert_string_equal(why, "ep (4) must divide dp*cp (6*1)");
	/* context-parallel ranks count: dp 2 x cp 2 holds ep 4 */
	c = moe_cfg(2, 1, 2, 4, 1);
	c.cp = 2;
	c.gpus = 8;
	c.global_batch = 8;
	c.micro_batches = 4;
	assert_true(train_config_explain(&a, &c, 8, why, sizeof(why)));

	/* negative */
	c = moe_cfg(2, 1, 6, -1, 1);
	assert_false(train_config_explain(&a, &c, 8, why, sizeof(why)));
	assert_contains(why, "must be >= 1");
}

/* ------------------------------------------------------------------ */
/* Serving */

static struct infer_config icfg(int tp, int ep, int batch)
{
	struct infer_config c;

	memset(&c, 0, sizeof(c));
	c.tp = tp;
	c.ep = ep;
	c.batch = batch;
	c.weight_precision = PREC_BF16;
	c.kv_precision = PREC_BF16;
	c.prompt_tokens = 8;
	c.output_tokens = 4;
	return c;
}

static void test_infer_gpus(void **state)
{
	struct infer_config c = icfg(2, 0, 1);

	(void)state;
	assert_int_equal(infer_gpus_per_replica(&c), 2);
	c.ep = 1;
	assert_int_equal(infer_gpus_per_replica(&c), 2);
	c.ep = 4;
	assert_int_equal(infer_gpus_per_replica(&c), 8);
	c.tp = 8;
	c.ep = 32;
	assert_int_equal(infer_gpus_per_replica(&c), 256);
	/* past an int (tp 2^16 x ep 2^20): saturated, more than any fleet */
	c.tp = 65536;
	c.ep = 1048576;
	assert_int_equal(infer_gpus_per_replica(&c), INT_MAX);
}

/* A candidate whose tp x ep passes an int (the search costs a micro-batch
   before it checks ep against dp x cp): the all-to-all goes over the
   network instead of the product wrapping (issue 14). */
static void test_train_a2a_group_past_int(void **state)
{
	struct arch a = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct train_config c = moe_cfg(2, 1, 6, 6, 1);
	struct train_config huge = c;
	struct train_micro m, mh;

	(void)state;
	huge.tp = 65536;
	huge.ep = 65536;
	assert_int_equal(train_micro_eval(&a, &c, &g, &cl, &m), 0);
	assert_int_equal(train_micro_eval(&a, &huge, &g, &cl, &mh), 0);
	assert_true(isfinite(mh.layer.a2a_s) && mh.layer.a2a_s > 0.0);
}

/* Weights per GPU: replicated parts over tp, routed experts over tp x
   ep: (364608 x 2 + 193728 x 2) / 2 + 414720 x 2 / 6 = 696576 bytes. */
static void test_infer_weights_ep(void **state)
{
	struct arch a = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(2, 3, 6);
	struct infer_result r;

	(void)state;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), 0);
	assert_rel(r.memory.weights_bytes, 696576.0, 1e-14);
	c.ep = 1;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), 0);
	assert_rel(r.memory.weights_bytes, 558336.0 + 414720.0, 1e-14);
	/* GQA KV cache: 5 layers x 2 x 2 heads x 16 x 2 bytes = 640 bytes
	   per token, 320 on each of 2 GPUs; the batch of 6 over ep 3 groups
	   leaves 2 sequences of 12 tokens to each */
	assert_rel(r.memory.kv_cache_bytes_per_token, 640.0, 1e-15);
	assert_rel(r.memory.kv_cache_bytes, 320.0 * 6 * 12, 1e-14);
	c.ep = 3;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), 0);
	assert_rel(r.memory.kv_cache_bytes, 320.0 * 2 * 12, 1e-14);
	/* throughput per GPU counts all tp x ep GPUs */
	assert_rel(r.throughput_tokens_per_s_per_gpu,
		   r.throughput_tokens_per_s / 6.0, 1e-15);
}

/* The MLA cache is the latent and the rotary key, the same on every
   tensor-parallel rank: layers x (kv_lora + rope) x bytes per token. */
static void test_infer_kv_mla(void **state)
{
	struct arch a = small_mla(36);
	struct arch d = deepseek_v3();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(1, 0, 3);
	struct infer_result r1, r5;

	(void)state;
	assert_rel(infer_kv_bytes_per_token(&a, PREC_BF16), 4.0 * 36 * 2,
		   1e-15);
	assert_rel(infer_kv_bytes_per_token(&a, PREC_FP8), 4.0 * 36, 1e-15);
	/* DeepSeek-V3: 61 x 576 x 2 = 70272 bytes per token in bf16 */
	assert_rel(infer_kv_bytes_per_token(&d, PREC_BF16), 70272.0, 1e-15);

	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r1), 0);
	c.tp = 5;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r5), 0);
	assert_rel(r1.memory.kv_cache_bytes, 4.0 * 36 * 2 * 3 * 12, 1e-15);
	assert_rel(r5.memory.kv_cache_bytes, r1.memory.kv_cache_bytes, 1e-15);
	assert_rel(r5.memory.kv_cache_bytes_per_token, 288.0, 1e-15);

	/* GQA for contrast: the cache splits over tp (6 KV heads over 3) */
	{
		struct model_spec m = small_moe_spec();
		struct arch q;
		struct infer_result s1, s3;

		m.kv_heads = 6;
		assert_int_equal(arch_from_spec(&m, &q), 0);
		c.tp = 1;
		assert_int_equal(infer_evaluate(&q, &c, &g, &cl, &s1), 0);
		c.tp = 3;
		assert_int_equal(infer_evaluate(&q, &c, &g, &cl, &s3), 0);
		assert_rel(s3.memory.kv_cache_bytes,
			   s1.memory.kv_cache_bytes / 3, 1e-15);
	}
}

/*
 * Decode reads only the experts some token of the batch picked: of E = 64
 * experts with top-2, E (1 - (1 - 2/64)^t) for t tokens.  On a device
 * whose math is free (1e18 FLOP/s) and whose memory streams 1 TB/s, each
 * decode step takes the bytes it reads over the bandwidth plus fixed
 * kernel gaps, so a larger batch adds the extra experts' weights: 2 MoE
 * layers x 3 x 2048 x 4096 x 2 bytes per expert.  The activations and the
 * KV cache of 32 sequences add about 0.3%.
 */
static void test_infer_experts_touched(void **state)
{
	struct model_spec m;
	struct arch a;
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_result r;
	double expert_bytes = 3.0 * 2048 * 4096 * 2;
	double tpot[3];
	static const int batch[3] = { 1, 8, 32 };

	(void)state;
	memset(&m, 0, sizeof(m));
	m.layers = 2;
	m.hidden = 2048;
	m.heads = 16;
	m.ffn_hidden = 8192;
	m.gated_ffn = true;
	m.vocab = 64;
	m.seq_len = 256;
	m.experts = 64;
	m.experts_per_token = 2;
	m.expert_ffn_hidden = 4096;
	assert_int_equal(arch_from_spec(&m, &a), 0);
	g.peak_flops[PREC_BF16] = 1e18;
	g.peak_flops[PREC_FP16] = 1e18;
	g.mem_bw_bytes_per_s = 1e12;
	g.matmul_eff = 1.0;
	g.mem_eff = 1.0;

	for (int i = 0; i < 3; i++) {
		struct infer_config c = icfg(1, 0, batch[i]);

		assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), 0);
		tpot[i] = r.tpot_s;
	}
	for (int i = 1; i < 3; i++) {
		double touched = 64.0 * (1.0 - pow(62.0 / 64.0, batch[i]));

		assert_rel(tpot[i] - tpot[0],
			   2.0 * (touched - 2.0) * expert_bytes / 1e12, 0.01);
	}
	/* a batch of 8 reads 14.4 experts per layer, not 16 or 64 */
	assert_true(tpot[1] - tpot[0] <
		    2.0 * 13.0 * expert_bytes / 1e12);
}


/* ------------------------------------------------------------------ */
/* Wide expert parallelism (specs/models.md 10.9.24) */

/* Balls into bins: the busiest of R ranks over the mean, 1 + sqrt(2 ln R
   / m) for m pairs a rank; 1 with one rank or no pairs, at most R. */
static void test_ep_imbalance(void **state)
{
	(void)state;
	assert_rel(ep_imbalance(1000.0, 1), 1.0, 0.0);
	assert_rel(ep_imbalance(0.0, 72), 1.0, 0.0);
	assert_rel(ep_imbalance(72.0 * 1024.0, 72),
		   1.0 + sqrt(2.0 * log(72.0) / 1024.0), 1e-15);
	/* more pairs a rank even out */
	assert_true(ep_imbalance(72.0 * 16384.0, 72) <
		    ep_imbalance(72.0 * 1024.0, 72));
	assert_true(ep_imbalance(72.0 * 16384.0, 72) < 1.03);
	/* a few pairs over many ranks: never past all on one rank */
	assert_rel(ep_imbalance(1e-6, 8), 8.0, 0.0);
}

static struct ep_traffic a2a_traffic(int gpus, bool forward)
{
	struct ep_traffic t;

	t.gpus = gpus;
	t.tokens_gpu = 128.0;
	t.copies = 8.0;
	t.hidden = 7168.0;
	t.dispatch_bytes = 1.0 + 4.0 / 128.0;
	t.combine_bytes = 2.0;
	t.imbalance = 1.0;
	t.forward = forward;
	return t;
}

/* Inside one NVLink domain the copies for the 7 other GPUs of 8 go over
   NVLink (0.78 x 450 GB/s, 3 us); across domains the copies for other
   nodes over the 0.9 x 50 GB/s port (6 us more). */
static void test_ep_alltoall_domains(void **state)
{
	struct cluster cl = test_cluster();
	struct ep_traffic t = a2a_traffic(8, false);
	double row = 128.0 * 7168.0;
	double nv = 0.78 * 450e9, net = 0.9 * 50e9;

	(void)state;
	assert_rel(ep_pass_s(&cl, &t, 2.0), 8.0 * 7.0 / 8.0 * row * 2.0 / nv +
						    3e-6,
		   1e-12);
	/* 32 GPUs, 4 domains: 24/32 of the copies leave the node, 7/32 stay */
	t = a2a_traffic(32, false);
	assert_rel(ep_pass_s(&cl, &t, 2.0),
		   fmax(8.0 * 7.0 / 32.0 * row * 2.0 / nv,
			8.0 * 24.0 / 32.0 * row * 2.0 / net) +
			   9e-6,
		   1e-12);
	/* forwarding sends a token once to each remote domain holding one
	   of its experts: fewer copies over the network */
	{
		struct ep_traffic f = a2a_traffic(32, true);
		double copies = 3.0 * (1.0 - pow(0.75, 8.0));

		assert_rel(ep_pass_s(&cl, &f, 2.0),
			   fmax(8.0 * (7.0 / 32.0 + 24.0 / 32.0 * 7.0 / 8.0) *
					row * 2.0 / nv,
				copies * row * 2.0 / net) +
				   9e-6,
			   1e-12);
		assert_true(ep_pass_s(&cl, &f, 2.0) < ep_pass_s(&cl, &t, 2.0));
	}
	/* the busiest rank's share: the bandwidth term scales */
	{
		struct ep_traffic b = t;
		double base = ep_pass_s(&cl, &t, 2.0) - 9e-6;

		b.imbalance = 1.5;
		assert_rel(ep_pass_s(&cl, &b, 2.0) - 9e-6, 1.5 * base, 1e-12);
	}
	/* a rack-scale domain (72 GPUs on NVLink): no network at all */
	cl.gpus_per_node = 72;
	t = a2a_traffic(72, false);
	assert_rel(ep_pass_s(&cl, &t, 2.0),
		   8.0 * 71.0 / 72.0 * row * 2.0 / nv + 3e-6, 1e-12);
	/* both passes: fp8 dispatch and bf16 combine */
	assert_rel(ep_alltoall_s(&cl, &t),
		   ep_pass_s(&cl, &t, 1.0 + 4.0 / 128.0) +
			   ep_pass_s(&cl, &t, 2.0),
		   1e-15);
	/* one rank, no tokens: nothing moves */
	t.gpus = 1;
	assert_rel(ep_alltoall_s(&cl, &t), 0.0, 0.0);
}

/* A decode query attends in MLA's latent (the absorbed form): on a device
   whose memory is free, 1000 more tokens of context for each of 4
   sequences cost layers x 4000 x 2 a (2 r_kv + d_r) / (peak x
   matmul_eff): 640 FLOPs a pair here, where a prompt's pair is 520
   (2 a (d_h + d_r + d_v), 24 + 8 + 20 against 2 x 28 + 8). */
static void test_infer_mla_decode_absorbed(void **state)
{
	struct arch a = small_mla(36);
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(1, 0, 4);
	static struct infer_step_model m;
	struct sim_mix x1 = { 0.0, 0.0, 0.0, 4.0, 4000.0, 4.0, 0.0 };
	struct sim_mix x2 = { 0.0, 0.0, 0.0, 4.0, 8000.0, 4.0, 0.0 };
	const struct device_perf *at;

	(void)state;
	g.mem_bw_bytes_per_s = 1e30;
	assert_int_equal(infer_step_model_init(&m, &a, &c, &g, &cl, 0.0), 0);
	at = &m.perf[INFER_PERF_ATTN];
	assert_rel(infer_step_s(&m, &x2) - infer_step_s(&m, &x1),
		   a.layers * 4000.0 * 2.0 * 5 * (2 * 28 + 8) /
			   (at->peak_flops * at->matmul_eff),
		   1e-9);
}

/* A prompt is one attention group's: one prompt of 4096 tokens in a step
   of DeepSeek-V3 over ep 8 keeps its group busy as long as eight prompts
   of 4096 keep all eight (the busiest group's tokens set the step; the
   experts see eight times the tokens in the second), and longer than
   eight prompts of 512 spread one a group, whose tokens are the same in
   all but the attention's pairs. */
static void test_infer_ep_busiest_group(void **state)
{
	struct arch a = deepseek_v3();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(1, 8, 64);
	static struct infer_step_model m;
	struct sim_mix one = { 4096.0, 4096.0 * 2048.0, 1.0, 0.0, 0.0, 1.0,
			       0.0 };
	struct sim_mix eight = { 8 * 4096.0, 8 * 4096.0 * 2048.0, 8.0, 0.0,
				 0.0, 8.0, 0.0 };
	struct sim_mix spread = { 4096.0, 8 * 512.0 * 256.0, 8.0, 0.0, 0.0,
				  8.0, 0.0 };
	double t1, t8, ts;

	(void)state;
	c.weight_precision = PREC_FP8;
	assert_int_equal(infer_step_model_init(&m, &a, &c, &g, &cl, 0.0), 0);
	t1 = infer_step_s(&m, &one);
	t8 = infer_step_s(&m, &eight);
	ts = infer_step_s(&m, &spread);
	assert_true(t1 < t8);
	assert_true(t1 > 0.6 * t8);
	assert_true(t1 > 2.0 * ts);
}

/* Under expert parallelism each of the ep groups prefills a prompt of its
   own in a step: a replica's batch takes batch / ep prefill steps. */
static void test_infer_ep_prefill_groups(void **state)
{
	struct arch a = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(1, 4, 8);
	struct infer_result r;

	(void)state;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r), 0);
	assert_rel(r.service_s,
		   2.0 * r.prefill_s + (c.output_tokens - 1.0) * r.tpot_s,
		   1e-12);
}

/* Redundant experts: (E + R) / E of the experts' weights over the ranks
   (12 experts + 4 copies over ep 4: 414720 x 2 x 16/12 / 4 bytes). */
static void test_infer_redundant_experts(void **state)
{
	struct arch a = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(1, 4, 8);
	struct infer_result r0, r1;

	(void)state;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r0), 0);
	c.redundant_experts = 4;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &r1), 0);
	assert_rel(r1.memory.weights_bytes - r0.memory.weights_bytes,
		   414720.0 * 2.0 * (16.0 / 12.0 - 1.0) / 4.0, 1e-12);
}

/* Two-batch overlap: DeepSeek-V3 decoding 128 sequences a GPU over 32
   GPUs (4 nodes), whose all-to-alls take about as long as the layer's
   compute, hides them behind the other half's compute; in a tiny model
   with nothing to hide them behind it only adds the halves' fixed costs.
   A given imbalance slows the step. */
static void test_infer_ep_overlap_imbalance(void **state)
{
	struct arch a = deepseek_v3();
	struct arch tiny = small_moe();
	struct gpu_spec g = test_gpu();
	struct cluster cl = test_cluster();
	struct infer_config c = icfg(1, 32, 32 * 128);
	struct infer_result plain, tbo, skew;

	(void)state;
	c.weight_precision = PREC_FP8;
	c.kv_precision = PREC_FP8;
	c.prompt_tokens = 2048;
	c.output_tokens = 256;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &plain), 0);
	c.ep_comm_overlap = true;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &tbo), 0);
	assert_true(tbo.tpot_s < 0.9 * plain.tpot_s);
	c.ep_comm_overlap = false;
	c.expert_imbalance = 2.0;
	assert_int_equal(infer_evaluate(&a, &c, &g, &cl, &skew), 0);
	assert_true(skew.tpot_s > plain.tpot_s);

	c = icfg(1, 12, 12 * 256);
	assert_int_equal(infer_evaluate(&tiny, &c, &g, &cl, &plain), 0);
	c.ep_comm_overlap = true;
	assert_int_equal(infer_evaluate(&tiny, &c, &g, &cl, &tbo), 0);
	assert_true(tbo.tpot_s >= plain.tpot_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_spec_moe),
		cmocka_unit_test(test_train_a2a_group_past_int),
		cmocka_unit_test(test_from_spec_mla),
		cmocka_unit_test(test_attn_gemms_gqa),
		cmocka_unit_test(test_attn_gemms_mla),
		cmocka_unit_test(test_params_small_moe),
		cmocka_unit_test(test_params_deepseek_v3),
		cmocka_unit_test(test_params_mixtral),
		cmocka_unit_test(test_params_split_ep),
		cmocka_unit_test(test_memory_ep),
		cmocka_unit_test(test_train_a2a_overlap_fp8),
		cmocka_unit_test(test_memory_recompute_modules),
		cmocka_unit_test(test_train_a2a),
		cmocka_unit_test(test_config_ep_rules),
		cmocka_unit_test(test_infer_gpus),
		cmocka_unit_test(test_infer_weights_ep),
		cmocka_unit_test(test_infer_kv_mla),
		cmocka_unit_test(test_infer_mla_decode_absorbed),
		cmocka_unit_test(test_infer_ep_busiest_group),
		cmocka_unit_test(test_infer_experts_touched),
		cmocka_unit_test(test_ep_imbalance),
		cmocka_unit_test(test_ep_alltoall_domains),
		cmocka_unit_test(test_infer_ep_prefill_groups),
		cmocka_unit_test(test_infer_redundant_experts),
		cmocka_unit_test(test_infer_ep_overlap_imbalance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
