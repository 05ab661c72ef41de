/*
 * hf_config.h - model architectures from Hugging Face config.json files.
 *
 * Families: Llama (and Mistral, Qwen2/3, Yi...), Mixtral, Gemma/Gemma 2,
 * GPT-2, GPT-NeoX, OPT, Falcon and DeepSeek-V2/V3; the field names per
 * family are a table in hf_config.c (specs/workload.md lists them).  Read
 * with cJSON.
 */
#ifndef CAPPLAN_HF_CONFIG_H
#define CAPPLAN_HF_CONFIG_H

#include <stddef.h>

#include "diag.h"
#include "workload.h"

/*
 * Parse config.json text into the architecture fields of 'm' (layers,
 * hidden, heads, kv_heads, head_dim, ffn_hidden, gated_ffn, vocab,
 * seq_len from the maximum positions, tied_embeddings, experts, MLA
 * ranks), overwriting them.  'name' is used in messages.  Unknown
 * "model_type", a missing or malformed required field, or a value out of
 * range is an error naming the field.  Returns 0 or -1.
 */
int hf_config_parse(const char *text, size_t len, const char *name,
		    struct model_spec *m, struct diag *err);

/* Read a file and hf_config_parse it. */
int hf_config_load(const char *path, struct model_spec *m, struct diag *err);

#endif
