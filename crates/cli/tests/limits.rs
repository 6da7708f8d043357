//! The `ovir` binary under limits the system sets on the process: too
//! little memory, too small a file size. Each run ends with a clean
//! `error:` line and exit code 1, never a panic or an abort, and leaves no
//! partial output behind.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The address space each run under a memory limit gets, in KiB: 1 GiB,
/// far more than the binary needs to start, and too little for one more
/// tensor of 1 GiB.
const MEMORY_KIB: u64 = 1 << 20;

/// Bytes of the large tensors: an f32 `[16384, 16384]`, 1 GiB.
const GIB: &str = "1073741824 bytes (1.0 GiB)";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ovir-limits-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
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
    std::fs::write(dir.join("model.bin"), weights).unwrap();
    let path = dir.join("model.xml");
    std::fs::write(&path, xml).unwrap();
    path.display().to_string()
}

/// A Parameter `data` of f32 `[16384, 16384]` whose sequences a
/// ReverseSequence reverses; its lengths are an input too, so the model
/// needs no weights.
fn reverse_sequence_model(dir: &Path) -> String {
    let dims = "<dim>16384</dim><dim>16384</dim>";
    let xml = format!(
        r#"<?xml version="1.0"?>
<net name="big" version="11">
<layers>
<layer id="0" name="data" type="Parameter" version="opset1"><data shape="16384,16384" element_type="f32"/><output><port id="0" precision="FP32" names="data">{dims}</port></output></layer>
<layer id="1" name="lengths" type="Parameter" version="opset1"><data shape="16384" element_type="i32"/><output><port id="0" precision="I32" names="lengths"><dim>16384</dim></port></output></layer>
<layer id="2" name="rs" type="ReverseSequence" version="opset1"><data batch_axis="0" seq_axis="1"/><input><port id="0">{dims}</port><port id="1"><dim>16384</dim></port></input><output><port id="2" precision="FP32" names="out">{dims}</port></output></layer>
<layer id="3" name="out" type="Result" version="opset1"><input><port id="0">{dims}</port></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges>
</net>"#
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
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges>
</net>"#
    );
    let mut weights = Vec::new();
    for _ in 0..2 {
        weights.extend_from_slice(&16384i64.to_le_bytes());
    }
    weights.extend_from_slice(&1.5f32.to_le_bytes());
    write_model(dir, &xml, &weights)
}

/// Each kind of tensor whose allocation can fail, with far less memory
/// than it needs: the failure is found when the allocation is refused,
/// before any of it is touched, so every case takes milliseconds.
#[test]
fn allocation_failure_is_an_error_that_names_the_tensor() {
    let limit = format!("ulimit -v {MEMORY_KIB}");
    let dir = scratch("alloc");

    // A generated input.
    let model = reverse_sequence_model(&dir);
    let out = ovir_under(&limit, &["run", &model, "-o", &dir.join("out").display().to_string()]);
    assert_clean_error(&out, &["input \"data\"", GIB, "out of memory"]);
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
    let input = format!("data={}", npy.display());
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
    std::fs::remove_dir_all(&dir).unwrap();
}
