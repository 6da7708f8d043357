//! Loads an IR model, runs it once on generated inputs, and prints every
//! input and output with its values.
//!
//! ```sh
//! cargo run -p ovir --example reverse_sample -- ir-samples/rseq_b1_s0_4x4/model.xml
//! ```

use std::error::Error;
use std::fmt::Write as _;

use ovir::{ndarray, CompiledModel, Model, Tensor};

fn main() -> Result<(), Box<dyn Error>> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: reverse_sample MODEL.xml");
        std::process::exit(2);
    };
    let compiled = Model::read(&path)?.compile()?;
    print!("{}", run(&compiled)?);
    Ok(())
}

/// Runs the model on generated inputs and describes what went in and came
/// out.
fn run(compiled: &CompiledModel) -> Result<String, Box<dyn Error>> {
    let inputs = compiled.example_inputs()?;
    let mut text = String::new();
    for (port, tensor) in compiled.inputs().iter().zip(&inputs) {
        writeln!(text, "input {}", describe(port.name(), tensor)?)?;
    }
    // Inputs go in by index here; by name works the same way.
    let outputs = compiled.run(inputs.into_iter().enumerate())?;
    for (name, tensor) in &outputs {
        writeln!(text, "output {}", describe(name, tensor)?)?;
    }
    Ok(text)
}

/// A tensor's name, type and shape, then its values as an `ndarray`
/// prints them.
fn describe(name: &str, tensor: &Tensor) -> Result<String, Box<dyn Error>> {
    let shape = tensor.shape();
    let values = if let Some(v) = tensor.integer_values() {
        ndarray::ArrayD::from_shape_vec(shape, v)?.to_string()
    } else if let Some(v) = tensor.real_values() {
        ndarray::ArrayD::from_shape_vec(shape, v)?.to_string()
    } else {
        tensor.to_string_array()?.to_string()
    };
    Ok(format!("{name}: {} {shape:?}\n{values}", tensor.element_type()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_the_values_of_every_output() -> Result<(), Box<dyn Error>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ir-samples/rseq_b1_s0_4x4");
        let compiled = Model::read(dir.join("model.xml"))?.compile()?;
        let text = run(&compiled)?;
        // The model reverses each column (batch axis 1) down its first
        // `length` rows (sequence axis 0), with the lengths of its Const.
        let lengths = compiled
            .model()
            .ir()
            .layers
            .iter()
            .find_map(|l| l.constant.as_ref())
            .and_then(Tensor::integer_values)
            .ok_or("the sample has constant lengths")?;
        let data = compiled.example_inputs()?.remove(0).to_array::<f32>()?;
        let mut expected = data.clone();
        for (b, &length) in lengths.iter().enumerate() {
            let length = usize::try_from(length)?;
            for t in 0..length {
                expected[[t, b]] = data[[length - 1 - t, b]];
            }
        }
        let wanted = format!("output out: f32 [4, 4]\n{expected}\n");
        assert!(text.ends_with(&wanted), "{text}\ndoes not end with\n{wanted}");
        assert!(text.starts_with("input data: f32 [4, 4]\n"), "{text}");
        Ok(())
    }
}
