//! Tensors in and out of files: `-i` specifications, output file names,
//! and loading a set of expected arrays.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ovir::{CompiledModel, ElementType, InferRequest, PartialShape, Tensor};

/// The longest file stem an output gets, in bytes: well below the 255
/// bytes most file systems allow, with room for `.npy` and the temporary
/// name's additions.
const MAX_STEM: usize = 150;

/// Names Windows reserves for devices, whatever the extension.
const RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
    "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Replaces every character outside `[A-Za-z0-9._-]` with `_`, and
/// neutralises names that would leave the output directory (`.`, `..`) or
/// name a device on Windows (`CON`, `NUL`, …). Names are cut to 150
/// bytes, so that a hostile tensor name cannot make a file name the
/// system refuses.
pub fn sanitize(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
        .take(MAX_STEM)
        .collect();
    let device =
        clean.split('.').next().is_some_and(|stem| RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)));
    if clean.is_empty() || clean.chars().all(|c| c == '.') {
        format!("_{}", clean.replace('.', "_"))
    } else if device {
        format!("_{clean}")
    } else {
        clean
    }
}

/// The file stem of each output, in output order: the sanitised output
/// name. Two outputs that would share a file are an error, so that one can
/// never silently overwrite the other.
pub fn output_file_names(model: &CompiledModel) -> anyhow::Result<Vec<String>> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut names = Vec::new();
    for port in model.outputs() {
        let file = sanitize(port.name());
        // Compared without case: on macOS and Windows, `Out.npy` and
        // `out.npy` are the same file.
        if let Some(first) = seen.insert(file.to_ascii_lowercase(), port.name().to_string()) {
            bail!(
                "outputs \"{first}\" and \"{}\" would both be written to {file}.npy; rename one of them in the model",
                port.name()
            );
        }
        names.push(file);
    }
    Ok(names)
}

/// Sets the inputs named by `-i` arguments, and fills every input they
/// leave out with the valid example data a run without `-i` gets. When
/// some inputs were given, each generated one is noted on standard error
/// (`note: input "y" generated: f32 [2,3]`), as benchmark_app notes what
/// it fills in; so is every input of a dynamic shape generated without a
/// `--shape`, with the size it got. `shapes` (from `--shape`) says what
/// shape to make a generated input in; it must be static and may not
/// name an input read from a file.
pub fn set_inputs(
    request: &mut InferRequest,
    specs: &[String],
    shapes: &[(String, PartialShape)],
) -> anyhow::Result<()> {
    for spec in specs {
        match spec.split_once('=') {
            Some((name, file)) => {
                let tensor = ovir_npy::read_npy_file(Path::new(file))?;
                request
                    .set_input(name, tensor)
                    .with_context(|| format!("while setting input \"{name}\" from {file}"))?;
            }
            None if has_extension(spec, "npz") => {
                let limit = request.model().max_tensor_bytes();
                for (name, tensor) in ovir_npy::read_npz_file_limited(Path::new(spec), limit)? {
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
                let tensor = ovir_npy::read_npy_file(Path::new(spec))?;
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
    let names = output_file_names(model)?;
    if has_extension(out, "npz") {
        make_parent(out)?;
        let entries: Vec<(String, Tensor)> =
            names.into_iter().zip(outputs.iter().map(|t| (*t).clone())).collect();
        ovir_npy::write_npz_file(&entries, out)?;
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
        ovir_npy::write_npy_file(tensor, out)?;
        return Ok(vec![out.to_path_buf()]);
    }
    make_folder(out)?;
    // All files or none: a run that fails on the way leaves the folder as
    // it was, not half updated.
    let written: Vec<PathBuf> = names.iter().map(|name| out.join(format!("{name}.npy"))).collect();
    let files: Vec<(&Tensor, &Path)> =
        outputs.iter().copied().zip(written.iter().map(PathBuf::as_path)).collect();
    ovir_npy::write_npy_files(&files)?;
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
fn make_folder(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("{} exists and is not a folder", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the folder {}", dir.display()))
}

/// Loads expected arrays from a directory of `.npy` files or an `.npz`
/// archive, keyed by array name.
pub fn load_arrays(path: &Path) -> anyhow::Result<BTreeMap<String, Tensor>> {
    if path.is_dir() {
        let mut arrays = BTreeMap::new();
        let entries = std::fs::read_dir(path).with_context(|| format!("cannot read {}", path.display()))?;
        for entry in entries {
            let p = entry?.path();
            if p.extension().is_some_and(|e| e == "npy") {
                let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                arrays.insert(name, ovir_npy::read_npy_file(&p)?);
            }
        }
        Ok(arrays)
    } else {
        Ok(ovir_npy::read_npz_file(path)?.into_iter().collect())
    }
}

/// Where two tensors differ, described for a person; `None` when they are
/// bit-for-bit identical.
pub fn difference(expected: &Tensor, actual: &Tensor) -> Option<String> {
    if expected.element_type() != actual.element_type() {
        return Some(format!(
            "element type {} was expected, got {}",
            expected.element_type(),
            actual.element_type()
        ));
    }
    if expected.shape() != actual.shape() {
        return Some(format!("shape {:?} was expected, got {:?}", expected.shape(), actual.shape()));
    }
    if let (Some(a), Some(b)) = (expected.strings(), actual.strings()) {
        let bad: Vec<usize> =
            a.iter().zip(b).enumerate().filter(|(_, (x, y))| x != y).map(|(i, _)| i).collect();
        let first = *bad.first()?;
        return Some(format!(
            "{} of {} elements differ; first at {:?}: expected {}, got {}",
            bad.len(),
            a.len(),
            unravel(first, expected.shape()),
            element_text(expected, first),
            element_text(actual, first)
        ));
    }
    let (a, b) = (expected.bytes()?, actual.bytes()?);
    if a == b {
        return None;
    }
    let width = expected.element_type().byte_width().unwrap_or(1);
    let mut diffs = a.chunks(width).zip(b.chunks(width)).enumerate().filter(|(_, (x, y))| x != y);
    let first = diffs.next()?.0;
    let count = 1 + diffs.count();
    let show = |t: &Tensor, i: usize| element_text(t, i);
    Some(format!(
        "{} of {} elements differ; first at {:?}: expected {}, got {}{}",
        count,
        expected.len(),
        unravel(first, expected.shape()),
        show(expected, first),
        show(actual, first),
        max_abs_diff(expected, actual)
            .map(|d| format!("; largest absolute difference {d}"))
            .unwrap_or_default()
    ))
}

fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            idx[i] = flat % d;
            flat /= d;
        }
    }
    idx
}

/// One element as text, in its own type and in the format of
/// `ovir::text` (the shortest digits of its own width, NaN as its bits).
/// Only that element is read, so showing a few elements of a large output
/// costs no copy of it.
pub fn element_text(t: &Tensor, i: usize) -> String {
    t.value_text(i).unwrap_or_else(|| "?".to_string())
}

/// How many elements [`max_abs_diff`] widens at a time.
const PIECE: usize = 1 << 12;

/// A numeric tensor of whole-byte elements as flat tensors of `n`
/// elements each (the last may be shorter), so that its values can be
/// widened a few at a time instead of all at once.
fn pieces(t: &Tensor, n: usize) -> Option<impl Iterator<Item = Tensor> + '_> {
    let ty = t.element_type();
    let width = ty.byte_width()?;
    let bytes = t.bytes()?;
    Some(bytes.chunks(n * width).filter_map(move |c| Tensor::from_bytes(ty, &[c.len() / width], c).ok()))
}

fn max_abs_diff(a: &Tensor, b: &Tensor) -> Option<String> {
    // An empty tensor of the same type tells which kind of values it has,
    // without widening any.
    let probe = Tensor::zeros(a.element_type(), &[0]).ok()?;
    let pairs = pieces(a, PIECE)?.zip(pieces(b, PIECE)?);
    if probe.integer_values().is_some() {
        let piece = |(x, y): (Tensor, Tensor)| {
            let (x, y) = (x.integer_values()?, y.integer_values()?);
            x.iter().zip(&y).map(|(p, q)| (p - q).abs()).max()
        };
        return pairs.filter_map(piece).max().map(|d| d.to_string());
    }
    probe.real_values()?;
    let piece = |(x, y): (Tensor, Tensor)| {
        let (x, y) = (x.real_values()?, y.real_values()?);
        Some(x.iter().zip(&y).map(|(p, q)| (p - q).abs()).filter(|d| !d.is_nan()).fold(0.0f64, f64::max))
    };
    let d = pairs.filter_map(piece).fold(0.0f64, f64::max);
    // The difference is taken in f64. When the values are narrower and the
    // difference is an f32, it is shown in f32's shortest digits (1e-45,
    // not 1.401298464324817e-45); otherwise in f64's.
    let mut text = String::new();
    let narrow = d as f32;
    if a.element_type() != ElementType::F64 && f64::from(narrow) == d {
        ovir::text::write_f32(&mut text, narrow).ok()?;
    } else {
        ovir::text::write_f64(&mut text, d).ok()?;
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_keeps_names_inside_the_directory() {
        assert_eq!(sanitize("out:0"), "out_0");
        assert_eq!(sanitize("../../etc/passwd"), ".._.._etc_passwd");
        assert_eq!(sanitize(".."), "___");
        assert_eq!(sanitize(""), "_");
        assert_eq!(sanitize("/abs"), "_abs");
        assert_eq!(sanitize("C:\\Windows\\x"), "C__Windows_x");
        assert_eq!(sanitize("con"), "_con");
        assert_eq!(sanitize("NUL.txt"), "_NUL.txt");
        assert_eq!(sanitize("console"), "console");
        assert_eq!(sanitize(&"é".repeat(1000)).len(), 150);
    }

    #[test]
    fn differences_show_values_in_their_own_width() {
        let f32s = |v: Vec<f32>| Tensor::from_vec(&[2], v).unwrap();
        let why = difference(&f32s(vec![1.0, 1e-45]), &f32s(vec![1.0, 0.0])).unwrap();
        assert_eq!(
            why,
            "1 of 2 elements differ; first at [1]: expected 1e-45, got 0; largest absolute difference 1e-45"
        );
        let nan = f32::from_bits(0x7fc0_0001);
        let why = difference(&f32s(vec![0.1, 2.0]), &f32s(vec![nan, 2.0])).unwrap();
        assert_eq!(why, "1 of 2 elements differ; first at [0]: expected 0.1, got nan:0x7fc00001; largest absolute difference 0");
        // Was a 300-digit decimal.
        let f64s = |v: Vec<f64>| Tensor::from_vec(&[1], v).unwrap();
        let why = difference(&f64s(vec![1e-300]), &f64s(vec![2e-300])).unwrap();
        assert_eq!(why, "1 of 1 elements differ; first at [0]: expected 1e-300, got 2e-300; largest absolute difference 1e-300");
        let f16s = |v: f32| Tensor::from_vec(&[1], vec![ovir::f16::from_f32(v)]).unwrap();
        // f16 0.2 - 0.1 is 0.0999755859375, an f32 of shortest digits
        // 0.099975586.
        let why = difference(&f16s(0.1), &f16s(0.2)).unwrap();
        assert!(why.ends_with("expected 0.1, got 0.2; largest absolute difference 0.099975586"), "{why}");
        let words = |v: &str| Tensor::from_strings(&[1], vec![v.to_string()]).unwrap();
        let why = difference(&words("say \"hi\""), &words("é\n")).unwrap();
        assert_eq!(why, r#"1 of 1 elements differ; first at [0]: expected "say \"hi\"", got "é\n""#);
    }

    #[test]
    fn unravel_gives_row_major_indices() {
        assert_eq!(unravel(5, &[2, 3]), vec![1, 2]);
    }
}
