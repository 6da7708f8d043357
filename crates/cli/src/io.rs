//! Tensors in and out of files: `-i` specifications and writing outputs.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ovir::{CompiledModel, InferRequest, PartialShape, Tensor};

/// Clones of the inputs set on `request`, for the caller to hold while it
/// runs: a request given the only reference to an input may hand it to a
/// scatter that updates it in place, after which it holds no value. The
/// commands that run a model more than once, or read its inputs again
/// after a run, keep them this way, so the scatter copies.
/// Inputs listed in `except` are left to the request.
pub fn hold_inputs(request: &InferRequest, except: &[usize]) -> Vec<Tensor> {
    (0..request.model().inputs().len())
        .filter(|i| !except.contains(i))
        .filter_map(|i| request.input(i).ok().cloned())
        .collect()
}

/// Sets the inputs named by `-i` arguments, and fills every input they
/// leave out with the valid example data a run without `-i` gets. When
/// some inputs were given, each generated one is noted on standard error
/// (`note: input "y" generated: f32 [2,3]`), as benchmark_app notes what
/// it fills in; so is every input of a dynamic shape generated without a
/// `--shape`, with the size it got. `shapes` (from `--shape`) says what
/// shape to make a generated input in; it must be static and may not
/// name an input read from a file.
pub fn set_inputs<'a>(
    request: &mut InferRequest,
    specs: &'a [String],
    shapes: &[(String, PartialShape)],
) -> anyhow::Result<()> {
    // The `-i` that set each input: one given twice is refused, as
    // silently keeping the last would hide a typo.
    let inputs = request.model().inputs().to_vec();
    let mut given: Vec<Option<&str>> = vec![None; inputs.len()];
    let mut claim = |name: &str, spec: &'a str| -> anyhow::Result<()> {
        let Some(at) = inputs.iter().position(|p| p.answers_to(name)) else { return Ok(()) };
        if let Some(slot) = given.get_mut(at) {
            if let Some(first) = slot {
                let input = inputs.get(at).map_or(name, |p| p.name());
                bail!("`-i {first}` and `-i {spec}` both set input \"{input}\"; give it once");
            }
            *slot = Some(spec);
        }
        Ok(())
    };
    for spec in specs {
        match spec.split_once('=') {
            Some((name, file)) => {
                claim(name, spec)?;
                let tensor = ovir::npy::read_npy_file(Path::new(file))?;
                request
                    .set_input(name, tensor)
                    .with_context(|| format!("while setting input \"{name}\" from {file}"))?;
            }
            None if has_extension(spec, "npz") => {
                let limit = request.model().max_tensor_bytes();
                for (name, tensor) in ovir::npy::read_npz_file_limited(Path::new(spec), limit)? {
                    claim(&name, spec)?;
                    request
                        .set_input(name.as_str(), tensor)
                        .with_context(|| format!("while setting input \"{name}\" from {spec}"))?;
                }
            }
            None if has_extension(spec, "npy") => {
                let inputs = request.model().inputs();
                let [only] = inputs else {
                    let names: Vec<&str> = inputs.iter().map(|p| p.name()).collect();
                    bail!(
                        "`-i {spec}` does not say which input it is, and the model has {}: {}; write `-i NAME={spec}`",
                        count(inputs.len(), "input"),
                        if names.is_empty() { "none".to_string() } else { names.join(", ") }
                    );
                };
                let name = only.name().to_string();
                claim(&name, spec)?;
                let tensor = ovir::npy::read_npy_file(Path::new(spec))?;
                request
                    .set_input(0, tensor)
                    .with_context(|| format!("while setting input \"{name}\" from {spec}"))?;
            }
            None => {
                bail!("`-i {spec}`: expected NAME=FILE.npy, FILE.npz, or FILE.npy for a model with one input")
            }
        }
    }
    let missing: Vec<usize> =
        (0..request.model().inputs().len()).filter(|&i| request.input(i).is_err()).collect();
    unique_shapes(request.model().inputs(), shapes)?;
    let mut data_shapes = Vec::with_capacity(shapes.len());
    for (name, shape) in shapes {
        let Some(dims) = shape.to_static() else {
            bail!(
                "`--shape {name}={shape}`: the shape of generated data must be static, such as {name}=[2,3]"
            );
        };
        let inputs = request.model().inputs();
        let Some(at) = inputs.iter().position(|p| p.answers_to(name)) else {
            let names: Vec<&str> = inputs.iter().map(|p| p.name()).collect();
            bail!(
                "`--shape {name}={shape}`: the model has no input \"{name}\"; its inputs are: {}",
                names.join(", ")
            );
        };
        if !missing.contains(&at) {
            bail!("`--shape {name}={shape}`: input \"{name}\" is read from a file; --shape sets the shape of generated inputs only");
        }
        data_shapes.push((name.clone(), dims));
    }
    if missing.is_empty() {
        return Ok(());
    }
    // The generated inputs follow the shapes of the given ones.
    for (i, port) in request.model().inputs().iter().enumerate() {
        if let Ok(given) = request.input(i) {
            data_shapes.push((port.name().to_string(), given.shape().to_vec()));
        }
    }
    let generated = request.model().example_inputs_shaped(&missing, &data_shapes)?;
    for (i, tensor) in missing.into_iter().zip(generated) {
        let port = request.model().inputs().get(i);
        let chosen = shapes.iter().find(|(n, _)| port.is_some_and(|p| p.answers_to(n)));
        let name = port.map_or("", |p| p.name());
        let made = ovir::PartialShape::from_static(tensor.shape());
        match port {
            // A size the model leaves open was picked here: say so, and how
            // to pick another, as a run on it would otherwise look like a
            // run on the model's real input.
            Some(p) if chosen.is_none() && !p.shape.is_static() => eprintln!(
                "note: input \"{name}\" has the dynamic shape {}; generated: {} {made}; \
                 `--shape {name}=[DIMS]` sets another",
                p.shape,
                tensor.element_type()
            ),
            _ if !specs.is_empty() => {
                eprintln!("note: input \"{name}\" generated: {} {made}", tensor.element_type())
            }
            _ => {}
        }
        match chosen {
            Some((name, shape)) => request
                .set_input(i, tensor)
                .with_context(|| format!("`--shape {name}={shape}` does not fit input \"{name}\""))?,
            None => request.set_input(i, tensor)?,
        }
    }
    Ok(())
}

/// Refuses two `--shape`s for one input (by any of its names): the help
/// says once per input, and silently keeping the last would hide a typo.
pub fn unique_shapes(inputs: &[ovir::PortInfo], shapes: &[(String, PartialShape)]) -> anyhow::Result<()> {
    let mut seen: Vec<(usize, &str)> = Vec::new();
    for (name, _) in shapes {
        let Some(at) = inputs.iter().position(|p| p.answers_to(name)) else { continue };
        if let Some((_, first)) = seen.iter().find(|(i, _)| *i == at) {
            bail!("`--shape {name}=…` and `--shape {first}=…` both give the shape of input \"{first}\"; give it once");
        }
        seen.push((at, name));
    }
    Ok(())
}

/// `true` when `path` ends in `.ext`, in any case (`OUT.NPZ` is an
/// archive too).
pub fn has_extension(path: impl AsRef<Path>, ext: &str) -> bool {
    path.as_ref().extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// `1 input`, `2 inputs`: a count with its noun.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Writes the outputs where `-o` says: to one `.npz` archive when `out`
/// ends in `.npz`, to that one `.npy` file when it ends in `.npy` and the
/// model has one output, and otherwise to `out/<name>.npy` files. The
/// suffix counts in any case (`OUT.NPZ` is an archive). Missing parent
/// folders are created, whichever form `out` has. Either every file is
/// written or, on an error, none is changed.
pub fn write_outputs(model: &CompiledModel, outputs: &[&Tensor], out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let names = ovir::npy::output_file_stems(model)?;
    if has_extension(out, "npz") {
        make_parent(out)?;
        let entries: Vec<(String, Tensor)> =
            names.into_iter().zip(outputs.iter().map(|t| (*t).clone())).collect();
        ovir::npy::write_npz_file(&entries, out)?;
        return Ok(vec![out.to_path_buf()]);
    }
    if has_extension(out, "npy") {
        let [tensor] = outputs else {
            let names: Vec<&str> = model.outputs().iter().map(|p| p.name()).collect();
            bail!(
                "-o {} names one .npy file, but the model has {} ({}); give a folder, or a file ending in .npz",
                out.display(),
                count(outputs.len(), "output"),
                names.join(", ")
            );
        };
        make_parent(out)?;
        ovir::npy::write_npy_file(tensor, out)?;
        return Ok(vec![out.to_path_buf()]);
    }
    make_folder(out)?;
    // All files or none: a run that fails on the way leaves the folder as
    // it was, not half updated.
    let written: Vec<PathBuf> = names.iter().map(|name| out.join(format!("{name}.npy"))).collect();
    let files: Vec<(&Tensor, &Path)> =
        outputs.iter().copied().zip(written.iter().map(PathBuf::as_path)).collect();
    ovir::npy::write_npy_files(&files)?;
    Ok(written)
}

/// Creates the folder a file is to be written in, with its parents.
fn make_parent(file: &Path) -> anyhow::Result<()> {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => make_folder(dir),
        _ => Ok(()),
    }
}

/// Creates a folder and its parents, unless it is there already.
pub(crate) fn make_folder(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("{} exists and is not a folder", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the folder {}", dir.display()))
}

/// One element as text, in its own type and in the format of
/// `ovir::text` (the shortest digits of its own width, NaN as its bits).
/// Only that element is read, so showing a few elements of a large output
/// costs no copy of it.
pub fn element_text(t: &Tensor, i: usize) -> String {
    t.value_text(i).unwrap_or_else(|| "?".to_string())
}
