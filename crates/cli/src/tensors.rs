//! `ovir run --dump` and `--save-inputs`: the tensors of a run written as
//! `.npy` files, every intermediate one or the inputs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ovir::ir::OutputRef;
use ovir::npy::file_stem;
use ovir::{CompileOptions, InferRequest, Model, Tensor};

use crate::io::make_folder;

/// The file stem of each output port of each layer that computes or
/// takes a tensor (every layer but `Const`s, whose values are the
/// weights, and `Result`s, which have no output), in the model's run
/// order: the layer's name as [`file_stem`] cleans it, with `.portN`
/// for output `N` (counted from 0) of a layer with several outputs. A
/// stem that another layer's already took (ignoring case) gets the
/// layer's id, `.idN`, so no file overwrites another.
pub fn dump_stems(ir: &ovir::ir::Model) -> anyhow::Result<Vec<(OutputRef, String)>> {
    let mut taken = BTreeSet::new();
    let mut stems = Vec::new();
    for &idx in &ir.order {
        let Some(layer) = ir.layers.get(idx.0) else { continue };
        if layer.is_const() || layer.is("Result") {
            continue;
        }
        let base = file_stem(&layer.name);
        for port in 0..layer.outputs.len() {
            let mut stem = if layer.outputs.len() > 1 { format!("{base}.port{port}") } else { base.clone() };
            if taken.contains(&stem.to_ascii_lowercase()) {
                stem = format!("{stem}.id{}", layer.id);
            }
            if !taken.insert(stem.to_ascii_lowercase()) {
                bail!("two layers would both be dumped to {stem}.npy; rename one of them in the model");
            }
            stems.push((OutputRef { layer: idx, port }, stem));
        }
    }
    Ok(stems)
}

/// Runs `model` again with every tensor [`dump_stems`] names made an
/// output, on the inputs `given` holds, and writes each to
/// `dir/<stem>.npy`, packed, 8-bit float and `bf16` types as their codes,
/// as `-o` writes them. Either every file is written or none is.
pub fn dump(
    model: &Model,
    options: CompileOptions,
    given: &InferRequest,
    dir: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    let stems = dump_stems(model.ir())?;
    let ports: Vec<OutputRef> = stems.iter().map(|(at, _)| *at).collect();
    let values = port_values(model, options, given, &ports)?;
    let mut tensors = Vec::with_capacity(stems.len());
    for ((_, stem), value) in stems.iter().zip(values) {
        let tensor = ovir::packed::try_to_exchange(&value)
            .with_context(|| format!("cannot unpack the tensor of {stem}.npy"))?;
        tensors.push((tensor, dir.join(format!("{stem}.npy"))));
    }
    write_all(&tensors, dir)
}

/// The values `ports` take when `model` runs on the inputs `given`
/// holds, in the order of `ports`: the model runs once more with each
/// made an output, as [`Model::add_outputs_at`] makes one.
pub fn port_values(
    model: &Model,
    options: CompileOptions,
    given: &InferRequest,
    ports: &[OutputRef],
) -> anyhow::Result<Vec<Tensor>> {
    let mut all = model.clone();
    all.add_outputs_at(ports)?;
    let compiled = all.compile_with(options)?;
    let mut request = compiled.infer_request();
    for i in 0..given.model().inputs().len() {
        request.set_input(i, given.input(i)?.clone())?;
    }
    request.infer()?;
    let results: Vec<OutputRef> =
        all.ir().results().filter_map(|r| all.ir().sources.get(r.0)?.first().copied()).collect();
    let mut values = Vec::with_capacity(ports.len());
    for at in ports {
        let Some(index) = results.iter().position(|r| r == at) else {
            bail!("layer {} output {} was not made an output", at.layer.0, at.port);
        };
        values.push(request.output(index)?.clone());
    }
    Ok(values)
}

/// Writes each input of `request` to `dir/<name>.npy`, named as `-o`
/// names outputs (the input's first name, cleaned by [`file_stem`]), in
/// the form `-i` takes back. Two inputs whose names give one file are an
/// error, raised before anything is written.
pub fn save_inputs(request: &InferRequest, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut taken: Vec<(String, &str)> = Vec::new();
    let mut tensors = Vec::new();
    for (i, port) in request.model().inputs().iter().enumerate() {
        let stem = file_stem(port.name());
        let key = stem.to_ascii_lowercase();
        if let Some((_, first)) = taken.iter().find(|(k, _)| *k == key) {
            bail!(
                "inputs \"{first}\" and \"{}\" would both be written to {stem}.npy; rename one of them in the model",
                port.name()
            );
        }
        taken.push((key, port.name()));
        let tensor = ovir::packed::try_to_exchange(request.input(i)?)
            .with_context(|| format!("cannot unpack input \"{}\"", port.name()))?;
        tensors.push((tensor, dir.join(format!("{stem}.npy"))));
    }
    write_all(&tensors, dir)
}

/// Writes every tensor to its file in `dir`, creating it: all or none.
fn write_all(tensors: &[(Tensor, PathBuf)], dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    make_folder(dir)?;
    let files: Vec<(&Tensor, &Path)> = tensors.iter().map(|(t, p)| (t, p.as_path())).collect();
    ovir::npy::write_npy_files(&files)?;
    Ok(tensors.iter().map(|(_, p)| p.clone()).collect())
}
