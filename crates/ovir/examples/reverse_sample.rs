//! Loads an IR model, runs it on generated inputs, and prints each output.
//!
//! ```sh
//! cargo run -p ovir --example reverse_sample -- ir-samples/rseq_b1_s0_4x4/model.xml
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: reverse_sample MODEL.xml");
        return ExitCode::FAILURE;
    };
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e.render(false));
            ExitCode::FAILURE
        }
    }
}

fn run(path: &str) -> Result<(), ovir::Error> {
    let model = ovir::Model::read(path)?;
    let compiled = model.compile()?;
    let mut request = compiled.infer_request();
    for (index, tensor) in compiled.example_inputs()?.into_iter().enumerate() {
        request.set_input(index, tensor)?;
    }
    request.infer()?;
    for (port, tensor) in compiled.outputs().iter().zip(request.outputs()) {
        println!("{}: {} {:?}", port.name(), tensor.element_type(), tensor.shape());
    }
    Ok(())
}
