#!/usr/bin/env bash
# Runs one cargo-fuzz target for a number of seconds:
#
#     tools/fuzz.sh [--asan] TARGET SECONDS [more libFuzzer options]
#
# TARGET is one of xml_reader, const_weights, npy_reader, run_model, render
# (see fuzz/README.md). An empty corpus is first seeded from ir-samples.
# Crashes land in fuzz/artifacts/TARGET/. The targets are built optimised
# but with debug assertions and overflow checks on, so that arithmetic that
# overflows fails instead of wrapping. --asan adds the address sanitizer,
# which needs the nightly toolchain. Needs `cargo install cargo-fuzz` and a
# C++ compiler; it is never part of CI.
set -euo pipefail

sanitizer=none
toolchain=()
if [ "${1:-}" = --asan ]; then
    sanitizer=address
    toolchain=(+nightly)
    shift
fi
if [ $# -lt 2 ]; then
    echo "usage: tools/fuzz.sh [--asan] TARGET SECONDS [libFuzzer options]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/fuzz/corpus/$target
artifacts=$root/fuzz/artifacts/$target
mkdir -p "$corpus" "$artifacts"

# The longest input each target is given: room for the largest sample of
# its kind, not much more, so the fuzzer spends its time on structure.
case $target in
    xml_reader) max_len=100000 ;;
    run_model) max_len=100000 ;;
    const_weights) max_len=4096 ;;
    npy_reader) max_len=16384 ;;
    render) max_len=100000 ;;
    *)
        echo "unknown fuzz target '$target': expected xml_reader, const_weights, npy_reader, run_model or render" >&2
        exit 2
        ;;
esac

seed() {
    local n=0
    case $target in
        xml_reader)
            while IFS= read -r f; do
                cp "$f" "$corpus/seed-$n.xml"; n=$((n + 1))
            done < <(find "$root/ir-samples" -name '*.xml' | sort)
            ;;
        render)
            # Two span ends (four bytes), then the XML; the hostile samples
            # add lines of control characters, long lines and deep nesting.
            while IFS= read -r f; do
                { printf '\x10\x00\x40\x00'; head -c 100000 "$f"; } > "$corpus/seed-$n"; n=$((n + 1))
            done < <(find "$root/ir-samples" "$root/tools/hostile-samples" -name '*.xml' | sort)
            ;;
        run_model)
            # The XML, a NUL byte, then the weights: the format run_model
            # splits its input by.
            while IFS= read -r f; do
                local bin=${f%.xml}.bin
                { cat "$f"; printf '\0'; if [ -f "$bin" ]; then cat "$bin"; fi; } > "$corpus/seed-$n"
                n=$((n + 1))
            done < <(find "$root/ir-samples" -name '*.xml' | sort)
            ;;
        const_weights)
            # Weights files are raw bytes for `arbitrary` to shape into cases.
            while IFS= read -r f; do
                cp "$f" "$corpus/seed-$n.bin"; n=$((n + 1))
            done < <(find "$root/ir-samples" -name '*.bin' | sort)
            ;;
        npy_reader)
            while IFS= read -r f; do
                cp "$f" "$corpus/seed-$n.npy"; n=$((n + 1))
            done < <(find "$root/ir-samples" -name '*.npy' | sort)
            # Archives are made by `ovir run -o OUT.npz` on a few samples.
            local sample
            for sample in rseq_b1_s0_4x4 convert_f32_to_f16 chain_with_intermediate_output; do
                if [ -f "$root/ir-samples/$sample/model.xml" ]; then
                    (cd "$root" && cargo run --quiet --release -p ovir-cli -- \
                        run "ir-samples/$sample/model.xml" -o "$corpus/seed-$sample.npz" >/dev/null) || true
                fi
            done
            ;;
    esac
}

if [ -z "$(ls -A "$corpus")" ]; then
    seed
fi

cd "$root/fuzz"
# With `--sanitizer none`, cargo-fuzz asks rustc only for options that the
# stable compiler accepts (coverage instrumentation through -Cpasses and
# -Cllvm-args), so no nightly toolchain is needed. `--debug-assertions`
# keeps overflow checks on in the optimised build: without it, a column
# computed with a wrapping subtraction passes unnoticed.
exec cargo "${toolchain[@]}" fuzz run --sanitizer "$sanitizer" --debug-assertions "$target" "$corpus" -- \
    -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
