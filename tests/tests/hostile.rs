//! Hostile inputs too large to keep in the repository: each is generated
//! in a temporary folder, read within a wall-clock bound, and must give a
//! clear error (or succeed, where the file is valid). The small hostile
//! files live in `ir-samples/bad/` and are covered by `snapshots.rs`.
//!
//! The bounds are generous enough for a debug build on a loaded machine;
//! what they catch is a hang or work that grows faster than the file.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Parser as _;
use ovir::{CompileOptions, ElementType, Error, Model, Tensor};
use ovir_tests::samples_dir;

/// The most a single hostile case may take, reading and all.
const BOUND: Duration = Duration::from_secs(240);

/// Runs `f` on its own thread and fails the test if it takes longer than
/// [`BOUND`]: a hang becomes a failure instead of a stuck test run.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(BOUND) {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {BOUND:?} (started {:?} ago)", start.elapsed()),
    }
}

/// A fresh temporary folder holding `model.xml` written by `write`.
fn model_file(
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.xml");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    write(&mut file).unwrap();
    std::io::Write::flush(&mut file).unwrap();
    (dir, path)
}

/// The rendered error, with the temporary path replaced so that snapshots
/// are the same on every run.
fn rendered(err: &Error, path: &Path) -> String {
    err.render(false).replace(&path.display().to_string(), "model.xml")
}

/// Reads and compiles as `ovir check` does, and also runs `ovir check`
/// itself, which must report a failure.
fn check_fails(path: PathBuf) -> String {
    within("reading the model", move || {
        let err = Model::read(&path).and_then(|m| m.compile().map(|_| ())).unwrap_err();
        let args = ovir_cli::args::CheckArgs { models: vec![path.clone()], weights: None, strict: false };
        let outcome = ovir_cli::check::run(&args, false, &mut Vec::new()).unwrap();
        assert!(matches!(outcome, ovir_cli::Outcome::Failure), "ovir check accepted the file");
        rendered(&err, &path)
    })
}

const HEADER: &str = "<?xml version=\"1.0\"?>\n<net name=\"hostile\" version=\"11\">\n";

fn parameter(out: &mut dyn std::io::Write, id: usize, shape: &str, ty: &str) -> std::io::Result<()> {
    let dims: String = shape.split(',').map(|d| format!("<dim>{d}</dim>")).collect();
    writeln!(
        out,
        "<layer id=\"{id}\" name=\"p{id}\" type=\"Parameter\" version=\"opset1\"><data shape=\"{shape}\" \
         element_type=\"{ty}\"/><output><port id=\"0\" precision=\"FP32\" names=\"p{id}\">{dims}</port>\
         </output></layer>"
    )
}

fn result(out: &mut dyn std::io::Write, id: usize, dims: &str) -> std::io::Result<()> {
    writeln!(
        out,
        "<layer id=\"{id}\" name=\"r{id}\" type=\"Result\" version=\"opset1\"><input><port id=\"0\">{dims}\
         </port></input></layer>"
    )
}

fn edge(out: &mut dyn std::io::Write, from: usize, from_port: usize, to: usize) -> std::io::Result<()> {
    writeln!(out, "<edge from-layer=\"{from}\" from-port=\"{from_port}\" to-layer=\"{to}\" to-port=\"0\"/>")
}

#[test]
fn xml_nested_a_million_levels_deep_is_refused_at_the_depth_limit() {
    let (_dir, path) = model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        // All on one line, as a hostile file would be: the diagnostic must
        // still show only a small window of it.
        for _ in 0..1_000_000 {
            out.write_all(b"<a>")?;
        }
        for _ in 0..1_000_000 {
            out.write_all(b"</a>")?;
        }
        out.write_all(b"</net>\n")
    });
    let text = check_fails(path);
    assert!(text.contains("nested more than 64 levels deep"), "{text}");
    assert!(text.len() < 2_000, "the diagnostic is {} bytes long", text.len());
    insta::assert_snapshot!("xml_nested_a_million_levels_deep", text);
}

/// A Parameter feeding a Result with id `result_id` whose name is `len`
/// bytes long.
fn long_named_result(result_id: u32, len: usize) -> (tempfile::TempDir, PathBuf) {
    model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "2", "f32")?;
        write!(out, "<layer id=\"{result_id}\" name=\"")?;
        out.write_all(&vec![b'n'; len])?;
        writeln!(
            out,
            "\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>2</dim></port></input></layer>"
        )?;
        out.write_all(b"</layers>\n<edges>\n")?;
        edge(out, 0, 0, 1)?;
        out.write_all(b"</edges>\n</net>\n")
    })
}

#[test]
fn an_attribute_of_20_mb_reads_and_errors_stay_small() {
    // 20 MB is far past any buffer size a reader might assume, and as
    // telling as more: every pass over the text is linear.
    const SIZE: usize = 20 << 20;
    // A valid model whose Result has a 20 MB name: it must load (OpenVINO
    // has no limit on names), in bounded time.
    let (_dir, path) = long_named_result(1, SIZE);
    let name_len = within("reading a model with a 20 MB name", move || {
        let model = Model::read(&path).unwrap();
        let compiled = model.compile().unwrap();
        let mut request = compiled.infer_request();
        request.set_input(0, Tensor::from_vec(&[2], vec![1.0f32, 2.0]).unwrap()).unwrap();
        request.infer().unwrap();
        model.ir().layers[1].name.len()
    });
    assert_eq!(name_len, SIZE);

    // The same name on a layer that is wrong: the diagnostic shows a
    // window of the line and a shortened name.
    // The id repeats the Parameter's.
    let (_dir, path) = long_named_result(0, SIZE);
    let text = check_fails(path);
    assert!(text.len() < 2_000, "the diagnostic is {} bytes long", text.len());
    insta::assert_snapshot!("attribute_of_20_mb", text);
}

/// One Parameter feeding `results` Result layers: that many edges too.
fn fan_out(results: usize) -> (tempfile::TempDir, PathBuf) {
    model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "1", "f32")?;
        for id in 1..=results {
            result(out, id, "<dim>1</dim>")?;
        }
        out.write_all(b"</layers>\n<edges>\n")?;
        for id in 1..=results {
            edge(out, 0, 0, id)?;
        }
        out.write_all(b"</edges>\n</net>\n")
    })
}

#[test]
fn two_hundred_thousand_layers_and_edges_read_and_run() {
    // OpenVINO has no limit on the size of a graph, so neither does ovir:
    // a valid graph of 200,000 layers is accepted, and costs time and
    // memory in proportion to its size (one quadratic pass would take
    // 4 * 10^10 steps, far past the time bound).
    let (_dir, path) = fan_out(200_000);
    let (layers, outputs) = within("reading 200,000 layers", move || {
        let model = Model::read(&path).unwrap();
        let compiled = model.compile().unwrap();
        let mut request = compiled.infer_request();
        request.set_input(0, Tensor::from_vec(&[1], vec![7.0f32]).unwrap()).unwrap();
        request.infer().unwrap();
        let outputs = request.outputs();
        assert!(outputs.iter().all(|t| t.to_vec::<f32>().unwrap() == [7.0]));
        (model.ir().layers.len(), outputs.len())
    });
    assert_eq!((layers, outputs), (200_001, 200_000));
}

#[test]
fn two_hundred_thousand_edges_into_one_port_are_refused_in_bounded_time() {
    let (_dir, path) = model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "1", "f32")?;
        result(out, 1, "<dim>1</dim>")?;
        out.write_all(b"</layers>\n<edges>\n")?;
        for _ in 0..200_000 {
            edge(out, 0, 0, 1)?;
        }
        out.write_all(b"</edges>\n</net>\n")
    });
    let text = check_fails(path);
    assert!(text.contains("fed by a second edge"), "{}", &text[..text.len().min(2000)]);
}

#[test]
fn a_chain_of_100000_layers_reads_and_runs_without_recursion() {
    // A recursive walk 100,000 layers deep overflows a test thread's 2 MiB
    // stack as surely as a longer one would.
    const CHAIN: usize = 100_000;
    let (_dir, path) = model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "3", "i32")?;
        for id in 1..=CHAIN {
            // Alternate the type so that no step is a no-op.
            let (from, to) = if id % 2 == 1 { ("I32", "i64") } else { ("I64", "i32") };
            writeln!(
                out,
                "<layer id=\"{id}\" name=\"c{id}\" type=\"Convert\" version=\"opset1\"><data \
                 destination_type=\"{to}\"/><input><port id=\"0\" precision=\"{from}\"><dim>3</dim></port>\
                 </input><output><port id=\"1\"><dim>3</dim></port></output></layer>"
            )?;
        }
        result(out, CHAIN + 1, "<dim>3</dim>")?;
        out.write_all(b"</layers>\n<edges>\n")?;
        edge(out, 0, 0, 1)?;
        for id in 2..=CHAIN + 1 {
            edge(out, id - 1, 1, id)?;
        }
        out.write_all(b"</edges>\n</net>\n")
    });
    let out = within("reading and running a chain of 200000 layers", move || {
        let model = Model::read(&path).unwrap();
        let compiled = model.compile().unwrap();
        assert_eq!(compiled.plan().step_count(), CHAIN);
        let mut request = compiled.infer_request();
        // Generated inputs follow the chain to see what the input feeds;
        // that walk must be linear too.
        let generated = compiled.example_inputs().unwrap();
        assert_eq!(generated[0].shape(), &[3]);
        request.set_input(0, Tensor::from_vec(&[3], vec![1i32, -2, 3]).unwrap()).unwrap();
        request.infer().unwrap();
        request.output(0).unwrap().to_vec::<i32>().unwrap()
    });
    assert_eq!(out, [1, -2, 3]);
}

/// A Parameter of shape [1000000,1000000,1000000] feeding a Result.
fn huge_parameter() -> (tempfile::TempDir, PathBuf) {
    model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "1000000,1000000,1000000", "f32")?;
        result(out, 1, "<dim>1000000</dim><dim>1000000</dim><dim>1000000</dim>")?;
        out.write_all(b"</layers>\n<edges>\n")?;
        edge(out, 0, 0, 1)?;
        out.write_all(b"</edges>\n</net>\n")
    })
}

#[test]
fn a_parameter_of_10_to_the_18_elements_fails_at_once_with_generated_inputs() {
    let (_dir, path) = huge_parameter();
    let text = within("generating inputs for a huge parameter", move || {
        let compiled = Model::read(&path).unwrap().compile().unwrap();
        let start = Instant::now();
        let err = compiled.example_inputs().unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
        assert!(matches!(err, Error::InputTooLarge { .. }), "{err:?}");
        err.to_string()
    });
    assert!(text.contains("4000000000000000000 bytes"), "{text}");
    assert!(text.contains("limit of 17179869184 bytes"), "{text}");
    insta::assert_snapshot!("parameter_of_10_to_the_18_elements", text);
}

#[test]
fn the_memory_limit_is_set_with_max_memory_on_the_command_line() {
    let case = samples_dir().join("rseq_b1_s0_4x4").join("model.xml");
    let run = |limit: &str| {
        let cli = ovir_cli::args::Cli::try_parse_from([
            "ovir",
            "run",
            case.to_str().unwrap(),
            "--max-memory",
            limit,
        ])
        .unwrap();
        let ovir_cli::args::Command::Run(args) = cli.command else { unreachable!() };
        ovir_cli::run::run(&args, &mut Vec::new())
    };
    // The 4x4 f32 input takes 64 bytes; it is generated in place, with no
    // f64 copy of it to count.
    assert!(run("1K").is_ok());
    assert!(run("64").is_ok());
    let err = run("60").unwrap_err().render(false);
    assert!(err.contains("needs 64 bytes, more than the memory limit of 60 bytes"), "{err}");
}

#[test]
fn layer_outputs_are_checked_against_the_limit_before_allocation() {
    let compiled = Model::read(samples_dir().join("chain_convert_reverse").join("model.xml"))
        .unwrap()
        .compile_with(CompileOptions::default().with_max_memory(20))
        .unwrap();
    // The u8 input (10 bytes) fits; the f32 the Convert makes (40) does not.
    let mut request = compiled.infer_request();
    request.set_input(0, Tensor::zeros(ElementType::U8, &[2, 5]).unwrap()).unwrap();
    let err = request.infer().unwrap_err();
    let text = err.render(false);
    assert!(text.contains("cannot allocate its output"), "{text}");
    assert!(text.contains("needs 40 bytes, more than the memory limit of 20 bytes"), "{text}");
    insta::assert_snapshot!("layer_output_over_the_memory_limit", text);

    // Setting an input larger than the limit fails at the call.
    let compiled = Model::read(samples_dir().join("chain_convert_reverse").join("model.xml"))
        .unwrap()
        .compile_with(CompileOptions::default().with_max_memory(5))
        .unwrap();
    let err =
        compiled.infer_request().set_input(0, Tensor::zeros(ElementType::U8, &[2, 5]).unwrap()).unwrap_err();
    assert!(matches!(err, Error::InputTooLarge { .. }), "{err}");
}

/// A valid sample rewritten: every output must match the sample's
/// expected outputs exactly.
fn runs_like_the_original(case: &str, rewrite: impl FnOnce(&str) -> Vec<u8>) {
    let dir = samples_dir().join(case);
    let xml = std::fs::read_to_string(dir.join("model.xml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("model.xml"), rewrite(&xml)).unwrap();
    std::fs::copy(dir.join("model.bin"), tmp.path().join("model.bin")).unwrap();
    let compiled = Model::read(tmp.path().join("model.xml"))
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .compile()
        .unwrap();
    let mut request = compiled.infer_request();
    let input = ovir_npy::read_npy_file(&dir.join("in").join("data.npy")).unwrap();
    request.set_input("data", input).unwrap();
    request.infer().unwrap();
    let expected = ovir_npy::read_npy_file(&dir.join("expected").join("out.npy")).unwrap();
    assert_eq!(request.output(0).unwrap(), &expected);
}

#[test]
fn a_byte_order_mark_and_crlf_line_ends_are_read_as_openvino_reads_them() {
    runs_like_the_original("chain_convert_reverse", |xml| {
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend_from_slice(xml.replace('\n', "\r\n").as_bytes());
        bytes
    });
}

#[test]
fn comments_cdata_and_processing_instructions_in_odd_places_change_nothing() {
    runs_like_the_original("chain_convert_reverse", |xml| {
        xml.replacen(
            "<?xml version=\"1.0\"?>\n",
            "<?xml version=\"1.0\"?>\n<!-- before --><?pi before?>\n",
            1,
        )
        .replacen("<layers>", "<layers><!-- <layer id=\"99\"/> --><![CDATA[<layer id=\"98\"/>]]><?pi x?>", 1)
        .replacen("<dim>2</dim>", "<dim><!-- two -->2<?pi?></dim>", 1)
        .replacen("<dim>5</dim>", "<dim><![CDATA[5]]></dim>", 1)
        .replacen("<edges>", "<edges>\n<!-- <edge from-layer=\"0\"/> -->", 1)
        .replacen("</net>", "</net>\n<!-- after --><?pi after?>\n", 1)
        .into_bytes()
    });
}

#[test]
fn npy_inputs_that_lie_or_use_unknown_dtypes_are_refused() {
    let case = samples_dir().join("rseq_b1_s0_4x4");
    let good = std::fs::read(case.join("in").join("data.npy")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // Both keep the header's length, so only the lie itself is wrong.
    let replace = |from: &str, to: &str| -> Vec<u8> {
        assert_eq!(from.len(), to.len());
        let at = good.windows(from.len()).position(|w| w == from.as_bytes()).unwrap();
        let mut bytes = good.clone();
        bytes[at..at + from.len()].copy_from_slice(to.as_bytes());
        bytes
    };
    // Claims 4 rows of 4000, but holds the data of 4 by 4.
    let lying = replace("(4, 4), }   ", "(4, 4000), }");
    let unknown_dtype = replace("'<f4'", "'<c8'");
    let mut texts = Vec::new();
    for (name, bytes) in [("size_lie", lying), ("unknown_dtype", unknown_dtype)] {
        assert_ne!(bytes.len(), 0);
        let file = tmp.path().join(format!("{name}.npy"));
        std::fs::write(&file, &bytes).unwrap();
        let cli = ovir_cli::args::Cli::try_parse_from([
            "ovir".to_string(),
            "run".to_string(),
            case.join("model.xml").display().to_string(),
            "-i".to_string(),
            format!("data={}", file.display()),
        ])
        .unwrap();
        let ovir_cli::args::Command::Run(args) = cli.command else { unreachable!() };
        let err = ovir_cli::run::run(&args, &mut Vec::new()).unwrap_err();
        texts.push(err.render(false).replace(&tmp.path().display().to_string(), "TMP"));
    }
    assert!(texts[0].contains("announces 64000 bytes of data, but 64 bytes follow"), "{}", texts[0]);
    assert!(texts[1].contains("the dtype '<c8' is not supported"), "{}", texts[1]);
    insta::assert_snapshot!("npy_inputs_that_lie", texts.join("\n\n"));
}

/// The small hostile files, `ir-samples/bad/hostile_*` (their source is
/// `tools/hostile-samples/`): each must be refused quickly with its
/// expected phrase. `snapshots.rs` snapshots their diagnostics with every
/// other bad sample's.
#[test]
fn small_hostile_samples_are_refused_quickly() {
    let dir = ovir_tests::samples_dir().join("bad");
    let cases: Vec<PathBuf> = ovir_tests::case_dirs(&dir)
        .into_iter()
        .filter(|c| ovir_tests::case_name(c).starts_with("hostile_"))
        .collect();
    assert!(cases.len() >= 10, "expected at least 10 hostile samples, found {}", cases.len());
    for case in cases {
        let name = ovir_tests::case_name(&case);
        let phrase = std::fs::read_to_string(case.join("expected_error")).unwrap().trim().to_lowercase();
        let start = Instant::now();
        let err = match Model::read(case.join("model.xml")).and_then(|m| m.compile()) {
            Ok(_) => panic!("hostile sample {name} was accepted"),
            Err(e) => e,
        };
        assert!(start.elapsed() < Duration::from_secs(10), "{name} took {:?}", start.elapsed());
        let text = err.render(false);
        assert!(text.to_lowercase().contains(&phrase), "{name}: {text} does not mention {phrase:?}");
    }
}

/// A model with one output per name, each a Convert of one input.
fn outputs_named(names: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let names: Vec<String> = names.iter().map(|n| n.replace('&', "&amp;").replace('"', "&quot;")).collect();
    model_file(move |out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "2", "f32")?;
        for (i, name) in names.iter().enumerate() {
            let (convert, sink) = (1 + 2 * i, 2 + 2 * i);
            writeln!(
                out,
                "<layer id=\"{convert}\" name=\"c{i}\" type=\"Convert\" version=\"opset1\"><data \
                 destination_type=\"f32\"/><input><port id=\"0\"><dim>2</dim></port></input><output>\
                 <port id=\"1\" names=\"{name}\"><dim>2</dim></port></output></layer>"
            )?;
            result(out, sink, "<dim>2</dim>")?;
        }
        out.write_all(b"</layers>\n<edges>\n")?;
        for i in 0..names.len() {
            let (convert, sink) = (1 + 2 * i, 2 + 2 * i);
            edge(out, 0, 0, convert)?;
            edge(out, convert, 1, sink)?;
        }
        out.write_all(b"</edges>\n</net>\n")
    })
}

fn run_to(model: &Path, out: &Path) -> Result<ovir_cli::Outcome, ovir_cli::CliError> {
    let cli = ovir_cli::args::Cli::try_parse_from([
        "ovir".to_string(),
        "run".to_string(),
        model.display().to_string(),
        "-o".to_string(),
        out.display().to_string(),
    ])
    .unwrap();
    let ovir_cli::args::Command::Run(args) = cli.command else { unreachable!() };
    ovir_cli::run::run(&args, &mut Vec::new())
}

/// Every file below `dir`, relative to it.
fn files_below(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn output_names_from_the_file_never_write_outside_the_output_directory() {
    let long = "x".repeat(10_000);
    let (model_dir, model) = outputs_named(&["../../escape", "/tmp/absolute", "..", "CON", &long]);
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("a").join("b").join("out");
    run_to(&model, &out).unwrap_or_else(|e| panic!("{}", e.render(false)));
    let expected = vec![
        ".._.._escape.npy".to_string(),
        "_CON.npy".to_string(),
        "___.npy".to_string(),
        "_tmp_absolute.npy".to_string(),
        format!("{}.npy", "x".repeat(150)),
    ];
    assert_eq!(files_below(&out), expected);
    // Nothing else anywhere: no stray temporary files, nothing above `out`.
    assert_eq!(files_below(root.path()).len(), expected.len());
    drop(model_dir);
}

#[test]
fn outputs_whose_names_collide_after_sanitising_are_refused_before_writing() {
    let (_model_dir, model) = outputs_named(&["out:0", "out/0"]);
    let root = tempfile::tempdir().unwrap();
    let err = run_to(&model, root.path()).unwrap_err().render(false);
    assert!(err.contains("would both be written to out_0.npy"), "{err}");
    // Case alone does not make two files distinct on every system.
    let (_model_dir, model) = outputs_named(&["Out", "out"]);
    let err = run_to(&model, root.path()).unwrap_err().render(false);
    assert!(err.contains("would both be written"), "{err}");
    assert!(files_below(root.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn an_output_file_that_is_a_symlink_is_replaced_not_written_through() {
    let (_model_dir, model) = outputs_named(&["out"]);
    let root = tempfile::tempdir().unwrap();
    let victim = root.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let out = root.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("out.npy")).unwrap();
    run_to(&model, &out).unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    let written = ovir_npy::read_npy_file(&out.join("out.npy")).unwrap();
    assert_eq!(written.shape(), &[2]);
}

#[test]
fn folding_a_constant_broadcast_to_exabytes_is_refused_before_allocating() {
    // Four bytes of data broadcast to [1000000, 1000000, 1000000]: folding
    // it while compiling would ask for 4 EB.
    let xml = r#"<?xml version="1.0"?>
<net name="bc" version="11">
<layers>
<layer id="0" name="data" type="Const" version="opset1"><data element_type="f32" shape="1" offset="0" size="4"/><output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>
<layer id="1" name="target" type="Const" version="opset1"><data element_type="i64" shape="3" offset="4" size="24"/><output><port id="0" precision="I64"><dim>3</dim></port></output></layer>
<layer id="2" name="bc" type="Broadcast" version="opset3"><data mode="numpy"/><input><port id="0"><dim>1</dim></port><port id="1"><dim>3</dim></port></input><output><port id="2" precision="FP32" names="out"><dim>1000000</dim><dim>1000000</dim><dim>1000000</dim></port></output></layer>
<layer id="3" name="out" type="Result" version="opset1"><input><port id="0"><dim>1000000</dim><dim>1000000</dim><dim>1000000</dim></port></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges>
</net>"#;
    let mut weights = 1.0f32.to_le_bytes().to_vec();
    for _ in 0..3 {
        weights.extend_from_slice(&1_000_000i64.to_le_bytes());
    }
    let text = within("compiling a huge constant broadcast", move || {
        let err = Model::from_memory(xml, Some(weights)).and_then(|m| m.compile()).unwrap_err();
        err.render(false)
    });
    assert!(text.contains("cannot be computed from its constant inputs"), "{text}");
    assert!(text.contains("needs 4000000000000000000 bytes (3.5 EiB)"), "{text}");
}

#[test]
fn a_layer_with_300000_ports_reads_in_linear_time() {
    // Duplicate port ids and edge ends were once found by scanning every
    // port of the layer, which made this file take minutes.
    const PORTS: usize = 300_000;
    let (_dir, path) = model_file(|out| {
        out.write_all(HEADER.as_bytes())?;
        out.write_all(b"<layers>\n")?;
        parameter(out, 0, "1", "f32")?;
        out.write_all(
            b"<layer id=\"1\" name=\"wide\" type=\"Concat\" version=\"opset1\"><data axis=\"0\"/><input>",
        )?;
        for port in 0..PORTS {
            write!(out, "<port id=\"{port}\"><dim>1</dim></port>")?;
        }
        writeln!(out, "</input><output><port id=\"{PORTS}\"><dim>{PORTS}</dim></port></output></layer>")?;
        result(out, 2, &format!("<dim>{PORTS}</dim>"))?;
        out.write_all(b"</layers>\n<edges>\n")?;
        for port in 0..PORTS {
            writeln!(out, "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"{port}\"/>")?;
        }
        writeln!(out, "<edge from-layer=\"1\" from-port=\"{PORTS}\" to-layer=\"2\" to-port=\"0\"/>")?;
        out.write_all(b"</edges>\n</net>\n")
    });
    let inputs = within("reading a layer with 300000 ports", move || {
        let model = ovir::ir::read_model(&path, None).unwrap_or_else(|e| panic!("{e}"));
        model.layers[1].inputs.len()
    });
    assert_eq!(inputs, PORTS);
}

/// A model whose one Parameter, of shape `dims` (f32), feeds `op` (a layer
/// with id 1 whose first `inputs` inputs are the Parameter) and a Result; `consts` are i64
/// constants (shape, values) that feed the op's later inputs in order,
/// laid out in the weights.
fn overflowing_model(dims: &[u64], op: &str, inputs: usize, consts: &[(&[usize], &[i64])]) -> ovir::Model {
    let port_dims = |d: &[u64]| d.iter().map(|d| format!("<dim>{d}</dim>")).collect::<String>();
    let shape = dims.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let pd = port_dims(dims);
    let mut layers = format!(
        "<layer id=\"0\" name=\"p\" type=\"Parameter\" version=\"opset1\"><data shape=\"{shape}\" \
         element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\">{pd}</port></output></layer>\n"
    );
    let mut edges = String::new();
    // Every data input of the op is the Parameter.
    for port in 0..inputs {
        edges.push_str(&format!(
            "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"{port}\"/>\n"
        ));
    }
    let mut weights = Vec::new();
    for (k, (cshape, values)) in consts.iter().enumerate() {
        let id = 10 + k;
        let s = cshape.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let d: String = cshape.iter().map(|d| format!("<dim>{d}</dim>")).collect();
        layers.push_str(&format!(
            "<layer id=\"{id}\" name=\"c{k}\" type=\"Const\" version=\"opset1\"><data element_type=\"i64\" \
             shape=\"{s}\" offset=\"{}\" size=\"{}\"/><output><port id=\"0\" precision=\"I64\">{d}</port>\
             </output></layer>\n",
            weights.len(),
            values.len() * 8
        ));
        for v in values.iter() {
            weights.extend_from_slice(&v.to_le_bytes());
        }
        edges.push_str(&format!(
            "<edge from-layer=\"{id}\" from-port=\"0\" to-layer=\"1\" to-port=\"{}\"/>\n",
            inputs + k
        ));
    }
    let ports: String = (0..inputs + consts.len()).map(|p| format!("<port id=\"{p}\"/>")).collect();
    let out_port = inputs + consts.len();
    layers.push_str(&format!(
        "<layer id=\"1\" name=\"op\" {op}><input>{ports}</input><output><port id=\"{out_port}\" \
         precision=\"FP32\"/></output></layer>\n\
         <layer id=\"2\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"/></input></layer>\n"
    ));
    edges.push_str(&format!(
        "<edge from-layer=\"1\" from-port=\"{out_port}\" to-layer=\"2\" to-port=\"0\"/>\n"
    ));
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<net name=\"overflow\" version=\"11\">\n<layers>\n{layers}</layers>\n\
         <edges>\n{edges}</edges>\n</net>\n"
    );
    Model::from_memory(&xml, Some(weights)).unwrap()
}

#[test]
fn layouts_of_parameters_whose_element_count_overflows_are_not_worked_out() {
    // Each declared shape has more than 2^64 elements. Working out the
    // layout of a Concat, Broadcast, Gather or Slice for it while compiling
    // once overflowed; the model must compile, and asking for inputs must
    // fail cleanly.
    const BIG: u64 = 1 << 32;
    let cases: Vec<(&str, ovir::Model)> = vec![
        (
            "Concat",
            overflowing_model(&[BIG, BIG], "type=\"Concat\" version=\"opset1\"><data axis=\"0\"/", 2, &[]),
        ),
        (
            "Broadcast",
            overflowing_model(
                &[BIG, BIG],
                "type=\"Broadcast\" version=\"opset3\"><data mode=\"numpy\"/",
                1,
                &[(&[2], &[BIG as i64, BIG as i64])],
            ),
        ),
        (
            "Gather",
            overflowing_model(
                &[2, BIG, BIG],
                "type=\"Gather\" version=\"opset8\"><data batch_dims=\"0\"/",
                1,
                &[(&[1], &[1]), (&[], &[0])],
            ),
        ),
        (
            "Slice",
            overflowing_model(
                &[2, BIG, BIG],
                "type=\"Slice\" version=\"opset8\"",
                1,
                &[(&[1], &[0]), (&[1], &[1]), (&[1], &[1]), (&[1], &[0])],
            ),
        ),
    ];
    for (name, model) in cases {
        let compiled = within("compiling an overflowing layout", move || model.compile());
        let compiled = compiled.unwrap_or_else(|e| panic!("{name}: {}", e.render(false)));
        let err = compiled.example_inputs().unwrap_err();
        assert!(matches!(err, Error::InputTooLarge { .. }), "{name}: {err:?}");
    }
}
