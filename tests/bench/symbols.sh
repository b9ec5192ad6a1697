#!/usr/bin/env bash
# Naming's cost (symbols/): kernel lookups and cached user lookups per
# second, the first lookup in a large binary, and what the caches hold for
# 200 processes sharing libc. Measured, never asserted.
. "$(dirname "$0")/../bench_lib.sh"

BIN=build/bench/symbols
FUNCS=200000

# field KEY TEXT: the value of "KEY=value" in TEXT.
field() { sed -n "s/^$1=//p" <<<"$2"; }

# A shared library of more than 50 MB with $FUNCS functions, written as
# assembly (gcc needs minutes for that many C functions; the functions are
# never run, only named).
big_lib() {
	awk -v n="$FUNCS" 'BEGIN {
		print "\t.text"
		for (i = 0; i < n; i++)
			printf "\t.globl gen_fn_%d\n\t.type gen_fn_%d, STT_FUNC\ngen_fn_%d:\n\t.zero %d\n\t.size gen_fn_%d, .-gen_fn_%d\n", i, i, i, 16 + i % 48, i, i
		print "\t.section .rodata\nbig_pad:\n\t.zero 52428800"
		print "\t.section .note.GNU-stack,\"\",%progbits"
	}' >"$BENCH_TMP/big.s"
	gcc -shared -nostdlib -o "$BENCH_TMP/libbig.so" "$BENCH_TMP/big.s"
}

big_lib
big_mb=$(($(stat -c %s "$BENCH_TMP/libbig.so") / 1048576))
llvm=$(ls -SL /usr/lib/*/libLLVM-*.so* 2>/dev/null | head -n 1)
llvm_fn=
if [ -n "$llvm" ]; then
	llvm_fn=$(nm -D --defined-only "$llvm" | awk '$2 == "T" { print $3 }' | sed -n '5000{s/@.*//;p}')
fi

kernel=() user=() first=() first_llvm=()
for _ in $(seq "$BENCH_RUNS"); do
	out=$($BIN kernel)
	kernel+=("$(field kernel_lookups_per_sec "$out")")
	sampled=$(field kernel_symbols_sampled "$out")
	out=$($BIN user)
	user+=("$(field user_lookups_per_sec "$out")")
	out=$($BIN first "$BENCH_TMP/libbig.so" gen_fn_123456)
	first+=("$(field first_lookup_ms "$out")")
	big_bytes=$(field table_bytes "$out")
	if [ -n "$llvm_fn" ]; then
		out=$($BIN first "$llvm" "$llvm_fn")
		first_llvm+=("$(field first_lookup_ms "$out")")
		llvm_name=$(field first_name "$out")
	fi
done
procs=$($BIN procs 200)

m=()
for v in "${kernel[@]}"; do m+=("$(awk -v v="$v" 'BEGIN { print v / 1e6 }')"); done
kernel_fig=$(median_minmax "${m[@]}")
m=()
for v in "${user[@]}"; do m+=("$(awk -v v="$v" 'BEGIN { print v / 1e6 }')"); done
user_fig=$(median_minmax "${m[@]}")
kib() { awk -v v="$1" 'BEGIN { printf "%.0f KiB", v / 1024 }'; }

echo "## Naming (symbols/)"
echo
echo "Medians of $BENCH_RUNS runs (min-max). Lookups go through the symbolizer's facade,"
echo "output buffer written and sanitized, as live capture calls it."
echo
echo "| measure | figure | target |"
echo "|---|---|---|"
echo "| kernel lookups per second ($sampled random text symbols of /proc/kallsyms) | ${kernel_fig} M | >= 5 M |"
echo "| cached user lookups per second (this process and libc) | ${user_fig} M | >= 2 M |"
echo "| first lookup in a ${big_mb} MB library with $FUNCS functions (maps read, ELF read, table of $(kib "$big_bytes") built) | $(median_minmax "${first[@]}") ms | < 100 ms |"
if [ -n "$llvm_fn" ]; then
	echo "| first lookup in $(basename "$llvm") ($(($(stat -L -c %s "$llvm") / 1048576)) MB, .dynsym only; \`$llvm_name\`) | $(median_minmax "${first_llvm[@]}") ms | |"
fi
echo "| 200 processes sharing libc: symbol tables held | $(field elf_tables "$procs") (this program and libc, each once) | libc once |"
echo "| ... their bytes | $(kib "$(field elf_bytes "$procs")") | |"
echo "| ... maps snapshots, per process | $(kib "$(field proc_bytes_each "$procs")") | |"
echo "| ... heap growth for all 200 | $(kib "$(field heap_growth "$procs")") | |"
