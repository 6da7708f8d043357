//! The XML reader on arbitrary bytes: any input must give a model or a
//! diagnostic that renders, never a panic, a hang or a huge allocation.
//! Models that read are also validated, as `ovir check` does.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use ovir_ir::{read_model_from_bytes, Weights};

fuzz_target!(|data: &[u8]| {
    // A small weights file with varied bytes, so Consts with small offsets
    // load and reach shape inference.
    let weights: Vec<u8> = (0..512u32).map(|i| (i.wrapping_mul(37) % 7) as u8).collect();
    match read_model_from_bytes(data, Some(Arc::new(Weights::from_bytes(weights)))) {
        Ok(model) => {
            if let Err(e) = ovir::Model::validate(model) {
                let _ = e.render(false);
            }
        }
        Err(e) => {
            let _ = e.render(false);
            let _ = e.to_string();
        }
    }
});
