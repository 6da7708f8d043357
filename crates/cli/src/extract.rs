//! `ovir extract`: layers of a model written as conformance cases of
//! their own, one layer each, as OpenVINO's conformance suite cuts its
//! one-op models out of whole ones.
//!
//! The model runs once, on the inputs given with `-i` or generated. Each
//! layer asked for then becomes a model of its own:
//! - each input whose value is known before the model runs (a `Const`,
//!   or what constant folding computes from one) stays a `Const`;
//! - every other input becomes a `Parameter` of the shape and type that
//!   run gave it, fed with the value it had (`in/<name>.npy`);
//! - the layer keeps its name, type, version and attributes, and its
//!   outputs their tensor names;
//! - its expected outputs (`expected/<name>.npy`) are what the whole
//!   model computed there.
//!
//! Each case is run again on its own before it is written, and a case
//! whose outputs differ from the whole model's is reported.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use ovir::compare::Tolerance;
use ovir::ir::{LayerIdx, OutputRef};
use ovir::npy::file_stem;
use ovir::{CompileOptions, Model, ModelBuilder, OpLayer, PartialShape, Tensor};

use crate::args::ExtractArgs;
use crate::io::{count, make_folder, set_inputs};
use crate::tensors::port_values;
use crate::{CliError, Outcome};

/// One layer cut out of a model: its model, its inputs' values and the
/// outputs the whole model computed for it.
#[derive(Debug)]
pub struct LayerCase {
    /// The layer's name.
    pub layer: String,
    /// The layer alone, with `Parameter`s and `Const`s for its inputs.
    pub model: Model,
    /// The value of each `Parameter`, by input name.
    pub inputs: Vec<(String, Tensor)>,
    /// The value of each output, in the order of the model's outputs.
    pub outputs: Vec<Tensor>,
}

/// Whether a layer computes something: every layer but `Parameter`s,
/// `Const`s and `Result`s.
fn computes(layer: &ovir::ir::Layer) -> bool {
    !(layer.is_const() || layer.is("Parameter") || layer.is("Result"))
}

/// The layers `names` ask for, or every layer that computes something:
/// an unknown name, or one of a layer that computes nothing, is an error.
fn chosen(ir: &ovir::ir::Model, names: &[String], all: bool) -> anyhow::Result<Vec<LayerIdx>> {
    if all {
        return Ok(ir.order.iter().copied().filter(|i| ir.layers.get(i.0).is_some_and(computes)).collect());
    }
    let mut found = Vec::with_capacity(names.len());
    for name in names {
        let Some(at) = ir.layers.iter().position(|l| &l.name == name) else {
            bail!("the model has no layer named \"{name}\"; `ovir info` lists its layers");
        };
        let layer = &ir.layers[at];
        if !computes(layer) {
            bail!("layer \"{name}\" is a {}, which computes nothing to make a case of", layer.op_type);
        }
        if !found.contains(&LayerIdx(at)) {
            found.push(LayerIdx(at));
        }
    }
    Ok(found)
}

/// The name a `Parameter` standing for `src` gets: the tensor's first
/// name, or its layer's name (with `.portN` for a layer with several
/// outputs), cleaned as `-o` cleans file names, so that its input file is
/// named by it exactly; made unique among `taken` (compared ignoring
/// case, as file names are on some systems).
fn input_name(ir: &ovir::ir::Model, src: OutputRef, taken: &mut BTreeSet<String>) -> String {
    let layer = &ir.layers[src.layer.0];
    let tensor = layer.outputs.get(src.port).and_then(|p| p.names.first());
    let base = match tensor {
        Some(name) => file_stem(name),
        None if layer.outputs.len() > 1 => file_stem(&format!("{}.port{}", layer.name, src.port)),
        None => file_stem(&layer.name),
    };
    let mut name = base.clone();
    let mut n = 1;
    while !taken.insert(name.to_ascii_lowercase()) {
        n += 1;
        name = format!("{base}_{n}");
    }
    name
}

/// Cuts each layer of `layers` out of `model` as a [`LayerCase`], with
/// the values one run of the whole model on the inputs `given` holds
/// gives. A layer that cannot stand alone is an error naming it.
pub fn cut(
    model: &Model,
    options: CompileOptions,
    given: &ovir::InferRequest,
    layers: &[LayerIdx],
) -> anyhow::Result<Vec<anyhow::Result<LayerCase>>> {
    let (ir, info) = (model.ir(), model.info());
    let known = |at: &OutputRef| {
        info.outputs.get(at.layer.0).and_then(|p| p.get(at.port)).and_then(|f| f.value.as_ref())
    };
    // The ports whose values only a run gives: each layer's computed
    // inputs, and its outputs.
    let mut ports = BTreeSet::new();
    for &idx in layers {
        ports.extend(ir.sources[idx.0].iter().filter(|at| known(at).is_none()).copied());
        ports.extend((0..ir.layers[idx.0].outputs.len()).map(|port| OutputRef { layer: idx, port }));
    }
    let ports: Vec<OutputRef> = ports.into_iter().collect();
    let values: HashMap<OutputRef, Tensor> =
        ports.iter().copied().zip(port_values(model, options, given, &ports)?).collect();
    let value = |at: &OutputRef| {
        values
            .get(at)
            .cloned()
            .ok_or_else(|| anyhow!("layer {} output {} was not computed", at.layer.0, at.port))
    };
    let one = |idx: LayerIdx| -> anyhow::Result<LayerCase> {
        let layer = &ir.layers[idx.0];
        let mut b = ModelBuilder::new(&layer.name);
        let mut taken = BTreeSet::new();
        let mut made = HashMap::new();
        let mut inputs = Vec::new();
        let mut fed = Vec::new();
        for src in &ir.sources[idx.0] {
            if let Some(&output) = made.get(src) {
                fed.push(output);
                continue;
            }
            let output = match known(src) {
                Some(constant) => b.constant(constant.clone())?,
                None => {
                    let tensor = value(src)?;
                    let name = input_name(ir, *src, &mut taken);
                    let shape = PartialShape::from_static(tensor.shape());
                    let output = b.parameter(&name, tensor.element_type(), shape)?;
                    inputs.push((name, tensor));
                    output
                }
            };
            made.insert(*src, output);
            fed.push(output);
        }
        let op = OpLayer {
            op_type: layer.op_type.clone(),
            version: layer.version.clone(),
            attrs: layer.attrs.0.iter().map(|a| (a.name.clone(), a.value.clone())).collect(),
            outputs: layer.outputs.len(),
            constant: None,
        };
        let outs = b.add_layer(op, &fed)?;
        let mut outputs = Vec::with_capacity(outs.len());
        for (port, &out) in outs.iter().enumerate() {
            if port == 0 {
                b.set_layer_name(out, &layer.name)?;
            }
            let names: Vec<&str> = layer.outputs[port].names.iter().map(String::as_str).collect();
            let fallback = input_name(ir, OutputRef { layer: idx, port }, &mut taken);
            let names = if names.is_empty() || names.iter().any(|n| taken.contains(&n.to_ascii_lowercase())) {
                vec![fallback.as_str()]
            } else {
                names
            };
            b.set_names(out, &names)?;
            b.result(out)?;
            outputs.push(value(&OutputRef { layer: idx, port })?);
        }
        Ok(LayerCase { layer: layer.name.clone(), model: b.build()?, inputs, outputs })
    };
    Ok(layers
        .iter()
        .map(|&idx| one(idx).with_context(|| format!("layer \"{}\"", ir.layers[idx.0].name)))
        .collect())
}

/// What runs a case alone finds different from the whole model: `None`
/// when every output matches bit for bit.
fn rerun(case: &LayerCase, options: CompileOptions) -> anyhow::Result<Option<String>> {
    let compiled = case.model.compile_with(options)?;
    let mut request = compiled.infer_request();
    for (name, tensor) in &case.inputs {
        request.set_input(name.as_str(), tensor.clone())?;
    }
    request.infer()?;
    for (i, (port, want)) in compiled.outputs().iter().zip(&case.outputs).enumerate() {
        if let Err(mismatch) = Tolerance::EXACT.compare(want, request.output(i)?) {
            return Ok(Some(format!("output \"{}\": {mismatch}", port.name())));
        }
    }
    Ok(None)
}

/// Writes `case` to `dir` as a conformance case folder.
fn write_case(case: &LayerCase, dir: &Path, force: bool) -> anyhow::Result<()> {
    let parts = ["model.xml", "model.bin", "in", "expected"];
    if dir.is_dir() {
        let mut entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
        if entries.next().is_some() {
            if !force {
                bail!("{} is not empty; give --force to replace the case there", dir.display());
            }
            for part in ["in", "expected"].map(|p| dir.join(p)).iter().filter(|p| p.is_dir()) {
                std::fs::remove_dir_all(part).with_context(|| format!("cannot remove {}", part.display()))?;
            }
        }
    }
    make_folder(dir)?;
    let compiled = case.model.compile()?;
    let stems = ovir::npy::output_file_stems(&compiled)?;
    let exchanged = |t: &Tensor| ovir::packed::try_to_exchange(t).map_err(anyhow::Error::from);
    let mut files = Vec::new();
    for (name, tensor) in &case.inputs {
        files.push((exchanged(tensor)?, dir.join("in").join(format!("{name}.npy"))));
    }
    for (stem, tensor) in stems.iter().zip(&case.outputs) {
        files.push((exchanged(tensor)?, dir.join("expected").join(format!("{stem}.npy"))));
    }
    for sub in &parts[2..] {
        make_folder(&dir.join(sub))?;
    }
    case.model.save(dir.join(parts[0]))?;
    let files: Vec<(&Tensor, &Path)> = files.iter().map(|(t, p)| (t, p.as_path())).collect();
    ovir::npy::write_npy_files(&files)?;
    Ok(())
}

/// The folder of each case inside `root`: the layer's name as `-o`
/// cleans file names, with `.idN` when another layer's took it.
fn case_folders(ir: &ovir::ir::Model, layers: &[LayerIdx], root: &Path) -> Vec<PathBuf> {
    let mut taken = BTreeSet::new();
    layers
        .iter()
        .map(|idx| {
            let layer = &ir.layers[idx.0];
            let mut stem = file_stem(&layer.name);
            if !taken.insert(stem.to_ascii_lowercase()) {
                stem = format!("{stem}.id{}", layer.id);
                taken.insert(stem.to_ascii_lowercase());
            }
            root.join(stem)
        })
        .collect()
}

/// Runs `ovir extract`.
pub fn run(args: &ExtractArgs, out: &mut impl Write) -> Result<Outcome, CliError> {
    let model = Model::read_with_weights(&args.model.model, args.model.weights.as_ref())?;
    let mut options = CompileOptions::default();
    if let Some(limit) = args.max_memory {
        options = options.with_max_memory(limit);
    }
    let layers = chosen(model.ir(), &args.layers, args.all)?;
    let compiled = model.compile_with(options)?;
    let mut request = compiled.infer_request();
    set_inputs(&mut request, &args.inputs, &args.shapes)?;
    let folders = match (args.all, layers.as_slice()) {
        (false, [_]) => vec![args.output.clone()],
        _ => case_folders(model.ir(), &layers, &args.output),
    };
    let io = |e: std::io::Error| CliError::Other(e.into());
    let mut failed = 0usize;
    for (case, dir) in cut(&model, options, &request, &layers)?.into_iter().zip(&folders) {
        let written = case.and_then(|case| {
            let differs = rerun(&case, options).with_context(|| format!("layer \"{}\" alone", case.layer))?;
            write_case(&case, dir, args.force).with_context(|| format!("layer \"{}\"", case.layer))?;
            Ok((case, differs))
        });
        match written {
            Ok((case, differs)) => {
                writeln!(
                    out,
                    "wrote {} (layer \"{}\": {}, {})",
                    dir.display(),
                    case.layer,
                    count(case.inputs.len(), "input"),
                    count(case.outputs.len(), "output")
                )
                .map_err(io)?;
                if let Some(what) = differs {
                    failed += 1;
                    eprintln!(
                        "error: layer \"{}\" run alone differs from the whole model's run: {what}",
                        case.layer
                    );
                }
            }
            Err(e) if layers.len() == 1 => return Err(e.into()),
            Err(e) => {
                failed += 1;
                eprintln!("{}", CliError::Other(e).render(false));
            }
        }
    }
    if layers.len() > 1 {
        let done = layers.len() - failed;
        writeln!(out, "{} of {} written to {}", count(done, "case"), layers.len(), args.output.display())
            .map_err(io)?;
    }
    Ok(if failed > 0 { Outcome::Failure } else { Outcome::Success })
}
