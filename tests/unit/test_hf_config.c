/*
 * test_hf_config.c - Hugging Face config.json reader (hf_config.c) and its
 * use by workload files (workload_apply_hf_config, model.hf_config).
 *
 * The configs are the published config.json files of each family (some
 * fields left out, as hf_config.c ignores them), so that every field of
 * struct model_spec the reader sets is checked against a known model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "hf_config.h"
#include "model_flops.h"
#include "workload.h"

static void assert_contains(const char *s, const char *sub)
{
	if (!strstr(s, sub)) {
		print_error("'%s' does not contain '%s'\n", s, sub);
		fail();
	}
}

/* What a config is expected to set: every architecture field. */
struct want {
	int layers, hidden, heads, kv_heads, ffn_hidden;
	bool gated_ffn;
	int vocab, seq_len;
	bool tied_embeddings;
	int head_dim;
	int kv_lora_rank, q_lora_rank, rope_head_dim, v_head_dim;
	int experts, experts_per_token, shared_experts, expert_ffn_hidden;
	int dense_layers;
	int mtp_layers;
};

/* A model_spec with every field set to something a config must replace
   (or, for the fields outside the architecture, keep). */
static struct model_spec dirty_spec(void)
{
	struct model_spec m;

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "keep-me");
	m.kind = MODEL_TRANSFORMER;
	m.layers = m.hidden = m.heads = m.kv_heads = m.ffn_hidden = 999;
	m.vocab = m.seq_len = m.head_dim = 999;
	m.kv_lora_rank = m.q_lora_rank = m.rope_head_dim = m.v_head_dim = 999;
	m.experts = m.experts_per_token = m.shared_experts = 999;
	m.expert_ffn_hidden = m.dense_layers = m.mtp_layers = 999;
	m.gated_ffn = !0;
	m.tied_embeddings = !0;
	m.params = 1.2345e9;
	m.flops_per_sample = 7.5e9;
	m.embedding_tables = 13;
	return m;
}

static void check_spec(const struct model_spec *m, const struct want *w)
{
	assert_int_equal(m->layers, w->layers);
	assert_int_equal(m->hidden, w->hidden);
	assert_int_equal(m->heads, w->heads);
	assert_int_equal(m->kv_heads, w->kv_heads);
	assert_int_equal(m->ffn_hidden, w->ffn_hidden);
	assert_int_equal(m->gated_ffn, w->gated_ffn);
	assert_int_equal(m->vocab, w->vocab);
	assert_int_equal(m->seq_len, w->seq_len);
	assert_int_equal(m->tied_embeddings, w->tied_embeddings);
	assert_int_equal(m->head_dim, w->head_dim);
	assert_int_equal(m->kv_lora_rank, w->kv_lora_rank);
	assert_int_equal(m->q_lora_rank, w->q_lora_rank);
	assert_int_equal(m->rope_head_dim, w->rope_head_dim);
	assert_int_equal(m->v_head_dim, w->v_head_dim);
	assert_int_equal(m->experts, w->experts);
	assert_int_equal(m->experts_per_token, w->experts_per_token);
	assert_int_equal(m->shared_experts, w->shared_experts);
	assert_int_equal(m->expert_ffn_hidden, w->expert_ffn_hidden);
	assert_int_equal(m->dense_layers, w->dense_layers);
	assert_int_equal(m->mtp_layers, w->mtp_layers);
	/* fields outside the architecture are left alone */
	assert_string_equal(m->name, "keep-me");
	assert_int_equal(m->kind, MODEL_TRANSFORMER);
	assert_true(m->params == 1.2345e9);
	assert_true(m->flops_per_sample == 7.5e9);
	assert_int_equal(m->embedding_tables, 13);
}

static void parse_ok(const char *json, const struct want *w)
{
	struct model_spec m = dirty_spec();
	struct diag d;

	diag_clear(&d);
	if (hf_config_parse(json, strlen(json), "config.json", &m, NULL,
			    &d) != 0) {
		print_error("unexpected error: %s\n", d.msg);
		fail();
	}
	assert_false(diag_has_error(&d));
	check_spec(&m, w);
}

/* Parse 'json', expecting an error whose message contains 'msg'; 'm' must
   be left unchanged. */
/* Parsing fails at line:col (0:0: no position) with 'msg' in the
   message, and leaves the spec alone. */
static void parse_fails_at(const char *json, size_t len, int line, int col,
			   const char *msg)
{
	struct model_spec m = dirty_spec(), before = m;
	struct diag d;

	diag_clear(&d);
	assert_int_equal(hf_config_parse(json, len, "cfg/config.json", &m, NULL,
					 &d),
			 -1);
	assert_true(diag_has_error(&d));
	assert_string_equal(d.file, "cfg/config.json");
	if (d.line != line || d.col != col) {
		print_error("error at %d:%d, want %d:%d (%s)\n", d.line, d.col,
			    line, col, d.msg);
		fail();
	}
	assert_contains(d.msg, msg);
	assert_memory_equal(&m, &before, sizeof(m));
}

static void parse_fails_at_s(const char *json, int line, int col,
			     const char *msg)
{
	parse_fails_at(json, strlen(json), line, col, msg);
}

static void parse_fails(const char *json, size_t len, const char *msg)
{
	parse_fails_at(json, len, 0, 0, msg);
}

static void parse_fails_s(const char *json, const char *msg)
{
	parse_fails(json, strlen(json), msg);
}

/* ------------------------------------------------------------------ */

/* meta-llama/Meta-Llama-3-8B */
static const char llama3_8b[] =
	"{\n"
	"  \"architectures\": [\"LlamaForCausalLM\"],\n"
	"  \"attention_bias\": false,\n"
	"  \"attention_dropout\": 0.0,\n"
	"  \"bos_token_id\": 128000,\n"
	"  \"eos_token_id\": 128001,\n"
	"  \"hidden_act\": \"silu\",\n"
	"  \"hidden_size\": 4096,\n"
	"  \"initializer_range\": 0.02,\n"
	"  \"intermediate_size\": 14336,\n"
	"  \"max_position_embeddings\": 8192,\n"
	"  \"model_type\": \"llama\",\n"
	"  \"num_attention_heads\": 32,\n"
	"  \"num_hidden_layers\": 32,\n"
	"  \"num_key_value_heads\": 8,\n"
	"  \"pretraining_tp\": 1,\n"
	"  \"rms_norm_eps\": 1e-05,\n"
	"  \"rope_scaling\": null,\n"
	"  \"rope_theta\": 500000.0,\n"
	"  \"tie_word_embeddings\": false,\n"
	"  \"torch_dtype\": \"bfloat16\",\n"
	"  \"transformers_version\": \"4.40.0.dev0\",\n"
	"  \"use_cache\": true,\n"
	"  \"vocab_size\": 128256\n"
	"}\n";

static void test_llama(void **state)
{
	const struct want w = { .layers = 32, .hidden = 4096, .heads = 32,
				.kv_heads = 8, .ffn_hidden = 14336,
				.gated_ffn = true, .vocab = 128256,
				.seq_len = 8192, .tied_embeddings = false };

	(void)state;
	parse_ok(llama3_8b, &w);
}

/* mistralai/Mistral-7B-v0.1 (with a null head_dim: null is absent) */
static void test_mistral(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"MistralForCausalLM\"],"
		" \"bos_token_id\": 1, \"eos_token_id\": 2,"
		" \"head_dim\": null,"
		" \"hidden_act\": \"silu\", \"hidden_size\": 4096,"
		" \"initializer_range\": 0.02,"
		" \"intermediate_size\": 14336,"
		" \"max_position_embeddings\": 32768,"
		" \"model_type\": \"mistral\","
		" \"num_attention_heads\": 32, \"num_hidden_layers\": 32,"
		" \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05,"
		" \"rope_theta\": 10000.0, \"sliding_window\": 4096,"
		" \"tie_word_embeddings\": false,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"vocab_size\": 32000}";
	const struct want w = { .layers = 32, .hidden = 4096, .heads = 32,
				.kv_heads = 8, .ffn_hidden = 14336,
				.gated_ffn = true, .vocab = 32000,
				.seq_len = 32768, .tied_embeddings = false };

	(void)state;
	parse_ok(json, &w);
}

/* Qwen/Qwen2-0.5B: tied embeddings given explicitly */
static void test_qwen2(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"Qwen2ForCausalLM\"],"
		" \"attention_dropout\": 0.0, \"bos_token_id\": 151643,"
		" \"eos_token_id\": 151643, \"hidden_act\": \"silu\","
		" \"hidden_size\": 896, \"initializer_range\": 0.02,"
		" \"intermediate_size\": 4864,"
		" \"max_position_embeddings\": 131072,"
		" \"max_window_layers\": 24, \"model_type\": \"qwen2\","
		" \"num_attention_heads\": 14, \"num_hidden_layers\": 24,"
		" \"num_key_value_heads\": 2, \"rms_norm_eps\": 1e-06,"
		" \"rope_theta\": 1000000.0, \"sliding_window\": 131072,"
		" \"tie_word_embeddings\": true,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"use_sliding_window\": false, \"vocab_size\": 151936}";
	const struct want w = { .layers = 24, .hidden = 896, .heads = 14,
				.kv_heads = 2, .ffn_hidden = 4864,
				.gated_ffn = true, .vocab = 151936,
				.seq_len = 131072, .tied_embeddings = true };

	(void)state;
	parse_ok(json, &w);
}

/* Qwen/Qwen3-0.6B: head_dim 128 where hidden / heads is 64 */
static void test_qwen3(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"Qwen3ForCausalLM\"],"
		" \"attention_bias\": false, \"attention_dropout\": 0.0,"
		" \"bos_token_id\": 151643, \"eos_token_id\": 151645,"
		" \"head_dim\": 128, \"hidden_act\": \"silu\","
		" \"hidden_size\": 1024, \"initializer_range\": 0.02,"
		" \"intermediate_size\": 3072,"
		" \"max_position_embeddings\": 40960,"
		" \"max_window_layers\": 28, \"model_type\": \"qwen3\","
		" \"num_attention_heads\": 16, \"num_hidden_layers\": 28,"
		" \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-06,"
		" \"rope_scaling\": null, \"rope_theta\": 1000000,"
		" \"sliding_window\": null, \"tie_word_embeddings\": true,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"use_sliding_window\": false, \"vocab_size\": 151936}";
	const struct want w = { .layers = 28, .hidden = 1024, .heads = 16,
				.kv_heads = 8, .ffn_hidden = 3072,
				.gated_ffn = true, .vocab = 151936,
				.seq_len = 40960, .tied_embeddings = true,
				.head_dim = 128 };

	(void)state;
	parse_ok(json, &w);
}

/* mistralai/Mixtral-8x7B-v0.1: experts of the dense FFN's width */
static void test_mixtral(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"MixtralForCausalLM\"],"
		" \"attention_dropout\": 0.0, \"bos_token_id\": 1,"
		" \"eos_token_id\": 2, \"hidden_act\": \"silu\","
		" \"hidden_size\": 4096, \"initializer_range\": 0.02,"
		" \"intermediate_size\": 14336,"
		" \"max_position_embeddings\": 32768,"
		" \"model_type\": \"mixtral\","
		" \"num_attention_heads\": 32, \"num_experts_per_tok\": 2,"
		" \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,"
		" \"num_local_experts\": 8, \"output_router_logits\": false,"
		" \"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000.0,"
		" \"router_aux_loss_coef\": 0.02, \"sliding_window\": null,"
		" \"tie_word_embeddings\": false,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"vocab_size\": 32000}";
	const struct want w = { .layers = 32, .hidden = 4096, .heads = 32,
				.kv_heads = 8, .ffn_hidden = 14336,
				.gated_ffn = true, .vocab = 32000,
				.seq_len = 32768, .tied_embeddings = false,
				.experts = 8, .experts_per_token = 2 };

	(void)state;
	parse_ok(json, &w);
}

/* google/gemma-7b: head_dim 256 (hidden / heads is 192); tied by default */
static void test_gemma(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"GemmaForCausalLM\"],"
		" \"attention_bias\": false, \"attention_dropout\": 0.0,"
		" \"bos_token_id\": 2, \"eos_token_id\": 1, \"head_dim\": 256,"
		" \"hidden_act\": \"gelu\", \"hidden_size\": 3072,"
		" \"initializer_range\": 0.02, \"intermediate_size\": 24576,"
		" \"max_position_embeddings\": 8192, \"model_type\": \"gemma\","
		" \"num_attention_heads\": 16, \"num_hidden_layers\": 28,"
		" \"num_key_value_heads\": 16, \"pad_token_id\": 0,"
		" \"rms_norm_eps\": 1e-06, \"rope_scaling\": null,"
		" \"rope_theta\": 10000.0, \"torch_dtype\": \"bfloat16\","
		" \"use_cache\": true, \"vocab_size\": 256000}";
	const struct want w = { .layers = 28, .hidden = 3072, .heads = 16,
				.kv_heads = 16, .ffn_hidden = 24576,
				.gated_ffn = true, .vocab = 256000,
				.seq_len = 8192, .tied_embeddings = true,
				.head_dim = 256 };

	(void)state;
	parse_ok(json, &w);
}

/* google/gemma-2-9b */
static void test_gemma2(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"Gemma2ForCausalLM\"],"
		" \"attention_bias\": false, \"attention_dropout\": 0.0,"
		" \"attn_logit_softcapping\": 50.0, \"bos_token_id\": 2,"
		" \"cache_implementation\": \"hybrid\", \"eos_token_id\": 1,"
		" \"final_logit_softcapping\": 30.0, \"head_dim\": 256,"
		" \"hidden_act\": \"gelu_pytorch_tanh\","
		" \"hidden_activation\": \"gelu_pytorch_tanh\","
		" \"hidden_size\": 3584, \"initializer_range\": 0.02,"
		" \"intermediate_size\": 14336,"
		" \"max_position_embeddings\": 8192,"
		" \"model_type\": \"gemma2\", \"num_attention_heads\": 16,"
		" \"num_hidden_layers\": 42, \"num_key_value_heads\": 8,"
		" \"pad_token_id\": 0, \"query_pre_attn_scalar\": 256,"
		" \"rms_norm_eps\": 1e-06, \"rope_theta\": 10000.0,"
		" \"sliding_window\": 4096, \"torch_dtype\": \"float32\","
		" \"use_cache\": true, \"vocab_size\": 256000}";
	const struct want w = { .layers = 42, .hidden = 3584, .heads = 16,
				.kv_heads = 8, .ffn_hidden = 14336,
				.gated_ffn = true, .vocab = 256000,
				.seq_len = 8192, .tied_embeddings = true,
				.head_dim = 256 };

	(void)state;
	parse_ok(json, &w);
}

/* gpt2-medium: "n_inner": null means 4 h (ffn_hidden 0), no KV field,
   n_positions wins over n_ctx, plain FFN, tied */
static void test_gpt2(void **state)
{
	static const char json[] =
		"{\"activation_function\": \"gelu_new\","
		" \"architectures\": [\"GPT2LMHeadModel\"],"
		" \"attn_pdrop\": 0.1, \"bos_token_id\": 50256,"
		" \"embd_pdrop\": 0.1, \"eos_token_id\": 50256,"
		" \"initializer_range\": 0.02, \"layer_norm_epsilon\": 1e-05,"
		" \"model_type\": \"gpt2\", \"n_ctx\": 2048, \"n_embd\": 1024,"
		" \"n_head\": 16, \"n_inner\": null, \"n_layer\": 24,"
		" \"n_positions\": 1024, \"n_special\": 0,"
		" \"predict_special_tokens\": true, \"resid_pdrop\": 0.1,"
		" \"summary_activation\": null,"
		" \"summary_first_dropout\": 0.1,"
		" \"summary_proj_to_labels\": true,"
		" \"summary_type\": \"cls_index\", \"summary_use_proj\": true,"
		" \"vocab_size\": 50257}";
	/* only n_ctx: the alias is read */
	static const char ctx_only[] =
		"{\"model_type\": \"gpt2\", \"n_ctx\": 2048, \"n_embd\": 768,"
		" \"n_head\": 12, \"n_inner\": 3000, \"n_layer\": 12,"
		" \"tie_word_embeddings\": false, \"vocab_size\": 50257}";
	/* no position field at all: GPT-2's 1024 */
	static const char no_pos[] =
		"{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_head\": 12,"
		" \"n_layer\": 12, \"vocab_size\": 50257}";
	const struct want w = { .layers = 24, .hidden = 1024, .heads = 16,
				.kv_heads = 0, .ffn_hidden = 0,
				.gated_ffn = false, .vocab = 50257,
				.seq_len = 1024, .tied_embeddings = true };
	const struct want w2 = { .layers = 12, .hidden = 768, .heads = 12,
				 .ffn_hidden = 3000, .vocab = 50257,
				 .seq_len = 2048, .tied_embeddings = false };
	const struct want w3 = { .layers = 12, .hidden = 768, .heads = 12,
				 .vocab = 50257, .seq_len = 1024,
				 .tied_embeddings = true };

	(void)state;
	parse_ok(json, &w);
	parse_ok(ctx_only, &w2);
	parse_ok(no_pos, &w3);
}

/* EleutherAI/pythia-1.4b: untied unless told (GPT-NeoX default), and a
   KV-heads field the family does not have is ignored */
static void test_gpt_neox(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"GPTNeoXForCausalLM\"],"
		" \"bos_token_id\": 0, \"eos_token_id\": 0,"
		" \"hidden_act\": \"gelu\", \"hidden_size\": 2048,"
		" \"initializer_range\": 0.02, \"intermediate_size\": 8192,"
		" \"layer_norm_eps\": 1e-05,"
		" \"max_position_embeddings\": 2048,"
		" \"model_type\": \"gpt_neox\", \"num_attention_heads\": 16,"
		" \"num_hidden_layers\": 24, \"num_key_value_heads\": 4,"
		" \"rotary_emb_base\": 10000, \"rotary_pct\": 0.25,"
		" \"torch_dtype\": \"float16\", \"use_cache\": true,"
		" \"use_parallel_residual\": true, \"vocab_size\": 50304}";
	const struct want w = { .layers = 24, .hidden = 2048, .heads = 16,
				.kv_heads = 0, .ffn_hidden = 8192,
				.gated_ffn = false, .vocab = 50304,
				.seq_len = 2048, .tied_embeddings = false };

	(void)state;
	parse_ok(json, &w);
}

/* facebook/opt-1.3b: ffn_dim; tied unless told */
static void test_opt(void **state)
{
	static const char json[] =
		"{\"_name_or_path\": \"facebook/opt-1.3b\","
		" \"activation_dropout\": 0.0,"
		" \"activation_function\": \"relu\","
		" \"architectures\": [\"OPTForCausalLM\"],"
		" \"attention_dropout\": 0.0, \"bos_token_id\": 2,"
		" \"do_layer_norm_before\": true, \"dropout\": 0.1,"
		" \"eos_token_id\": 2, \"ffn_dim\": 8192,"
		" \"hidden_size\": 2048,"
		" \"init_std\": 0.02, \"layerdrop\": 0.0,"
		" \"max_position_embeddings\": 2048, \"model_type\": \"opt\","
		" \"num_attention_heads\": 32, \"num_hidden_layers\": 24,"
		" \"pad_token_id\": 1, \"prefix\": \"</s>\","
		" \"torch_dtype\": \"float16\", \"use_cache\": true,"
		" \"vocab_size\": 50272, \"word_embed_proj_dim\": 2048}";
	static const char untied[] =
		"{\"model_type\": \"opt\", \"ffn_dim\": 3072,"
		" \"hidden_size\": 768, \"num_attention_heads\": 12,"
		" \"num_hidden_layers\": 12, \"vocab_size\": 50272,"
		" \"tie_word_embeddings\": false}";
	const struct want w = { .layers = 24, .hidden = 2048, .heads = 32,
				.ffn_hidden = 8192, .gated_ffn = false,
				.vocab = 50272, .seq_len = 2048,
				.tied_embeddings = true };
	const struct want w2 = { .layers = 12, .hidden = 768, .heads = 12,
				 .ffn_hidden = 3072, .vocab = 50272,
				 .seq_len = 2048, .tied_embeddings = false };

	(void)state;
	parse_ok(json, &w);
	parse_ok(untied, &w2);
}

/* tiiuae/falcon-40b (model_type falcon): num_kv_heads wins over
   multi_query; no position or FFN field */
static void test_falcon(void **state)
{
	static const char json[] =
		"{\"alibi\": false, \"architectures\": [\"FalconForCausalLM\"],"
		" \"attention_dropout\": 0.0, \"bias\": false,"
		" \"bos_token_id\": 11, \"eos_token_id\": 11,"
		" \"hidden_dropout\": 0.0, \"hidden_size\": 8192,"
		" \"initializer_range\": 0.02, \"layer_norm_epsilon\": 1e-05,"
		" \"model_type\": \"falcon\", \"multi_query\": true,"
		" \"new_decoder_architecture\": true,"
		" \"num_attention_heads\": 128, \"num_hidden_layers\": 60,"
		" \"num_kv_heads\": 8, \"parallel_attn\": true,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"vocab_size\": 65024}";
	const struct want w = { .layers = 60, .hidden = 8192, .heads = 128,
				.kv_heads = 8, .ffn_hidden = 0,
				.gated_ffn = false, .vocab = 65024,
				.seq_len = 2048, .tied_embeddings = true };

	(void)state;
	parse_ok(json, &w);
}

/* tiiuae/falcon-7b as first published (RefinedWebModel): n_layer and
   n_head, multi-query attention (one KV head); falcon-40b's old config
   has n_head_kv */
static void test_falcon_old(void **state)
{
	static const char rw7b[] =
		"{\"alibi\": false,"
		" \"apply_residual_connection_post_layernorm\": false,"
		" \"architectures\": [\"RWForCausalLM\"],"
		" \"attention_dropout\": 0.0, \"bias\": false,"
		" \"bos_token_id\": 11, \"eos_token_id\": 11,"
		" \"hidden_dropout\": 0.0, \"hidden_size\": 4544,"
		" \"initializer_range\": 0.02, \"layer_norm_epsilon\": 1e-05,"
		" \"model_type\": \"RefinedWebModel\", \"multi_query\": true,"
		" \"n_head\": 71, \"n_layer\": 32, \"parallel_attn\": true,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"vocab_size\": 65024}";
	static const char rw40b[] =
		"{\"alibi\": false, \"bias\": false, \"hidden_size\": 8192,"
		" \"model_type\": \"RefinedWeb\", \"n_head\": 128,"
		" \"n_head_kv\": 8, \"n_layer\": 60, \"parallel_attn\": true,"
		" \"vocab_size\": 65024}";
	/* multi_query false: as many KV heads as heads (kv_heads 0) */
	static const char mha[] =
		"{\"hidden_size\": 4544, \"model_type\": \"falcon\","
		" \"multi_query\": false, \"num_attention_heads\": 71,"
		" \"num_hidden_layers\": 32, \"vocab_size\": 65024}";
	const struct want w = { .layers = 32, .hidden = 4544, .heads = 71,
				.kv_heads = 1, .vocab = 65024,
				.seq_len = 2048, .tied_embeddings = true };
	const struct want w40 = { .layers = 60, .hidden = 8192, .heads = 128,
				  .kv_heads = 8, .vocab = 65024,
				  .seq_len = 2048, .tied_embeddings = true };
	const struct want wm = { .layers = 32, .hidden = 4544, .heads = 71,
				 .kv_heads = 0, .vocab = 65024,
				 .seq_len = 2048, .tied_embeddings = true };

	(void)state;
	parse_ok(rw7b, &w);
	parse_ok(rw40b, &w40);
	parse_ok(mha, &wm);
}

/* deepseek-ai/DeepSeek-V3 */
static const char deepseek_v3[] =
	"{\"architectures\": [\"DeepseekV3ForCausalLM\"],"
	" \"attention_bias\": false, \"attention_dropout\": 0.0,"
	" \"auto_map\": {\"AutoConfig\":"
	" \"configuration_deepseek.DeepseekV3Config\"},"
	" \"aux_loss_alpha\": 0.001, \"bos_token_id\": 0,"
	" \"eos_token_id\": 1, \"ep_size\": 1, \"first_k_dense_replace\": 3,"
	" \"hidden_act\": \"silu\", \"hidden_size\": 7168,"
	" \"initializer_range\": 0.02, \"intermediate_size\": 18432,"
	" \"kv_lora_rank\": 512, \"max_position_embeddings\": 163840,"
	" \"model_type\": \"deepseek_v3\", \"moe_intermediate_size\": 2048,"
	" \"moe_layer_freq\": 1, \"n_group\": 8, \"n_routed_experts\": 256,"
	" \"n_shared_experts\": 1, \"norm_topk_prob\": true,"
	" \"num_attention_heads\": 128, \"num_experts_per_tok\": 8,"
	" \"num_hidden_layers\": 61, \"num_key_value_heads\": 128,"
	" \"num_nextn_predict_layers\": 1, \"q_lora_rank\": 1536,"
	" \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64,"
	" \"quantization_config\": {\"activation_scheme\": \"dynamic\","
	" \"fmt\": \"e4m3\", \"quant_method\": \"fp8\","
	" \"weight_block_size\": [128, 128]},"
	" \"rms_norm_eps\": 1e-06, \"rope_scaling\": {\"beta_fast\": 32,"
	" \"beta_slow\": 1, \"factor\": 40, \"mscale\": 1.0,"
	" \"mscale_all_dim\": 1.0,"
	" \"original_max_position_embeddings\": 4096, \"type\": \"yarn\"},"
	" \"rope_theta\": 10000, \"routed_scaling_factor\": 2.5,"
	" \"scoring_func\": \"sigmoid\", \"tie_word_embeddings\": false,"
	" \"topk_group\": 4, \"topk_method\": \"noaux_tc\","
	" \"torch_dtype\": \"bfloat16\", \"transformers_version\": \"4.33.1\","
	" \"use_cache\": true, \"v_head_dim\": 128, \"vocab_size\": 129280}";

static void test_deepseek_v3(void **state)
{
	const struct want w = { .layers = 61, .hidden = 7168, .heads = 128,
				.kv_heads = 128, .ffn_hidden = 18432,
				.gated_ffn = true, .vocab = 129280,
				.seq_len = 163840, .tied_embeddings = false,
				.head_dim = 128, .kv_lora_rank = 512,
				.q_lora_rank = 1536, .rope_head_dim = 64,
				.v_head_dim = 128, .experts = 256,
				.experts_per_token = 8, .shared_experts = 1,
				.expert_ffn_hidden = 2048, .dense_layers = 3,
				.mtp_layers = 1 };

	(void)state;
	parse_ok(deepseek_v3, &w);
}

/* deepseek-ai/DeepSeek-V2-Lite: no query compression (q_lora_rank null) */
static void test_deepseek_v2_lite(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"DeepseekV2ForCausalLM\"],"
		" \"first_k_dense_replace\": 1, \"hidden_act\": \"silu\","
		" \"hidden_size\": 2048, \"intermediate_size\": 10944,"
		" \"kv_lora_rank\": 512, \"max_position_embeddings\": 163840,"
		" \"model_type\": \"deepseek_v2\","
		" \"moe_intermediate_size\": 1408, \"moe_layer_freq\": 1,"
		" \"n_group\": 1, \"n_routed_experts\": 64,"
		" \"n_shared_experts\": 2, \"norm_topk_prob\": false,"
		" \"num_attention_heads\": 16, \"num_experts_per_tok\": 6,"
		" \"num_hidden_layers\": 27, \"num_key_value_heads\": 16,"
		" \"q_lora_rank\": null, \"qk_nope_head_dim\": 128,"
		" \"qk_rope_head_dim\": 64, \"tie_word_embeddings\": false,"
		" \"topk_group\": 1, \"topk_method\": \"greedy\","
		" \"v_head_dim\": 128, \"vocab_size\": 102400}";
	const struct want w = { .layers = 27, .hidden = 2048, .heads = 16,
				.kv_heads = 16, .ffn_hidden = 10944,
				.gated_ffn = true, .vocab = 102400,
				.seq_len = 163840, .tied_embeddings = false,
				.head_dim = 128, .kv_lora_rank = 512,
				.q_lora_rank = 0, .rope_head_dim = 64,
				.v_head_dim = 128, .experts = 64,
				.experts_per_token = 6, .shared_experts = 2,
				.expert_ffn_hidden = 1408, .dense_layers = 1 };

	(void)state;
	parse_ok(json, &w);
}

/*
 * Qwen/Qwen1.5-MoE-A2.7B (model_type qwen2_moe): 60 routed experts of 1408
 * (top-4) and a shared expert of shared_expert_intermediate_size = 5632 in
 * every layer.  Qwen's announcement gives 14.3B parameters in total and
 * 2.7B activated; by hand, with the shared expert: 24 layers x (attention
 * 4 x 2048^2 + 60 x 3 x 2048 x 1408 + 3 x 2048 x 5632 + router) + 2 x
 * 151936 x 2048 = 14.3B, active 24 x (16.8M + 4 x 8.65M + 34.6M + 0.12M)
 * + 0.62B = 2.69B.  Without the shared expert they come out at 13.5B and
 * 1.86B: hf_config.c reads only "n_shared_experts" (DeepSeek's name) and
 * ignores "shared_expert_intermediate_size".
 */
static void test_qwen2_moe_shared_expert(void **state)
{
	static const char json[] =
		"{\"architectures\": [\"Qwen2MoeForCausalLM\"],"
		" \"attention_dropout\": 0.0, \"bos_token_id\": 151643,"
		" \"decoder_sparse_step\": 1, \"eos_token_id\": 151643,"
		" \"hidden_act\": \"silu\", \"hidden_size\": 2048,"
		" \"initializer_range\": 0.02, \"intermediate_size\": 5632,"
		" \"max_position_embeddings\": 8192,"
		" \"max_window_layers\": 21, \"model_type\": \"qwen2_moe\","
		" \"moe_intermediate_size\": 1408, \"norm_topk_prob\": false,"
		" \"num_attention_heads\": 16, \"num_experts\": 60,"
		" \"num_experts_per_tok\": 4, \"num_hidden_layers\": 24,"
		" \"num_key_value_heads\": 16, \"output_router_logits\": false,"
		" \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0,"
		" \"router_aux_loss_coef\": 0.001,"
		" \"shared_expert_intermediate_size\": 5632,"
		" \"sliding_window\": 32768, \"tie_word_embeddings\": false,"
		" \"torch_dtype\": \"bfloat16\", \"use_cache\": true,"
		" \"use_sliding_window\": false, \"vocab_size\": 151936}";
	struct model_spec m = dirty_spec();
	struct arch a;
	double total, active;

	(void)state;
	assert_int_equal(hf_config_parse(json, strlen(json), "x", &m, NULL,
					 NULL),
			 0);
	assert_int_equal(m.experts, 60);
	assert_int_equal(m.experts_per_token, 4);
	assert_int_equal(m.expert_ffn_hidden, 1408);
	assert_int_equal(arch_from_spec(&m, &a), 0);
	total = arch_params(&a);
	active = arch_active_params(&a);
	if (fabs(total - 14.3e9) > 0.01 * 14.3e9 ||
	    fabs(active - 2.7e9) > 0.02 * 2.7e9) {
		print_error("total %.4g, active %.4g; want 14.3B and 2.7B\n",
			    total, active);
		fail();
	}
}

/* ------------------------------------------------------------------ */

static void test_errors_document(void **state)
{
	static const char nul[] = "{\"model_type\": \"llama\"\0}";

	(void)state;
	parse_fails_at_s("{\"model_type\": \"llama\", \"hidden_size\": ", 1, 40,
			 "invalid JSON: the text ends inside a value");
	parse_fails_s("", "empty file: expected a JSON object");
	parse_fails_s(" \n\t", "empty file: expected a JSON object");
	parse_fails_at_s("[{\"model_type\": \"llama\"}]", 1, 1,
			 "not a JSON object");
	parse_fails_at_s("\n  \"llama\"", 2, 3, "not a JSON object");
	parse_fails_at_s("42", 1, 1, "not a JSON object");
	parse_fails_at(nul, sizeof(nul) - 1, 1, 23, "NUL byte in a JSON file");
	parse_fails_s("{\"hidden_size\": 4096}", "missing field 'model_type'");
	parse_fails_s("{\"model_type\": 7, \"hidden_size\": 4096}",
		      "missing field 'model_type'");
	parse_fails_s("{\"model_type\": null}", "missing field 'model_type'");
}

/* What cJSON accepts and a config.json must not hold. */
static void test_errors_json_strict(void **state)
{
	static const char trailing[] =
		"{\"model_type\": \"llama\"}\n\n  {\"model_type\": \"gpt2\"}\n";
	static const char dup[] =
		"{\n  \"model_type\": \"llama\",\n"
		"  \"num_hidden_layers\": 32,\n"
		"  \"hidden_size\": 4096,\n  \"num_hidden_layers\": 80\n}\n";
	/* the first duplicate in the text, inside or outside a member;
	   escaped quotes in strings are not keys */
	static const char nested[] =
		"{\"a\": \"\\\"b\\\": 1\", "
		"\"q\": {\"x\": [{\"y\": 1, \"y\": 2}],"
		" \"x\": 3}, \"a\": 4}";
	char *deep;
	size_t n;

	(void)state;
	parse_fails_at(trailing, strlen(trailing), 3, 3,
		       "unexpected text after the JSON object");
	parse_fails_at("{} x", 4, 1, 4, "unexpected text after the JSON "
					 "object");
	parse_fails_at(dup, strlen(dup), 5, 3,
		       "duplicate key 'num_hidden_layers'; first given on "
		       "line 3, column 3");
	parse_fails_at(nested, strlen(nested), 1, 40,
		       "duplicate key 'y'; first given on line 1, column 32");
	parse_fails_at_s("{\"a\": tru}", 1, 7, "invalid JSON at 'tru}'");
	parse_fails_at_s("{\"a\": 1,\n \"b\" 2}", 2, 6, "invalid JSON at '2}'");
	/* cJSON's limit: 1000 levels parse, 1001 are nested too deeply */
	n = 2 * 1001 + 1;
	deep = malloc(n);
	assert_non_null(deep);
	memset(deep, '[', 1001);
	memset(deep + 1001, ']', 1001);
	deep[n - 1] = '\0';
	parse_fails_at(deep, n - 1, 1, 1001,
		       "nested too deeply (more than 1000 levels of arrays "
		       "and objects)");
	memset(deep, '[', 1000);
	memset(deep + 1000, ']', 1000);
	deep[2000] = '\0';
	parse_fails_at(deep, 2000, 1, 1, "not a JSON object");
	free(deep);
}

static void test_errors_unknown_type(void **state)
{
	struct model_spec m = dirty_spec();
	struct diag d;
	static const char json[] =
		"{\"model_type\": \"bert\", \"hidden_size\": 768,"
		" \"num_attention_heads\": 12, \"num_hidden_layers\": 12,"
		" \"vocab_size\": 30522}";
	static const char *const families[] = {
		"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma",
		"gemma2", "gpt2", "gpt_neox", "opt", "falcon", "deepseek_v2",
		"deepseek_v3", "phi3", "granite", "gpt_oss", "glm4_moe",
		"olmoe", "kimi_k2", "llama4_text",
	};

	(void)state;
	parse_fails_s(json, "unknown model_type 'bert'");
	diag_clear(&d);
	assert_int_equal(hf_config_parse(json, strlen(json), "x", &m, NULL,
					 &d), -1);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		assert_contains(d.msg, families[i]);
	/* model_type is case-sensitive */
	parse_fails_s("{\"model_type\": \"Llama\"}", "unknown model_type");
}

static void test_errors_missing(void **state)
{
	(void)state;
	parse_fails_s("{\"model_type\": \"llama\", \"hidden_size\": 4096,"
		      " \"num_attention_heads\": 32, \"vocab_size\": 32000}",
		      "missing field 'num_hidden_layers'");
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"num_attention_heads\": 32, \"vocab_size\": 32000}",
		      "missing field 'hidden_size'");
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"hidden_size\": 4096, \"vocab_size\": 32000}",
		      "missing field 'num_attention_heads'");
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"hidden_size\": 4096, \"num_attention_heads\": 32}",
		      "missing field 'vocab_size'");
	/* a null is absent */
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		      " \"vocab_size\": null}",
		      "missing field 'vocab_size'");
	/* GPT-2 names its own fields */
	parse_fails_s("{\"model_type\": \"gpt2\", \"n_embd\": 768,"
		      " \"n_head\": 12, \"vocab_size\": 50257}",
		      "missing field 'n_layer'");
	/* Falcon: neither alias -> the first is named */
	parse_fails_s("{\"model_type\": \"falcon\", \"hidden_size\": 4544,"
		      " \"n_layer\": 32, \"vocab_size\": 65024}",
		      "missing field 'num_attention_heads'");
	/* experts need top-k */
	parse_fails_s("{\"model_type\": \"mixtral\", \"hidden_size\": 4096,"
		      " \"num_attention_heads\": 32, \"num_hidden_layers\": 32,"
		      " \"vocab_size\": 32000, \"num_local_experts\": 8}",
		      "missing field 'num_experts_per_tok'");
	/* MLA needs its ranks */
	parse_fails_s("{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168,"
		      " \"num_attention_heads\": 128,"
		      " \"num_hidden_layers\": 61,"
		      " \"vocab_size\": 129280, \"qk_rope_head_dim\": 64,"
		      " \"qk_nope_head_dim\": 128, \"v_head_dim\": 128}",
		      "missing field 'kv_lora_rank'");
	parse_fails_s("{\"model_type\": \"deepseek_v2\", \"hidden_size\": 2048,"
		      " \"num_attention_heads\": 16, \"num_hidden_layers\": 27,"
		      " \"vocab_size\": 102400, \"kv_lora_rank\": 512,"
		      " \"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": 128}",
		      "missing field 'v_head_dim'");
	/* heads must divide hidden unless head_dim is given */
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"hidden_size\": 4000, \"num_attention_heads\": 48,"
		      " \"vocab_size\": 32000}",
		      "'num_attention_heads' (48) must divide 'hidden_size' "
		      "(4000) when 'head_dim' is absent");
}

/* A config's text: 'base' (every required field valid) with 'field'
   set to the JSON text 'value', into 'buf'. */
static const char *with_field(char *buf, size_t size, const char *base,
			      const char *field, const char *value)
{
	cJSON *root = cJSON_Parse(base);
	char *text;

	assert_non_null(root);
	cJSON_DeleteItemFromObjectCaseSensitive(root, field);
	assert_non_null(cJSON_AddRawToObject(root, field, value));
	text = cJSON_PrintUnformatted(root);
	assert_non_null(text);
	assert_true(strlen(text) < size);
	snprintf(buf, size, "%s", text);
	cJSON_free(text);
	cJSON_Delete(root);
	return buf;
}

#define LLAMA_BASE "{\"model_type\": \"llama\", \"num_hidden_layers\": 2," \
		   " \"hidden_size\": 4096, \"num_attention_heads\": 32," \
		   " \"vocab_size\": 32000}"
#define MOE_BASE "{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168," \
		 " \"num_attention_heads\": 128, \"num_hidden_layers\": 61," \
		 " \"vocab_size\": 129280, \"kv_lora_rank\": 512," \
		 " \"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": 128," \
		 " \"v_head_dim\": 128, \"n_routed_experts\": 256," \
		 " \"num_experts_per_tok\": 8}"
#define QWEN_MOE_BASE "{\"model_type\": \"qwen2_moe\"," \
		      " \"num_hidden_layers\": 24, \"hidden_size\": 2048," \
		      " \"num_attention_heads\": 16, \"vocab_size\": 151936," \
		      " \"num_experts\": 60, \"num_experts_per_tok\": 4," \
		      " \"moe_intermediate_size\": 1408}"
#define LLAMA4_BASE "{\"model_type\": \"llama4_text\"," \
		    " \"num_hidden_layers\": 48, \"hidden_size\": 5120," \
		    " \"num_attention_heads\": 40, \"vocab_size\": 202048," \
		    " \"num_local_experts\": 16, \"num_experts_per_tok\": 1}"

/*
 * Every integer field of the reader, past its range either way, as a
 * fraction, as a huge exponent and of another type: one message, which
 * names the field and its range (the bound of the workload key it
 * fills) and quotes what the JSON holds (issue 40).
 */
static void test_errors_values(void **state)
{
	static const struct {
		const char *base, *field;
		int lo, hi;
	} fields[] = {
		{ LLAMA_BASE, "num_hidden_layers", 1, 100000 },
		{ LLAMA_BASE, "hidden_size", 1, 1048576 },
		{ LLAMA_BASE, "num_attention_heads", 1, 65536 },
		{ LLAMA_BASE, "vocab_size", 1, 16777216 },
		{ LLAMA_BASE, "num_key_value_heads", 1, 65536 },
		{ LLAMA_BASE, "intermediate_size", 1, 16777216 },
		{ LLAMA_BASE, "max_position_embeddings", 1, 16777216 },
		{ LLAMA_BASE, "head_dim", 1, 16384 },
		{ MOE_BASE, "n_routed_experts", 1, 1048576 },
		{ MOE_BASE, "num_experts_per_tok", 1, 1048576 },
		{ MOE_BASE, "n_shared_experts", 0, 1048576 },
		{ MOE_BASE, "moe_intermediate_size", 1, 16777216 },
		{ MOE_BASE, "first_k_dense_replace", 0, 100000 },
		{ MOE_BASE, "kv_lora_rank", 1, 1048576 },
		{ MOE_BASE, "q_lora_rank", 1, 1048576 },
		{ MOE_BASE, "qk_rope_head_dim", 1, 16384 },
		{ MOE_BASE, "qk_nope_head_dim", 1, 16384 },
		{ MOE_BASE, "v_head_dim", 1, 16384 },
		{ QWEN_MOE_BASE, "shared_expert_intermediate_size", 1,
		  16777216 },
		{ LLAMA4_BASE, "intermediate_size", 1, 16777216 },
		{ LLAMA4_BASE, "intermediate_size_mlp", 1, 16777216 },
		{ LLAMA4_BASE, "interleave_moe_layer_step", 1, 100000 },
	};
	static const struct {
		const char *json, *got;
	} values[] = {
		{ "2147483648", "2147483648" },  /* 2^31: issue 40 */
		{ "4294967297", "4294967297" },
		{ "-4", "-4" },
		{ "-1", "-1" },
		{ "11008.5", "11008.5" },
		{ "1e300", "1e+300" },
		{ "-1e300", "-1e+300" },
		{ "1e400", "a number beyond the range of a double" },
		{ "-1e400", "a negative number beyond the range of a double" },
		{ "\"4096\"", "the string \"4096\"" },
		{ "true", "true" },
		{ "[8]", "an array" },
		{ "{\"v\": 8}", "an object" },
	};
	char json[1024], want[256], hi1[32];

	(void)state;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		for (size_t j = 0; j < sizeof(values) / sizeof(values[0]);
		     j++) {
			snprintf(want, sizeof(want),
				 "field '%s' must be an integer from %d to "
				 "%d, got %s",
				 fields[i].field, fields[i].lo, fields[i].hi,
				 values[j].got);
			with_field(json, sizeof(json), fields[i].base,
				   fields[i].field, values[j].json);
			parse_fails_s(json, want);
		}
		/* one past the bound, and one below */
		snprintf(hi1, sizeof(hi1), "%d", fields[i].hi + 1);
		snprintf(want, sizeof(want),
			 "field '%s' must be an integer from %d to %d, got %s",
			 fields[i].field, fields[i].lo, fields[i].hi, hi1);
		parse_fails_s(with_field(json, sizeof(json), fields[i].base,
					 fields[i].field, hi1),
			      want);
		snprintf(hi1, sizeof(hi1), "%d", fields[i].lo - 1);
		snprintf(want, sizeof(want),
			 "field '%s' must be an integer from %d to %d, got %s",
			 fields[i].field, fields[i].lo, fields[i].hi, hi1);
		parse_fails_s(with_field(json, sizeof(json), fields[i].base,
					 fields[i].field, hi1),
			      want);
	}
	/* the whole message, file and all; the alias actually present is
	   the one named */
	parse_fails_s("{\"model_type\": \"falcon\", \"n_layer\": 32,"
		      " \"hidden_size\": 4544, \"n_head\": 71.5,"
		      " \"vocab_size\": 65024}",
		      "field 'n_head' must be an integer from 1 to 65536, got "
		      "71.5");
	parse_fails_s("{\"model_type\": \"gpt2\", \"n_layer\": 12,"
		      " \"n_embd\": 768, \"n_head\": 12, \"vocab_size\": 50257,"
		      " \"n_ctx\": 0}",
		      "field 'n_ctx' must be an integer from 1 to 16777216, "
		      "got 0");
	/* a missing field says the range too */
	parse_fails_s("{\"model_type\": \"llama\", \"hidden_size\": 4096,"
		      " \"num_attention_heads\": 32, \"vocab_size\": 32000}",
		      "missing field 'num_hidden_layers' (an integer from 1 "
		      "to 100000)");
	/* the bounds themselves are read */
	{
		struct model_spec m = dirty_spec();
		struct diag d;

		with_field(json, sizeof(json), LLAMA_BASE,
			   "max_position_embeddings", "16777216");
		diag_clear(&d);
		assert_int_equal(hf_config_parse(json, strlen(json), "x", &m,
						 NULL, &d),
				 0);
		assert_int_equal(m.seq_len, 16777216);
		with_field(json, sizeof(json), MOE_BASE,
			   "first_k_dense_replace", "0");
		assert_int_equal(hf_config_parse(json, strlen(json), "x", &m,
						 NULL, &d),
				 0);
		assert_int_equal(m.dense_layers, 0);
		with_field(json, sizeof(json), MOE_BASE, "n_shared_experts",
			   "0");
		assert_int_equal(hf_config_parse(json, strlen(json), "x", &m,
						 NULL, &d),
				 0);
		assert_int_equal(m.shared_experts, 0);
	}
}

/* The status and the whole message of a config that fails. */
static void parse_fails_exact(const char *json, const char *msg)
{
	struct model_spec m = dirty_spec(), before = m;
	struct diag d;

	diag_clear(&d);
	assert_int_equal(hf_config_parse(json, strlen(json), "cfg/config.json",
					 &m, NULL, &d),
			 -1);
	assert_string_equal(d.file, "cfg/config.json");
	assert_string_equal(d.msg, msg);
	assert_memory_equal(&m, &before, sizeof(m));
}

/*
 * Fields that contradict one another are errors of the JSON, naming its
 * fields (issue 40: 'kv_heads' above 'heads' was reported later by the
 * workload's check, naming neither the file nor the field).
 */
static void test_errors_between_fields(void **state)
{
	char json[1024];

	(void)state;
	parse_fails_exact(with_field(json, sizeof(json), LLAMA_BASE,
				     "num_key_value_heads", "64"),
			  "'num_key_value_heads' (64) must not exceed "
			  "'num_attention_heads' (32)");
	parse_fails_exact(with_field(json, sizeof(json), LLAMA_BASE,
				     "num_key_value_heads", "12"),
			  "'num_key_value_heads' (12) must divide "
			  "'num_attention_heads' (32)");
	/* Falcon's aliases */
	parse_fails_exact("{\"model_type\": \"falcon\", \"n_layer\": 32,"
			  " \"hidden_size\": 4544, \"n_head\": 71,"
			  " \"n_head_kv\": 142, \"vocab_size\": 65024}",
			  "'n_head_kv' (142) must not exceed 'n_head' (71)");
	/* GPT-2's names in the width check */
	parse_fails_exact("{\"model_type\": \"gpt2\", \"n_layer\": 12,"
			  " \"n_embd\": 770, \"n_head\": 12,"
			  " \"vocab_size\": 50257}",
			  "'n_head' (12) must divide 'n_embd' (770) when "
			  "'head_dim' is absent");
	/* experts */
	parse_fails_exact(with_field(json, sizeof(json), QWEN_MOE_BASE,
				     "num_experts_per_tok", "61"),
			  "'num_experts_per_tok' (61) must not exceed "
			  "'num_experts' (60)");
	parse_fails_exact(with_field(json, sizeof(json), MOE_BASE,
				     "first_k_dense_replace", "61"),
			  "'first_k_dense_replace' (61) must be less than "
			  "'num_hidden_layers' (61): no layer would have "
			  "experts");
	parse_fails_exact(with_field(json, sizeof(json), LLAMA4_BASE,
				     "interleave_moe_layer_step", "49"),
			  "'interleave_moe_layer_step' (49) must not exceed "
			  "'num_hidden_layers' (48)");
	parse_fails_exact(with_field(json, sizeof(json), QWEN_MOE_BASE,
				     "shared_expert_intermediate_size",
				     "5000"),
			  "'shared_expert_intermediate_size' (5000) must be a "
			  "multiple of 'moe_intermediate_size' (1408)");
	parse_fails_exact("{\"model_type\": \"mixtral\", \"hidden_size\": 4096,"
			  " \"num_attention_heads\": 32,"
			  " \"num_hidden_layers\": 32, \"vocab_size\": 32000,"
			  " \"num_experts_per_tok\": 2}",
			  "field 'num_experts_per_tok' needs the routed "
			  "experts ('n_routed_experts', 'num_local_experts' "
			  "or 'num_experts')");
	parse_fails_exact("{\"model_type\": \"qwen2_moe\","
			  " \"num_hidden_layers\": 24, \"hidden_size\": 2048,"
			  " \"num_attention_heads\": 16,"
			  " \"vocab_size\": 151936,"
			  " \"moe_intermediate_size\": 1408}",
			  "field 'moe_intermediate_size' needs the routed "
			  "experts ('n_routed_experts', 'num_local_experts' "
			  "or 'num_experts')");
	/* a Llama 4 without experts: no default shared expert either */
	{
		struct model_spec m = dirty_spec();

		snprintf(json, sizeof(json),
			 "{\"model_type\": \"llama4_text\","
			 " \"num_hidden_layers\": 48, \"hidden_size\": 5120,"
			 " \"num_attention_heads\": 40,"
			 " \"vocab_size\": 202048}");
		assert_int_equal(hf_config_parse(json, strlen(json), "x", &m,
						 NULL, NULL),
				 0);
		assert_int_equal(m.experts, 0);
		assert_int_equal(m.shared_experts, 0);
	}
}

static void test_errors_bool(void **state)
{
	struct model_spec m = dirty_spec();

	(void)state;
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		      " \"vocab_size\": 32000,"
		      " \"tie_word_embeddings\": \"false\"}",
		      "field 'tie_word_embeddings' must be true or false");
	parse_fails_s("{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		      " \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		      " \"vocab_size\": 32000, \"tie_word_embeddings\": 0}",
		      "field 'tie_word_embeddings' must be true or false");
	parse_fails_s("{\"model_type\": \"RefinedWebModel\", \"n_layer\": 32,"
		      " \"hidden_size\": 4544, \"n_head\": 71,"
		      " \"vocab_size\": 65024, \"multi_query\": 1}",
		      "field 'multi_query' must be true or false");
	/* a null is the family default; no diag needed (NULL is allowed) */
	{
		static const char json[] =
			"{\"model_type\": \"opt\", \"num_hidden_layers\": 2,"
			" \"hidden_size\": 64, \"num_attention_heads\": 4,"
			" \"vocab_size\": 100, \"tie_word_embeddings\": null}";

		assert_int_equal(hf_config_parse(json, strlen(json), "x", &m,
						 NULL, NULL),
				 0);
		assert_true(m.tied_embeddings);
	}
	assert_int_equal(hf_config_parse("[]", 2, "x", &m, NULL, NULL), -1);
}

/* ------------------------------------------------------------------ */

/* Write 'len' bytes to a new temporary file; its name goes to 'path'
   (a "/tmp/...XXXXXX" template). */
static void write_temp(char *path, const char *text, size_t len)
{
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_load(void **state)
{
	char path[] = "/tmp/test_hf_config_XXXXXX";
	struct model_spec m = dirty_spec();
	struct diag d;
	const struct want w = { .layers = 32, .hidden = 4096, .heads = 32,
				.kv_heads = 8, .ffn_hidden = 14336,
				.gated_ffn = true, .vocab = 128256,
				.seq_len = 8192, .tied_embeddings = false };

	(void)state;
	write_temp(path, llama3_8b, strlen(llama3_8b));
	diag_clear(&d);
	assert_int_equal(hf_config_load(path, &m, NULL, &d), 0);
	check_spec(&m, &w);
	unlink(path);

	diag_clear(&d);
	m = dirty_spec();
	assert_int_equal(hf_config_load("/nonexistent/config.json", &m, NULL,
					&d),
			 -1);
	assert_string_equal(d.file, "");
	assert_contains(d.msg, "cannot read '/nonexistent/config.json': ");
	assert_contains(d.msg, "No such file");
	assert_int_equal(m.layers, 999);

	/* a parse error names the file */
	{
		char bad[] = "/tmp/test_hf_config_XXXXXX";

		write_temp(bad, "{\"model_type\": \"t5\"}",
			   strlen("{\"model_type\": \"t5\"}"));
		diag_clear(&d);
		assert_int_equal(hf_config_load(bad, &m, NULL, &d), -1);
		assert_string_equal(d.file, bad);
		assert_contains(d.msg, "unknown model_type 't5'");
		unlink(bad);
	}
}

/* Files of exactly 1 MiB are read; one byte more is refused. */
static void test_load_size_limit(void **state)
{
	const size_t max = 1u << 20;
	char *buf = malloc(max + 1);
	char path[] = "/tmp/test_hf_config_XXXXXX";
	struct model_spec m = dirty_spec();
	struct diag d;
	size_t n = strlen(llama3_8b);

	(void)state;
	assert_non_null(buf);
	memcpy(buf, llama3_8b, n);
	memset(buf + n, ' ', max + 1 - n); /* JSON allows trailing blanks */

	write_temp(path, buf, max);
	diag_clear(&d);
	assert_int_equal(hf_config_load(path, &m, NULL, &d), 0);
	assert_int_equal(m.vocab, 128256);
	unlink(path);

	strcpy(path, "/tmp/test_hf_config_XXXXXX");
	write_temp(path, buf, max + 1);
	m = dirty_spec();
	diag_clear(&d);
	assert_int_equal(hf_config_load(path, &m, NULL, &d), -1);
	assert_contains(d.msg, "larger than 1048576 bytes");
	assert_contains(d.msg, path);
	assert_int_equal(m.layers, 999);
	unlink(path);
	free(buf);
}

/* ------------------------------------------------------------------ */

/* Parse INI text 'ini' named 'name' into a fresh workload. */
static int wl_parse(const char *ini, const char *name, struct workload *wl,
		    struct diag *d)
{
	workload_init(wl);
	diag_clear(d);
	return workload_parse(ini, strlen(ini), name, wl, d);
}

static void test_workload_hf_config(void **state)
{
	char path[] = "/tmp/test_hf_config_XXXXXX";
	char ini[512];
	struct workload wl;
	struct diag d;

	(void)state;
	write_temp(path, deepseek_v3, strlen(deepseek_v3));

	/* alone: every architecture key from the JSON */
	snprintf(ini, sizeof(ini), "[model]\nname = dsv3\nhf_config = %s\n",
		 path);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_string_equal(wl.model.name, "dsv3");
	assert_string_equal(wl.model.hf_config, path);
	assert_int_equal(wl.model.layers, 61);
	assert_int_equal(wl.model.hidden, 7168);
	assert_int_equal(wl.model.heads, 128);
	assert_int_equal(wl.model.kv_heads, 128);
	assert_int_equal(wl.model.ffn_hidden, 18432);
	assert_true(wl.model.gated_ffn);
	assert_int_equal(wl.model.vocab, 129280);
	assert_int_equal(wl.model.seq_len, 163840);
	assert_false(wl.model.tied_embeddings);
	assert_int_equal(wl.model.head_dim, 128);
	assert_int_equal(wl.model.kv_lora_rank, 512);
	assert_int_equal(wl.model.q_lora_rank, 1536);
	assert_int_equal(wl.model.rope_head_dim, 64);
	assert_int_equal(wl.model.v_head_dim, 128);
	assert_int_equal(wl.model.experts, 256);
	assert_int_equal(wl.model.experts_per_token, 8);
	assert_int_equal(wl.model.shared_experts, 1);
	assert_int_equal(wl.model.expert_ffn_hidden, 2048);
	assert_int_equal(wl.model.dense_layers, 3);
	assert_true(wl.model.params == 0.0);
	assert_int_equal(workload_validate(&wl, &d), 0);

	/* keys of the INI win, given before or after hf_config */
	snprintf(ini, sizeof(ini),
		 "[model]\nseq_len = 4096\nlayers = 7\nhf_config = %s\n"
		 "experts = 64\ntied_embeddings = true\n"
		 "[training]\ntokens = 14.8T\n",
		 path);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_int_equal(wl.model.seq_len, 4096);
	assert_int_equal(wl.model.layers, 7);
	assert_int_equal(wl.model.experts, 64);
	assert_true(wl.model.tied_embeddings);
	assert_int_equal(wl.model.hidden, 7168);
	assert_int_equal(wl.model.experts_per_token, 8);
	assert_int_equal(wl.model.kv_lora_rank, 512);
	assert_true(wl.training.tokens > 1.4799e13 &&
		    wl.training.tokens < 1.4801e13);

	/* a missing file is reported at the hf_config line */
	assert_int_equal(wl_parse("[model]\nname = x\n"
				  "hf_config = /nonexistent/c.json\n",
				  "dir/wl.ini", &wl, &d),
			 -1);
	assert_string_equal(d.file, "dir/wl.ini");
	assert_int_equal(d.line, 3);
	assert_contains(d.msg, "cannot read '/nonexistent/c.json'");
	unlink(path);
}

/* A malformed config.json is reported in the JSON file, and the
   workload is left as it was. */
static void test_workload_hf_config_bad(void **state)
{
	char path[] = "/tmp/test_hf_config_XXXXXX";
	char ini[512];
	struct workload wl, before;
	struct diag d;

	(void)state;
	static const char bad[] =
		"{\"model_type\": \"llama\", \"hidden_size\": 64}";

	write_temp(path, bad, strlen(bad));
	snprintf(ini, sizeof(ini), "[model]\nhf_config = %s\n", path);
	workload_init(&wl);
	wl.model.layers = 3;
	before = wl;
	diag_clear(&d);
	assert_int_equal(workload_parse(ini, strlen(ini), "w.ini", &wl, &d),
			 -1);
	assert_string_equal(d.file, path);
	assert_contains(d.msg, "missing field 'num_hidden_layers'");
	assert_memory_equal(&wl, &before, sizeof(wl));
	unlink(path);
}

/*
 * Issue 40: a config whose 'num_key_value_heads' exceeds its
 * 'num_attention_heads', or whose width is past the bound of the key it
 * fills, is reported in the JSON file with the JSON's field names,
 * whether a workload names it or --set does (--model is --set
 * model.hf_config); before, the workload's check said "'kv_heads' (64)
 * must not exceed 'heads' (32)" of the workload, or of no file at all.
 */
static void test_workload_hf_config_fields(void **state)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{ "{\"model_type\": \"llama\", \"num_hidden_layers\": 32,"
		  " \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		  " \"num_key_value_heads\": 64, \"vocab_size\": 32000}",
		  "'num_key_value_heads' (64) must not exceed "
		  "'num_attention_heads' (32)" },
		{ "{\"model_type\": \"llama\", \"num_hidden_layers\": 32,"
		  " \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		  " \"intermediate_size\": 2147483648, \"vocab_size\": 32000}",
		  "field 'intermediate_size' must be an integer from 1 to "
		  "16777216, got 2147483648" },
		{ "{\"model_type\": \"llama\", \"num_hidden_layers\": 32,"
		  " \"hidden_size\": 2097152, \"num_attention_heads\": 32,"
		  " \"vocab_size\": 32000}",
		  "field 'hidden_size' must be an integer from 1 to 1048576, "
		  "got 2097152" },
	};
	char path[] = "/tmp/test_hf_config_XXXXXX";
	char ini[512], expr[300];
	struct workload wl, before;
	struct diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(path, "/tmp/test_hf_config_XXXXXX");
		write_temp(path, cases[i].json, strlen(cases[i].json));
		snprintf(ini, sizeof(ini),
			 "[model]\nhf_config = %s\n[training]\n"
			 "tokens = 1T\n",
			 path);
		assert_int_equal(wl_parse(ini, "w.ini", &wl, &d), -1);
		assert_string_equal(d.file, path);
		assert_int_equal(d.line, 0);
		assert_string_equal(d.msg, cases[i].msg);

		workload_init(&wl);
		before = wl;
		diag_clear(&d);
		snprintf(expr, sizeof(expr), "model.hf_config=%s", path);
		assert_int_equal(workload_set(&wl, expr, &d), -1);
		assert_string_equal(d.file, path);
		assert_string_equal(d.msg, cases[i].msg);
		assert_memory_equal(&wl, &before, sizeof(wl));
		unlink(path);
	}
}

/* A relative path is relative to the workload's folder. */
static void test_workload_relative(void **state)
{
	char dir[] = "/tmp/test_hf_dir_XXXXXX";
	char json[256], name[256], want[256];
	struct workload wl;
	struct diag d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(json, sizeof(json), "%s/config.json", dir);
	write_file(json, llama3_8b);
	snprintf(name, sizeof(name), "%s/wl.ini", dir);

	assert_int_equal(wl_parse("[model]\nhf_config = config.json\n", name,
				  &wl, &d),
			 0);
	snprintf(want, sizeof(want), "%s/config.json", dir);
	assert_string_equal(wl.model.hf_config, want);
	assert_int_equal(wl.model.layers, 32);
	assert_int_equal(wl.model.kv_heads, 8);
	assert_int_equal(wl.model.vocab, 128256);

	/* "./" works the same; a name without a folder is taken as is
	   (relative to the working directory, where there is no such
	   file) */
	assert_int_equal(wl_parse("[model]\nhf_config = ./config.json\n", name,
				  &wl, &d),
			 0);
	assert_int_equal(wl.model.ffn_hidden, 14336);
	assert_int_equal(wl_parse("[model]\nhf_config = "
				  "no-such-capplan-config.json\n",
				  "wl.ini", &wl, &d),
			 -1);
	assert_contains(d.msg,
			"cannot read 'no-such-capplan-config.json'");

	unlink(json);
	rmdir(dir);
}

/* --set model.hf_config=... applies the JSON; keys given before win. */
static void test_workload_set(void **state)
{
	char path[] = "/tmp/test_hf_config_XXXXXX";
	char expr[512];
	struct workload wl, before;
	struct diag d;
	static const char *const ini = "[model]\nlayers = 5\n";

	(void)state;
	write_temp(path, llama3_8b, strlen(llama3_8b));
	snprintf(expr, sizeof(expr), "model.hf_config=%s", path);

	/* on an empty workload */
	workload_init(&wl);
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, "model.kv_heads=4", &d), 0);
	assert_int_equal(workload_set(&wl, expr, &d), 0);
	assert_int_equal(wl.model.layers, 32);
	assert_int_equal(wl.model.hidden, 4096);
	assert_int_equal(wl.model.kv_heads, 4); /* --set before wins */
	assert_int_equal(wl.model.ffn_hidden, 14336);
	assert_false(wl.model.tied_embeddings);
	assert_int_equal(wl.model.seq_len, 8192);
	/* a later --set overrides the JSON */
	assert_int_equal(workload_set(&wl, "model.seq_len=2048", &d), 0);
	assert_int_equal(wl.model.seq_len, 2048);

	/* after a file: its keys win */
	assert_int_equal(wl_parse(ini, "w.ini", &wl, &d), 0);
	assert_int_equal(workload_set(&wl, expr, &d), 0);
	assert_int_equal(wl.model.layers, 5);
	assert_int_equal(wl.model.hidden, 4096);
	assert_int_equal(wl.model.vocab, 128256);

	/* a missing file: an error and nothing changed */
	before = wl;
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, "model.hf_config=/nonexistent/x",
				      &d),
			 -1);
	assert_contains(d.msg, "cannot read '/nonexistent/x'");
	assert_memory_equal(&wl, &before, sizeof(wl));

	/* workload_apply_hf_config directly: given keys are kept */
	workload_init(&wl);
	assert_int_equal(wl_parse("[model]\nvocab = 32001\n", "w.ini", &wl,
				  &d),
			 0);
	assert_int_equal(workload_apply_hf_config(&wl, path, &d), 0);
	assert_int_equal(wl.model.vocab, 32001);
	assert_int_equal(wl.model.heads, 32);
	assert_string_equal(wl.model.hf_config, path);
	unlink(path);
}

/*
 * --set model.hf_config=PATH records PATH in model.hf_config, as a file's
 * hf_config key does.  workload_set passes tmp.model.hf_config itself as
 * the 'path' of workload_apply_hf_config, which ends with
 * snprintf(wl->model.hf_config, ..., "%s", path): source and destination
 * are the same buffer (undefined; glibc leaves it empty).
 */
static void test_workload_set_records_path(void **state)
{
	char path[] = "/tmp/test_hf_config_XXXXXX";
	char expr[512];
	struct workload wl;
	struct diag d;

	(void)state;
	write_temp(path, llama3_8b, strlen(llama3_8b));
	snprintf(expr, sizeof(expr), "model.hf_config=%s", path);
	workload_init(&wl);
	diag_clear(&d);
	assert_int_equal(workload_set(&wl, expr, &d), 0);
	unlink(path);
	assert_int_equal(wl.model.layers, 32);
	assert_string_equal(wl.model.hf_config, path);
}

/* ------------------------------------------------------------------
 * quantization_config
 */

/* A small Llama with 'qc' as its quantization_config (NULL: none) and
   'dtype' as its torch_dtype; returns hf_config_parse's status. */
static int parse_quant(const char *qc, const char *dtype, struct hf_quant *q,
		       struct diag *d)
{
	char json[1024];
	struct model_spec m = dirty_spec();

	snprintf(json, sizeof(json),
		 "{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		 " \"hidden_size\": 64, \"num_attention_heads\": 4,"
		 " \"vocab_size\": 100, \"torch_dtype\": \"%s\"%s%s}",
		 dtype, qc ? ", \"quantization_config\": " : "",
		 qc ? qc : "");
	diag_clear(d);
	return hf_config_parse(json, strlen(json), "q.json", &m, q, d);
}

/* Each method capplan reads, as its tools write it, to the formats of
   specs/workload.md ("quantization_config"). */
static void test_quant_methods(void **state)
{
	static const struct {
		const char *qc;
		enum precision weights;
		bool weight_only, kv_given;
		enum precision kv;
	} cases[] = {
		/* Qwen/Qwen3-32B-FP8, deepseek-ai/DeepSeek-V3 */
		{ "{\"activation_scheme\": \"dynamic\", \"fmt\": \"e4m3\","
		  " \"quant_method\": \"fp8\","
		  " \"weight_block_size\": [128, 128]}",
		  PREC_FP8, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"fbgemm_fp8\","
		  " \"activation_scale_ub\": 1200.0}",
		  PREC_FP8, false, false, PREC_BF16 },
		/* openai/gpt-oss-120b */
		{ "{\"quant_method\": \"mxfp4\","
		  " \"modules_to_not_convert\": [\"lm_head\"]}",
		  PREC_FP4, false, false, PREC_BF16 },
		/* AutoAWQ, AutoGPTQ */
		{ "{\"quant_method\": \"awq\", \"bits\": 4,"
		  " \"group_size\": 128, \"version\": \"gemm\","
		  " \"zero_point\": true}",
		  PREC_INT4, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"gptq\", \"bits\": 4,"
		  " \"group_size\": 128, \"desc_act\": false}",
		  PREC_INT4, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"gptq\", \"bits\": 8,"
		  " \"group_size\": 128}",
		  PREC_INT8, true, false, PREC_BF16 },
		{ "{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true,"
		  " \"bnb_4bit_quant_type\": \"nf4\"}",
		  PREC_INT4, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"bitsandbytes\", \"load_in_8bit\": true,"
		  " \"load_in_4bit\": false}",
		  PREC_INT8, true, false, PREC_BF16 },
		/* llm-compressor: FP8 dynamic, W8A8 int8, W4A16, NVFP4 with
		   an fp8 KV cache */
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"format\": \"float-quantized\","
		  " \"config_groups\": {\"group_0\": {\"targets\":"
		  " [\"Linear\"],"
		  " \"weights\": {\"num_bits\": 8, \"type\": \"float\","
		  " \"strategy\": \"channel\"},"
		  " \"input_activations\": {\"num_bits\": 8, \"type\":"
		  " \"float\","
		  " \"dynamic\": true}}}, \"kv_cache_scheme\": null}",
		  PREC_FP8, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\": {\"group_0\": {"
		  " \"weights\": {\"num_bits\": 8, \"type\": \"int\"},"
		  " \"input_activations\": {\"num_bits\": 8, \"type\":"
		  " \"int\"}}}}",
		  PREC_INT8, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"format\": \"pack-quantized\","
		  " \"config_groups\": {\"group_0\": {"
		  " \"weights\": {\"num_bits\": 4, \"type\": \"int\","
		  " \"group_size\": 128}, \"input_activations\": null}}}",
		  PREC_INT4, false, false, PREC_BF16 },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"format\": \"nvfp4-pack-quantized\","
		  " \"config_groups\": {\"group_0\": {"
		  " \"weights\": {\"num_bits\": 4, \"type\": \"float\","
		  " \"group_size\": 16},"
		  " \"input_activations\": {\"num_bits\": 4, \"type\":"
		  " \"float\"}}},"
		  " \"kv_cache_scheme\": {\"num_bits\": 8, \"type\":"
		  " \"float\"}}",
		  PREC_FP4, false, true, PREC_FP8 },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\": {\"group_0\": {"
		  " \"weights\": {\"num_bits\": 8, \"type\": \"float\"}}}}",
		  PREC_FP8, true, false, PREC_BF16 },
		/* MXFP4: 4-bit floats in groups of 32 */
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"format\": \"mxfp4-pack-quantized\","
		  " \"config_groups\": {\"group_0\": {"
		  " \"weights\": {\"num_bits\": 4, \"type\": \"float\","
		  " \"group_size\": 32}}}}",
		  PREC_FP4, true, false, PREC_BF16 },
		/* NVIDIA ModelOpt */
		{ "{\"quant_method\": \"modelopt\", \"quant_algo\": \"NVFP4\","
		  " \"kv_cache_quant_algo\": \"FP8\", \"group_size\": 16}",
		  PREC_FP4, false, true, PREC_FP8 },
		{ "{\"quant_method\": \"modelopt\", \"quant_algo\": \"FP8\","
		  " \"kv_cache_quant_algo\": null}",
		  PREC_FP8, false, false, PREC_BF16 },
	};
	struct hf_quant q;
	struct diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (parse_quant(cases[i].qc, "bfloat16", &q, &d) != 0) {
			print_error("case %zu: %s\n", i, d.msg);
			fail();
		}
		assert_true(q.present);
		if (!q.known) {
			print_error("case %zu: %s\n", i, q.why);
			fail();
		}
		assert_int_equal(q.weights, cases[i].weights);
		assert_int_equal(q.weight_only, cases[i].weight_only);
		assert_int_equal(q.kv_given, cases[i].kv_given);
		assert_int_equal(q.kv, cases[i].kv);
		assert_int_equal(q.dtype, PREC_BF16);
		/* MXFP4 blocks for gpt-oss's mxfp4 and groups of 32 */
		assert_int_equal(q.mxfp4,
				 strstr(cases[i].qc, "mxfp4") != NULL);
	}
	assert_string_equal(q.method, "modelopt");

	/* no quantization: nothing present; the dtype still read */
	assert_int_equal(parse_quant(NULL, "float16", &q, &d), 0);
	assert_false(q.present);
	assert_int_equal(q.dtype, PREC_FP16);
	assert_int_equal(q.kv, PREC_FP16);
	assert_int_equal(parse_quant("null", "float32", &q, &d), 0);
	assert_false(q.present);
	assert_int_equal(q.dtype, PREC_BF16);
}

/* A quantization capplan has no format for is read, not an error, and
   says what it is; a field of the wrong type is an error naming it. */
static void test_quant_unknown_and_errors(void **state)
{
	static const struct {
		const char *qc, *why;
	} unknown[] = {
		{ "{\"quant_method\": \"hqq\", \"nbits\": 4}",
		  "quant_method 'hqq'" },
		{ "{\"quant_method\": \"gptq\", \"bits\": 3}",
		  "gptq with 3-bit weights" },
		{ "{\"quant_method\": \"awq\", \"bits\": 8}",
		  "awq with 8-bit weights" },
		{ "{\"quant_method\": \"gptq\"}", "gptq with 0-bit weights" },
		{ "{\"quant_method\": \"bitsandbytes\"}",
		  "bitsandbytes without load_in_4bit or load_in_8bit" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\":"
		  " {\"g\": {\"weights\": {\"num_bits\": 2, \"type\":"
		  " \"int\"}}}}",
		  "compressed-tensors with 2-bit weights" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\":"
		  " {\"a\": {\"weights\": {\"num_bits\": 8, \"type\":"
		  " \"int\"}},"
		  " \"b\": {\"weights\": {\"num_bits\": 4, \"type\":"
		  " \"int\"}}}}",
		  "schemes of different formats" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\":"
		  " {\"a\": {\"weights\": {\"num_bits\": 8, \"type\":"
		  " \"int\"}}},"
		  " \"kv_cache_scheme\": {\"num_bits\": 4, \"type\": \"int\"}}",
		  "a 4-bit KV cache" },
		{ "{\"quant_method\": \"modelopt\", \"quant_algo\":"
		  " \"W4A8_AWQ\"}",
		  "modelopt with quant_algo 'W4A8_AWQ'" },
		{ "{\"quant_method\": \"modelopt\", \"quant_algo\": \"FP8\","
		  " \"kv_cache_quant_algo\": \"NVFP4\"}",
		  "kv_cache_quant_algo 'NVFP4'" },
	};
	static const struct {
		const char *qc, *msg;
	} bad[] = {
		{ "[]", "'quantization_config' must be an object" },
		{ "{\"bits\": 4}", "missing field 'quantization_config."
				   "quant_method'" },
		{ "{\"quant_method\": 4}",
		  "'quantization_config.quant_method' must be a string" },
		{ "{\"quant_method\": \"gptq\", \"bits\": 4.5}",
		  "field 'quantization_config.bits' must be an integer from 1"
		  " to 64, got 4.5" },
		{ "{\"quant_method\": \"awq\", \"bits\": 2147483648}",
		  "field 'quantization_config.bits' must be an integer from 1"
		  " to 64, got 2147483648" },
		{ "{\"quant_method\": \"gptq\", \"bits\": \"4\"}",
		  "field 'quantization_config.bits' must be an integer from 1"
		  " to 64, got the string \"4\"" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\": {\"g\": {\"weights\":"
		  " {\"num_bits\": -8, \"type\": \"int\"}}}}",
		  "field 'quantization_config.config_groups.g.weights.num_bits'"
		  " must be an integer from 1 to 64, got -8" },
		{ "{\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": 1}",
		  "'quantization_config.load_in_4bit' must be true or false" },
		{ "{\"quant_method\": \"compressed-tensors\"}",
		  "'quantization_config.config_groups' must be an object of "
		  "one or more schemes" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\":"
		  " {\"g\": {\"targets\": [\"Linear\"]}}}",
		  "missing field"
		  " 'quantization_config.config_groups.g.weights'" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\":"
		  " {\"g\": {\"weights\": {\"num_bits\": \"8\"}}}}",
		  "'quantization_config.config_groups.g.weights.num_bits' must "
		  "be an integer" },
		{ "{\"quant_method\": \"compressed-tensors\","
		  " \"config_groups\":"
		  " {\"g\": {\"weights\": {\"num_bits\": 8}}},"
		  " \"kv_cache_scheme\": 8}",
		  "'quantization_config.kv_cache_scheme' must be an object" },
		{ "{\"quant_method\": \"modelopt\"}",
		  "missing field 'quantization_config.quant_algo'" },
	};
	struct hf_quant q;
	struct diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		assert_int_equal(parse_quant(unknown[i].qc, "bfloat16", &q, &d),
				 0);
		assert_true(q.present);
		assert_false(q.known);
		assert_contains(q.why, unknown[i].why);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_quant(bad[i].qc, "bfloat16", &q, &d),
				 -1);
		assert_string_equal(d.file, "q.json");
		assert_contains(d.msg, bad[i].msg);
	}
	/* torch_dtype of the wrong type */
	static const char dtype[] =
		"{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
		" \"hidden_size\": 64, \"num_attention_heads\": 4,"
		" \"vocab_size\": 100, \"torch_dtype\": 16}";
	struct model_spec m = dirty_spec();

	diag_clear(&d);
	assert_int_equal(hf_config_parse(dtype, strlen(dtype), "q.json", &m,
					 &q, &d),
			 -1);
	assert_contains(d.msg, "field 'torch_dtype' must be a string");
}

/* A workload takes the checkpoint's formats for serving where it gave
   none, and its own where it did. */
static void test_workload_hf_quant(void **state)
{
	char fp8[] = "/tmp/test_hf_config_XXXXXX";
	char nvfp4[] = "/tmp/test_hf_config_XXXXXX";
	char hqq[] = "/tmp/test_hf_config_XXXXXX";
	static const char head[] =
		"{\"model_type\": \"qwen3\", \"num_hidden_layers\": 64,"
		" \"hidden_size\": 5120, \"num_attention_heads\": 64,"
		" \"num_key_value_heads\": 8, \"head_dim\": 128,"
		" \"intermediate_size\": 25600, \"vocab_size\": 151936,"
		" \"max_position_embeddings\": 40960,"
		" \"tie_word_embeddings\": false, \"torch_dtype\":"
		" \"bfloat16\",";
	char json[1024], ini[512], expr[512];
	struct workload wl, before;
	struct diag d;

	(void)state;
	/* Qwen/Qwen3-32B-FP8's config.json */
	snprintf(json, sizeof(json), "%s \"quantization_config\": "
		 "{\"activation_scheme\": \"dynamic\", \"fmt\": \"e4m3\","
		 " \"quant_method\": \"fp8\", \"weight_block_size\": [128,"
		 " 128]}}",
		 head);
	write_temp(fp8, json, strlen(json));
	snprintf(json, sizeof(json), "%s \"quantization_config\": "
		 "{\"quant_method\": \"compressed-tensors\", \"config_groups\":"
		 " {\"group_0\": {\"weights\": {\"num_bits\": 4,"
		 " \"type\": \"float\", \"group_size\": 16}}},"
		 " \"kv_cache_scheme\": {\"num_bits\": 8, \"type\":"
		 " \"float\"}}}",
		 head);
	write_temp(nvfp4, json, strlen(json));
	snprintf(json, sizeof(json),
		 "%s \"quantization_config\": {\"quant_method\": \"hqq\"}}",
		 head);
	write_temp(hqq, json, strlen(json));

	/* fp8 weights, the KV cache at the checkpoint's bf16 */
	snprintf(ini, sizeof(ini), "[model]\nhf_config = %s\n", fp8);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_int_equal(wl.model.layers, 64);
	assert_int_equal(wl.inference.weight_precision, PREC_FP8);
	assert_int_equal(wl.inference.kv_precision, PREC_BF16);
	assert_false(wl.inference.weight_only);
	assert_int_equal(workload_validate(&wl, &d), 0);

	/* W4A16 NVFP4 with an fp8 cache */
	snprintf(ini, sizeof(ini), "[model]\nhf_config = %s\n", nvfp4);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_FP4);
	assert_int_equal(wl.inference.kv_precision, PREC_FP8);
	assert_true(wl.inference.weight_only);
	assert_int_equal(wl.inference.fp4_format, 0); /* NVFP4's 16 */
	assert_int_equal(workload_validate(&wl, &d), 0);

	/* the workload's own keys win, after or before hf_config */
	snprintf(ini, sizeof(ini),
		 "[model]\nhf_config = %s\n[inference]\nkv_precision = fp8\n"
		 "weight_only = false\n", nvfp4);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_FP4);
	assert_int_equal(wl.inference.kv_precision, PREC_FP8);
	assert_false(wl.inference.weight_only);
	snprintf(ini, sizeof(ini),
		 "[inference]\nweight_precision = int8\n[model]\nhf_config ="
		 " %s\n",
		 fp8);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_INT8);
	assert_int_equal(wl.inference.kv_precision, PREC_INT8);

	/* a format capplan cannot read: an error in the JSON, unless the
	   workload gives the weights' format */
	snprintf(ini, sizeof(ini), "[model]\nname = q\nhf_config = %s\n", hqq);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), -1);
	assert_string_equal(d.file, hqq);
	assert_contains(d.msg, "quant_method 'hqq' is not a format capplan "
			       "has");
	assert_contains(d.msg, "give 'inference.weight_precision'");
	snprintf(ini, sizeof(ini),
		 "[model]\nhf_config = %s\n[inference]\nweight_precision ="
		 " int4\n",
		 hqq);
	assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_INT4);

	/* --set: applied where it stands; a later --set overrides it */
	workload_init(&wl);
	diag_clear(&d);
	snprintf(expr, sizeof(expr), "model.hf_config=%s", fp8);
	assert_int_equal(workload_set(&wl, expr, &d), 0);
	assert_int_equal(wl.inference.weight_precision, PREC_FP8);
	assert_int_equal(workload_set(&wl, "inference.weight_precision=bf16",
				      &d),
			 0);
	assert_int_equal(wl.inference.weight_precision, PREC_BF16);
	assert_int_equal(wl.inference.kv_precision, PREC_BF16);
	snprintf(expr, sizeof(expr), "model.hf_config=%s", hqq);
	assert_int_equal(workload_set(&wl, expr, &d), 0); /* bf16 was given */
	workload_init(&wl);
	before = wl;
	assert_int_equal(workload_set(&wl, expr, &d), -1);
	assert_contains(d.msg, "quant_method 'hqq'");
	assert_int_equal(wl.inference.weight_precision,
			 before.inference.weight_precision);
	assert_int_equal(wl.model.layers, before.model.layers);
	unlink(fp8);
	unlink(nvfp4);
	unlink(hqq);
}

/* Families of 2025: gpt-oss, GLM-4.5 Air, Kimi K2 (the DeepSeek-V3
   architecture under its own name), Phi-4, and a multimodal wrapper whose
   language model is under "text_config" (Gemma 3); the parameter counts
   against the models' published totals. */
static void check_params(const char *json, double total, double active,
			 double tol)
{
	struct model_spec m = dirty_spec();
	struct arch a;
	struct diag d;
	double t, act;

	diag_clear(&d);
	if (hf_config_parse(json, strlen(json), "x", &m, NULL, &d) != 0) {
		print_error("unexpected error: %s\n", d.msg);
		fail();
	}
	assert_int_equal(arch_from_spec(&m, &a), 0);
	t = arch_params(&a);
	act = arch_active_params(&a);
	if (fabs(t - total) > tol * total ||
	    fabs(act - active) > tol * active) {
		print_error("params %.4g (want %.4g), active %.4g "
			    "(want %.4g)\n", t, total, act, active);
		fail();
	}
}

static void test_families_2025(void **state)
{
	/* openai/gpt-oss-120b: 116.8B total; 5.13B active as its model card
	   counts them (the unembedding without the embedding), 5.71B with
	   the 0.58B embedding, as capplan counts active parameters */
	static const char gpt_oss[] =
		"{\"architectures\": [\"GptOssForCausalLM\"],"
		" \"model_type\": \"gpt_oss\", \"hidden_size\": 2880,"
		" \"head_dim\": 64, \"intermediate_size\": 2880,"
		" \"num_attention_heads\": 64, \"num_key_value_heads\": 8,"
		" \"num_hidden_layers\": 36, \"num_local_experts\": 128,"
		" \"num_experts_per_tok\": 4, \"vocab_size\": 201088,"
		" \"max_position_embeddings\": 131072, \"sliding_window\": 128,"
		" \"tie_word_embeddings\": false,"
		" \"torch_dtype\": \"bfloat16\","
		" \"quantization_config\": {\"quant_method\": \"mxfp4\","
		" \"modules_to_not_convert\": [\"model.layers.*.self_attn\","
		" \"model.layers.*.mlp.router\", \"model.embed_tokens\","
		" \"lm_head\"]}}";
	/* zai-org/GLM-4.5-Air: 106B total, 12B active without the
	   embeddings (2 x 151552 x 4096 = 1.24B), which capplan counts */
	static const char glm[] =
		"{\"architectures\": [\"Glm4MoeForCausalLM\"],"
		" \"model_type\": \"glm4_moe\", \"first_k_dense_replace\": 1,"
		" \"head_dim\": 128, \"hidden_size\": 4096,"
		" \"intermediate_size\": 10944,"
		" \"max_position_embeddings\": 131072,"
		" \"moe_intermediate_size\": 1408, \"n_routed_experts\": 128,"
		" \"n_shared_experts\": 1, \"num_attention_heads\": 96,"
		" \"num_experts_per_tok\": 8, \"num_hidden_layers\": 46,"
		" \"num_key_value_heads\": 8, \"num_nextn_predict_layers\": 1,"
		" \"tie_word_embeddings\": false, \"vocab_size\": 151552}";
	/* moonshotai/Kimi-K2-Instruct: 1.04T total, 32B activated as
	   published (rounded; capplan counts 1.026T and 32.9B) */
	static const char kimi[] =
		"{\"architectures\": [\"DeepseekV3ForCausalLM\"],"
		" \"model_type\": \"kimi_k2\", \"first_k_dense_replace\": 1,"
		" \"hidden_size\": 7168, \"intermediate_size\": 18432,"
		" \"kv_lora_rank\": 512, \"max_position_embeddings\": 131072,"
		" \"moe_intermediate_size\": 2048, \"n_routed_experts\": 384,"
		" \"n_shared_experts\": 1, \"num_attention_heads\": 64,"
		" \"num_experts_per_tok\": 8, \"num_hidden_layers\": 61,"
		" \"num_key_value_heads\": 64, \"q_lora_rank\": 1536,"
		" \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64,"
		" \"v_head_dim\": 128, \"tie_word_embeddings\": false,"
		" \"vocab_size\": 163840}";
	/* microsoft/phi-4: 14.7B */
	static const char phi4[] =
		"{\"architectures\": [\"Phi3ForCausalLM\"],"
		" \"model_type\": \"phi3\", \"hidden_size\": 5120,"
		" \"intermediate_size\": 17920, \"num_attention_heads\": 40,"
		" \"num_hidden_layers\": 40, \"num_key_value_heads\": 10,"
		" \"max_position_embeddings\": 16384,"
		" \"tie_word_embeddings\": false, \"vocab_size\": 100352}";
	/* google/gemma-3-27b-it: the language model of 27B (its SigLIP
	   vision tower, 0.4B, is not counted) */
	static const char gemma3[] =
		"{\"architectures\": [\"Gemma3ForConditionalGeneration\"],"
		" \"model_type\": \"gemma3\", \"mm_tokens_per_image\": 256,"
		" \"text_config\": {\"model_type\": \"gemma3_text\","
		" \"head_dim\": 128, \"hidden_size\": 5376,"
		" \"intermediate_size\": 21504, \"num_attention_heads\": 32,"
		" \"num_hidden_layers\": 62, \"num_key_value_heads\": 16,"
		" \"sliding_window\": 1024, \"vocab_size\": 262208},"
		" \"vision_config\": {\"model_type\": \"siglip_vision_model\","
		" \"hidden_size\": 1152}}";
	/* meta-llama/Llama-4-Scout-17B-16E (the wrapper's text_config):
	   109B with its vision tower, 17B active; every layer MoE, one
	   shared expert each */
	static const char scout[] =
		"{\"model_type\": \"llama4\", \"text_config\": {"
		"\"model_type\": \"llama4_text\", \"head_dim\": 128,"
		" \"hidden_size\": 5120, \"intermediate_size\": 8192,"
		" \"intermediate_size_mlp\": 16384,"
		" \"interleave_moe_layer_step\": 1,"
		" \"max_position_embeddings\": 10485760,"
		" \"num_attention_heads\": 40, \"num_experts_per_tok\": 1,"
		" \"num_hidden_layers\": 48, \"num_key_value_heads\": 8,"
		" \"num_local_experts\": 16, \"vocab_size\": 202048},"
		" \"vision_config\": {\"hidden_size\": 1408}}";
	/* Llama-4-Maverick-17B-128E: 400B, 17B active; every second layer
	   MoE, the others dense FFNs of intermediate_size_mlp */
	static const char maverick[] =
		"{\"model_type\": \"llama4\", \"text_config\": {"
		"\"model_type\": \"llama4_text\", \"head_dim\": 128,"
		" \"hidden_size\": 5120, \"intermediate_size\": 8192,"
		" \"intermediate_size_mlp\": 16384,"
		" \"interleave_moe_layer_step\": 2,"
		" \"max_position_embeddings\": 1048576,"
		" \"num_attention_heads\": 40, \"num_experts_per_tok\": 1,"
		" \"num_hidden_layers\": 48, \"num_key_value_heads\": 8,"
		" \"num_local_experts\": 128, \"vocab_size\": 202048}}";
	struct model_spec m = dirty_spec();
	struct hf_quant q;
	struct diag d;

	(void)state;
	check_params(scout, 109e9, 17e9, 0.02);
	check_params(maverick, 400e9, 17e9, 0.02);
	diag_clear(&d);
	assert_int_equal(hf_config_parse(maverick, strlen(maverick), "x", &m,
					 &q, &d),
			 0);
	assert_int_equal(m.experts, 128);
	assert_int_equal(m.expert_ffn_hidden, 8192);
	assert_int_equal(m.ffn_hidden, 16384);
	assert_int_equal(m.shared_experts, 1);
	assert_int_equal(m.dense_layers, 24);
	m = dirty_spec();
	check_params(gpt_oss, 116.8e9, 5.13e9 + 0.58e9, 0.01);
	check_params(glm, 106e9, 12e9 + 1.24e9, 0.03);
	check_params(kimi, 1.04e12, 32e9, 0.03);
	check_params(phi4, 14.7e9, 14.7e9, 0.01);
	check_params(gemma3, 27.0e9, 27.0e9, 0.03);

	/* gpt-oss's MXFP4 experts: fp4 weights, the attention kept */
	diag_clear(&d);
	assert_int_equal(hf_config_parse(gpt_oss, strlen(gpt_oss), "x", &m,
					 &q, &d),
			 0);
	assert_int_equal(m.experts, 128);
	assert_int_equal(m.expert_ffn_hidden, 0);
	assert_int_equal(m.ffn_hidden, 2880);
	assert_true(q.present && q.known);
	assert_int_equal(q.weights, PREC_FP4);
	assert_true(q.mxfp4);
	assert_true(q.attention_kept);
	{
		char path[] = "/tmp/test_hf_config_XXXXXX";
		char ini[256];
		struct workload wl;

		/* in a workload: the experts in MXFP4, the rest in bf16 */
		write_temp(path, gpt_oss, strlen(gpt_oss));
		snprintf(ini, sizeof(ini), "[model]\nhf_config = %s\n", path);
		assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
		assert_int_equal(wl.inference.weight_precision, PREC_FP4);
		assert_int_equal(wl.inference.fp4_format, 1);
		assert_int_equal(wl.inference.non_expert_precision,
				 PREC_BF16);
		assert_int_equal(workload_validate(&wl, &d), 0);
		unlink(path);
		/* a dense model's exclusions leave its weights uniform */
		static const char dense[] =
			"{\"model_type\": \"llama\", \"num_hidden_layers\": 2,"
			" \"hidden_size\": 64, \"num_attention_heads\": 4,"
			" \"vocab_size\": 100, \"quantization_config\":"
			" {\"quant_method\": \"mxfp4\","
			" \"modules_to_not_convert\": [\"self_attn\"]}}";

		char path2[] = "/tmp/test_hf_config_XXXXXX";

		write_temp(path2, dense, strlen(dense));
		snprintf(ini, sizeof(ini), "[model]\nhf_config = %s\n",
			 path2);
		assert_int_equal(wl_parse(ini, "wl.ini", &wl, &d), 0);
		assert_int_equal(wl.inference.weight_precision, PREC_FP4);
		assert_int_equal(wl.inference.non_expert_precision,
				 PREC_COUNT);
		assert_int_equal(workload_validate(&wl, &d), 0);
		unlink(path2);
	}
	/* the wrapper's own fields (vocab, tying) where text_config has none */
	m = dirty_spec();
	assert_int_equal(hf_config_parse(gemma3, strlen(gemma3), "x", &m, &q,
					 &d),
			 0);
	assert_int_equal(m.layers, 62);
	assert_int_equal(m.vocab, 262208);
	assert_true(m.tied_embeddings);
	assert_int_equal(m.seq_len, 8192);
	/* a wrapper of a language model capplan does not read */
	parse_fails_s("{\"model_type\": \"llava\", \"text_config\":"
		      " {\"model_type\": \"vicuna\"}}",
		      "unknown model_type 'llava' (text_config: 'vicuna')");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama),
		cmocka_unit_test(test_mistral),
		cmocka_unit_test(test_qwen2),
		cmocka_unit_test(test_qwen3),
		cmocka_unit_test(test_mixtral),
		cmocka_unit_test(test_gemma),
		cmocka_unit_test(test_gemma2),
		cmocka_unit_test(test_gpt2),
		cmocka_unit_test(test_gpt_neox),
		cmocka_unit_test(test_opt),
		cmocka_unit_test(test_falcon),
		cmocka_unit_test(test_falcon_old),
		cmocka_unit_test(test_deepseek_v3),
		cmocka_unit_test(test_deepseek_v2_lite),
		cmocka_unit_test(test_qwen2_moe_shared_expert),
		cmocka_unit_test(test_errors_document),
		cmocka_unit_test(test_errors_json_strict),
		cmocka_unit_test(test_errors_unknown_type),
		cmocka_unit_test(test_errors_missing),
		cmocka_unit_test(test_errors_values),
		cmocka_unit_test(test_errors_between_fields),
		cmocka_unit_test(test_workload_hf_config_fields),
		cmocka_unit_test(test_errors_bool),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_size_limit),
		cmocka_unit_test(test_workload_hf_config),
		cmocka_unit_test(test_workload_hf_config_bad),
		cmocka_unit_test(test_workload_relative),
		cmocka_unit_test(test_workload_set),
		cmocka_unit_test(test_workload_set_records_path),
		cmocka_unit_test(test_families_2025),
		cmocka_unit_test(test_quant_methods),
		cmocka_unit_test(test_quant_unknown_and_errors),
		cmocka_unit_test(test_workload_hf_quant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
