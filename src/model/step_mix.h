/*
 * step_mix.h - what one step of a serving replica runs: the mix of
 * prefill and decode work the simulator's scheduler forms (serve_sim.h)
 * and the step model times (model_infer.h infer_step_s).  Types only.
 * specs/models.md 10.9.
 */
#ifndef CAPPLAN_STEP_MIX_H
#define CAPPLAN_STEP_MIX_H

/* What one step of a replica runs, for the step model. */
struct sim_mix {
	double prefill_tokens;     /* prompt tokens processed this step */
	double prefill_attn_pairs; /* causal query-key pairs of those tokens:
				      sum over chunks of c (o + c / 2), c
				      tokens at offset o (a whole prompt of
				      p: p^2 / 2, as infer_evaluate counts
				      its prefill) */
	double prefill_seqs;       /* sequences with prompt tokens this step */
	double decode_seqs;        /* sequences decoding one token each */
	double decode_ctx_tokens;  /* their context lengths, summed */
	double logit_rows;         /* sequences that emit a token this step */
	double verify_tokens;      /* speculative decoding: draft tokens the
				      decoding sequences verify, summed (each
				      one is a query token and a logit row
				      more); 0 without speculation */
};

#endif
