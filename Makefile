# capplan - capacity planner for AI infrastructure.
# Plain make; objects under $(BUILD)/, never in the source tree.

VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=
BUILD ?= build

CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := gsl inih libcjson libprotobuf-c

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wwrite-strings -Wvla -Wformat=2 \
	-Wdouble-promotion
OPT ?= -O2 -g
CFLAGS ?= $(OPT)
# GLPK (the integer program of mixed fleets, src/plan/fleet_mix.c):
# Debian's libglpk-dev ships no .pc file, so -lglpk unless one is found
GLPK_CFLAGS := $(shell $(PKG_CONFIG) --cflags glpk 2>/dev/null)
GLPK_LIBS := $(shell $(PKG_CONFIG) --libs glpk 2>/dev/null || echo -lglpk)
# The layers of src/, lowest first: a file includes headers of its own
# layer and those below it, never above (tests/layers.sh checks it).
LAYERS := util graph input model serve plan render cmd
INCLUDES := $(LAYERS:%=-Isrc/%)
ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -pthread $(WARN) $(CFLAGS) \
	$(INCLUDES) -I$(BUILD)/gen \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) $(GLPK_CFLAGS) \
	-DCAPPLAN_VERSION='"$(VERSION)"'
LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || \
	echo -lgsl -lgslcblas -linih -lcjson -lprotobuf-c) $(GLPK_LIBS) \
	-lcsv -lm -pthread

# make SANITIZE=address,undefined test
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif
ifeq ($(WERROR),1)
ALL_CFLAGS += -Werror
endif

LIB_SRC := $(filter-out src/cmd/main.c,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/catalog_embed.o \
	$(BUILD)/obj/stacks_embed.o $(BUILD)/obj/onnx.pb-c.o
LIB := $(BUILD)/libcapplan.a
BIN := $(BUILD)/capplan

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
VALIDATE := $(BUILD)/tests/validate
VALIDATE_SERVING := $(BUILD)/tests/validate_serving
VALIDATE_EP := $(BUILD)/tests/validate_ep
INTERVALS := $(BUILD)/tests/intervals
BENCH := $(BUILD)/tests/bench

FUZZ_TARGETS := catalog workload units set hf trace onnx stacks calibrate
FUZZ_TIME ?= 60
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz_replay_%)

.PHONY: all deps demo test check unit cli validate validate-calibration intervals bench install uninstall \
	clean help fuzz charts valgrind

all: $(BIN)

help:
	@echo "targets: all deps demo test check validate validate-calibration bench fuzz charts mutate coverage install uninstall clean"

deps:
	@sh scripts/deps.sh

# The main job on a fresh machine: packages, build, and a plan.
demo: deps
	@$(MAKE) --no-print-directory all
	$(BIN) train examples/llama3-70b.ini --gpu H100-SXM --gpus 1024
	@echo
	@echo "capplan is built as $(BIN).  To run it as 'capplan' (no root needed):"
	@echo "  make install PREFIX=\$$HOME/.local    # then: export PATH=\"\$$HOME/.local/bin:\$$PATH\""
	@echo "or, without installing:"
	@echo "  export PATH=\"$(CURDIR)/$(BUILD):\$$PATH\""

$(BUILD)/gen/catalog_embed.c: specs/catalog.csv scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $< catalog_default_csv > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/catalog_embed.o: $(BUILD)/gen/catalog_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/stacks_embed.c: specs/stacks.csv scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $< stacks_default_csv > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/stacks_embed.o: $(BUILD)/gen/stacks_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The ONNX model format: C code generated at build time from the
# onnx.proto that Debian's libonnx-dev ships (protoc-c from
# protobuf-c-compiler); src/input/onnx_read.c reads models with it.
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
PROTOC_C ?= protoc-c

$(BUILD)/gen/onnx.pb-c.c: $(ONNX_PROTO)
	@mkdir -p $(dir $@)
	cp $(ONNX_PROTO) $(BUILD)/gen/onnx.proto
	cd $(BUILD)/gen && $(PROTOC_C) --c_out=. onnx.proto

$(BUILD)/gen/onnx.pb-c.h: $(BUILD)/gen/onnx.pb-c.c

# generated code: compiled without the project's warning set
$(BUILD)/obj/onnx.pb-c.o: $(BUILD)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(CFLAGS) -I$(BUILD)/gen \
		$(shell $(PKG_CONFIG) --cflags libprotobuf-c 2>/dev/null) \
		-c -o $@ $<

$(BUILD)/obj/input/onnx_read.o: $(BUILD)/gen/onnx.pb-c.h

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/obj/cmd/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB) \
		$(LIBS) -lcmocka

# each fuzz target also builds as a plain program that replays files
$(BUILD)/tests/fuzz_replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(LIB) $(LIBS)

# the program with allocation-failure injection (tests/cli/faults.sh)
$(BUILD)/tests/capplan-faults: $(BUILD)/obj/cmd/main.o $(LIB) tests/fault/fail_alloc.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc -o $@ \
		$(BUILD)/obj/cmd/main.o tests/fault/fail_alloc.c $(LIB) $(LIBS)

# the hand counts of the graphs tests/onnx/make_graphs.py builds
$(BUILD)/tests/onnx_counts: tests/onnx/onnx_counts.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

$(VALIDATE_SERVING): tests/validation/validate_serving.c tests/validation/table.c \
		tests/validation/table.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/validation/table.c \
		$(LIB) $(LIBS)

$(VALIDATE_EP): tests/validation/validate_ep.c tests/validation/table.c \
		tests/validation/table.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/validation/table.c \
		$(LIB) $(LIBS)

$(VALIDATE): tests/validation/validate.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

$(INTERVALS): tests/validation/intervals.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBS)

# The residuals of the validation rows, and the prediction intervals
# made from them (src/model/interval_table.c, specs/validation.md)
$(BUILD)/residuals.txt: $(VALIDATE) $(VALIDATE_SERVING) $(wildcard tests/validation/*.csv)
	@$(VALIDATE) tests/validation --residuals=$@.train >/dev/null || true
	@$(VALIDATE_SERVING) tests/validation --residuals=$@.serve >/dev/null || true
	@cat $@.train $@.serve > $@

intervals: $(BUILD)/residuals.txt $(INTERVALS)
	@$(INTERVALS) $< > src/model/interval_table.c.tmp
	@mv src/model/interval_table.c.tmp src/model/interval_table.c
	@echo "src/model/interval_table.c written from $<"

$(BENCH): tests/bench/bench.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

cli: $(BIN)
	@sh tests/cli/run.sh $(BIN)

validate: $(VALIDATE) $(VALIDATE_SERVING) $(VALIDATE_EP) $(INTERVALS) $(BUILD)/residuals.txt
	@$(VALIDATE) tests/validation
	@$(VALIDATE_SERVING) tests/validation
	@$(VALIDATE_EP) tests/validation
	@sh tests/validation/intervals.sh $(BUILD)

# How far 'capplan calibrate' carries on the public sets: calibrated on
# two rows of each group, the others held out (specs/calibration.md)
validate-calibration: $(BIN) $(VALIDATE) $(VALIDATE_SERVING)
	@python3 tests/validation/calibration.py $(BUILD)

test: $(BIN) $(UNIT_BIN) $(VALIDATE) $(VALIDATE_SERVING) $(VALIDATE_EP) $(INTERVALS) $(BUILD)/residuals.txt $(FUZZ_REPLAY) $(BUILD)/tests/capplan-faults $(BUILD)/tests/onnx_counts
	@sh tests/run.sh $(BUILD)

# libFuzzer with clang: make fuzz [FUZZ_TIME=seconds per target]; the
# corpus grows in build-fuzz/corpus; crashes land in build-fuzz/ and
# belong in tests/fuzz/regress/TARGET/ once fixed.  Undefined behaviour
# (a signed overflow, a bad shift) stops the fuzzer like a crash:
# -fno-sanitize-recover=all, as in the SANITIZE build.
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang and libclang-rt-dev (apt-get install clang)"; exit 2; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang \
		OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
		build-fuzz/libcapplan.a
	@set -e; failed=; for t in $(FUZZ_TARGETS); do \
		clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g $(INCLUDES) \
			-Ibuild-fuzz/gen $$(pkg-config --cflags libcjson) \
			-fsanitize=fuzzer $(FUZZ_SAN) \
			-o build-fuzz/fuzz_$$t tests/fuzz/fuzz_$$t.c \
			build-fuzz/libcapplan.a $(LIBS); \
		mkdir -p build-fuzz/corpus/$$t; \
		cp -n tests/fuzz/seeds/$$t/* tests/fuzz/regress/$$t/* \
			build-fuzz/corpus/$$t/ 2>/dev/null || true; \
		echo "== fuzz $$t for $(FUZZ_TIME)s"; \
		if (cd build-fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_TIME) \
			-max_len=8192 corpus/$$t >fuzz_$$t.log 2>&1); then \
			tail -3 build-fuzz/fuzz_$$t.log; \
		else \
			tail -30 build-fuzz/fuzz_$$t.log; \
			echo "FAILED: fuzz $$t (build-fuzz/fuzz_$$t.log)"; \
			failed="$$failed $$t"; \
		fi; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz findings:$$failed"; exit 1; fi

check:
	@$(MAKE) --no-print-directory WERROR=1 test

bench: $(BENCH) $(BIN)
	@$(BENCH)
	@sh tests/bench/commands.sh $(BIN) $(if $(INSTRUCTIONS),--instructions)

# Charts of the example workloads (needs gnuplot): examples/charts/*.svg
# (the chat example's prefix cache among them), and the HTML report of the
# serving example
charts: $(BIN)
	@mkdir -p examples/charts
	@set -e; for k in scaling cost-time memory roofline energy; do \
		$(BIN) plot $$k examples/llama3-70b.ini \
			-o examples/charts/llama3-70b-$$k.svg; done
	@set -e; for k in latency-throughput replicas roofline energy; do \
		$(BIN) plot $$k examples/llama3-70b-serving.ini \
			-o examples/charts/llama3-70b-serving-$$k.svg; done
	@$(BIN) plot cache examples/llama3-8b-chat.ini --gpu H100-SXM,B200 \
		-o examples/charts/llama3-8b-chat-cache.svg
	@$(BIN) report examples/llama3-70b-serving.ini \
		--gpu H100-SXM,H200-SXM,B200,MI300X \
		-o examples/charts/llama3-70b-serving-report.html

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/capplan
	install -m 644 man/capplan.1 $(DESTDIR)$(MANDIR)/man1/capplan.1
	install -m 644 scripts/capplan.bash $(DESTDIR)$(COMPLETIONDIR)/capplan

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/capplan $(DESTDIR)$(MANDIR)/man1/capplan.1 \
		$(DESTDIR)$(COMPLETIONDIR)/capplan

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/*/*.d)

# Mutation testing (tests/mutate.sh): documented wrong formulas seeded one
# at a time into a copy of the tree; a table of the tests that catch each
# (specs/validation.md).  make mutate [MUTATIONS="name ..."] [MUTATE_CLI=0]
mutate:
	@sh tests/mutate.sh $(MUTATIONS)

# Line coverage (needs gcovr: apt-get install gcovr) in build-cov/: the
# unit tests alone on src/model/model_*.c, then the whole of make test on src/.
COV := BUILD=build-cov OPT="-O0 -g --coverage" LDFLAGS=--coverage
COV_UNIT := $(UNIT_SRC:tests/unit/%.c=build-cov/tests/%)
coverage:
	@command -v gcovr >/dev/null || { echo "make coverage needs gcovr (apt-get install gcovr)"; exit 2; }
	@rm -rf build-cov
	@$(MAKE) --no-print-directory $(COV) build-cov/capplan $(COV_UNIT) >/dev/null
	@for t in $(COV_UNIT); do $$t >/dev/null 2>&1 || echo "FAILED: $$t"; done
	@echo "== unit tests alone, src/model/model_*.c"
	@gcovr -r . --object-directory build-cov/obj --filter 'src/model/.*\.c'
	@$(MAKE) --no-print-directory $(COV) test >build-cov/test.log 2>&1 || \
		{ tail -3 build-cov/test.log; echo "FAILED: make test (build-cov/test.log)"; }
	@echo "== make test, src/"
	@gcovr -r . --object-directory build-cov/obj --filter 'src/'

.PHONY: mutate coverage

# every CLI golden test under valgrind (memcheck): errors or definite
# leaks fail the case (exit 99); logs in $(BUILD)/valgrind/
valgrind: $(BIN)
	@mkdir -p $(BUILD)/valgrind
	@printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --log-file=%s/valgrind/vg.%%p %s "$$@"\n' \
		"$(CURDIR)/$(BUILD)" "$(CURDIR)/$(BIN)" > $(BUILD)/vg-capplan
	@chmod +x $(BUILD)/vg-capplan
	@sh tests/cli/run.sh $(BUILD)/vg-capplan
