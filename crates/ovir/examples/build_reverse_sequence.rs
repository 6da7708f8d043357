//! Builds a ReverseSequence model in code, runs it, and saves it as IR
//! that OpenVINO reads.
//!
//! ```sh
//! cargo run -p ovir --example build_reverse_sequence -- OUT_DIR
//! ```
//!
//! The model takes a batch of sequences `data` (`f32`, any number of rows
//! of 5) and the length of each row's sequence, `lengths`, and reverses
//! the first `lengths[b]` elements of row `b`.

use std::error::Error;
use std::path::Path;

use ovir::{ElementType, Model, ModelBuilder, PartialShape, Tensor};

fn main() -> Result<(), Box<dyn Error>> {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: build_reverse_sequence OUT_DIR");
        std::process::exit(2);
    };
    let model = build()?;
    let out = run(&model)?;
    println!("out = {:?}", out.to_array::<f32>()?);
    let path = Path::new(&dir).join("reverse_sequence.xml");
    std::fs::create_dir_all(&dir)?;
    model.save(&path)?;
    println!("saved {} and its .bin", path.display());
    Ok(())
}

/// The model: a Parameter for the data and one for the lengths, a
/// ReverseSequence with batch axis 0 and sequence axis 1, and a Result.
fn build() -> Result<Model, Box<dyn Error>> {
    let mut b = ModelBuilder::new("reverse_sequence");
    let data = b.parameter("data", ElementType::F32, "?,5".parse::<PartialShape>()?)?;
    let lengths = b.parameter("lengths", ElementType::I32, "?".parse::<PartialShape>()?)?;
    let out = b.reverse_sequence(data, lengths, 0, 1)?;
    b.set_names(out, &["out"])?;
    b.result(out)?;
    Ok(b.build()?)
}

/// Runs the model on two rows, reversing 3 and 5 elements.
fn run(model: &Model) -> Result<Tensor, Box<dyn Error>> {
    let data = Tensor::from_vec(&[2, 5], (0..10).map(|v| v as f32).collect())?;
    let lengths = Tensor::from_vec(&[2], vec![3i32, 5])?;
    let outputs = model.compile()?.run([("data", data), ("lengths", lengths)])?;
    Ok(outputs.get("out")?.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_runs_the_same_after_saving() -> Result<(), Box<dyn Error>> {
        let model = build()?;
        let expected = [2.0f32, 1.0, 0.0, 3.0, 4.0, 9.0, 8.0, 7.0, 6.0, 5.0];
        assert_eq!(run(&model)?.to_vec::<f32>()?, expected);
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("reverse_sequence.xml");
        model.save(&path)?;
        let saved = Model::read(&path)?;
        assert_eq!(run(&saved)?.to_vec::<f32>()?, expected);
        assert_eq!(saved.inputs(), model.inputs());
        Ok(())
    }
}
