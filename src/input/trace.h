/*
 * trace.h - serving trace files -> struct sim_request[].
 *
 * A trace is the load of a serving run replayed request by request, in
 * one of three formats (specs/workload.md, section "Trace files"):
 * capplan's CSV, one line 'arrival_s,prompt_tokens,output_tokens' per
 * request (libcsv); the Azure LLM inference traces' CSV, a header
 * 'TIMESTAMP,ContextTokens,GeneratedTokens' and dates and times; and the
 * Mooncake traces' JSON lines ('{"timestamp": ms, "input_length": n,
 * "output_length": n, "hash_ids": [...]}'), whose block ids name the
 * prompts' content for a prefix cache.  In any order; arrivals become SI
 * seconds from the start of the run (from the first for dated traces).
 */
#ifndef CAPPLAN_TRACE_H
#define CAPPLAN_TRACE_H

#include <stddef.h>

#include "diag.h"
#include "request.h"

/* Files larger than this are refused, in bytes (64 MiB). */
#define TRACE_FILE_MAX (64u * 1024u * 1024u)

/*
 * Requests in one trace at most: those of a simulation (request.h), the
 * bound on a plan's time.  Reading is linear and cheap (10^7 lines:
 * 2.2 s, 0.37 GB); simulating is not (specs/workload.md, "Trace files").
 */
#define TRACE_REQUESTS_MAX SIM_REQUESTS_MAX

/* Tokens of a block a JSON-lines trace's hash_ids name: the Mooncake
   traces' 512 (kvcache-ai/Mooncake FAST25-release/traces; Dynamo's and
   AIPerf's readers of the format use the same default). */
#define TRACE_HASH_BLOCK_TOKENS 512

/* Prompt or output tokens of one request at most. */
#define TRACE_TOKENS_MAX 10000000

/*
 * Latest arrival accepted, in seconds (about 31.7 years): later times are
 * typing errors, and keep sums of times far from the range of a double.
 */
#define TRACE_ARRIVAL_MAX_S 1e9

/*
 * Parse trace CSV text of 'len' bytes; 'name' is used in messages (a file
 * name, or "<trace>" when NULL).  A UTF-8 BOM, CRLF line ends, a header
 * line, blank lines and '#' comment lines are accepted.  The text need not
 * be NUL-terminated and may hold any bytes.  Numbers are read in the C
 * locale, whatever the caller's.
 *
 * On success returns 0, points '*reqs' at a malloc'd array of '*n' >= 1
 * requests sorted by arrival (stable: equal arrivals keep file order) that
 * the caller frees with free() (their hash ids live in the same block), and leaves 'err' untouched.  On error
 * returns -1, sets '*reqs' to NULL and '*n' to 0, and fills 'err' (may be
 * NULL) with the file, line, 1-based column of the offending field and a
 * message.  Either of 'reqs' and 'n' may be NULL to only check the text.
 */
int trace_parse(const char *buf, size_t len, const char *name,
		struct sim_request **reqs, size_t *n, struct diag *err);

/*
 * Read the file at 'path' and trace_parse it, with 'path' in messages.
 * Refuses, without blocking, anything but a regular file (a FIFO, a
 * directory, a device) and files over TRACE_FILE_MAX bytes.  I/O errors
 * come without a line: "cannot read 'PATH': REASON".  Ownership and
 * results as trace_parse.
 */
int trace_load_file(const char *path, struct sim_request **reqs, size_t *n,
		    struct diag *err);

#endif
