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
MAINS   := src/train.c src/predict.c src/scale.c
LIBSRC  := $(filter-out $(MAINS),$(wildcard src/*.c))
LIBOBJ  := $(LIBSRC:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/kernels_embed.o
KERNELS := $(wildcard kernels/*.cl)
TESTSRC := $(wildcard tests/unit/*.c tests/device/*.c)
TESTBIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TESTSRC))
BINS    := $(BUILD)/gpusvm-train $(BUILD)/gpusvm-predict

.PHONY: all test check asan demo clean deps tests
.SECONDARY:
all: $(BINS)
	@ln -sf $(BUILD)/gpusvm-train gpusvm-train
	@ln -sf $(BUILD)/gpusvm-predict gpusvm-predict

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/kernels_embed.c: $(KERNELS) scripts/embed-kernels.sh | $(BUILD)/obj
	sh scripts/embed-kernels.sh $(KERNELS) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/kernels_embed.o: $(BUILD)/kernels_embed.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libgs.a: $(LIBOBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gpusvm-%: $(BUILD)/obj/%.o $(BUILD)/libgs.a
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

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" tests
	BUILD=build-asan ASAN_OPTIONS=detect_leaks=1 sh tests/run.sh

demo: deps all
	./gpusvm-train data/heart_scale $(BUILD)/heart_scale.model
	./gpusvm-predict data/heart_scale $(BUILD)/heart_scale.model $(BUILD)/heart_scale.out

clean:
	rm -rf build build-* gpusvm-train gpusvm-predict

-include $(wildcard $(BUILD)/obj/*.d)
