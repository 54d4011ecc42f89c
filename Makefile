# mergepath: PGXS build of the extension, its C tests and its benchmarks.
#
#   make && make install            the extension (CUDA backend when nvcc is found)
#   make installcheck               pg_regress against a running server
#   make installcheck-cpu / -gpu    the same suite with mergepath.device forced
#   make check-c                    C tests of the backends (GPU too when present)
#   make check-readme               the README's SQL examples against their outputs
#   make bench                      kernel-level benchmarks (need nvcc)
#
# NVCC= builds the CPU backend alone; CUDA_ARCHS picks the GPU targets.

EXTENSION = mergepath
MODULE_big = mergepath
DATA = mergepath--0.1.sql mergepath--0.1--0.2.sql mergepath--0.2--0.3.sql \
	mergepath--0.3--0.4.sql mergepath--0.4.sql
PGFILEDESC = "mergepath - GPU merge-like primitives for sorted arrays"

REGRESS = merge errors setops search sort info sort_node join_node upgrade

PG_CONFIG ?= pg_config
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90

GLUE_OBJS = src/mergepath.o src/arrays.o src/dispatch.o src/merge.o src/setops.o src/search.o \
	src/join.o src/sort.o src/aggregates.o src/sort_plan.o src/sort_node.o \
	src/join_plan.o src/join_node.o src/node_memory.o
CPU_OBJS = src/cpu_backend.o src/cpu_rows.o
ifneq ($(NVCC),)
GPU_OBJS = cuda/gpu_context.o cuda/gpu_merge.o cuda/gpu_setops.o cuda/gpu_search.o \
	cuda/gpu_sort.o cuda/gpu_rows.o
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -lrt -ldl -lpthread
else
GPU_OBJS = src/gpu_absent.o
# said once, by the make that builds (not by install or the test targets)
ifeq ($(MAKELEVEL)$(filter-out all test/test_backends,$(or $(MAKECMDGOALS),all)),0)
$(info mergepath: no nvcc found (set NVCC or CUDA_HOME); building the CPU backend only)
endif
endif

OBJS = $(GLUE_OBJS) $(CPU_OBJS) $(GPU_OBJS)
SHLIB_LINK += $(CUDA_LIBS)
PG_CFLAGS = -std=gnu11 -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-sign-compare $(if $(WERROR),-Werror)
EXTRA_CLEAN = .build-flags test/test_backends test/bench/bench_merge test/bench/bench_setops \
	test/bench/bench_search test/bench/bench_sort test/bench/bench_cpu cuda/*.o

# PGXS would make LLVM bitcode of every object, and has no rule for .cu.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

NVCC_FLAGS = -O3 -std=c++17 $(CUDA_ARCHS) -Xcompiler -fPIC,-Wall,-Wextra \
	$(if $(WERROR),-Werror all-warnings)

# Every object depends on the flags it was built with: a build with other
# ones (WERROR=1, NVCC=, CUDA_ARCHS) compiles everything again.
BUILD_FLAGS = $(CFLAGS) $(PG_CFLAGS) | $(NVCC) $(NVCC_FLAGS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' >$@
$(OBJS): .build-flags
.PHONY: FORCE
CUDA_HEADERS = $(wildcard cuda/*.cuh) src/mergepath.h src/mp_order.h

cuda/%.o: cuda/%.cu $(CUDA_HEADERS)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

$(GLUE_OBJS) $(CPU_OBJS) src/gpu_absent.o: src/mergepath.h src/mp_order.h src/mp_glue.h \
	src/mp_nodes.h src/cpu_impl.h src/cpu_merge_impl.h src/cpu_setop_impl.h src/cpu_search_impl.h \
	src/cpu_sort_impl.h

# C tests: the backends alone, no server.
TEST_SRCS = test/harness.c test/test_merge.c test/test_setops.c test/test_search.c \
	test/test_sort.c test/test_rows.c
test/test_backends: $(TEST_SRCS) test/harness.h test/reference.h $(CPU_OBJS) $(GPU_OBJS) \
	src/mergepath.h
	$(CC) $(CFLAGS) $(PG_CFLAGS) -O2 -Isrc -o $@ $(TEST_SRCS) $(CPU_OBJS) $(GPU_OBJS) \
		$(CUDA_LIBS) -lm

check-c: test/test_backends
	test/test_backends

test/bench/%: test/bench/%.cu test/bench/bench_common.cuh $(CUDA_HEADERS) $(CPU_OBJS)
	$(NVCC) -O3 -std=c++17 $(CUDA_ARCHS) -Xcompiler -Wall,-Wextra -Isrc -o $@ $< $(CPU_OBJS)

bench: test/bench/bench_merge test/bench/bench_setops test/bench/bench_search \
	test/bench/bench_sort test/bench/bench_cpu

installcheck-cpu:
	$(MAKE) installcheck PGOPTIONS="-c mergepath.device=cpu"

installcheck-gpu:
	$(MAKE) installcheck PGOPTIONS="-c mergepath.device=gpu"

check-readme:
	test/readme_examples.pl README.md

.PHONY: check-c check-readme bench installcheck-cpu installcheck-gpu

test/bench/bench_cpu: test/bench/bench_cpu.c $(CPU_OBJS) src/mergepath.h
	$(CC) $(CFLAGS) $(PG_CFLAGS) -O2 -Isrc -o $@ test/bench/bench_cpu.c $(CPU_OBJS) -lm
