# flametop: a live, top-style eBPF profiler for the terminal.
#
#   make          build ./flametop (installs missing build packages first)
#   make run      build, then start flametop as root (or through sudo)
#   make test     build, then run every test; ends with "N passed, N failed"
#   make static   build a fully static binary: build/static/flametop
#   make bench    measure flametop's cost (writes BENCH.md; not part of make test)
#   make soak     30 minutes of process churn under the live screen: RSS and fds
#                 stay flat (not part of make test)
#   make fuzz     each fuzz target (tests/fuzz/fuzz_*.c, libFuzzer with ASan and UBSan)
#                 for FUZZ_SECONDS (default 180) from its seed corpus (not part of
#                 make test, which runs each over its seeds once)
#   make deps     install whatever is missing with apt-get
#   make install  install flametop and its man page under PREFIX (default /usr/local),
#                 DESTDIR prepended for staging
#
# VMLINUX_H=path uses a ready vmlinux.h instead of generating one from
# /sys/kernel/btf/vmlinux.

BUILD     := build
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    := $(PREFIX)/bin
MANDIR    := $(PREFIX)/share/man/man1
CC        ?= gcc
CLANG     ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL   ?= $(shell PATH="$$PATH:/usr/sbin:/sbin" command -v bpftool || echo bpftool)
VMLINUX_H ?= $(BUILD)/vmlinux.h
ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/')

CFLAGS    ?= -O2 -g
WARNINGS  := -Wall -Wextra -Werror
CPPFLAGS  += -D_GNU_SOURCE -I. -I$(BUILD)
# Evaluated when a recipe runs, after `deps` has installed pkg-config.
LIBS       = $(shell pkg-config --libs libbpf libdw libelf ncursesw liblzma zlib libprotobuf-c \
	capstone) -liberty
STATIC_LIBS = -Wl,-Bstatic -lbpf -ldw -lelf -lbz2 -lz -lncursesw -ltinfo -llzma -lprotobuf-c -liberty \
	-lcapstone -pthread

# Debian packages flametop needs to build, test and benchmark (capstone decodes the
# instructions of the annotate view).
DEB_PACKAGES := gcc g++ make binutils libc6-dev clang llvm libbpf-dev libelf-dev zlib1g-dev \
	libncurses-dev liblzma-dev libiberty-dev libdw-dev libbz2-dev pkg-config libcmocka-dev tmux \
	procps libprotobuf-c-dev protobuf-c-compiler groff-base libcapstone-dev
# ... and the consumers the tests check its output with (make test, make screenshots):
# a browser for the SVG, Go's pprof, perf for perf script's text and the unwinder's
# ground truth, an XML checker; Debian's python3 as a program to unwind (its binary has
# no frame pointers: tests/integration/unwind.sh, test_cfi_table) and whose Python frames to
# walk (tests/integration/python.sh), with its headers (python3-dev) to check the walk's
# offsets against (test_python); GNU time for the benchmarks; strace, to see which system
# calls flametop makes (tests/integration/processes.sh); bpftrace, whose print of a map keyed
# by stacks -i reads (tests/integration/formats_live.sh); libc's debug file and sources, the
# annotate view's lines and text of a libc function (tests/integration/annotate.sh).
TEST_DEB_PACKAGES := chromium golang-go linux-perf libxml2-utils python3 python3-dev time strace \
	bpftrace libclang-rt-14-dev libxml2-dev libc6-dbg glibc-source
# (libclang-rt-14-dev: clang's libFuzzer and sanitizer runtimes, for the fuzz targets;
# libxml2-dev: they check that the SVG written is well-formed XML.)

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
LIB_SRCS  := $(filter-out %.bpf.c,$(wildcard bpf/*.c symbols/*.c unwind/*.c python/*.c profile/*.c tui/*.c \
	live/*.c)) options.c
# C code protoc-c generates from the .proto files (pprof's format), into build/.
PROTO_SRCS := $(patsubst %.proto,$(BUILD)/%.pb-c.c,$(wildcard profile/*.proto))
PROTO_HDRS := $(PROTO_SRCS:.c=.h)
LIB_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) \
	$(patsubst $(BUILD)/%.c,$(BUILD)/obj/%.o,$(PROTO_SRCS))
ASAN_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(LIB_SRCS)) \
	$(patsubst $(BUILD)/%.c,$(BUILD)/asan/%.o,$(PROTO_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_HDRS := $(wildcard tests/unit/*.h)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
ASAN_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/asan/%,$(UNIT_SRCS))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.c))
BENCHES   := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))
TOOLS     := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))
HEADERS   := $(wildcard bpf/*.h symbols/*.h unwind/*.h python/*.h profile/*.h tui/*.h live/*.h) \
	$(wildcard *.h) \
	$(PROTO_HDRS)
SANITIZE  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Fuzz targets: libFuzzer programs built by clang, with the sanitizers above, against the
# project's objects built by clang the same way (in their own directory, build/fuzz/obj).
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS)) \
	$(patsubst $(BUILD)/%.c,$(BUILD)/fuzz/obj/%.o,$(PROTO_SRCS))
FUZZ_SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_SECONDS ?= 180
FUZZ_LIBS  = $(shell pkg-config --libs libxml-2.0)
FUZZ_CFLAGS = $(shell pkg-config --cflags libxml-2.0)

.PHONY: all deps test-deps run test static bench soak screenshots docs clean build-all build-tests \
	install fuzz

# $(call AS_ROOT,why): sets as_root to how a recipe runs a command as root:
# itself when root, else sudo; without sudo, one line says what to do and
# the recipe fails.
define AS_ROOT
if [ "$$(id -u)" = 0 ]; then as_root=""; \
elif command -v sudo >/dev/null 2>&1; then as_root=sudo; \
else echo "make $@: $(1) needs root, and sudo is not installed: run 'make $@' as root (su -c 'make $@')" >&2; exit 2; fi
endef

# Keep intermediate objects (sanitized objects, BPF objects) between runs.
.SECONDARY:

all: deps
	@$(MAKE) --no-print-directory build-all

build-all: flametop

# Installs every missing package of $(1) in one apt-get call; quick when nothing is missing.
define install_missing
	@missing=""; \
	for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	PATH="$$PATH:/usr/sbin:/sbin" command -v bpftool >/dev/null 2>&1 || missing="$$missing bpftool"; \
	if [ -n "$$missing" ]; then \
		$(call AS_ROOT,installing$$missing); \
		echo "make: installing$$missing"; \
		$$as_root apt-get update -qq && \
		$$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$(echo $$missing | sed 's/bpftool//') && \
		if ! PATH="$$PATH:/usr/sbin:/sbin" command -v bpftool >/dev/null 2>&1; then \
			$$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bpftool || \
			$$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-tools-common linux-tools-$$(uname -r) || \
			$$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-tools-common linux-tools-generic; \
		fi; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))

test-deps: deps
	$(call install_missing,$(TEST_DEB_PACKAGES))

$(BUILD)/vmlinux.h:
	@mkdir -p $(BUILD)
	@test -r /sys/kernel/btf/vmlinux || { echo "flametop needs a kernel with BTF (/sys/kernel/btf/vmlinux), or VMLINUX_H=path" >&2; exit 2; }
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h unwind/*.h python/*.h) $(VMLINUX_H)
	@mkdir -p $(BUILD)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(dir $(VMLINUX_H)) -I. -Ibpf -c $< -o $@
	$(LLVM_STRIP) -g $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/%.pb-c.c $(BUILD)/%.pb-c.h: %.proto
	@mkdir -p $(BUILD)
	protoc-c --c_out=$(BUILD) $<

$(BUILD)/obj/%.o: %.c $(HEADERS) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -c $< -o $@

$(BUILD)/obj/%.o: $(BUILD)/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -c $< -o $@

$(BUILD)/asan/%.o: $(BUILD)/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O1 -g $(SANITIZE) $(WARNINGS) -c $< -o $@

$(BUILD)/asan/%.o: %.c $(HEADERS) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O1 -g $(SANITIZE) $(WARNINGS) -c $< -o $@

flametop: $(BUILD)/obj/flametop.o $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# flametop under AddressSanitizer and UndefinedBehaviorSanitizer, for the terminal test that
# drives it through every key (tests/integration/tui_sanitized.sh).
$(BUILD)/asan/flametop: $(BUILD)/asan/flametop.o $(ASAN_OBJS)
	$(CC) -O1 -g $(SANITIZE) -o $@ $^ $(LIBS)

static: deps
	@$(MAKE) --no-print-directory $(BUILD)/static/flametop
	@echo "static binary: $(BUILD)/static/flametop"

$(BUILD)/static/flametop: $(BUILD)/obj/flametop.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -static -o $@ $^ $(STATIC_LIBS)

# Unit tests: cmocka, linked against the same objects as flametop, and again
# under AddressSanitizer and UndefinedBehaviorSanitizer.
$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) $(UNIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -o $@ $< $(LIB_OBJS) $(LIBS) -lcmocka

$(BUILD)/tests/asan/%: tests/unit/%.c $(ASAN_OBJS) $(UNIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O1 -g $(SANITIZE) $(WARNINGS) -o $@ $< $(ASAN_OBJS) $(LIBS) -lcmocka

# Hand-made CFI for the unwind table tests (tests/fixtures/*.S; cfa_ops.S the instructions
# cfi_rules.S does not write, compared with libdw's answers): shared objects
# whose text is linked at 0x401000 but lies at file offset 0x1000, so that a
# table keyed by address instead of file offset shows; the same CFI in
# .debug_frame only; that file stripped, and its separate debug file.
UNWIND_FIXTURES := $(addprefix $(BUILD)/fixtures/,cfi_rules.so cfi_rules_debug_frame.so \
	cfi_rules_stripped.so cfi_rules_debug_frame.debug no_cfi.so cfa_ops.so \
	huge_register.so)
FIXTURE_LDFLAGS := -shared -nostdlib -Wl,--eh-frame-hdr -Wl,-Ttext-segment=0x400000

$(BUILD)/fixtures/%.so: tests/fixtures/%.S
	@mkdir -p $(dir $@)
	$(CC) $(FIXTURE_LDFLAGS) -o $@ $<

$(BUILD)/fixtures/cfi_rules_debug_frame.so: tests/fixtures/cfi_rules.S
	@mkdir -p $(dir $@)
	$(CC) $(FIXTURE_LDFLAGS) -DCFI_DEBUG_FRAME -o $@ $<

$(BUILD)/fixtures/cfi_rules_stripped.so: $(BUILD)/fixtures/cfi_rules_debug_frame.so
	strip --strip-all -o $@ $<

$(BUILD)/fixtures/%.debug: $(BUILD)/fixtures/%.so
	objcopy --only-keep-debug $< $@

$(BUILD)/tests/test_cfi_table $(BUILD)/tests/asan/test_cfi_table: $(UNWIND_FIXTURES)
$(BUILD)/tests/test_cfa_program $(BUILD)/tests/asan/test_cfa_program: $(UNWIND_FIXTURES)

# The offsets CPython's own headers give, for each interpreter whose headers are installed
# here (pyenv's; Debian's python3-dev), for tests/unit/test_python.c to compare the tables with.
$(BUILD)/py_offsets/.made: tests/tools/cpython/offsets.sh tests/tools/cpython/py_offsets.c
	bash tests/tools/cpython/offsets.sh $(BUILD)/py_offsets && touch $@

$(BUILD)/tests/test_python $(BUILD)/tests/asan/test_python: $(BUILD)/py_offsets/.made

# Test workloads are built as users build their programs: -O2 -g, without
# frame pointers, calling libc's functions. tests/workloads/frames.h keeps
# the frames each one documents (the ones its tests name) at -O2.
$(BUILD)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARNINGS) -o $@ $<

# annotate_work stripped of its symbols and debug information, with no debug file anywhere:
# the annotate view's case of code without lines (tests/integration/annotate.sh).
$(BUILD)/workloads/annotate_work_stripped: $(BUILD)/workloads/annotate_work
	strip --strip-all -o $@ $<

WORKLOADS += $(BUILD)/workloads/annotate_work_stripped

# Helpers the tests check flametop's output with (png_pixels reads a screenshot's pixels).
$(BUILD)/tools/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -o $@ $< -lz

# Benchmarks: programs that measure flametop's own code paths (make bench).
$(BUILD)/bench/%: tests/bench/%.c tests/bench/bench_clock.h $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -o $@ $< $(LIB_OBJS) $(LIBS)

# The fuzz targets, built as libFuzzer programs (make fuzz runs them; make test runs each over
# its seed corpus once, tests/integration/fuzz_smoke.sh, so that they keep building).
$(BUILD)/fuzz/obj/%.o: %.c $(HEADERS) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE) $(WARNINGS) -c $< -o $@

$(BUILD)/fuzz/obj/%.o: $(BUILD)/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE) $(WARNINGS) -c $< -o $@

$(BUILD)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -O1 -g -fsanitize=fuzzer $(FUZZ_SANITIZE) $(WARNINGS) \
		-o $@ $< $(FUZZ_OBJS) $(LIBS) $(FUZZ_LIBS)

build-tests: flametop $(BUILD)/asan/flametop $(UNIT_BINS) $(ASAN_BINS) $(WORKLOADS) $(BENCHES) \
	$(TOOLS) $(FUZZ_BINS)

test: test-deps
	@$(MAKE) --no-print-directory build-tests
	@bash tests/run.sh

# The live screen, as root.
run: all
	@$(call AS_ROOT,flametop loads BPF programs: it); \
	exec $$as_root ./flametop

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 0755 flametop $(DESTDIR)$(BINDIR)/flametop
	install -m 0644 flametop.1 $(DESTDIR)$(MANDIR)/flametop.1

bench: test-deps
	@$(MAKE) --no-print-directory build-tests
	@bash tests/bench.sh

# 30 minutes of process churn and CPU load under the live screen: RSS and open
# descriptors every minute (SOAK_MINUTES=10 for a shorter run). As root.
soak: test-deps
	@$(MAKE) --no-print-directory build-tests
	@bash tests/soak.sh

# Each fuzz target for FUZZ_SECONDS from its seed corpus (tests/fuzz/corpus/NAME/, NAME the
# target's name without fuzz_); what it finds goes to build/fuzz/corpus/NAME/, a crash's input
# to build/fuzz/crash-*.
fuzz: test-deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh $(FUZZ_BINS)

screenshots: test-deps
	@$(MAKE) --no-print-directory build-tests
	@bash tests/screenshots.sh

# The README's lists of flags and keys, from --help (tests/integration/docs.sh checks them).
docs: flametop
	@bash tests/docs.sh

clean:
	rm -rf $(BUILD) flametop
