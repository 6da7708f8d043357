//! Strings and the packed sub-byte types through the library API, the npy
//! exchange and the command line.

use ovir::{packed, ElementType, Error, Model, Tensor};
use ovir_tests::samples_dir;

fn load(case: &str) -> Model {
    Model::read(samples_dir().join(case).join("model.xml"))
        .unwrap_or_else(|e| panic!("{case} should load:\n{}", e.render(false)))
}

fn npy(case: &str, dir: &str, name: &str) -> Tensor {
    ovir_npy::read_npy_file(&samples_dir().join(case).join(dir).join(format!("{name}.npy"))).unwrap()
}

#[test]
fn strings_go_in_and_out_as_string_arrays() {
    let compiled = load("reverse_string_param").compile().unwrap();
    let text = npy("reverse_string_param", "in", "text").to_string_array().unwrap();
    let mut request = compiled.infer_request();
    request.set_input_strings("text", text.view()).unwrap();
    request.infer().unwrap();
    let out = request.output_strings("out").unwrap();
    let want = npy("reverse_string_param", "expected", "out").to_string_array().unwrap();
    assert_eq!(out, want);
    // Reverse along the last axis: row 0 read backwards.
    let first: Vec<String> = text.rows().into_iter().next().unwrap().iter().rev().cloned().collect();
    let got: Vec<String> = out.rows().into_iter().next().unwrap().to_vec();
    assert_eq!(first, got);
}

#[test]
fn string_outputs_are_written_as_wide_as_the_longest_string() {
    let compiled = load("rseq_string_const").compile().unwrap();
    let mut request = compiled.infer_request();
    request.infer().unwrap();
    let out = request.output("out").unwrap();
    let mut bytes = Vec::new();
    ovir_npy::write_npy(out, &mut bytes).unwrap();
    let longest = out.strings().unwrap().iter().map(|s| s.chars().count()).max().unwrap();
    let header = String::from_utf8_lossy(&bytes[..128]).into_owned();
    assert!(header.contains(&format!("'<U{longest}'")), "{header}");
}

#[test]
fn packed_inputs_take_one_code_per_byte_and_outputs_give_them_back() {
    let compiled = load("rseq_param_u4").compile().unwrap();
    assert_eq!(compiled.inputs()[0].element_type, ElementType::U4);
    let data = npy("rseq_param_u4", "in", "data");
    assert_eq!(data.element_type(), ElementType::U8);
    let mut request = compiled.infer_request();
    request.set_input("data", data.clone()).unwrap();
    // The input is held packed: two elements per byte.
    assert_eq!(request.input("data").unwrap().element_type(), ElementType::U4);
    assert_eq!(request.input("data").unwrap().bytes().unwrap().len(), 10);
    request.infer().unwrap();
    assert_eq!(request.output("out").unwrap().element_type(), ElementType::U4);
    assert_eq!(request.output_unpacked("out").unwrap(), npy("rseq_param_u4", "expected", "out"));

    // A packed tensor is taken as it is.
    let packed_input = packed::from_exchange(&data, ElementType::U4).unwrap();
    request.set_input("data", packed_input).unwrap();
    request.infer().unwrap();
    assert_eq!(request.output_unpacked("out").unwrap(), npy("rseq_param_u4", "expected", "out"));
}

#[test]
fn a_code_outside_the_range_names_the_input_value_and_range() {
    let compiled = load("reverse_param_i4").compile().unwrap();
    let mut request = compiled.infer_request();
    let mut values = vec![0i8; 20];
    values[7] = 8;
    let err = request.set_input("data", Tensor::from_vec(&[4, 5], values).unwrap()).unwrap_err();
    assert!(matches!(err, Error::InputValue { .. }), "{err:?}");
    assert_eq!(err.to_string(), "input \"data\": element 7 is 8, outside the range -8 to 7 of i4");
    // i4 is exchanged as i8, never as u8.
    let err = request.set_input("data", Tensor::from_vec(&[4, 5], vec![0u8; 20]).unwrap()).unwrap_err();
    assert!(err.to_string().contains("i4"), "{err}");
}

#[test]
fn generated_inputs_use_every_code_of_a_packed_type() {
    for case in ["rseq_param_u3", "reverse_param_u1", "reverse_param_i4", "rseq_param_u4"] {
        let compiled = load(case).compile().unwrap();
        let inputs = compiled.example_inputs().unwrap();
        let codes = packed::to_exchange(&inputs[0]).integer_values().unwrap();
        let ty = compiled.inputs()[0].element_type;
        let range = packed::exchange_range(ty).unwrap();
        let distinct: std::collections::BTreeSet<i128> = codes.iter().copied().collect();
        assert_eq!(distinct.len() as i64, range.end() - range.start() + 1, "{case}");
        let mut request = compiled.infer_request();
        for (i, t) in inputs.into_iter().enumerate() {
            request.set_input(i, t).unwrap();
        }
        request.infer().unwrap();
    }
}

#[test]
fn eight_bit_floats_are_exchanged_as_their_bit_patterns() {
    for case in ["reverse_type_f8e4m3", "reverse_type_f8e5m2", "reverse_type_f8e8m0"] {
        let compiled = load(case).compile().unwrap();
        let mut request = compiled.infer_request();
        request.infer().unwrap();
        let raw = request.output("out").unwrap();
        let unpacked = request.output_unpacked("out").unwrap();
        assert_eq!(unpacked.element_type(), ElementType::U8);
        assert_eq!(raw.bytes(), unpacked.bytes(), "{case}");
        assert_eq!(unpacked, npy(case, "expected", "out"), "{case}");
    }
}

fn ovir_run(args: &[&str]) -> Result<ovir_cli::Outcome, ovir_cli::CliError> {
    use clap::Parser;
    let cli = ovir_cli::args::Cli::try_parse_from([&["ovir", "run"], args].concat()).unwrap();
    let ovir_cli::args::Command::Run(args) = cli.command else { unreachable!() };
    ovir_cli::run::run(&args, &mut Vec::new())
}

#[test]
fn ovir_run_writes_packed_outputs_unpacked_and_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let case = samples_dir().join("reverse_param_i4");
    let model = case.join("model.xml");
    let data = format!("data={}", case.join("in/data.npy").display());
    let out = dir.path().to_str().unwrap();
    let outcome = ovir_run(&[model.to_str().unwrap(), "-i", &data, "-o", out]).unwrap();
    assert!(matches!(outcome, ovir_cli::Outcome::Success));
    let written = ovir_npy::read_npy_file(&dir.path().join("out.npy")).unwrap();
    assert_eq!(written.element_type(), ElementType::I8);
    assert_eq!(written, npy("reverse_param_i4", "expected", "out"));
    let expected = case.join("expected");
    let outcome =
        ovir_run(&[model.to_str().unwrap(), "-i", &data, "--assert-outputs", expected.to_str().unwrap()]);
    assert!(matches!(outcome, Ok(ovir_cli::Outcome::Success)));
}

#[test]
fn run_help_explains_the_packed_exchange() {
    use clap::CommandFactory;
    let mut cmd = ovir_cli::args::Cli::command();
    let run = cmd.find_subcommand_mut("run").unwrap();
    let help = run.render_long_help().to_string();
    assert!(help.contains("one element per u8 (per i8 for i4)"), "{help}");
}
