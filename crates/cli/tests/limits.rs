//! The `ovir` binary under limits the system sets on the process: too
//! little memory, too small a file size. Each run ends with a clean
//! `error:` line and exit code 1, never a panic or an abort, and leaves no
//! partial output behind. And the memory a run takes: its input and its
//! output, and little more.
#![cfg(target_os = "linux")]

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{listing, text, Scratch};

/// The address space each run under a memory limit gets, in KiB: 1 GiB,
/// far more than the binary needs to start, and too little for one more
/// tensor of 1 GiB.
const MEMORY_KIB: u64 = 1 << 20;

/// Bytes of the large tensors: an f32 `[16384, 16384]`, 1 GiB.
const GIB: &str = "1073741824 bytes (1.0 GiB)";

/// Runs the binary through `sh`, which first runs `setup` (`ulimit`,
/// `trap`); what the shell sets is inherited across its `exec`.
fn ovir_under(setup: &str, args: &[&str]) -> Output {
    let script = format!("{setup}; exec \"$0\" \"$@\"");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_ovir"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("sh runs")
}

/// A failure as a person should see it: exit code 1, and standard error
/// made only of ovir's own message, which says `what`.
fn assert_clean_error(out: &Output, what: &[&str]) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "status {:?}: {err}", out.status);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.ends_with('\n'), "{err:?}");
    for bad in ["panicked", "memory allocation of", "ZipWriter", "RUST_BACKTRACE"] {
        assert!(!err.contains(bad), "{bad}: {err}");
    }
    for w in what {
        assert!(err.contains(w), "{w}: {err}");
    }
}

fn write_model(dir: &Path, xml: &str, weights: &[u8]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("model.bin"), weights).unwrap();
    let path = dir.join("model.xml");
    std::fs::write(&path, xml).unwrap();
    path.display().to_string()
}

/// The edges of four layers from `id` on: the first two feed the third's
/// inputs 0 and 1, and the third feeds the fourth, a Result.
fn chain_edges(id: usize) -> String {
    let (a, b, op, result) = (id, id + 1, id + 2, id + 3);
    format!(
        r#"<edge from-layer="{a}" from-port="0" to-layer="{op}" to-port="0"/>
<edge from-layer="{b}" from-port="0" to-layer="{op}" to-port="1"/>
<edge from-layer="{op}" from-port="2" to-layer="{result}" to-port="0"/>
"#
    )
}

/// One chain per entry of `sizes`: a Parameter `data{i}` of f32
/// `[rows, cols]` whose sequences a ReverseSequence reverses into output
/// `out{i}`. The lengths are inputs too, so the model needs no weights.
fn reverse_sequences(dir: &Path, sizes: &[(usize, usize)]) -> String {
    let (mut layers, mut edges) = (String::new(), String::new());
    for (i, &(rows, cols)) in sizes.iter().enumerate() {
        let dims = format!("<dim>{rows}</dim><dim>{cols}</dim>");
        let id = 4 * i;
        layers += &format!(
            r#"<layer id="{id}" name="data{i}" type="Parameter" version="opset1"><data shape="{rows},{cols}" element_type="f32"/><output><port id="0" precision="FP32" names="data{i}">{dims}</port></output></layer>
<layer id="{}" name="lengths{i}" type="Parameter" version="opset1"><data shape="{rows}" element_type="i32"/><output><port id="0" precision="I32" names="lengths{i}"><dim>{rows}</dim></port></output></layer>
<layer id="{}" name="rs{i}" type="ReverseSequence" version="opset1"><data batch_axis="0" seq_axis="1"/><input><port id="0">{dims}</port><port id="1"><dim>{rows}</dim></port></input><output><port id="2" precision="FP32" names="out{i}">{dims}</port></output></layer>
<layer id="{}" name="result{i}" type="Result" version="opset1"><input><port id="0">{dims}</port></input></layer>
"#,
            id + 1,
            id + 2,
            id + 3
        );
        edges += &chain_edges(id);
    }
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<net name=\"rs\" version=\"11\">\n<layers>\n{layers}</layers>\n<edges>\n{edges}</edges>\n</net>\n"
    );
    write_model(dir, &xml, &[])
}

/// `data` (a Parameter, or a Const when `constant`) broadcast to f32
/// `[16384, 16384]`: a small input with an output of 1 GiB, computed at
/// run time, or folded while compiling.
fn broadcast_model(dir: &Path, constant: bool) -> String {
    let dims = "<dim>16384</dim><dim>16384</dim>";
    let data = if constant {
        r#"<layer id="0" name="data" type="Const" version="opset1"><data element_type="f32" shape="1" offset="16" size="4"/><output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>"#
    } else {
        r#"<layer id="0" name="data" type="Parameter" version="opset1"><data shape="1" element_type="f32"/><output><port id="0" precision="FP32" names="data"><dim>1</dim></port></output></layer>"#
    };
    let xml = format!(
        r#"<?xml version="1.0"?>
<net name="bc" version="11">
<layers>
{data}
<layer id="1" name="target" type="Const" version="opset1"><data element_type="i64" shape="2" offset="0" size="16"/><output><port id="0" precision="I64"><dim>2</dim></port></output></layer>
<layer id="2" name="bc" type="Broadcast" version="opset3"><data mode="numpy"/><input><port id="0"><dim>1</dim></port><port id="1"><dim>2</dim></port></input><output><port id="2" precision="FP32" names="out">{dims}</port></output></layer>
<layer id="3" name="out" type="Result" version="opset1"><input><port id="0">{dims}</port></input></layer>
</layers>
<edges>
{}</edges>
</net>"#,
        chain_edges(0)
    );
    let mut weights = Vec::new();
    for _ in 0..2 {
        weights.extend_from_slice(&16384i64.to_le_bytes());
    }
    weights.extend_from_slice(&1.5f32.to_le_bytes());
    write_model(dir, &xml, &weights)
}

/// A Gather of `count` i64 indices, an input, from a Const f32 `[4]`.
fn gather_model(dir: &Path, count: usize) -> String {
    let dims = format!("<dim>{count}</dim>");
    let xml = format!(
        r#"<?xml version="1.0"?>
<net name="gather" version="11">
<layers>
<layer id="0" name="data" type="Const" version="opset1"><data element_type="f32" shape="4" offset="0" size="16"/><output><port id="0" precision="FP32"><dim>4</dim></port></output></layer>
<layer id="1" name="indices" type="Parameter" version="opset1"><data shape="{count}" element_type="i64"/><output><port id="0" precision="I64" names="indices">{dims}</port></output></layer>
<layer id="2" name="gather" type="Gather" version="opset8"><data batch_dims="0"/><input><port id="0"><dim>4</dim></port><port id="1">{dims}</port><port id="2"/></input><output><port id="3" precision="FP32" names="out">{dims}</port></output></layer>
<layer id="3" name="axis" type="Const" version="opset1"><data element_type="i64" shape="" offset="16" size="8"/><output><port id="0" precision="I64"/></output></layer>
<layer id="4" name="out" type="Result" version="opset1"><input><port id="0">{dims}</port></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="3" from-port="0" to-layer="2" to-port="2"/>
<edge from-layer="2" from-port="3" to-layer="4" to-port="0"/>
</edges>
</net>"#
    );
    let mut weights: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    weights.extend_from_slice(&0i64.to_le_bytes());
    write_model(dir, &xml, &weights)
}

/// Each kind of tensor whose allocation can fail, with far less memory
/// than it needs: the failure is found when the allocation is refused,
/// before any of it is touched, so every case takes milliseconds.
#[test]
fn allocation_failure_is_an_error_that_names_the_tensor() {
    let limit = format!("ulimit -v {MEMORY_KIB}");
    let dir = Scratch::new("alloc");

    // A generated input.
    let model = reverse_sequences(&dir, &[(16384, 16384)]);
    let out = ovir_under(&limit, &["run", &model, "-o", &dir.join("out").display().to_string()]);
    assert_clean_error(&out, &["input \"data0\"", GIB, "out of memory"]);
    assert!(!dir.join("out").exists());

    // An input read from a .npy file: a sparse file of 1 GiB takes no disk.
    let npy = dir.join("data.npy");
    let header =
        b"\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 16384), }";
    let mut head = header.to_vec();
    head.resize(127, b' ');
    head.push(b'\n');
    std::fs::write(&npy, &head).unwrap();
    std::fs::OpenOptions::new().append(true).open(&npy).unwrap().set_len(128 + (1 << 30)).unwrap();
    let input = format!("data0={}", npy.display());
    let out = ovir_under(&limit, &["run", &model, "-i", &input]);
    assert_clean_error(&out, &["data.npy", GIB, "out of memory"]);

    // An output computed at run time from a small input.
    let model = broadcast_model(&dir, false);
    let out = ovir_under(&limit, &["run", &model]);
    assert_clean_error(&out, &["layer 2 \"bc\" (Broadcast)", GIB, "out of memory"]);

    // A constant folded while compiling.
    let model = broadcast_model(&dir, true);
    let out = ovir_under(&limit, &["run", &model]);
    assert_clean_error(&out, &["\"bc\"", GIB, "out of memory"]);

    // A kernel's working list: Gather reads its i64 indices into 16-byte
    // integers, 768 MiB for 48M indices, after the 384 MiB of indices and
    // the 192 MiB output have fit.
    let model = gather_model(&dir, 48 << 20);
    let out = ovir_under(&limit, &["run", &model]);
    assert_clean_error(&out, &["Gather cannot allocate 805306368 bytes for its indices", "out of memory"]);
}

/// The largest file each run under a file size limit may write: 32
/// blocks, 16 KiB or 32 KiB as the shell counts them. An output of f32
/// `[16, 16]` (1 KiB) fits, one of `[256, 256]` (256 KiB) does not.
const FILE_LIMIT: &str = "ulimit -f 32";

/// With `SIGXFSZ` ignored, writing past the limit fails with `EFBIG`, as
/// writing to a full disk fails with `ENOSPC`. The `.npz` archive's writer
/// once printed its own complaint, glued to the `error:` line; the target
/// keeps its old content, and no temporary file is left.
#[test]
fn a_file_too_large_for_the_disk_gives_one_clean_error_and_leaves_the_old_files() {
    let dir = Scratch::new("efbig");
    let model = reverse_sequences(&dir, &[(16, 16), (256, 256)]);
    let limited = format!("{FILE_LIMIT}; trap '' XFSZ");

    let out_dir = dir.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let npz = out_dir.join("o.npz");
    std::fs::write(&npz, "old").unwrap();
    let out = ovir_under(&limited, &["run", &model, "-o", &npz.display().to_string()]);
    assert_clean_error(&out, &["o.npz", "File too large"]);
    assert_eq!(text(&out.stderr).lines().count(), 1, "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&npz).unwrap(), "old");
    assert_eq!(listing(&out_dir), ["o.npz"]);

    // Two outputs into a folder: `out0.npy` is complete before `out1.npy`
    // fails, yet it does not replace the old one.
    std::fs::remove_file(&npz).unwrap();
    std::fs::write(out_dir.join("out0.npy"), "old").unwrap();
    let out = ovir_under(&limited, &["run", &model, "-o", &out_dir.display().to_string()]);
    assert_clean_error(&out, &["out1.npy", "File too large"]);
    assert_eq!(std::fs::read_to_string(out_dir.join("out0.npy")).unwrap(), "old");
    assert_eq!(listing(&out_dir), ["out0.npy"]);

    // The same run with room enough writes both.
    let out = ovir_under("true", &["run", &model, "-o", &out_dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(listing(&out_dir), ["out0.npy", "out1.npy"]);
    assert_eq!(std::fs::metadata(out_dir.join("out1.npy")).unwrap().len(), 128 + 256 * 256 * 4);
}

/// The signal a process gets for writing past its file size limit.
const SIGXFSZ: i32 = 25;

/// A run killed by `SIGXFSZ` while it writes: its content was in an unnamed
/// file, which the system removes with the process, so the folder holds
/// nothing, not even a temporary file.
#[test]
fn a_run_killed_while_writing_leaves_nothing_behind() {
    use std::os::unix::process::ExitStatusExt;
    let dir = Scratch::new("killed");
    let model = reverse_sequences(&dir, &[(16, 16), (256, 256)]);
    for target in ["out", "out/o.npz"] {
        let out_dir = dir.join("out");
        std::fs::create_dir_all(&out_dir).unwrap();
        let out = ovir_under(FILE_LIMIT, &["run", &model, "-o", &dir.join(target).display().to_string()]);
        assert_eq!(out.status.signal(), Some(SIGXFSZ), "{target}: {:?} {}", out.status, text(&out.stderr));
        assert_eq!(listing(&out_dir), Vec::<String>::new(), "{target}");
    }
}

/// The peak resident memory `ovir run -v` reports.
fn peak_of(out: &Output) -> u64 {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let line =
        err.lines().find_map(|l| l.strip_prefix("peak resident memory: ")).unwrap_or_else(|| panic!("{err}"));
    line.split(' ').next().unwrap().parse().unwrap()
}

/// A run that generates one f32 input of 16 MiB and writes (or shows) one
/// output of the same size holds both, and little more: no copy of the
/// input in another type, none of the output for writing or showing it.
/// What a run of a tiny model takes is subtracted, the binary and its
/// libraries.
#[test]
fn a_run_takes_about_its_input_and_its_output_in_memory() {
    const TENSOR: f64 = (16 << 20) as f64;
    let dir = Scratch::new("rss");
    let small = reverse_sequences(&dir.join("small"), &[(2, 2)]);
    let base = peak_of(&ovir_under("true", &["run", &small, "-v"])) as f64;
    let model = reverse_sequences(&dir, &[(2048, 2048)]);
    let written = ovir_under("true", &["run", &model, "-v", "-o", &dir.join("out").display().to_string()]);
    let shown = ovir_under("true", &["run", &model, "-v"]);
    for out in [written, shown] {
        let ratio = (peak_of(&out) as f64 - base) / TENSOR;
        assert!((1.9..=2.2).contains(&ratio), "{ratio:.2} times the tensor: {}", text(&out.stderr));
    }
}
