# gpusvm — build, test, demo.   `make` builds; `make test` installs what is missing (as root) and
# runs every test; `make asan` builds and tests with Address/UB sanitizers; `make demo` trains and
# predicts on data/heart_scale; `make lib` builds libgpusvm.{a,so} (include/svm.h's API);
# `make install [PREFIX=/usr/local] [DESTDIR=]` installs programs, header, libraries, pkg-config
# file and man pages.
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CFLAGS  ?=
ALL_CFLAGS := -std=c11 -Wall -Wextra -Werror $(OPT) -g -D_DEFAULT_SOURCE -Isrc -Iinclude -I. -I$(BUILD) -MMD -MP $(SAN) $(CFLAGS)
LDLIBS  := -lOpenCL -lz -lm
# src/<layer>/: util io data device train predict api make the library; cli/ the programs.
LAYERS  := util io data device train predict api
MAINS   := src/cli/train.c src/cli/predict.c src/cli/scale.c src/cli/grid.c
LIBSRC  := $(wildcard $(LAYERS:%=src/%/*.c))
CLISRC  := $(filter-out $(MAINS),$(wildcard src/cli/*.c))
LIBOBJ  := $(LIBSRC:src/%.c=$(BUILD)/obj/%.o) $(CLISRC:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/kernels_embed.o
# kernels/*.cl and the header they share with the host (kernels/abi.h), embedded into the library
KERNELS := $(wildcard kernels/*.cl) kernels/abi.h
TESTSRC := $(wildcard tests/unit/*.c tests/device/*.c)
TESTBIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TESTSRC))
BINS    := $(BUILD)/gpusvm-train $(BUILD)/gpusvm-predict $(BUILD)/gpusvm-scale $(BUILD)/gpusvm-grid
# The library: the layers again, as position-independent objects of their own with only svm.h's
# names exported (svm.h sets their visibility); the soname's major follows GPUSVM_VERSION's.
VERSION := $(shell sed -n 's/^\#define GPUSVM_VERSION "\(.*\)"/\1/p' include/svm.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
PICOBJ  := $(LIBSRC:src/%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/kernels_embed.o
LIBS    := $(BUILD)/libgpusvm.a $(BUILD)/libgpusvm.so
PREFIX  ?= /usr/local
DESTDIR ?=

.PHONY: all test check asan demo clean deps tests fuzz fuzz-build fuzz-harnesses lib install FORCE
.SECONDARY:
all: $(BINS)
	@ln -sf $(BUILD)/gpusvm-train gpusvm-train
	@ln -sf $(BUILD)/gpusvm-predict gpusvm-predict
	@ln -sf $(BUILD)/gpusvm-scale gpusvm-scale
	@ln -sf $(BUILD)/gpusvm-grid gpusvm-grid

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

# gpusvm-grid with MPI (src/cli/grid.c built with GS_MPI by $(MPICC), Open MPI's mpicc by default):
# $(BUILD)/gpusvm-grid-mpi; `make MPI=1` makes it gpusvm-grid itself. The rest of gpusvm does not
# know MPI. The plain build needs no MPI; `make tests` builds the MPI one too when $(MPICC) exists.
MPICC   ?= mpicc
MPI     ?=
$(BUILD)/obj/cli/grid-mpi.o: src/cli/grid.c | $(BUILD)/obj
	$(MPICC) $(ALL_CFLAGS) -DGS_MPI -c $< -o $@

$(BUILD)/gpusvm-grid-mpi: $(BUILD)/obj/cli/grid-mpi.o $(BUILD)/libgs.a
	$(MPICC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# which of the two gpusvm-grid is: relinked when MPI changes
$(BUILD)/grid-mpi.flag: FORCE | $(BUILD)/obj
	@echo '$(MPI)' | cmp -s - $@ || echo '$(MPI)' > $@

ifeq ($(MPI),1)
$(BUILD)/gpusvm-grid: $(BUILD)/gpusvm-grid-mpi $(BUILD)/grid-mpi.flag
	cp $< $@
else
$(BUILD)/gpusvm-grid: $(BUILD)/obj/cli/grid.o $(BUILD)/libgs.a $(BUILD)/grid-mpi.flag
	$(CC) $(ALL_CFLAGS) -o $@ $(filter-out %.flag,$^) $(LDLIBS)
endif
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)

$(BUILD)/tests/%: tests/%.c tests/testlib.h $(BUILD)/libgs.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -o $@ $< $(BUILD)/libgs.a $(LDLIBS)

$(BUILD)/obj:
	mkdir -p $@

$(BUILD)/pic/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/pic/kernels_embed.o: $(BUILD)/kernels_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/libgpusvm.a: $(PICOBJ)
	rm -f $@ && ar rcs $@ $^

# -z defs: every symbol resolved at link time, so a missing one fails here, not in a user's program.
# The .so.N link lets programs linked in the build tree run from it (LD_LIBRARY_PATH=$(BUILD)).
$(BUILD)/libgpusvm.so: $(PICOBJ)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libgpusvm.so.$(SOMAJOR) -Wl,-z,defs -o $@ $^ $(LDLIBS) -lpthread
	ln -sf libgpusvm.so $@.$(SOMAJOR)

lib: $(LIBS)

# bin/, include/gpusvm/svm.h, lib/libgpusvm.{a,so} with their soname links, lib/gpusvm/libsvm.so.3
# (LIBSVM's library name, for programs and bindings built against LIBSVM: LD_LIBRARY_PATH=lib/gpusvm),
# lib/pkgconfig/gpusvm.pc and share/man/man1. gpusvm-scale goes along once it is built.
INSTALL_BINS := $(sort $(BINS) $(wildcard $(BUILD)/gpusvm-scale))
install: $(BINS) $(LIBS)
	@d='$(DESTDIR)$(PREFIX)'; set -e; \
	install -d "$$d/bin" "$$d/include/gpusvm" "$$d/lib/gpusvm" "$$d/lib/pkgconfig" "$$d/share/man/man1"; \
	install -m 755 $(INSTALL_BINS) "$$d/bin/"; \
	install -m 644 include/svm.h "$$d/include/gpusvm/svm.h"; \
	install -m 644 $(BUILD)/libgpusvm.a "$$d/lib/libgpusvm.a"; \
	install -m 755 $(BUILD)/libgpusvm.so "$$d/lib/libgpusvm.so.$(VERSION)"; \
	ln -sf libgpusvm.so.$(VERSION) "$$d/lib/libgpusvm.so.$(SOMAJOR)"; \
	ln -sf libgpusvm.so.$(SOMAJOR) "$$d/lib/libgpusvm.so"; \
	ln -sf ../libgpusvm.so.$(VERSION) "$$d/lib/gpusvm/libsvm.so.3"; \
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: gpusvm' 'Description: GPU SVM training and prediction (OpenCL) behind LIBSVM'"'"'s svm.h API' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir}/gpusvm' 'Libs: -L$${libdir} -lgpusvm' \
	  'Libs.private: -lOpenCL -lz -lm -lpthread' > "$$d/lib/pkgconfig/gpusvm.pc"; \
	install -m 644 man/*.1 "$$d/share/man/man1/"; \
	echo "installed gpusvm $(VERSION) in $$d"

# test tools: programs the shell tests call, independent of gpusvm's code
$(BUILD)/tests/tools/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lm

tests: $(BINS) $(LIBS) $(TESTBIN) $(BUILD)/tests/tools/kkt_check $(if $(HAVE_MPICC),$(BUILD)/gpusvm-grid-mpi)

deps:
	sh scripts/install-deps.sh

# the build on every CPU unless make was given -j; tests/run.sh runs the tests as many at a time
NPROC   := $(shell nproc 2>/dev/null || echo 1)
JFLAG    = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
test check: deps
	$(MAKE) $(JFLAG) tests
	BUILD=$(BUILD) sh tests/run.sh

# ASAN_OPTIONS: the user's own settings come last, so they win. use_sigaltstack=0 because PoCL's
# LLVM installs its own (malloc'd) alternate signal stack on the threads that call it, and at
# thread exit gcc 12's ASan (Debian 12) unmaps whatever alternate stack is registered as if it were
# its own: "AddressSanitizer: CHECK failed ... unable to unmap", abort (fixed upstream in LLVM's
# compiler-rt, PR 179000). Without its own stack ASan still reports every memory error; only a
# stack overflow is no longer diagnosed as such. LSAN_OPTIONS: tests/lsan.supp leaves out what
# PoCL and its LLVM leak when they compile a program (only when PoCL's cache lacks it).
asan:
	$(MAKE) $(JFLAG) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" tests
	BUILD=build-asan ASAN_OPTIONS="detect_leaks=1:use_sigaltstack=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}" \
	    LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0$${LSAN_OPTIONS:+:$$LSAN_OPTIONS}" sh tests/run.sh

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
	rm -rf build build-* gpusvm-train gpusvm-predict gpusvm-scale gpusvm-grid

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/*/*.d $(BUILD)/pic/*.d $(BUILD)/pic/*/*.d)
