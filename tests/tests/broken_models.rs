//! Models built or changed in code so that their references no longer hold
//! together: every public entry point that takes one refuses it with an
//! error, and none panics.

use ovir::exec::{CompileError, Plan};
use ovir::ir::{IrErrorKind, LayerIdx, OutputRef};
use ovir::Error;
use ovir_tests::samples_dir;

/// A sample as the reader gives it: Parameter `data`, a Const, Reverse,
/// Result.
fn sample() -> ovir::ir::Model {
    let path = samples_dir().join("reverse_index_r2_f32_axes_i64_0").join("model.xml");
    ovir::ir::read_model(&path, None).unwrap()
}

/// The kinds of the problems `Model::validate` reports for `ir`; it must
/// refuse the model with a read error.
fn refusal(ir: ovir::ir::Model) -> Vec<IrErrorKind> {
    match ovir::Model::validate(ir) {
        Err(Error::Read(e)) => e.diagnostics.into_iter().map(|d| d.kind).collect(),
        Err(other) => panic!("expected a read error, got {other}"),
        Ok(_) => panic!("the broken model was accepted"),
    }
}

#[test]
fn the_sample_itself_is_valid() {
    assert!(ovir::Model::validate(sample()).is_ok());
}

#[test]
fn an_order_naming_a_layer_past_the_end_is_refused() {
    let mut ir = sample();
    ir.order[1] = LayerIdx(99);
    let kinds = refusal(ir);
    assert!(kinds.iter().any(|k| matches!(k, IrErrorKind::OrderOutOfRange { .. })), "{kinds:?}");
}

#[test]
fn a_result_fed_from_a_missing_layer_is_refused() {
    let mut ir = sample();
    let result = ir.results().next().unwrap();
    ir.sources[result.0][0] = OutputRef { layer: LayerIdx(42), port: 0 };
    let kinds = refusal(ir);
    assert!(kinds.iter().any(|k| matches!(k, IrErrorKind::SourceLayerOutOfRange { .. })), "{kinds:?}");
}

#[test]
fn a_source_naming_a_missing_port_is_refused() {
    let mut ir = sample();
    let result = ir.results().next().unwrap();
    ir.sources[result.0][0].port = 7;
    let kinds = refusal(ir);
    assert!(kinds.iter().any(|k| matches!(k, IrErrorKind::SourcePortOutOfRange { .. })), "{kinds:?}");
}

#[test]
fn a_layer_with_fewer_sources_than_inputs_is_refused() {
    let mut ir = sample();
    let result = ir.results().next().unwrap();
    ir.sources[result.0].clear();
    let kinds = refusal(ir);
    assert!(kinds.iter().any(|k| matches!(k, IrErrorKind::SourceCount { .. })), "{kinds:?}");
}

#[test]
fn a_cycle_made_in_code_is_refused() {
    let mut ir = sample();
    // The Reverse reads its own output.
    let reverse = LayerIdx(ir.layers.iter().position(|l| l.is("Reverse")).unwrap());
    ir.sources[reverse.0][0] = OutputRef { layer: reverse, port: 0 };
    let kinds = refusal(ir);
    assert!(kinds.iter().any(|k| matches!(k, IrErrorKind::OrderNotTopological { .. })), "{kinds:?}");
}

#[test]
fn a_const_without_its_value_is_refused() {
    let mut ir = sample();
    let c = ir.layers.iter().position(|l| l.is_const()).unwrap();
    ir.layers[c].constant = None;
    let kinds = refusal(ir);
    assert!(kinds.iter().any(|k| matches!(k, IrErrorKind::ConstWithoutValue)), "{kinds:?}");
}

#[test]
fn shape_analysis_refuses_a_broken_model_without_analysing_it() {
    let mut ir = sample();
    ir.order.pop();
    let err = ovir::shape::analyze(&ir).unwrap_err();
    assert!(err.errors.is_empty());
    assert!(err.broken.is_some(), "{err}");
}

#[test]
fn compiling_a_model_broken_after_analysis_is_an_error() {
    let ir = sample();
    let info = ovir::shape::analyze_with(&ir, &ovir::exec::ConstantEvaluator).unwrap();
    let mut broken = ir.clone();
    let result = broken.results().next().unwrap();
    broken.sources[result.0][0] = OutputRef { layer: LayerIdx(7), port: 3 };
    assert!(matches!(Plan::compile(&broken, &info), Err(CompileError::Broken(_))));
}

#[test]
fn compiling_with_the_analysis_of_another_model_is_an_error() {
    let ir = sample();
    let other_path = samples_dir().join("chain_reverse_rseq_reverse").join("model.xml");
    let other = ovir::ir::read_model(&other_path, None).unwrap();
    let other_info = ovir::shape::analyze_with(&other, &ovir::exec::ConstantEvaluator).unwrap();
    assert_ne!(other.layers.len(), ir.layers.len());
    let err = Plan::compile(&ir, &other_info).unwrap_err();
    assert!(matches!(err, CompileError::InfoMismatch { .. }), "{err}");
    assert!(err.layer().is_none());
}
