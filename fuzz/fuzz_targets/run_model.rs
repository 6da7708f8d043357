//! Load → compile → run with generated inputs. The input is an IR model:
//! the XML, then a NUL byte, then the weights (seeds are made this way from
//! ir-samples by tools/fuzz.sh). Whatever the graph, reading, validation,
//! compilation, example inputs and inference must end in outputs or an
//! error, within a small memory limit; running twice must give the same
//! outputs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ovir::{CompileOptions, Model};

/// Small enough that the fuzzer's memory limit is never the one that
/// stops an absurd shape: ovir's own limit must.
const MAX_TENSOR_BYTES: u64 = 64 << 20;

fuzz_target!(|data: &[u8]| {
    let (xml, bin) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], data.get(i + 1..).unwrap_or(&[])),
        None => (data, &[][..]),
    };
    let weights = std::sync::Arc::new(ovir_ir::Weights::from_bytes(bin.to_vec()));
    let model = match ovir_ir::read_model_from_bytes(xml, Some(weights))
        .map_err(ovir::Error::from)
        .and_then(Model::validate)
    {
        Ok(m) => m,
        Err(e) => {
            let _ = e.render(false);
            return;
        }
    };
    let _ = port_summary(&model);
    let options = CompileOptions::default().with_max_memory(MAX_TENSOR_BYTES);
    let compiled = match model.compile_with(options) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.render(false);
            return;
        }
    };
    let inputs = match compiled.example_inputs() {
        Ok(i) => i,
        Err(e) => {
            let _ = e.render(false);
            return;
        }
    };
    let mut request = compiled.infer_request();
    for (i, t) in inputs.into_iter().enumerate() {
        if let Err(e) = request.set_input(i, t) {
            let _ = e.render(false);
            return;
        }
    }
    match request.infer() {
        Ok(()) => {
            let first: Vec<ovir::Tensor> = request.outputs().into_iter().cloned().collect();
            // A second run reuses the request's buffers; it must not change
            // the result.
            if request.infer().is_ok() {
                let second: Vec<ovir::Tensor> = request.outputs().into_iter().cloned().collect();
                assert_eq!(first, second, "a second inference gave different outputs");
            }
        }
        Err(e) => {
            let _ = e.render(false);
        }
    }
});

/// What `ovir info` prints about ports; must not fail for any valid model.
fn port_summary(model: &Model) -> usize {
    model
        .inputs()
        .iter()
        .chain(model.outputs().iter())
        .map(|p| p.name().len() + p.shape.to_string().len())
        .sum()
}
