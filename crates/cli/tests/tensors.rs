//! `ovir run --dump` and `--save-inputs`: the files written and their
//! values, worked out by hand.

mod common;

use std::path::Path;

use common::{listing, ovir, samples, split_flip_join, text, Scratch};
use ovir::ops::ReverseMode;
use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};

/// The Split, Reverse and Concat model, whose layers "x/y" and "x_y"
/// clean to one file name.
fn write_model(dir: &Path) -> String {
    split_flip_join(dir, "x/y", &[], "x_y")
}

fn read(path: &Path) -> (Vec<usize>, Vec<i32>) {
    let t = ovir::npy::read_npy_file(path).unwrap();
    (t.shape().to_vec(), t.to_vec::<i32>().unwrap())
}

#[test]
fn dump_writes_every_port_of_every_layer_named_by_layer() {
    let work = Scratch::new("dump");
    let model = write_model(&work);
    let data = work.join("data.npy");
    // [[0, 1, 2], [3, 4, 5]]
    ovir::npy::write_npy_file(&Tensor::from_vec(&[2, 3], vec![0i32, 1, 2, 3, 4, 5]).unwrap(), &data).unwrap();
    let dump = work.join("dump/deeper");
    let input = format!("data={}", data.display());
    let out = ovir(&["run", &model, "-i", &input, "--dump", &dump.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("wrote 6 tensors to"), "{stdout}");
    // The summary of the model's output is still printed.
    assert!(stdout.contains("out: i32 [2, 2] [4, 2, 1, 5]"), "{stdout}");
    // No file for the Consts or the Result; "x_y" took the file "x/y"
    // cleans to, so it gets its layer id (5: the sixth layer added).
    assert_eq!(
        listing(&dump),
        ["data.npy", "split.port0.npy", "split.port1.npy", "split.port2.npy", "x_y.id5.npy", "x_y.npy"]
    );
    assert_eq!(read(&dump.join("data.npy")), (vec![2, 3], vec![0, 1, 2, 3, 4, 5]));
    assert_eq!(read(&dump.join("split.port0.npy")), (vec![2, 1], vec![0, 3]));
    assert_eq!(read(&dump.join("split.port1.npy")), (vec![2, 1], vec![1, 4]));
    assert_eq!(read(&dump.join("split.port2.npy")), (vec![2, 1], vec![2, 5]));
    // Column 1 reversed along axis 0.
    assert_eq!(read(&dump.join("x_y.npy")), (vec![2, 1], vec![4, 1]));
    assert_eq!(read(&dump.join("x_y.id5.npy")), (vec![2, 2], vec![4, 2, 1, 5]));
}

#[test]
fn dump_into_a_file_is_refused() {
    let work = Scratch::new("dump-file");
    let model = write_model(&work);
    let file = work.join("taken");
    std::fs::write(&file, b"x").unwrap();
    let out = ovir(&["run", &model, "--dump", &file.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("exists and is not a folder"), "{}", text(&out.stderr));
}

/// Runs `model` with these extra arguments and `-o` into `dir`, and
/// returns the bytes of every file written there, by name.
fn run_to(model: &str, extra: &[&str], dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut args = vec!["run", model];
    args.extend_from_slice(extra);
    let dir_text = dir.display().to_string();
    args.extend(["-o", dir_text.as_str()]);
    let out = ovir(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    listing(dir).into_iter().map(|n| (n.clone(), std::fs::read(dir.join(&n)).unwrap())).collect()
}

#[test]
fn saved_inputs_given_back_give_the_same_outputs() {
    let work = Scratch::new("save-inputs");
    for model in [
        samples().join("two_inputs_two_outputs/model.xml").display().to_string(),
        samples().join("rseq_runtime_lengths_i64/model.xml").display().to_string(),
        write_model(&work),
    ] {
        let saved = work.join("inputs");
        let _ = std::fs::remove_dir_all(&saved);
        let first = run_to(&model, &["--save-inputs", &saved.display().to_string()], &work.join("first"));
        let inputs = ovir::Model::read(&model).unwrap().inputs();
        assert_eq!(listing(&saved).len(), inputs.len(), "{model}");
        let mut again = Vec::new();
        for port in &inputs {
            let file = saved.join(format!("{}.npy", ovir::npy::file_stem(port.name())));
            again.push(format!("{}={}", port.name(), file.display()));
        }
        let mut args: Vec<&str> = Vec::new();
        for a in &again {
            args.extend(["-i", a.as_str()]);
        }
        let second = run_to(&model, &args, &work.join("second"));
        assert!(!first.is_empty());
        assert_eq!(first, second, "{model}");
        for d in ["first", "second"] {
            std::fs::remove_dir_all(work.join(d)).unwrap();
        }
    }
}

#[test]
fn save_inputs_writes_what_was_given() {
    let work = Scratch::new("save-given");
    let model = write_model(&work);
    let data = work.join("data.npy");
    ovir::npy::write_npy_file(&Tensor::from_vec(&[2, 3], vec![7i32, -1, 0, 5, 9, 2]).unwrap(), &data)
        .unwrap();
    let saved = work.join("saved");
    let input = format!("data={}", data.display());
    let out = ovir(&["run", &model, "-i", &input, "--save-inputs", &saved.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("data.npy"), "{}", text(&out.stdout));
    assert_eq!(std::fs::read(saved.join("data.npy")).unwrap(), std::fs::read(&data).unwrap());
}

#[test]
fn dumped_tensors_of_every_type_match_openvinos_outputs() {
    // Every Convert of this sample feeds a Result, so each dumped
    // tensor is one of the outputs OpenVINO's CPU plugin recorded.
    let case = samples().join("convert_every_pair_from_f32");
    let dump = Scratch::new("dump-types");
    let input = format!("data={}", case.join("in/data.npy").display());
    let model = case.join("model.xml").display().to_string();
    let out = ovir(&["run", &model, "-i", &input, "--dump", &dump.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut compared = 0;
    for file in listing(&case.join("expected")) {
        let ty = file.trim_start_matches("out_");
        let got = ovir::npy::read_npy_file(&dump.join(format!("to_{ty}"))).unwrap();
        let want = ovir::npy::read_npy_file(&case.join("expected").join(&file)).unwrap();
        if ty == "bf16.npy" {
            // The sample holds its bf16 values widened to f32; the dump
            // holds their bit patterns, the top half of each f32's.
            let widened: Vec<f32> =
                got.to_vec::<u16>().unwrap().iter().map(|&b| f32::from_bits(u32::from(b) << 16)).collect();
            let want = want.to_vec::<f32>().unwrap();
            assert_eq!(
                widened.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        } else {
            assert_eq!(got, want, "{file}");
        }
        compared += 1;
    }
    assert_eq!(compared, 23);
}

#[test]
fn bf16_inputs_are_saved_as_their_bit_patterns_and_taken_back() {
    let work = Scratch::new("save-bf16");
    let mut b = ModelBuilder::new("flip16");
    let data = b.parameter("data", ElementType::Bf16, PartialShape::from_static(&[4])).unwrap();
    let axes = b.constant_slice(&[1], &[0i64]).unwrap();
    let out = b.reverse(data, axes, ReverseMode::Index).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let model = work.join("model.xml");
    b.build().unwrap().save(&model).unwrap();
    let model = model.display().to_string();

    // Generated, saved as u16 codes, and given back with -i.
    let saved = work.join("saved");
    let out = ovir(&["run", &model, "--save-inputs", &saved.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let codes = ovir::npy::read_npy_file(&saved.join("data.npy")).unwrap();
    let codes = codes.to_vec::<u16>().unwrap();
    let input = format!("data={}", saved.join("data.npy").display());
    let written = work.join("out");
    let out = ovir(&["run", &model, "-i", &input, "-o", &written.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let flipped = ovir::npy::read_npy_file(&written.join("out.npy")).unwrap().to_vec::<u16>().unwrap();
    assert_eq!(flipped, codes.iter().rev().copied().collect::<Vec<_>>());
    // 1.0 and -2.5 in bf16, given by hand.
    let by_hand = work.join("by_hand.npy");
    ovir::npy::write_npy_file(&Tensor::from_vec(&[4], vec![0x3f80u16, 0xc020, 0, 0x8000]).unwrap(), &by_hand)
        .unwrap();
    let input = format!("data={}", by_hand.display());
    let out = ovir(&["run", &model, "-i", &input]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("out: bf16 [4] [-0, 0, -2.5, 1]"), "{}", text(&out.stdout));
}
