#!/usr/bin/env bash
# Runs one cargo-fuzz target for a number of seconds:
#
#     tools/fuzz.sh TARGET SECONDS [more libFuzzer options]
#
# TARGET is one of xml_reader, const_weights, npy_reader, run_model (see
# fuzz/README.md). An empty corpus is first seeded from ir-samples. Crashes
# land in fuzz/artifacts/TARGET/. Needs `cargo install cargo-fuzz` and a C++
# compiler; it is never part of CI.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: tools/fuzz.sh TARGET SECONDS [libFuzzer options]" >&2
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
    *)
        echo "unknown fuzz target '$target': expected xml_reader, const_weights, npy_reader or run_model" >&2
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
# -Cllvm-args), so no nightly toolchain is needed.
exec cargo fuzz run --sanitizer none --release "$target" "$corpus" -- \
    -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$@"
