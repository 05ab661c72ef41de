/*
 * hf_config.h - model architectures from Hugging Face config.json files.
 *
 * Families: Llama (and Mistral, Qwen2/3, Yi, Phi-3/4, Granite), the
 * mixtures of experts (Mixtral, Qwen-MoE, gpt-oss, GLM-4.5, OLMoE, Llama 4),
 * Gemma 1-3, GPT-2, GPT-NeoX, OPT, Falcon and DeepSeek-V2/V3 (and Kimi
 * K2), also under a multimodal wrapper's "text_config"; the field names per
 * family are a table in hf_config.c (specs/workload.md lists them).  Read
 * with cJSON.
 */
#ifndef CAPPLAN_HF_CONFIG_H
#define CAPPLAN_HF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "precision.h"
#include "workload.h"

/*
 * A checkpoint's quantization, from "quantization_config" (fp8,
 * fbgemm_fp8, mxfp4, gptq, awq, bitsandbytes, compressed-tensors,
 * modelopt) and "torch_dtype".  specs/workload.md says how each maps.
 */
struct hf_quant {
	bool present;           /* the JSON has a quantization_config */
	bool known;             /* ... in a format capplan has */
	enum precision weights; /* the quantized weights' format */
	bool weight_only;       /* 8-bit or fp4 weights, 16-bit activations */
	bool mxfp4;             /* fp4 in MXFP4 blocks (32 values), not NVFP4 */
	bool attention_kept;    /* the list of modules left unquantized names
				   the attention: in an MoE only the routed
				   experts take the format */
	bool kv_given;          /* the JSON names the KV cache's format */
	enum precision kv;      /* that format, else the dtype's */
	enum precision dtype;   /* torch_dtype: fp16 for "float16", else bf16 */
	char method[48];        /* quant_method as written */
	char why[96];           /* when !known: what capplan cannot read */
};

/*
 * Parse config.json text into the architecture fields of 'm' (layers,
 * hidden, heads, kv_heads, head_dim, ffn_hidden, gated_ffn, vocab,
 * seq_len from the maximum positions, tied_embeddings, experts, MLA
 * ranks), overwriting them, and its quantization into 'q' (NULL: not
 * wanted).  'name' is used in messages.  Unknown "model_type", a missing
 * or malformed required field, or an integer outside the range of the
 * workload key it fills (workload.h, WL_*_MAX: "field 'intermediate_size'
 * must be an integer from 1 to 16777216, got 2147483648") is an error
 * naming the field as the JSON spells it; so are fields that contradict
 * one another (more key/value heads than query heads, top-k above the
 * experts).  A quantization capplan has no format for is not an error
 * (q->known).  Returns 0 or -1.
 */
int hf_config_parse(const char *text, size_t len, const char *name,
		    struct model_spec *m, struct hf_quant *q, struct diag *err);

/* Read a file and hf_config_parse it. */
int hf_config_load(const char *path, struct model_spec *m, struct hf_quant *q,
		   struct diag *err);

#endif
