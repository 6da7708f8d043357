//! The `ovir` binary as a script or a person uses it: exit codes, messages
//! and files.

mod common;

use std::process::Command;

use common::{listing, ovir, samples, text, Scratch};

fn sample(case: &str, file: &str) -> String {
    samples().join(case).join(file).display().to_string()
}

#[test]
fn check_exits_0_on_a_valid_model_and_1_on_a_bad_one() {
    let ok = ovir(&["check", &sample("rseq_b1_s0_4x4", "model.xml")]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains(": ok"));

    let bad = ovir(&["check", &samples().join("bad/edge_to_missing_port/model.xml").display().to_string()]);
    assert_eq!(bad.status.code(), Some(1));
    let err = text(&bad.stderr);
    assert!(err.starts_with("error:"), "{err}");
    // Both independent problems are reported, each with its line.
    assert!(err.contains("2 problems"), "{err}");
    assert!(err.contains("model.xml:30:") && err.contains("model.xml:54:"), "{err}");
}

#[test]
fn run_without_inputs_generates_valid_ones() {
    let out = ovir(&["run", &sample("rseq_runtime_lengths_i64", "model.xml")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("out: f32 [4, 5]"), "{}", text(&out.stdout));
}

#[test]
fn run_writes_npy_files_that_match_the_expected_outputs() {
    let case = "two_inputs_two_outputs";
    let dir = Scratch::new("npy");
    let mut args = vec!["run".to_string(), sample(case, "model.xml"), "-o".into(), dir.display().to_string()];
    for entry in std::fs::read_dir(samples().join(case).join("in")).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        args.extend(["-i".to_string(), format!("{name}={}", p.display())]);
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ovir(&argv);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for entry in std::fs::read_dir(samples().join(case).join("expected")).unwrap() {
        let want = entry.unwrap().path();
        let got = dir.join(want.file_name().unwrap());
        assert_eq!(std::fs::read(&got).unwrap(), std::fs::read(&want).unwrap(), "{}", got.display());
    }
    // The same run checked in place against the expected folder.
    let mut check = argv.clone();
    let pos = check.iter().position(|a| *a == "-o").unwrap();
    check.drain(pos..pos + 2);
    let expected = sample(case, "expected");
    check.extend(["--assert-outputs", expected.as_str()]);
    let out = ovir(&check);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn run_writes_one_npz_archive() {
    let dir = Scratch::new("npz");
    let npz = dir.join("outs.npz");
    let out = ovir(&[
        "run",
        &sample("fanout_two_reverse_two_results", "model.xml"),
        "-o",
        &npz.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let arrays = ovir_npy::read_npz_file(&npz).unwrap();
    assert_eq!(arrays.len(), 2);
}

#[test]
fn assert_outputs_reports_the_difference_and_exits_1() {
    let case = "rseq_b1_s0_4x4";
    let dir = Scratch::new("assert");
    // Expected outputs from another case: same shape, other values.
    let other = ovir_npy::read_npy_file(&samples().join(case).join("in/data.npy")).unwrap();
    ovir_npy::write_npy_file(&other, &dir.join("out.npy")).unwrap();
    let out = ovir(&[
        "run",
        &sample(case, "model.xml"),
        "-i",
        &format!("data={}", sample(case, "in/data.npy")),
        "--assert-outputs",
        &dir.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: output \"out\" differs"), "{err}");
    assert!(err.contains("elements differ; first at"), "{err}");
}

#[test]
fn an_input_of_the_wrong_npy_type_is_refused_not_converted() {
    let dir = Scratch::new("wrongtype");
    let wrong = ovir::Tensor::zeros(ovir::ElementType::F64, &[4, 4]).unwrap();
    let file = dir.join("data.npy");
    ovir_npy::write_npy_file(&wrong, &file).unwrap();
    let out =
        ovir(&["run", &sample("rseq_b1_s0_4x4", "model.xml"), "-i", &format!("data={}", file.display())]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error:") && err.contains("f32") && err.contains("f64"), "{err}");
}

#[test]
fn a_run_time_error_names_the_layer_and_its_line() {
    let case = "rseq_runtime_length_above_dim";
    let out = ovir(&[
        "run",
        &sample(case, "model.xml"),
        "-i",
        &format!("data={}", sample(case, "in/data.npy")),
        "-i",
        &format!("lengths={}", sample(case, "in/lengths.npy")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error:"), "{err}");
    assert!(err.contains("batch index") && err.contains("model.xml:"), "{err}");
}

#[test]
fn usage_errors_exit_1_with_an_error_line() {
    let out = ovir(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("error:"));
    let out = ovir(&["run", "/nonexistent/model.xml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("error:"));
}

#[test]
fn info_prints_text_json_and_dot() {
    let model = sample("two_inputs_two_outputs", "model.xml");
    let out = ovir(&["info", &model]);
    assert_eq!(out.status.code(), Some(0));
    let t = text(&out.stdout);
    assert!(t.contains("inputs:") && t.contains("outputs:") && t.contains("layers:"), "{t}");
    let out = ovir(&["info", "--json", &model]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["inputs"].as_array().map(Vec::len), Some(2));
    assert_eq!(json["outputs"].as_array().map(Vec::len), Some(2));
    let out = ovir(&["info", "--dot", &model]);
    assert!(text(&out.stdout).starts_with("digraph"));
}

#[test]
fn conformance_prints_a_table_and_a_summary() {
    let out = ovir(&["conformance", &samples().display().to_string()]);
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{t}");
    let last = t.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{last}");
}

#[test]
fn bench_json_has_the_contract_fields() {
    let out = ovir(&[
        "bench",
        &sample("rseq_b1_s0_4x4", "model.xml"),
        "--iterations",
        "5",
        "--warmup",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "median_ms",
        "min_ms",
        "mean_ms",
        "p90_ms",
        "max_ms",
        "iterations",
        "threads",
        "bytes_moved",
        "memcpy_median_ms",
    ] {
        assert!(json.get(field).is_some(), "missing {field} in {json}");
    }
    assert_eq!(json["iterations"], 5);
    assert_eq!(json["interrupted"], false);
    // The peak resident memory: at least the binary itself, on Linux.
    if cfg!(target_os = "linux") {
        assert!(json["peak_rss_bytes"].as_u64().is_some_and(|b| b > 1 << 20), "{json}");
    }
    // A 4×4 f32 ReverseSequence writes its 64-byte output once per inference.
    assert_eq!(json["bytes_moved"], 64);
    // A narrowing Convert counts the larger tensor it reads: 2×4 f64 in,
    // 2×4 f32 out.
    let narrowing = sample("convert_f64_to_f32", "model.xml");
    let out = ovir(&["bench", &narrowing, "--iterations", "2", "--warmup", "0", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["bytes_moved"], 64, "{json}");
    let min = json["min_ms"].as_f64().unwrap();
    let median = json["median_ms"].as_f64().unwrap();
    let max = json["max_ms"].as_f64().unwrap();
    assert!(min <= median && median <= max, "{json}");
}

#[test]
fn bench_feeds_a_kv_cache_round_without_copying_it() {
    // The sample writes one step of keys into a [4,2,8,4] f32 cache (1 KiB)
    // with ScatterUpdate, then reorders the beams with a Gather.
    let model = sample("scatter_update_kv_cache", "model.xml");
    let moved = |extra: &[&str]| {
        let mut args = vec!["bench", model.as_str(), "--iterations", "5", "--warmup", "1", "--json"];
        args.extend_from_slice(extra);
        let out = ovir(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["bytes_moved"].as_u64().unwrap()
    };
    // Held by the benchmark, the cache is copied (1024 bytes) before the
    // scatter writes into the copy; the Gather writes 1024 bytes and reads
    // 4 i32 beam indices.
    assert_eq!(moved(&[]), 2048 + 16);
    // Fed back, it is updated in place: the 128 bytes of new keys, then
    // the Gather's.
    assert_eq!(moved(&["--feed", "present_keys=cache"]), 128 + 1024 + 16);
    let out = ovir(&["bench", &model, "--feed", "present_keys=new_keys", "--iterations", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let e = text(&out.stderr);
    assert!(
        e.contains("output \"present_keys\" is f32 [4,2,8,4] but input \"new_keys\" takes f32 [4,2,1,4]"),
        "{e}"
    );
    let out = ovir(&["bench", &model, "--feed", "present_keys", "--iterations", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not OUTPUT=INPUT"));
}

#[test]
fn bench_prints_a_report_for_a_person() {
    let out = ovir(&["bench", &sample("rseq_b1_s0_4x4", "model.xml"), "--iterations", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    for word in ["latency:", "median", "p90", "throughput:", "GB/s", "memcpy:"] {
        assert!(t.contains(word), "missing {word} in {t}");
    }
}

/// Every line of a message says something new: no line repeats text that
/// an earlier line already holds (as a `caused by:` copy of the message
/// would).
fn assert_said_once(err: &str) {
    let lines: Vec<&str> = err.lines().map(|l| l.trim().trim_start_matches("caused by: ")).collect();
    for (i, line) in lines.iter().enumerate().skip(1) {
        let before = lines.get(..i).unwrap_or_default();
        assert!(!before.iter().any(|b| b.contains(line)), "{line:?} is said twice in:\n{err}");
    }
}

#[test]
fn each_message_is_printed_once() {
    let dir = Scratch::new("once");
    let model = sample("rseq_b1_s0_4x4", "model.xml");
    let garbage = dir.join("garbage.npy");
    std::fs::write(&garbage, b"\x07\x00 not an array").unwrap();
    let a_file = dir.join("a_file");
    std::fs::write(&a_file, b"not a folder").unwrap();
    let runs: Vec<(Vec<String>, &str)> = vec![
        (vec![format!("data={}", dir.join("missing.npy").display())], "No such file or directory"),
        (vec![format!("data={}", garbage.display())], "not a .npy file"),
        (vec!["--max-memory".into(), "10".into()], "more than the memory limit of 10 bytes"),
        (
            vec![
                format!("data={}", sample("rseq_b1_s0_4x4", "in/data.npy")),
                "--max-memory".into(),
                "10".into(),
            ],
            "more than the memory limit of 10 bytes",
        ),
        (vec!["-o".into(), a_file.join("x.npz").display().to_string()], "exists and is not a folder"),
    ];
    for (extra, words) in runs {
        let mut args = vec!["run".to_string(), model.clone()];
        for e in extra {
            if e.contains('=') {
                args.push("-i".into());
            }
            args.push(e);
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ovir(&argv);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{argv:?}: {err}");
        assert!(err.starts_with("error:") && err.contains(words), "{argv:?}: {err}");
        assert_said_once(&err);
        // Files are written under a temporary name first; it is never shown.
        assert!(!err.contains(".tmp"), "{argv:?}: {err}");
    }
}

#[test]
fn inputs_left_out_are_generated_and_noted() {
    let case = "two_inputs_two_outputs";
    let model = sample(case, "model.xml");
    let given = Scratch::new("partial-given");
    let none = Scratch::new("partial-none");
    let x = format!("x={}", sample(case, "in/x.npy"));
    let out = ovir(&["run", &model, "-i", &x, "-o", &given.display().to_string()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err, "note: input \"y\" generated: f32 [2,3]\n");
    // The given input is used: its output matches OpenVINO's.
    let rx = std::fs::read(given.join("rx.npy")).unwrap();
    assert_eq!(rx, std::fs::read(samples().join(case).join("expected/rx.npy")).unwrap());
    // The generated one is what a run without -i uses, and that run says nothing.
    let out = ovir(&["run", &model, "-o", &none.display().to_string()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(std::fs::read(given.join("ry.npy")).unwrap(), std::fs::read(none.join("ry.npy")).unwrap());
}

#[test]
fn a_bare_npy_input_is_taken_for_a_model_with_one_input() {
    let case = "rseq_b1_s0_4x4";
    let out = ovir(&[
        "run",
        &sample(case, "model.xml"),
        "-i",
        &sample(case, "in/data.npy"),
        "--assert-outputs",
        &sample(case, "expected"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("matches bit for bit"));

    let case = "two_inputs_two_outputs";
    let out = ovir(&["run", &sample(case, "model.xml"), "-i", &sample(case, "in/x.npy")]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("the model has 2 inputs: x, y") && err.contains("-i NAME="), "{err}");
}

#[test]
fn output_paths_by_suffix_in_any_case_with_parents_created() {
    let dir = Scratch::new("outputs");
    let one = sample("rseq_b1_s0_4x4", "model.xml");
    let two = sample("two_inputs_two_outputs", "model.xml");
    let expected = samples().join("rseq_b1_s0_4x4/expected/out.npy");
    let data = format!("data={}", sample("rseq_b1_s0_4x4", "in/data.npy"));

    // `-o X.npy` for one output writes that array, whatever the case.
    for name in ["out.npy", "new/deeper/OUT.NPY"] {
        let path = dir.join(name);
        let out = ovir(&["run", &one, "-i", &data, "-o", &path.display().to_string()]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert!(path.is_file(), "{name} is not a file");
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&expected).unwrap(), "{name}");
    }
    // `.npz` in any case is an archive, in a folder made for it.
    for name in ["a.npz", "missing/B.NPZ"] {
        let path = dir.join(name);
        let out = ovir(&["run", &two, "-o", &path.display().to_string()]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let arrays = ovir_npy::read_npz_file(&path).unwrap();
        let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["rx", "ry"], "{name}");
    }
    // Anything else is a folder, made with its parents.
    let folder = dir.join("x/y/z");
    let out = ovir(&["run", &two, "-o", &folder.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(folder.join("rx.npy").is_file() && folder.join("ry.npy").is_file());
    // One .npy file cannot hold two outputs; nothing is written.
    let path = dir.join("both.npy");
    let out = ovir(&["run", &two, "-o", &path.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("the model has 2 outputs (rx, ry)") && err.contains(".npz"), "{err}");
    assert!(!path.exists());
}

#[test]
fn info_describes_a_converted_model_that_run_refuses() {
    let model = samples().join("unsupported/onnx_lstm/model.xml").display().to_string();
    let out = ovir(&["run", &model]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unknown operation type `LSTMSequence`"), "{}", text(&out.stderr));

    let out = ovir(&["info", &model]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("LSTMSequence_19 (LSTMSequence/opset5)") && t.contains("NOT SUPPORTED"), "{t}");
    assert!(t.contains("data: direction=forward hidden_size=4"), "{t}");
    assert!(t.contains("out 7: f32 [1,1,5,4]"), "{t}");
    // Inference went on around the unknown layers.
    assert!(t.contains("Concat_10 (Concat/opset1) <- 7:3, 8:0, 9:0 -> i64[3]"), "{t}");
    let problems = t.split("\nproblems:\n").nth(1).unwrap_or_default();
    assert!(problems.contains("LSTMSequence") && problems.contains("Transpose"), "{t}");

    let out = ovir(&["info", "--json", &model]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let layers = json["layers"].as_array().unwrap();
    let lstm = layers.iter().find(|l| l["op"] == "LSTMSequence").unwrap();
    assert_eq!(lstm["supported"], false);
    assert_eq!(lstm["attributes"]["hidden_size"], "4");
    assert_eq!(lstm["output_ports"].as_array().map(Vec::len), Some(3));
    assert_eq!(json["edges"].as_array().map(|e| e.len()), Some(json_edges(&model)));
    assert!(!json["problems"].as_array().unwrap().is_empty());

    let out = ovir(&["info", "--dot", &model]);
    let dot = text(&out.stdout);
    assert!(dot.contains("LSTMSequence (opset5)\\nnot supported\", shape=box, color=red"), "{dot}");
}

/// How many `<edge>` elements the file has.
fn json_edges(model: &str) -> usize {
    std::fs::read_to_string(model).unwrap().matches("<edge ").count()
}

#[test]
fn files_that_are_not_xml_are_named_and_never_echoed() {
    let dir = Scratch::new("binary");
    let npz = dir.join("o2.npz");
    let out = ovir(&["run", &sample("rseq_b1_s0_4x4", "model.xml"), "-o", &npz.display().to_string()]);
    assert_eq!(out.status.code(), Some(0));
    let bin = samples().join("rseq_b1_s0_4x4/model.bin").display().to_string();
    let cases = [
        (vec!["info".to_string(), npz.display().to_string()], "is a NumPy .npz archive"),
        (vec!["run".to_string(), sample("rseq_b1_s0_4x4", "in/data.npy")], "is a NumPy .npy array"),
        (vec!["check".to_string(), bin], "is binary data"),
        (vec!["check".to_string(), samples().join("rseq_b1_s0_4x4").display().to_string()], "is a folder"),
    ];
    for (args, words) in cases {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ovir(&argv);
        assert_eq!(out.status.code(), Some(1), "{argv:?}");
        let err = text(&out.stderr);
        assert!(err.contains(words), "{argv:?}: {err}");
        assert!(err.contains("not an OpenVINO IR .xml file"), "{argv:?}: {err}");
        // Nothing but printable text and line breaks reaches the terminal.
        assert!(out.stderr.iter().all(|&b| b == b'\n' || (b' '..=b'~').contains(&b)), "{argv:?}: {err:?}");
        // One message: a file that is no model has no problems to count.
        assert!(!err.contains("problem"), "{argv:?}: {err}");
    }
}

#[test]
fn check_takes_several_models_and_fails_if_any_does() {
    let good = sample("rseq_b1_s0_4x4", "model.xml");
    let two = sample("two_inputs_two_outputs", "model.xml");
    let bad = samples().join("bad/edge_to_missing_port/model.xml").display().to_string();
    let out = ovir(&["check", &good, &two]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(
        t.contains(&format!("{good}: ok (4 layers, 1 input, 1 output, 1 step to run after folding)")),
        "{t}"
    );
    assert!(t.contains(&format!("{two}: ok")) && t.contains("2 inputs, 2 outputs"), "{t}");

    // Every file is checked, the bad one in the middle included.
    let out = ovir(&["check", &good, &bad, &two]);
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out.stdout);
    assert!(t.contains(&format!("{good}: ok")) && t.contains(&format!("{two}: ok")), "{t}");
    assert!(
        text(&out.stderr).contains(&format!("{bad} is not valid: 2 problems found")),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn run_takes_threads_as_bench_does() {
    let case = "rseq_b1_s0_4x4";
    let model = sample(case, "model.xml");
    let data = format!("data={}", sample(case, "in/data.npy"));
    let expected = sample(case, "expected");
    let out = ovir(&["run", &model, "-i", &data, "--threads", "4", "--assert-outputs", &expected]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = ovir(&["run", &model, "--threads", "0"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn info_says_none_for_a_model_without_inputs() {
    let out = ovir(&["info", &sample("reverse_string_const", "model.xml")]);
    assert_eq!(out.status.code(), Some(0));
    let t = text(&out.stdout);
    assert!(t.contains("\ninputs: none\noutputs:\n"), "{t}");
}

#[test]
fn version_names_the_commit() {
    let out = ovir(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let t = text(&out.stdout);
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(|| "unknown".to_string(), |o| text(&o.stdout).trim().to_string());
    assert_eq!(t, format!("ovir {} (commit {commit})\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn completions_and_man_page_cover_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = ovir(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for word in ["check", "info", "run", "conformance", "bench", "assert-outputs", "max-memory"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
    let out = ovir(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(1));

    let out = ovir(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = text(&out.stdout);
    assert!(page.contains(".TH ovir 1"), "{page}");
    for word in ["check", "info", "run", "conformance", "bench", "completions"] {
        assert!(page.contains(&format!("ovir\\-{word}")) || page.contains(word), "man page lacks {word}");
    }
}

#[test]
fn port_mismatches_are_warnings_and_strict_refuses_them_with_their_line() {
    // The file's line of the port at fault, for each sample.
    let cases = [
        ("port_parameter_dims", "declares shape [2,3,4], but inference gives [2,5,4]", ":7:"),
        ("port_parameter_shape_overflows", "inference gives [4294967296,4294967296,16]", ":7:"),
        ("port_input_dims", "declares shape [2,5,3]", ":25:"),
        ("port_rank", "declares shape [2,20]", ":44:"),
        ("port_output_precision", "declares precision i32, but the tensor is f32", ":35:"),
    ];
    for (case, message, line) in cases {
        let model = samples().join("bad").join(case).join("model.xml").display().to_string();
        let lenient = ovir(&["check", &model]);
        let err = text(&lenient.stderr);
        assert_eq!(lenient.status.code(), Some(0), "{case}: {err}");
        assert!(text(&lenient.stdout).contains(": ok"), "{case}");
        assert!(err.starts_with("warning: ") && err.contains(message), "{case}: {err}");
        assert!(err.contains(&format!("model.xml{line}")), "{case}: {err}");

        let strict = ovir(&["check", "--strict", &model]);
        let err = text(&strict.stderr);
        assert_eq!(strict.status.code(), Some(1), "{case}: {err}");
        assert!(err.contains(message) && err.contains(&format!("model.xml{line}")), "{case}: {err}");
        assert!(err.contains("--strict"), "{case}: {err}");

        let info = ovir(&["info", "--json", &model]);
        assert_eq!(info.status.code(), Some(0), "{case}");
        let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        let warnings = json["warnings"].as_array().unwrap();
        assert!(
            warnings.iter().any(|w| w["message"].as_str().unwrap().contains(message)),
            "{case}: {warnings:?}"
        );
    }
    // A valid model has none, and --strict passes it.
    let ok = ovir(&["check", "--strict", &sample("rseq_b1_s0_4x4", "model.xml")]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stderr).is_empty(), "{}", text(&ok.stderr));
}

#[test]
fn xml_with_control_characters_is_shown_with_them_visible() {
    // A file that opens with a tag goes to the XML reader even when it
    // holds control characters: the message points at the bad byte, and
    // the characters reach the terminal as pictures, never raw.
    let dir = Scratch::new("control-characters");
    let model = dir.join("model.xml");
    let mut xml = b"<net>\n\t".to_vec();
    xml.extend(std::iter::repeat_n(0x0b, 40));
    xml.push(0x1b);
    xml.extend(b"<da\xff\xff\x7ft axis=\"0\"/>\n</net>\n");
    std::fs::write(&model, xml).unwrap();
    let out = ovir(&["check", &model.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("not valid UTF-8"), "{err}");
    assert!(err.contains("model.xml:2:"), "{err}");
    assert!(err.contains('\u{240b}') && err.contains('\u{241b}'), "{err}");
    assert!(!out.stderr.iter().any(|&b| b < 0x20 && b != b'\n'), "{err:?}");
    // The caret sits under the first invalid byte: as many columns in as
    // the characters before it on its line.
    let line = err.lines().find(|l| l.contains('\u{240b}')).unwrap();
    let caret = err.lines().find(|l| l.trim_end().ends_with('^')).unwrap();
    let col = |l: &str, i: usize| l[..i].chars().count();
    let bad = line.find('\u{fffd}').unwrap();
    assert_eq!(col(caret, caret.find('^').unwrap()), col(line, bad), "{err}");
}

#[test]
fn shape_sets_the_size_of_generated_dynamic_inputs() {
    // `data` is [2,?]: without --shape the ? becomes 2, and the run says so.
    let model = sample("dynamic_reverse_2xq", "model.xml");
    let dir = Scratch::new("data-shape");
    let noted = "note: input \"data\" has the dynamic shape [2,?]; generated: f32 [2,2]; \
                 `--shape data=[DIMS]` sets another\n";
    let quick = ["--iterations", "2", "--warmup", "1"];
    for argv in [vec!["run", &model], [&["bench", &model][..], &quick].concat()] {
        let out = ovir(&argv);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stderr), noted, "{argv:?}");
    }
    let out = ovir(&["run", &model, "--shape", "data=[2,9]", "-o", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A size that was asked for is not noted.
    assert_eq!(text(&out.stderr), "");
    let result = ovir_npy::read_npy_file(&dir.join("out.npy")).unwrap();
    assert_eq!(result.shape(), &[2, 9]);
    let bench =
        ovir(&["bench", &model, "--shape", "data=[2,9]", "--iterations", "3", "--warmup", "1", "--json"]);
    assert_eq!(bench.status.code(), Some(0), "{}", text(&bench.stderr));
    let report: serde_json::Value = serde_json::from_slice(&bench.stdout).unwrap();
    // The output is 2 x 9 f32s.
    assert_eq!(report["bytes_moved"], 72);

    let refused = [
        (vec!["--shape", "data=[3,9]"], "must have shape [2,?]"),
        (vec!["--shape", "data=[2,?]"], "must be static"),
        (vec!["--shape", "nope=[2]"], "has no input \"nope\""),
        (vec!["--shape", "data"], "is not NAME=[DIMS]"),
        (vec!["--shape", "data=[2,9]", "--shape", "data=[2,3]"], "give it once"),
    ];
    for (extra, words) in refused {
        let mut argv = vec!["run", &model];
        argv.extend(extra.iter().copied());
        let out = ovir(&argv);
        assert_eq!(out.status.code(), Some(1), "{argv:?}");
        assert!(text(&out.stderr).contains(words), "{argv:?}: {}", text(&out.stderr));
    }
    // A batch of [1..5] that three constant lengths fix at 3: the batch is
    // generated at 3, and noted.
    let tied = sample("interval_rseq_1_5x4", "model.xml");
    let out = ovir(&["run", &tied, "-o", &dir.join("tied.npy").display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("note: input \"data\" has the dynamic shape [1..5,4]; generated: f32 [3,4]"),
        "{err}"
    );
    assert_eq!(ovir_npy::read_npy_file(&dir.join("tied.npy")).unwrap().shape(), &[3, 4]);
    let out = ovir(&["run", &tied, "--shape", "data=[3,4]"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let given = format!("data={}", sample("dynamic_reverse_2xq", "in/data.npy"));
    let out = ovir(&["run", &model, "-i", &given, "--shape", "data=[2,7]"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("generated inputs only"), "{}", text(&out.stderr));
}

#[test]
fn generated_sequence_lengths_follow_the_batch_of_the_data() {
    // data [?,?] with batch_axis 1 and seq_axis 0; lengths a Parameter [?].
    let model = sample("dynamic_rseq_runtime_lengths", "model.xml");
    let dir = Scratch::new("rseq-lengths");
    let out_file = dir.join("out.npy").display().to_string();
    let out = ovir(&["run", &model, "--shape", "data=[5,7]", "-o", &out_file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "note: input \"lengths\" has the dynamic shape [?]; generated: i32 [7]; \
         `--shape lengths=[DIMS]` sets another\n"
    );
    // The data is generated as the fixed pattern 0, -0.5, 1, -1.5, ... and
    // the lengths as 1, 2, 3, 4, 5, 1, 2: column b keeps its first
    // lengths[b] rows reversed, the rest in place.
    let data: Vec<f32> =
        (0..35).map(|i| if i % 2 == 0 { (i % 251) as f32 } else { -((i % 251) as f32) / 2.0 }).collect();
    let lengths = [1, 2, 3, 4, 5, 1, 2];
    let mut expected = vec![0f32; 35];
    for b in 0..7 {
        for t in 0..5 {
            let from = if t < lengths[b] { lengths[b] - 1 - t } else { t };
            expected[t * 7 + b] = data[from * 7 + b];
        }
    }
    let result = ovir_npy::read_npy_file(&dir.join("out.npy")).unwrap();
    assert_eq!(result.shape(), &[5, 7]);
    assert_eq!(result.to_vec::<f32>().unwrap(), expected);
    // Data read from a file: the generated lengths follow its batch.
    let given = format!("data={}", sample("dynamic_rseq_runtime_lengths", "in/data.npy"));
    let out = ovir(&["run", &model, "-i", &given]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let batch =
        ovir_npy::read_npy_file(std::path::Path::new(&sample("dynamic_rseq_runtime_lengths", "in/data.npy")))
            .unwrap()
            .shape()[1];
    assert!(text(&out.stderr).contains(&format!("generated: i32 [{batch}]")), "{}", text(&out.stderr));
    // On bench too.
    let out = ovir(&["bench", &model, "--shape", "data=[5,7]", "--iterations", "2", "--warmup", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn bench_prints_each_time_in_the_unit_that_fits() {
    let out = ovir(&["bench", &sample("rseq_b1_s0_4x4", "model.xml"), "--iterations", "5", "--warmup", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let latency = report.lines().find(|l| l.starts_with("latency:")).unwrap();
    // Every statistic is a number from 1 to 1000 (or whole nanoseconds)
    // and its unit: a 4x4 model takes microseconds, never "0.001 ms".
    let words: Vec<&str> = latency.split_whitespace().skip(1).collect();
    for pair in words.chunks(3) {
        let (value, unit) = (pair[1].parse::<f64>().unwrap(), pair[2]);
        assert!(["ns", "µs", "ms", "s"].contains(&unit), "{latency}");
        assert!(unit == "ns" || (1.0..1000.0).contains(&value), "{latency}");
    }
}

#[test]
fn a_folder_in_the_place_of_one_output_leaves_every_output_as_it_was() {
    let case = "two_inputs_two_outputs";
    let model = sample(case, "model.xml");
    let dir = Scratch::new("folder-in-the-way");
    let first = ovir(&["run", &model, "-o", &dir.display().to_string()]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let before = std::fs::read(dir.join("rx.npy")).unwrap();
    std::fs::remove_file(dir.join("ry.npy")).unwrap();
    std::fs::create_dir(dir.join("ry.npy")).unwrap();
    // Other inputs than the first run's, so rx.npy would change.
    let x = format!("x={}", sample(case, "in/x.npy"));
    let y = format!("y={}", sample(case, "in/y.npy"));
    let out = ovir(&["run", &model, "-i", &x, "-i", &y, "-o", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("it is a folder"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(dir.join("rx.npy")).unwrap(), before);
    assert_eq!(listing(&dir), ["rx.npy", "ry.npy"]);
}

/// A copy of the case `rseq_b1_s0_4x4` in `dir` whose expected output has
/// its element [1, 2] one f32 step (1 ulp) above the real one.
fn case_one_ulp_off(dir: &std::path::Path) -> f32 {
    let case = samples().join("rseq_b1_s0_4x4");
    for sub in ["in", "expected"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for file in ["model.xml", "model.bin", "in/data.npy"] {
        std::fs::copy(case.join(file), dir.join(file)).unwrap();
    }
    let mut values =
        ovir::npy::read_npy_file(&case.join("expected/out.npy")).unwrap().to_vec::<f32>().unwrap();
    let real = values[6];
    values[6] = f32::from_bits(real.to_bits() + 1);
    let off = ovir::Tensor::from_vec(&[4, 4], values).unwrap();
    ovir::npy::write_npy_file(&off, &dir.join("expected/out.npy")).unwrap();
    real
}

#[test]
fn assert_outputs_takes_a_tolerance() {
    let dir = Scratch::new("tolerance");
    let real = case_one_ulp_off(&dir);
    let (model, data) =
        (dir.join("model.xml").display().to_string(), dir.join("in/data.npy").display().to_string());
    let expected = dir.join("expected").display().to_string();
    let run = |extra: &[&str]| {
        let mut args =
            vec!["run", model.as_str(), "-i", data.as_str(), "--assert-outputs", expected.as_str()];
        args.extend(extra);
        ovir(&args)
    };
    let exact = run(&[]);
    assert_eq!(exact.status.code(), Some(1));
    let err = text(&exact.stderr);
    let next = f32::from_bits(real.to_bits() + 1);
    assert!(err.contains(&format!("first at [1, 2]: expected {next}, got {real}")), "{err}");

    let ulp = run(&["--ulp", "1"]);
    assert_eq!(ulp.status.code(), Some(0), "{}", text(&ulp.stderr));
    assert_eq!(text(&ulp.stdout), "output \"out\" matches within ulp=1\n");
    // |a - e| <= atol + rtol * |e|: one step of a normal f32 is at most
    // 2^-23 (1.19e-7) of its magnitude.
    assert!(real.is_normal());
    let rtol = run(&["--rtol", "1.2e-7"]);
    assert_eq!(rtol.status.code(), Some(0), "{}", text(&rtol.stderr));
    let tight = run(&["--atol", "1e-12", "--rtol", "0"]);
    assert_eq!(tight.status.code(), Some(1));
    let err = text(&tight.stderr);
    assert!(err.contains("1 of 16 elements differ beyond atol=1e-12, rtol=0; first at [1, 2]"), "{err}");
}

#[test]
fn tolerances_are_checked_before_anything_runs() {
    let model = sample("rseq_b1_s0_4x4", "model.xml");
    let out = ovir(&["run", &model, "--atol", "1e-3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("give --assert-outputs too"), "{}", text(&out.stderr));
    for bad in ["-1", "nan", "inf", "x"] {
        let out = ovir(&["conformance", &samples().display().to_string(), &format!("--rtol={bad}")]);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let err = text(&out.stderr);
        assert!(err.contains(&format!("'{bad}' is not a tolerance")), "{err}");
    }
}

#[test]
fn conformance_takes_a_tolerance() {
    let dir = Scratch::new("conformance-tolerance");
    case_one_ulp_off(&dir.join("off"));
    let root = dir.display().to_string();
    let exact = ovir(&["conformance", &root]);
    assert_eq!(exact.status.code(), Some(1));
    let t = text(&exact.stdout);
    assert!(t.starts_with("FAIL  off  out: 1 of 16 elements differ; first at [1, 2]"), "{t}");
    let loose = ovir(&["conformance", &root, "--ulp", "1", "--atol", "0"]);
    assert_eq!(loose.status.code(), Some(0), "{}", text(&loose.stdout));
    assert_eq!(text(&loose.stdout), "PASS  off  1 output within atol=0, ulp=1\n1 passed, 0 failed\n");
}

#[test]
fn an_input_given_twice_is_refused() {
    let model = sample("chain_convert_reverse", "model.xml");
    let data = sample("chain_convert_reverse", "in/data.npy");
    let named = format!("data={data}");
    for (command, first, second) in
        [("run", &named, &named), ("run", &data, &named), ("bench", &named, &data)]
    {
        let out = ovir(&[command, &model, "-i", first, "-i", second]);
        assert_eq!(out.status.code(), Some(1), "{command} {first} {second}");
        assert_eq!(
            text(&out.stderr),
            format!("error: `-i {first}` and `-i {second}` both set input \"data\"; give it once\n")
        );
    }
}

/// Ctrl-C during `ovir bench` stops it between two inferences: the
/// progress line is ended, the run is said to be interrupted, the
/// statistics of the inferences done are printed, and the exit status is
/// 130, as for any command stopped by SIGINT.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_bench_with_the_statistics_of_what_ran() {
    use std::process::Stdio;
    use std::time::Duration;

    let model = sample("rseq_b1_s0_4x4", "model.xml");
    let total = "10000000";
    let interrupt = |json: bool| {
        // The signal must come once the timing has begun; a machine busy
        // enough to still be compiling gets another try, later.
        for wait in [1, 3, 8] {
            let mut args = vec!["bench", model.as_str(), "--iterations", total, "--warmup", "1"];
            if json {
                args.push("--json");
            }
            let child = Command::new(env!("CARGO_BIN_EXE_ovir"))
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_secs(wait));
            let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
            assert!(sent.success());
            let out = child.wait_with_output().unwrap();
            if out.status.code().is_some() {
                return out;
            }
        }
        panic!("ovir bench never got as far as timing");
    };

    let out = interrupt(true);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let done = err.strip_prefix("interrupted after ").and_then(|e| e.strip_suffix(" of 10000000\n"));
    let done: usize = done.and_then(|d| d.split(' ').next()).and_then(|n| n.parse().ok()).expect(&err);
    assert!(done > 0 && done < 10_000_000, "{err}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["interrupted"], true);
    assert_eq!(report["iterations"], done);
    assert!(report["median_ms"].as_f64().is_some_and(|m| m > 0.0), "{report}");
    assert!(report["memcpy_median_ms"].as_f64().is_some(), "{report}");

    let out = interrupt(false);
    assert_eq!(out.status.code(), Some(130));
    let report = text(&out.stdout);
    assert!(report.contains(" timed after 1 warm-up") && report.contains("latency:    min "), "{report}");
}

/// On a terminal, the progress line Ctrl-C stops is ended before the
/// report: run under util-linux's `script`, which gives it one.
#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_on_a_terminal_ends_the_progress_line() {
    use std::process::Stdio;
    use std::time::Duration;

    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no `script` here to give ovir bench a terminal");
        return;
    }
    let dir = Scratch::new("tty");
    let (pid_file, typescript) = (dir.join("pid"), dir.join("typescript"));
    let model = sample("rseq_b1_s0_4x4", "model.xml");
    // `script` hands the command to `$SHELL -c`. That one shell writes its
    // pid and becomes ovir, so that the signal goes to ovir itself; with
    // no shell nested inside it, `$$` cannot name a parent that merely
    // waits for ovir.
    let command = format!(
        "echo $$ > '{}'; exec '{}' bench '{model}' --iterations 10000000 --warmup 1",
        pid_file.display(),
        env!("CARGO_BIN_EXE_ovir")
    );
    for wait in [1, 3, 8] {
        let _ = std::fs::remove_file(&pid_file);
        let mut child = Command::new("script")
            .args(["-qfec", &command, &typescript.display().to_string()])
            .env("SHELL", "/bin/sh")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The pid is there once the shell has started; give ovir `wait`
        // seconds more to draw its bar.
        let mut pid = String::new();
        for _ in 0..300 {
            pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
            if pid.ends_with('\n') {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_secs(wait));
        assert!(Command::new("kill").args(["-INT", pid.trim()]).status().unwrap().success());
        let status = child.wait().unwrap();
        if status.code() != Some(130) {
            continue;
        }
        let shown = std::fs::read_to_string(&typescript).unwrap();
        // The last drawing of the bar ends its line; the message starts
        // one of its own.
        let at = shown.find("interrupted after ").expect(&shown);
        let before = &shown[..at];
        assert!(before.ends_with('\n') && before.contains("infer ["), "{shown}");
        assert!(shown[at..].contains("\nruns: "), "{shown}");
        return;
    }
    panic!("ovir bench under script never got as far as timing");
}
