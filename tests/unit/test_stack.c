/* test_stack.c - the stack table (stack.c): reading it with positions,
   finding rows by name and version, applying a row under the workload's
   own keys, writing it back; cmocka. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"
#include "workload.h"
#include "workload_keys.h"

static const char table[] =
	"# a comment\n"
	"kind,name,version,max_batch,chunked_prefill,host_request_overhead,"
	"tp,zero,source\n"
	"engine,generic,1,auto,true,10ms,,,capplan\n"
	"engine,eng,0.9.1,64,false,,,,docs of 0.9.1\n"
	"engine,eng,0.10.0,128,,2ms,2,,docs of 0.10.0\n"
	"framework,fw,2.1,,,,4,3,\"its docs, quoted\"\n";

static void parse_ok(const char *text, struct stack_table *t)
{
	struct diag err;

	diag_clear(&err);
	if (stack_parse(text, strlen(text), "t.csv", t, &err) != 0)
		fail_msg("%s:%d:%d: %s", err.file, err.line, err.col,
			 err.msg);
}

/* The error a text gives: "LINE:COL: message". */
static void parse_err(const char *text, char *out, size_t size)
{
	char msg[DIAG_MSG_MAX];
	struct stack_table t;
	struct diag err;

	diag_clear(&err);
	assert_int_equal(stack_parse(text, strlen(text), "t.csv", &t, &err),
			 -1);
	assert_string_equal(err.file, "t.csv");
	snprintf(msg, sizeof(msg), "%s", err.msg);
	snprintf(out, size, "%d:%d: %.*s", err.line, err.col, 400, msg);
	assert_null(t.rows);
}

static void test_parse(void **state)
{
	struct stack_table t;
	const struct stack_row *r;
	int mb = wl_key_find("inference", "max_batch");
	int itp = wl_key_find("inference", "tp");
	int ttp = wl_key_find("training", "tp");

	(void)state;
	parse_ok(table, &t);
	assert_int_equal(t.n, 4);
	r = &t.rows[1];
	assert_int_equal(r->kind, STACK_ENGINE);
	assert_string_equal(r->name, "eng");
	assert_string_equal(r->version, "0.9.1");
	assert_int_equal(r->line, 4);
	assert_int_equal(r->ncells, 2);
	assert_string_equal(stack_value(r, mb), "64");
	/* a column of both sections is the row's kind's key */
	assert_string_equal(stack_value(&t.rows[2], itp), "2");
	assert_null(stack_value(&t.rows[2], ttp));
	assert_string_equal(stack_value(&t.rows[3], ttp), "4");
	assert_string_equal(t.rows[3].source, "its docs, quoted");
	/* the value's place, for messages when it is applied */
	assert_int_equal(r->cells[0].line, 4);
	assert_int_equal(r->cells[0].col, 18);
	stack_release(&t);
	assert_null(t.rows);
}

static void test_find(void **state)
{
	struct stack_table t;

	(void)state;
	parse_ok(table, &t);
	/* the newest version by number, not by text (0.10 > 0.9) */
	assert_string_equal(stack_find(&t, STACK_ENGINE, "eng")->version,
			    "0.10.0");
	assert_string_equal(stack_find(&t, STACK_ENGINE, "ENG")->version,
			    "0.10.0");
	assert_string_equal(stack_find(&t, STACK_ENGINE, "eng@0.9")->version,
			    "0.9.1");
	assert_string_equal(
		stack_find(&t, STACK_ENGINE, "eng@0.9.1")->version, "0.9.1");
	/* "0.1" is not a prefix of "0.10.0" by parts */
	assert_null(stack_find(&t, STACK_ENGINE, "eng@0.1"));
	assert_null(stack_find(&t, STACK_ENGINE, "en"));
	/* a name of the other kind */
	assert_null(stack_find(&t, STACK_FRAMEWORK, "eng"));
	assert_non_null(stack_find(&t, STACK_FRAMEWORK, "fw"));
	stack_release(&t);
}

static void test_apply(void **state)
{
	struct stack_table t;
	struct workload wl;
	struct diag err;

	(void)state;
	parse_ok(table, &t);
	/* nothing named: the generic rows; no generic framework row leaves
	   the training keys alone */
	workload_init(&wl);
	diag_clear(&err);
	assert_int_equal(stack_apply(&t, &wl, &err), 0);
	assert_string_equal(wl.inference.engine, "generic");
	assert_string_equal(wl.inference.engine_version, "1");
	assert_string_equal(wl.training.framework, "");
	assert_string_equal(wl.training.framework_version, "");
	assert_int_equal(wl.inference.max_batch, WL_AUTO);

	/* a row's values fill what the workload left out; a key the
	   workload gives keeps its value */
	workload_init(&wl);
	assert_int_equal(workload_set(&wl, "inference.engine=eng@0.9", &err),
			 0);
	assert_int_equal(workload_set(&wl, "inference.max_batch=7", &err), 0);
	assert_int_equal(workload_set(&wl, "training.framework=fw", &err), 0);
	assert_int_equal(stack_apply(&t, &wl, &err), 0);
	assert_int_equal(wl.inference.max_batch, 7);
	assert_false(wl.inference.chunked_prefill);
	assert_string_equal(wl.inference.engine, "eng");
	assert_string_equal(wl.inference.engine_version, "0.9.1");
	assert_int_equal(wl.training.zero, 3);
	assert_int_equal(wl.training.tp, 4);
	assert_int_equal(wl.inference.tp, WL_AUTO);

	workload_init(&wl);
	assert_int_equal(workload_set(&wl, "inference.engine=eng", &err), 0);
	assert_int_equal(stack_apply(&t, &wl, &err), 0);
	assert_int_equal(wl.inference.max_batch, 128);
	assert_int_equal(wl.inference.tp, 2);
	assert_true(wl.inference.host_request_s > 1.9e-3 &&
		    wl.inference.host_request_s < 2.1e-3);
	/* applied again (a sweep point), the same */
	assert_int_equal(stack_apply(&t, &wl, &err), 0);
	assert_int_equal(wl.inference.max_batch, 128);
	assert_true(workload_key_stacked(&wl, (size_t)wl_key_find("inference",
								 "tp")));

	/* another row over it (sweep's --vary inference.engine): what the
	   first row gave and the second does not goes back to the default,
	   and is no longer a row's */
	assert_int_equal(workload_set(&wl, "inference.engine=eng@0.9", &err),
			 0);
	assert_int_equal(stack_apply(&t, &wl, &err), 0);
	assert_string_equal(wl.inference.engine_version, "0.9.1");
	assert_int_equal(wl.inference.max_batch, 64);
	assert_int_equal(wl.inference.tp, WL_AUTO);
	assert_true(wl.inference.host_request_s == WL_HOST_REQUEST_S);
	assert_false(workload_key_stacked(&wl, (size_t)wl_key_find("inference",
								  "tp")));
	assert_true(workload_key_stacked(
		&wl, (size_t)wl_key_find("inference", "max_batch")));
	/* a key the workload gives is never the row's */
	assert_int_equal(workload_set(&wl, "inference.max_batch=9", &err), 0);
	assert_int_equal(stack_apply(&t, &wl, &err), 0);
	assert_int_equal(wl.inference.max_batch, 9);
	assert_false(workload_key_stacked(
		&wl, (size_t)wl_key_find("inference", "max_batch")));
	stack_release(&t);
}

static void test_apply_errors(void **state)
{
	struct stack_table t;
	struct workload wl, before;
	struct diag err;
	const char ini[] = "[model]\nparams = 7B\n[inference]\n"
			   "engine = egn\n";

	(void)state;
	parse_ok(table, &t);
	workload_init(&wl);
	diag_clear(&err);
	assert_int_equal(workload_parse(ini, strlen(ini), "w.ini", &wl, &err),
			 0);
	before = wl;
	assert_int_equal(stack_apply(&t, &wl, &err), -1);
	/* at the key that named it, with the names and the nearest */
	assert_string_equal(err.file, "w.ini");
	assert_int_equal(err.line, 4);
	assert_int_equal(err.col, 10);
	assert_non_null(strstr(err.msg, "no engine 'egn'"));
	assert_non_null(strstr(err.msg, "generic, eng"));
	assert_non_null(strstr(err.msg, "did you mean 'eng'?"));
	assert_memory_equal(&wl, &before, sizeof(wl));

	workload_init(&wl);
	diag_clear(&err);
	assert_int_equal(workload_set(&wl, "inference.engine=eng@2", &err), 0);
	assert_int_equal(stack_apply(&t, &wl, &err), -1);
	assert_string_equal(err.file, "--set");
	assert_non_null(strstr(err.msg, "has no version '2'"));
	assert_non_null(strstr(err.msg, "0.9.1, 0.10.0"));
	stack_release(&t);
}

static void test_errors(void **state)
{
	char e[512];

	(void)state;
	parse_err("kind,name,version\n", e, sizeof(e));
	assert_non_null(strstr(e, "lacks column 'source'"));
	parse_err("kind,name,version,source,nope\n", e, sizeof(e));
	assert_string_equal(e, "1:26: unknown column 'nope': expected kind, "
			       "name, version, source or a key of "
			       "[inference] (engines) or [training] "
			       "(frameworks), as 'capplan help keys' lists "
			       "them");
	parse_err("kind,name,version,source,engine\n", e, sizeof(e));
	assert_non_null(strstr(e, "a stack cannot name another"));
	parse_err("kind,name,version,source,zero,zero\n", e, sizeof(e));
	assert_non_null(strstr(e, "1:31: column 'zero' appears twice"));
	parse_err("kind,name,version,source\nserver,x,1,s\n", e, sizeof(e));
	assert_string_equal(e, "2:1: 'kind' must be engine or framework, "
			       "got 'server'");
	parse_err("kind,name,version,source\nengine,a b,1,s\n", e, sizeof(e));
	assert_non_null(strstr(e, "2:8: 'name' must be"));
	parse_err("kind,name,version,source\nengine,a,v1,s\n", e, sizeof(e));
	assert_non_null(strstr(e, "2:10: 'version' must start with a digit"));
	parse_err("kind,name,version,source\nengine,a,1,\n", e, sizeof(e));
	assert_non_null(strstr(e, "'source' is empty"));
	parse_err("kind,name,version,source\nengine,a,1\n", e, sizeof(e));
	assert_non_null(strstr(e, "expected 4 fields as the header has, "
				  "found 3"));
	parse_err("kind,name,version,source\nengine,a,1,s,x\n", e, sizeof(e));
	assert_non_null(strstr(e, "2:14: expected 4 fields"));
	/* a value checked as the workload checks it, at its place */
	parse_err("kind,name,version,max_batch,source\nengine,a,1,0,s\n", e,
		  sizeof(e));
	assert_string_equal(e, "2:12: 'inference.max_batch' must be an "
			       "integer from 1 to 65536 or 'auto', got '0'");
	/* a key of the other section */
	parse_err("kind,name,version,zero,source\nengine,a,1,1,s\n", e,
		  sizeof(e));
	assert_string_equal(e, "2:12: 'zero' is not a key of [inference]: "
			       "engine rows leave it empty");
	/* one version once */
	parse_err("kind,name,version,source\nengine,a,1.0,s\nengine,A,1.0,t\n",
		  e, sizeof(e));
	assert_non_null(strstr(e, "3:1: engine 'A' version 1.0 is on line 2"));
	parse_err("", e, sizeof(e));
	assert_non_null(strstr(e, "no header"));
}

/* The CSV it writes reads back to the same rows. */
static void test_round_trip(void **state)
{
	struct stack_table t, u;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	parse_ok(table, &t);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(stack_write_csv(f, &t), 0);
	fclose(f);
	/* the two sections' tp share one column, in the key table's order */
	assert_non_null(strstr(buf, "kind,name,version,tp,zero,max_batch,"));
	parse_ok(buf, &u);
	assert_int_equal(u.n, t.n);
	for (size_t i = 0; i < t.n; i++) {
		assert_int_equal(u.rows[i].kind, t.rows[i].kind);
		assert_string_equal(u.rows[i].name, t.rows[i].name);
		assert_string_equal(u.rows[i].version, t.rows[i].version);
		assert_string_equal(u.rows[i].source, t.rows[i].source);
		assert_int_equal(u.rows[i].ncells, t.rows[i].ncells);
		for (int c = 0; c < t.rows[i].ncells; c++)
			assert_string_equal(
				stack_value(&u.rows[i], t.rows[i].cells[c].key),
				t.rows[i].cells[c].value);
	}
	free(buf);
	stack_release(&t);
	stack_release(&u);
}

/*
 * The embedded table reads, names the engines and frameworks listed
 * here, and its generic rows are capplan's defaults:
 * applying them to a new workload changes nothing but the names.
 */
static void test_embedded(void **state)
{
	static const char *const engines[] = { "generic", "vllm", "sglang",
					       "trtllm", "llama.cpp", "mlc" };
	static const char *const frameworks[] = {
		"generic", "megatron", "deepspeed", "megatron-deepspeed",
		"gpt-neox", "fsdp"
	};
	/* the element-wise operations each framework runs eager
	   (specs/stacks.md) */
	static const struct {
		const char *name;
		int eager_ops;
	} eager[] = {
		{ "generic", 0 },
		{ "megatron", 0 },
		{ "deepspeed", EAGER_OP_NORM | EAGER_OP_ROPE | EAGER_OP_ACT },
		{ "megatron-deepspeed", EAGER_OP_ROPE | EAGER_OP_ACT },
		{ "gpt-neox", EAGER_OP_NORM | EAGER_OP_ROPE | EAGER_OP_ACT },
		{ "fsdp", EAGER_OP_NORM | EAGER_OP_ROPE | EAGER_OP_ACT |
				  EAGER_OP_KV_EXPAND },
	};
	struct stack_table t;
	struct workload a, b;
	struct diag err;

	(void)state;
	diag_clear(&err);
	assert_int_equal(stack_load_default(&t, &err), 0);
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		assert_non_null(stack_find(&t, STACK_ENGINE, engines[i]));
	for (size_t i = 0; i < sizeof(frameworks) / sizeof(frameworks[0]); i++)
		assert_non_null(stack_find(&t, STACK_FRAMEWORK, frameworks[i]));
	workload_init(&a);
	b = a;
	assert_int_equal(stack_apply(&t, &b, &err), 0);
	memset(b.inference.engine, 0, sizeof(b.inference.engine));
	memset(b.inference.engine_version, 0,
	       sizeof(b.inference.engine_version));
	memset(b.training.framework, 0, sizeof(b.training.framework));
	memset(b.training.framework_version, 0,
	       sizeof(b.training.framework_version));
	assert_memory_equal(&a.inference, &b.inference, sizeof(a.inference));
	assert_memory_equal(&a.training, &b.training, sizeof(a.training));
	for (size_t i = 0; i < sizeof(eager) / sizeof(eager[0]); i++) {
		char expr[128];

		workload_init(&b);
		snprintf(expr, sizeof(expr), "training.framework=%s",
			 eager[i].name);
		assert_int_equal(workload_set(&b, expr, &err), 0);
		assert_int_equal(stack_apply(&t, &b, &err), 0);
		assert_int_equal(b.training.eager_ops, eager[i].eager_ops);
	}
	/* a compiled model under fsdp: the workload's none wins */
	workload_init(&b);
	assert_int_equal(workload_set(&b, "training.framework=fsdp", &err), 0);
	assert_int_equal(workload_set(&b, "training.eager_ops=none", &err), 0);
	assert_int_equal(stack_apply(&t, &b, &err), 0);
	assert_int_equal(b.training.eager_ops, 0);
	assert_int_equal(b.training.zero, 3);
	/* every row applies cleanly to a new workload */
	for (size_t i = 0; i < t.n; i++) {
		char expr[128];

		workload_init(&b);
		snprintf(expr, sizeof(expr), "%s=%s@%s",
			 stack_kind_key(t.rows[i].kind), t.rows[i].name,
			 t.rows[i].version);
		assert_int_equal(workload_set(&b, expr, &err), 0);
		assert_int_equal(stack_apply(&t, &b, &err), 0);
		assert_string_equal(t.rows[i].kind == STACK_ENGINE ?
					    b.inference.engine_version :
					    b.training.framework_version,
				    t.rows[i].version);
	}
	stack_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_apply_errors),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_embedded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
