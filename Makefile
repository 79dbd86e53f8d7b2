# gpusvm — build, test, demo.   `make` builds; `make test` installs what is missing (as root) and
# runs every test; `make asan` builds and tests with Address/UB sanitizers; `make demo` trains and
# predicts on data/heart_scale.
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CFLAGS  ?=
ALL_CFLAGS := -std=c11 -Wall -Wextra -Werror $(OPT) -g -D_DEFAULT_SOURCE -Isrc -I$(BUILD) -MMD -MP $(SAN) $(CFLAGS)
LDLIBS  := -lOpenCL -lz -lm
# src/<layer>/: util io data device train predict api make the library; cli/ the programs.
LAYERS  := util io data device train predict api
MAINS   := src/cli/train.c src/cli/predict.c src/cli/scale.c
LIBSRC  := $(wildcard $(LAYERS:%=src/%/*.c))
CLISRC  := $(filter-out $(MAINS),$(wildcard src/cli/*.c))
LIBOBJ  := $(LIBSRC:src/%.c=$(BUILD)/obj/%.o) $(CLISRC:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/kernels_embed.o
KERNELS := $(wildcard kernels/*.cl)
TESTSRC := $(wildcard tests/unit/*.c tests/device/*.c)
TESTBIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TESTSRC))
BINS    := $(BUILD)/gpusvm-train $(BUILD)/gpusvm-predict $(BUILD)/gpusvm-scale

.PHONY: all test check asan demo clean deps tests fuzz fuzz-build fuzz-harnesses
.SECONDARY:
all: $(BINS)
	@ln -sf $(BUILD)/gpusvm-train gpusvm-train
	@ln -sf $(BUILD)/gpusvm-predict gpusvm-predict
	@ln -sf $(BUILD)/gpusvm-scale gpusvm-scale

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/kernels_embed.c: $(KERNELS) scripts/embed-kernels.sh | $(BUILD)/obj
	sh scripts/embed-kernels.sh $(KERNELS) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/kernels_embed.o: $(BUILD)/kernels_embed.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libgs.a: $(LIBOBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gpusvm-%: $(BUILD)/obj/cli/%.o $(BUILD)/libgs.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/testlib.h $(BUILD)/libgs.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(BUILD)/libgs.a $(LDLIBS)

$(BUILD)/obj:
	mkdir -p $@

# test tools: programs the shell tests call, independent of gpusvm's code
$(BUILD)/tests/tools/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lm

tests: $(BINS) $(TESTBIN) $(BUILD)/tests/tools/kkt_check

deps:
	sh scripts/install-deps.sh

test check: deps
	$(MAKE) tests
	BUILD=$(BUILD) sh tests/run.sh

# ASAN_OPTIONS: the user's own settings come last, so they win. use_sigaltstack=0 because PoCL's
# LLVM installs its own (malloc'd) alternate signal stack on the threads that call it, and at
# thread exit gcc 12's ASan (Debian 12) unmaps whatever alternate stack is registered as if it were
# its own: "AddressSanitizer: CHECK failed ... unable to unmap", abort (fixed upstream in LLVM's
# compiler-rt, PR 179000). Without its own stack ASan still reports every memory error; only a
# stack overflow is no longer diagnosed as such.
asan:
	$(MAKE) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" tests
	BUILD=build-asan ASAN_OPTIONS="detect_leaks=1:use_sigaltstack=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}" sh tests/run.sh

# libFuzzer harnesses (tests/fuzz/fuzz_*.c, clang only): the library built again with coverage and
# sanitizers in build-fuzz/, each harness run FUZZ_SECONDS on its seed corpus (tests/fuzz/run.sh).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h $(BUILD)/libgs.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< $(BUILD)/libgs.a $(LDLIBS)

fuzz-harnesses: $(FUZZ_BINS)

fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=$(FUZZ_CC) OPT=-O1 SAN="$(FUZZ_SAN)" fuzz-harnesses

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_NOBUILD=1 sh tests/fuzz/run.sh

demo: deps all
	./gpusvm-train data/heart_scale $(BUILD)/heart_scale.model
	./gpusvm-predict data/heart_scale $(BUILD)/heart_scale.model $(BUILD)/heart_scale.out

clean:
	rm -rf build build-* gpusvm-train gpusvm-predict gpusvm-scale

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/*/*.d)
