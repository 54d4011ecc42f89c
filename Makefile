# mergepath: PGXS build of the extension, its C tests and its benchmarks.
#
#   make && make install            the extension (CUDA backend when nvcc is found)
#   make installcheck               pg_regress against a running server
#   make installcheck-cpu / -gpu    the same suite with mergepath.device forced
#   make check-c                    C tests of the backends (GPU too when present)
#   make check-tiles                the batch kernels' threads run on the host (nvcc)
#   make check-readme               the SQL examples of README.md and docs/ against their outputs
#   make check-c-sanitized          the C tests of the CPU backend under ASan and UBSan
#   make check-fuzz                 libFuzzer over the CPU backend (clang), FUZZ_SECONDS
#   make check-citus                the Citus suite on a throwaway cluster (builds Citus)
#   make bench                      kernel-level benchmarks (need nvcc)
#
# NVCC= builds the CPU backend alone; CUDA_ARCHS picks the GPU targets.

EXTENSION = mergepath
MODULE_big = mergepath
# mergepath.sql is the current version's install script, the one to edit;
# the build names it after default_version.  mergepath--0.1.sql and the
# upgrade scripts bring databases made by earlier versions up to date (and
# let the upgrade test compare such a database with a fresh one).
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" mergepath.control)
DATA = mergepath--0.1.sql mergepath--0.1--0.2.sql mergepath--0.2--0.3.sql \
	mergepath--0.3--0.4.sql mergepath--0.4--0.5.sql
DATA_built = mergepath--$(EXTVERSION).sql
PGFILEDESC = "mergepath - GPU merge-like primitives for sorted arrays"

REGRESS = merge errors setops search sort info sort_node join_node join_parallel batch upgrade

PG_CONFIG ?= pg_config
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90

# The layers, each a folder (docs/architecture.md): the SQL functions'
# entry points, the executor nodes and their planner hooks, the run of an
# operation on a backend, the module's settings; then the backends behind
# the C API (src/api): the CPU's and the CUDA one.
FUNCTION_OBJS = $(patsubst %.c,%.o,$(wildcard src/functions/*.c))
NODE_OBJS = $(patsubst %.c,%.o,$(wildcard src/nodes/*.c))
RUN_OBJS = $(patsubst %.c,%.o,$(wildcard src/run/*.c))
GLUE_OBJS = src/module.o $(FUNCTION_OBJS) $(NODE_OBJS) $(RUN_OBJS)
CPU_OBJS = $(patsubst %.c,%.o,$(wildcard src/cpu/*.c))
ifneq ($(NVCC),)
GPU_OBJS = $(patsubst %.cu,%.o,$(wildcard cuda/host/*.cu))
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -lrt -ldl -lpthread
else
GPU_OBJS = cuda/absent.o
# said once, by the make that builds (not by install or the test targets)
ifeq ($(MAKELEVEL)$(filter-out all test/test_backends,$(or $(MAKECMDGOALS),all)),0)
$(info mergepath: no nvcc (set NVCC or CUDA_HOME): the CPU backend only)
endif
endif

OBJS = $(GLUE_OBJS) $(CPU_OBJS) $(GPU_OBJS)
SHLIB_LINK += $(CUDA_LIBS) -lpthread

PG_CFLAGS = -std=gnu11 -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-sign-compare $(if $(WERROR),-Werror)
EXTRA_CLEAN = .build-flags cuda/.build-flags test/test_backends test/test_tiles test/test_backends_san test/gpu_hog test/fuzz/fuzz_cpu \
	test/fuzz/corpus test/fuzz/fuzz.log test/bench/bench_merge test/bench/bench_setops \
	test/bench/bench_search test/bench/bench_sort test/bench/bench_runs test/bench/bench_cpu \
	test/bench/bench_batch cuda/host/*.o cuda/absent.o

# PGXS would make LLVM bitcode of every object, and has no rule for .cu.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

mergepath--$(EXTVERSION).sql: mergepath.sql
	cp $< $@

NVCC_FLAGS = -O3 -std=c++17 $(CUDA_ARCHS) -Xcompiler -fPIC,-Wall,-Wextra \
	$(if $(WERROR),-Werror all-warnings)

# Every object depends on the flags it was built with: a build with other
# ones (WERROR=1, NVCC=, another server's CFLAGS) compiles its objects again.
# The CUDA objects know no PostgreSQL: their flags are apart, so a build
# against another server keeps them.
BUILD_FLAGS = $(CFLAGS) $(PG_CFLAGS) | $(NVCC)
CUDA_BUILD_FLAGS = $(NVCC) $(NVCC_FLAGS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' >$@
cuda/.build-flags: FORCE
	@echo '$(CUDA_BUILD_FLAGS)' | cmp -s - $@ || echo '$(CUDA_BUILD_FLAGS)' >$@
$(GLUE_OBJS) $(CPU_OBJS) cuda/absent.o: .build-flags
$(GPU_OBJS): cuda/.build-flags
.PHONY: FORCE
API_HEADERS = $(wildcard src/api/*.h)
CUDA_HEADERS = $(wildcard cuda/kernels/*.cuh cuda/kernels/*/*.cuh cuda/host/*.cuh) $(API_HEADERS)

cuda/host/%.o: cuda/host/%.cu $(CUDA_HEADERS)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

CPU_HEADERS = $(wildcard src/cpu/*.h) $(API_HEADERS)
$(CPU_OBJS) cuda/absent.o: $(CPU_HEADERS)
$(GLUE_OBJS): $(wildcard src/*.h src/*/*.h)

# C tests: the backends alone, no server.
TEST_SRCS = test/harness.c test/test_merge.c test/test_setops.c test/test_search.c \
	test/test_sort.c test/test_rows.c test/test_runs.c test/test_batch.c
test/test_backends: $(TEST_SRCS) test/harness.h test/reference.h $(CPU_OBJS) $(GPU_OBJS) \
	$(API_HEADERS)
	$(CC) $(CFLAGS) $(PG_CFLAGS) -O2 -Isrc -o $@ $(TEST_SRCS) $(CPU_OBJS) $(GPU_OBJS) \
		$(CUDA_LIBS) -lpthread -lm

check-c: test/test_backends
	test/test_backends --suite search,rows,merge,batch & a=$$!; \
	test/test_backends --suite sort,setops,runs & b=$$!; \
	wait $$a && wait $$b

# The batch kernels' threads run on the host (test/test_tiles.cu): the
# device's own code, a thread at a time, so that a machine without a GPU
# checks it; it needs nvcc to build, and says so where there is none.
test/test_tiles: test/test_tiles.cu test/reference.h $(CUDA_HEADERS)
	$(NVCC) -O2 -std=c++17 -arch=sm_90 -Xcompiler -Wall,-Wextra \
		$(if $(WERROR),-Werror all-warnings) -Isrc -Itest -o $@ $<

ifneq ($(NVCC),)
check-tiles: test/test_tiles
	test/test_tiles
else
check-tiles:
	@echo "batch kernels' threads on the host: not built (no nvcc)"
endif

# The same tests of the CPU backend built with AddressSanitizer and
# UndefinedBehaviorSanitizer (no CUDA: the GPU's own checks are
# compute-sanitizer's, test/gpu-tests.sh); the suites in two processes.
SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
CPU_SRCS = $(wildcard src/cpu/*.c)
test/test_backends_san: $(TEST_SRCS) test/harness.h test/reference.h $(CPU_SRCS) cuda/absent.c \
	$(CPU_HEADERS)
	$(CC) -std=gnu11 $(SAN_FLAGS) $(PG_CFLAGS) -Isrc -o $@ $(TEST_SRCS) $(CPU_SRCS) \
		cuda/absent.c -lpthread -lm

check-c-sanitized: test/test_backends_san
	test/test_backends_san --cpu --suite search,rows,merge,batch & a=$$!; \
	test/test_backends_san --cpu --suite sort,setops,runs & b=$$!; \
	wait $$a && wait $$b

# libFuzzer over the CPU backend's C API (test/fuzz/fuzz_cpu.c), with ASan
# and UBSan, from the corpus kept in test/fuzz/corpus.hex (an input a line,
# in hex), for FUZZ_SECONDS.  make fuzz-corpus folds what a run found into
# corpus.hex, keeping one input per coverage edge.
CLANG ?= clang
FUZZ_SECONDS ?= 60
test/fuzz/fuzz_cpu: test/fuzz/fuzz_cpu.c test/reference.h $(CPU_SRCS) $(CPU_HEADERS)
	$(CLANG) -std=gnu11 $(SAN_FLAGS) -fsanitize=fuzzer -Wall -Wextra -Wno-unused-parameter \
		-Wno-sign-compare -Werror -Isrc -Itest -o $@ test/fuzz/fuzz_cpu.c $(CPU_SRCS) -lpthread -lm

test/fuzz/corpus: test/fuzz/corpus.hex
	rm -rf $@ && mkdir -p $@
	perl -ne 'chomp; open(my $$f, ">", sprintf("$@/%05d", $$.)) or die; print $$f pack("H*", $$_)' $<

check-fuzz: test/fuzz/fuzz_cpu test/fuzz/corpus
	test/fuzz/fuzz_cpu -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=test/fuzz/ test/fuzz/corpus >test/fuzz/fuzz.log 2>&1; st=$$?; \
	grep -E '^(INFO: seed|Done|stat::number_of_executed_units|stat::new_units_added)' \
		test/fuzz/fuzz.log; \
	[ $$st -eq 0 ] || { tail -40 test/fuzz/fuzz.log; exit 1; }

fuzz-corpus: test/fuzz/fuzz_cpu test/fuzz/corpus
	rm -rf test/fuzz/corpus.min && mkdir test/fuzz/corpus.min
	test/fuzz/fuzz_cpu -merge=1 -use_counters=0 test/fuzz/corpus.min test/fuzz/corpus
	for f in test/fuzz/corpus.min/*; do od -An -v -tx1 "$$f" | tr -d ' \n'; echo; done | \
		sort >test/fuzz/corpus.hex
	rm -rf test/fuzz/corpus.min

# Another process that takes the GPU's memory, for the GPU tests.
test/gpu_hog: test/gpu_hog.cu
	$(NVCC) -O2 $(CUDA_ARCHS) -o $@ $<

test/bench/%: test/bench/%.cu test/bench/bench_common.cuh $(CUDA_HEADERS) $(CPU_OBJS)
	$(NVCC) -O3 -std=c++17 $(CUDA_ARCHS) -Xcompiler -Wall,-Wextra -Isrc -o $@ $< $(CPU_OBJS)

# The batch's benchmark calls the backend's entry point too (for its checks).
test/bench/bench_batch: test/bench/bench_batch.cu test/bench/bench_common.cuh $(CUDA_HEADERS) \
	$(CPU_OBJS) $(GPU_OBJS)
	$(NVCC) -O3 -std=c++17 $(CUDA_ARCHS) -Xcompiler -Wall,-Wextra -Isrc -o $@ $< $(CPU_OBJS) \
		$(GPU_OBJS) -lpthread

bench: test/bench/bench_merge test/bench/bench_setops test/bench/bench_search \
	test/bench/bench_sort test/bench/bench_runs test/bench/bench_cpu test/bench/bench_batch

installcheck-cpu:
	$(MAKE) installcheck PGOPTIONS="-c mergepath.device=cpu"

installcheck-gpu:
	$(MAKE) installcheck PGOPTIONS="-c mergepath.device=gpu"

check-readme:
	test/readme_examples.pl

# a coordinator and two workers on this machine (test/citus/cluster.sh);
# CITUS_OPTS adds settings, as -o name=value (every node) or -w (workers)
check-citus:
	test/citus/build.sh
	test/citus/cluster.sh $(CITUS_OPTS) -- $(dir $(PGXS))../../src/test/regress/pg_regress \
		--bindir='$(bindir)' --use-existing --dbname=postgres --inputdir=test/citus \
		--outputdir=test/citus citus || \
		{ cat test/citus/regression.diffs 2>/dev/null; exit 1; }

.PHONY: check-c check-tiles check-c-sanitized check-fuzz fuzz-corpus check-readme check-citus bench installcheck-cpu \
	installcheck-gpu

test/bench/bench_cpu: test/bench/bench_cpu.c $(CPU_OBJS) $(API_HEADERS)
	$(CC) $(CFLAGS) $(PG_CFLAGS) -O2 -Isrc -o $@ test/bench/bench_cpu.c $(CPU_OBJS) -lpthread -lm
