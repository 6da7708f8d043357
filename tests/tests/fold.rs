//! `Model::folded`, as `ovir convert --fold` uses it: compressed weights
//! stay compressed, and a folded model is never larger than its input.

use ovir::{f16, ElementType, Model, ModelBuilder, PartialShape, Tensor};
use ovir_tests::{case_dirs, case_name, samples_dir};

/// The bytes of the XML and of the weights `model` writes.
fn written(model: &Model) -> (usize, usize) {
    let (mut xml, mut bin) = (Vec::new(), Vec::new());
    model.write_to(&mut xml, &mut bin).unwrap();
    (xml.len(), bin.len())
}

/// The op types of a model's layers, in order.
fn ops(model: &Model) -> Vec<String> {
    model.ir().order.iter().map(|&i| model.ir().layer(i).op_type.clone()).collect()
}

/// Every sample folds to a model that writes no more bytes than the
/// sample as it is written without folding (its XML and weights
/// together: folding the shape arithmetic of a converted model adds a few
/// bytes of weights and removes more of XML).
#[test]
fn a_folded_model_is_never_larger_than_its_input() {
    let mut folded_some = 0;
    for dir in case_dirs(&samples_dir()) {
        let name = case_name(&dir);
        let Ok(model) = Model::read(dir.join("model.xml")) else { continue };
        let folded = model.folded().unwrap_or_else(|e| panic!("{name}: {e}"));
        let (before, after) = (written(&model), written(&folded));
        assert!(after.0 + after.1 <= before.0 + before.1, "{name}: {before:?} bytes became {after:?}");
        folded_some += usize::from(folded.ir().layers.len() < model.ir().layers.len());
    }
    assert!(folded_some >= 20, "only {folded_some} samples had something to fold");
}

/// OpenVINO's compressed weights: a Const of f16 and a Convert to f32
/// marked `decompression`. Folding keeps both, and what reads them, so
/// the weights stay as small as they were (the Reverse of the weights
/// would otherwise become an f32 Const twice their size).
#[test]
fn compressed_weights_stay_compressed() {
    for case in ["compressed_f16_const_reverse", "compressed_f16_const_rseq"] {
        let model = Model::read(samples_dir().join(case).join("model.xml")).unwrap();
        let folded = model.folded().unwrap();
        assert_eq!(ops(&folded), ops(&model), "{case}");
        assert_eq!(written(&folded).1, written(&model).1, "{case}");
    }
}

/// A model reading a Const of `from` through a Convert to `to` and a
/// Reverse on both axes (all constant): what folding leaves of it.
fn fold_convert(from: Tensor, to: ElementType) -> Vec<String> {
    let mut b = ModelBuilder::new("weights");
    let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[2, 2])).unwrap();
    let weights = b.constant(from).unwrap();
    let converted = b.convert(weights, to).unwrap();
    let axes = b.constant(Tensor::from_vec(&[2], vec![0i64, 1]).unwrap()).unwrap();
    let reversed = b.reverse(converted, axes, ovir::ops::ReverseMode::Index).unwrap();
    b.result(reversed).unwrap();
    b.result(data).unwrap();
    ops(&b.build().unwrap().folded().unwrap())
}

#[test]
fn a_convert_of_a_const_to_a_wider_type_is_kept_with_what_reads_it() {
    let halves = || Tensor::from_vec(&[2, 2], [1.0f32, 2.0, 3.0, 4.0].map(f16::from_f32).to_vec()).unwrap();
    let bytes = || Tensor::from_vec(&[2, 2], vec![1u8, 2, 3, 4]).unwrap();
    let kept = ["Parameter", "Const", "Convert", "Const", "Reverse", "Result", "Result"];
    // Unmarked, from f16 and from u8: to a wider float, and to a wider
    // integer, which would only make the file larger.
    for (from, to) in [(halves(), ElementType::F32), (bytes(), ElementType::F16), (bytes(), ElementType::I32)]
    {
        let left = fold_convert(from, to);
        let mut left_sorted = left.clone();
        left_sorted.sort();
        let mut want: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(left_sorted, want, "{to}: {left:?}");
    }
    // A Convert to a narrower type, or between types of one width, is no
    // decompression: it and the Reverse become one Const.
    let floats = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    for (from, to) in [(floats, ElementType::F16), (halves(), ElementType::Bf16)] {
        let left = fold_convert(from, to);
        assert_eq!(left.iter().filter(|o| *o == "Const").count(), 1, "{to}: {left:?}");
        assert!(!left.iter().any(|o| o == "Convert" || o == "Reverse"), "{to}: {left:?}");
    }
}
