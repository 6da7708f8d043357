//! Conformance cases: folders that each hold a model, its inputs and what
//! running it must give (the `conformance` feature).
//!
//! # A case
//!
//! A case is a folder holding:
//!
//! - `model.xml`, and `model.bin` when the model has weights;
//! - its inputs, either as `in/<input>.npy`, one file per input named by
//!   any of the input's names, or as one `inputs.npz` archive of arrays
//!   named so (not both); only a model without inputs needs neither;
//! - exactly one expectation:
//!   - `expected/<output>.npy`, one file per output, named by the
//!     output's first tensor name with every character outside
//!     `[A-Za-z0-9._-]` replaced by `_` ([`npy::file_stem`]). Outputs
//!     must match bit for bit, or within the [`Tolerance`] given;
//!   - `expected_error`, a file holding a phrase that the error met while
//!     reading, compiling or running the model must contain (compared
//!     without case), for models and inputs that must be refused;
//!   - `expected_warning`, a file holding a phrase that a warning given
//!     while reading the model must contain: a model that loads, but whose
//!     ports declare what inference contradicts.
//!
//! The packed sub-byte types and the 8-bit floats have no NumPy dtype:
//! their `.npy` files hold one code per element as `u8` (`i8` for `i4`),
//! and expected codes compare as the values they stand for. [`cases`]
//! finds every case below a folder, at any depth (the folder itself
//! included), so malformed models can sit in `bad/` and models that must
//! be refused in `unsupported/` beside the valid ones.
//!
//! A folder that is not a well-formed case (no `model.xml`, no
//! expectation or two, both `in/` and `inputs.npz`, an empty phrase, an
//! unreadable `.npy`, an input of the model that neither gives) fails
//! with a [`CaseError`] that names the file.
//!
//! # Running cases
//!
//! [`Case::run`] runs one case and says how it passed ([`Passed`]) or how
//! it failed ([`Failure`]: which output differs, at which element, by how
//! much). A test harness such as `libtest-mimic` makes one test per case:
//!
//! ```no_run
//! // tests/cases.rs, with `harness = false` for it in Cargo.toml.
//! fn main() -> Result<(), ovir::conformance::CaseError> {
//!     let args = libtest_mimic::Arguments::from_args();
//!     let tests = ovir::conformance::cases("tests/cases")?
//!         .into_iter()
//!         .map(|case| {
//!             libtest_mimic::Trial::test(case.name().to_string(), move || {
//!                 case.run()?; // a failure's message says what differs, and where
//!                 Ok(())
//!             })
//!         })
//!         .collect();
//!     libtest_mimic::run(&args, tests).exit()
//! }
//! ```
//!
//! A whole case, written and run here:
//!
//! ```
//! use ovir::conformance::{Case, Failure, Passed, Tolerance};
//! use ovir::{ElementType, ModelBuilder, PartialShape, Tensor};
//!
//! let dir = tempfile::tempdir()?;
//! let mut b = ModelBuilder::new("to_f16");
//! let data = b.parameter("data", ElementType::F32, PartialShape::from_static(&[3]))?;
//! let half = b.convert(data, ElementType::F16)?;
//! b.set_names(half, &["half"])?;
//! b.result(half)?;
//! b.build()?.save(dir.path().join("model.xml"))?;
//! std::fs::create_dir(dir.path().join("in"))?;
//! std::fs::create_dir(dir.path().join("expected"))?;
//! let input = Tensor::from_vec(&[3], vec![0.1f32, 2.0, 1e9])?;
//! ovir::npy::write_npy_file(&input, &dir.path().join("in/data.npy"))?;
//! let want = Tensor::from_vec(&[3], vec![ovir::f16::from_f32(0.1), ovir::f16::from_f32(2.5), ovir::f16::INFINITY])?;
//! ovir::npy::write_npy_file(&want, &dir.path().join("expected/half.npy"))?;
//!
//! let case = Case::new(dir.path());
//! let Err(Failure::Outputs(problems)) = case.run() else { panic!("2 is not 2.5") };
//! assert_eq!(
//!     problems[0].to_string(),
//!     "half: 1 of 3 elements differ; first at [1]: expected 2.5, got 2; largest absolute difference 0.5"
//! );
//! // Within half a unit: |2 - 2.5| <= 0.5.
//! let loose = Tolerance::EXACT.with_atol(0.5)?;
//! let passed = case.run_with(&ovir::Core::new(), loose)?;
//! assert_eq!(passed.to_string(), "1 output within atol=0.5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::npy::{self, NpyError, SameFileError};
use crate::{CompiledModel, Core, Tensor};

pub use ovir_tensor::compare::{Differing, Mismatch, Side, Tolerance, ToleranceError, ValueMismatch};

/// The files of a case.
const MODEL: &str = "model.xml";
const INPUTS: &str = "in";
const INPUTS_NPZ: &str = "inputs.npz";
const EXPECTED: &str = "expected";
const EXPECTED_ERROR: &str = "expected_error";
const EXPECTED_WARNING: &str = "expected_warning";

/// One case folder, named by its path below the folder searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    name: String,
    dir: PathBuf,
}

impl Case {
    /// The case in `dir`, named by that path. Nothing is read until it
    /// runs.
    pub fn new(dir: impl Into<PathBuf>) -> Case {
        let dir = dir.into();
        Case { name: dir.display().to_string(), dir }
    }

    /// The case's name: its folder's path below the folder [`cases`]
    /// searched, with `/` between folders (`.` for that folder itself).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The case's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs the case with ovir's default [`Core`], its outputs compared bit
    /// for bit.
    pub fn run(&self) -> Result<Passed, Failure> {
        self.run_with(&Core::new(), Tolerance::EXACT)
    }

    /// Runs the case with the models read by `core` (which holds the
    /// extensions a model may use), its outputs compared with `tolerance`.
    pub fn run_with(&self, core: &Core, tolerance: Tolerance) -> Result<Passed, Failure> {
        let model = self.dir.join(MODEL);
        if !model.is_file() {
            return Err(CaseError::new(&model, CaseErrorKind::Missing).into());
        }
        let expectation = Expectation::read(&self.dir)?;
        let inputs = Inputs::find(&self.dir)?;
        match expectation {
            Expectation::Warning(phrase) => warned(core, &model, phrase),
            Expectation::Error(phrase) => match execute(core, &model, &inputs) {
                Err(Stop::Case(e)) => Err(e.into()),
                Err(Stop::Refused(message)) if contains(&message, &phrase) => Ok(Passed::Refused { phrase }),
                Err(Stop::Refused(message)) => Err(Failure::WrongError { phrase, message }),
                Ok(_) => Err(Failure::NotRefused { phrase }),
            },
            Expectation::Outputs(expected) => match execute(core, &model, &inputs) {
                Err(Stop::Case(e)) => Err(e.into()),
                Err(Stop::Refused(message)) => Err(Failure::Refused { message }),
                Ok((compiled, outputs)) => {
                    let arrays = read_arrays(&expected)?;
                    let refs: Vec<&Tensor> = outputs.iter().collect();
                    let problems = check_outputs(&compiled, &refs, &arrays, tolerance)
                        .map_err(|e| Failure::Refused { message: e.to_string() })?;
                    if problems.is_empty() {
                        Ok(Passed::Outputs { count: outputs.len(), tolerance })
                    } else {
                        Err(Failure::Outputs(problems))
                    }
                }
            },
        }
    }
}

/// What a case expects.
enum Expectation {
    /// The outputs, in this folder.
    Outputs(PathBuf),
    /// An error containing the phrase.
    Error(String),
    /// A warning containing the phrase.
    Warning(String),
}

impl Expectation {
    fn read(dir: &Path) -> Result<Expectation, CaseError> {
        let present: Vec<&str> = [EXPECTED, EXPECTED_ERROR, EXPECTED_WARNING]
            .into_iter()
            .filter(|f| dir.join(f).exists())
            .collect();
        match present.as_slice() {
            [] => Err(CaseError::new(dir, CaseErrorKind::NoExpectation)),
            [_, _, ..] => Err(CaseError::new(
                dir,
                CaseErrorKind::TwoOf { first: present[0].to_string(), second: present[1].to_string() },
            )),
            [EXPECTED] => {
                let path = dir.join(EXPECTED);
                if path.is_dir() {
                    Ok(Expectation::Outputs(path))
                } else {
                    Err(CaseError::new(&path, CaseErrorKind::NotAFolder))
                }
            }
            [file] => {
                let path = dir.join(file);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| CaseError::new(&path, CaseErrorKind::Io(e)))?;
                let phrase = text.trim().to_string();
                if phrase.is_empty() {
                    return Err(CaseError::new(&path, CaseErrorKind::EmptyPhrase));
                }
                Ok(if *file == EXPECTED_ERROR {
                    Expectation::Error(phrase)
                } else {
                    Expectation::Warning(phrase)
                })
            }
        }
    }
}

/// Where a case's inputs are.
enum Inputs {
    None,
    Folder(PathBuf),
    Archive(PathBuf),
}

impl Inputs {
    fn find(dir: &Path) -> Result<Inputs, CaseError> {
        let (folder, archive) = (dir.join(INPUTS), dir.join(INPUTS_NPZ));
        match (folder.exists(), archive.exists()) {
            (true, true) => Err(CaseError::new(
                dir,
                CaseErrorKind::TwoOf { first: INPUTS.to_string(), second: INPUTS_NPZ.to_string() },
            )),
            (true, false) if !folder.is_dir() => Err(CaseError::new(&folder, CaseErrorKind::NotAFolder)),
            (true, false) => Ok(Inputs::Folder(folder)),
            (false, true) => Ok(Inputs::Archive(archive)),
            (false, false) => Ok(Inputs::None),
        }
    }
}

/// Why a case stopped before its outputs could be compared.
enum Stop {
    /// The case folder is malformed.
    Case(CaseError),
    /// ovir refused the model or its inputs: the rendered error.
    Refused(String),
}

/// Reads, compiles and runs the model with the case's inputs.
fn execute(core: &Core, model: &Path, inputs: &Inputs) -> Result<(CompiledModel, Vec<Tensor>), Stop> {
    let refused = |e: crate::Error| Stop::Refused(e.render(false));
    let compiled = core.read_model(model).and_then(|m| m.compile()).map_err(refused)?;
    let mut request = compiled.infer_request();
    let arrays = match inputs {
        Inputs::None => Vec::new(),
        Inputs::Folder(dir) => read_folder(dir).map_err(Stop::Case)?.into_iter().collect(),
        Inputs::Archive(file) => npy::read_npz_file_limited(file, compiled.max_tensor_bytes())
            .map_err(|e| Stop::Case(CaseError::new(file, CaseErrorKind::Npy(e))))?,
    };
    for (name, tensor) in arrays {
        request.set_input(name.as_str(), tensor).map_err(refused)?;
    }
    // An input the case does not give is the case's fault: the error
    // names the file that should hold it.
    for (i, port) in compiled.inputs().iter().enumerate() {
        if request.input(i).is_ok() {
            continue;
        }
        let expected = match inputs {
            Inputs::Archive(file) => file.clone(),
            Inputs::Folder(dir) => dir.join(format!("{}.npy", port.name())),
            Inputs::None => model.with_file_name(INPUTS).join(format!("{}.npy", port.name())),
        };
        let kind = CaseErrorKind::MissingInput { input: port.name().to_string() };
        return Err(Stop::Case(CaseError::new(&expected, kind)));
    }
    request.infer().map_err(refused)?;
    let outputs = request.outputs().into_iter().cloned().collect();
    Ok((compiled, outputs))
}

/// Whether the model loads with a warning that contains `phrase`.
fn warned(core: &Core, model: &Path, phrase: String) -> Result<Passed, Failure> {
    match core.read_model(model) {
        Err(e) => Err(Failure::RefusedNotWarned { phrase, message: e.to_string() }),
        Ok(m) if m.warnings().iter().any(|w| contains(&w.to_string(), &phrase)) => {
            Ok(Passed::Warned { phrase })
        }
        Ok(m) => {
            Err(Failure::NoWarning { phrase, warnings: m.warnings().iter().map(|w| w.to_string()).collect() })
        }
    }
}

/// `true` when `text` contains `phrase`, compared without case.
fn contains(text: &str, phrase: &str) -> bool {
    text.to_lowercase().contains(&phrase.to_lowercase())
}

/// The `.npy` files of a folder, by file stem.
fn read_folder(dir: &Path) -> Result<BTreeMap<String, Tensor>, CaseError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CaseError::new(dir, CaseErrorKind::Io(e)))?;
    let mut arrays = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| CaseError::new(dir, CaseErrorKind::Io(e)))?.path();
        if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy")) {
            continue;
        }
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
            return Err(CaseError::new(&path, CaseErrorKind::NotUtf8Name));
        };
        let tensor = npy::read_npy_file(&path).map_err(|e| CaseError::new(&path, CaseErrorKind::Npy(e)))?;
        arrays.insert(name.to_string(), tensor);
    }
    Ok(arrays)
}

/// The arrays at `path`, by name: the `.npy` files of a folder (by file
/// stem), or the arrays of an `.npz` archive.
pub fn read_arrays(path: &Path) -> Result<BTreeMap<String, Tensor>, CaseError> {
    if path.is_dir() {
        read_folder(path)
    } else {
        let arrays = npy::read_npz_file(path).map_err(|e| CaseError::new(path, CaseErrorKind::Npy(e)))?;
        Ok(arrays.into_iter().collect())
    }
}

/// Compares each of `model`'s `outputs` (in output order) with its array
/// in `expected`: the one named by the output's file stem
/// ([`npy::output_file_stems`]), or else by any of the output's names. The
/// problems come in output order, then each array that matches no output;
/// none when every output matches.
pub fn check_outputs(
    model: &CompiledModel,
    outputs: &[&Tensor],
    expected: &BTreeMap<String, Tensor>,
    tolerance: Tolerance,
) -> Result<Vec<OutputProblem>, SameFileError> {
    let files = npy::output_file_stems(model)?;
    let mut problems = Vec::new();
    let mut used = Vec::new();
    for ((port, file), actual) in model.outputs().iter().zip(&files).zip(outputs) {
        let found = std::iter::once(file).chain(&port.names).find_map(|n| expected.get_key_value(n.as_str()));
        let output = port.name().to_string();
        match found {
            None => problems.push(OutputProblem::Missing { output, file: file.clone() }),
            Some((key, want)) => {
                used.push(key.as_str());
                if let Err(mismatch) = tolerance.compare(want, actual) {
                    problems.push(OutputProblem::Differs { output, file: file.clone(), mismatch });
                }
            }
        }
    }
    for name in expected.keys() {
        if !used.contains(&name.as_str()) {
            problems.push(OutputProblem::Unmatched { file: name.clone() });
        }
    }
    Ok(problems)
}

/// Every case below `root` (a folder holding `model.xml`, `root` itself
/// included), sorted by path and named by it (see [`Case::name`]).
/// Symbolic links to folders are not followed.
pub fn cases(root: impl AsRef<Path>) -> Result<Vec<Case>, CaseError> {
    let root = root.as_ref();
    if !root.is_dir() {
        return Err(CaseError::new(root, CaseErrorKind::NotAFolder));
    }
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        if dir.join(MODEL).is_file() {
            found.push(dir.clone());
        }
        let entries = std::fs::read_dir(&dir).map_err(|e| CaseError::new(&dir, CaseErrorKind::Io(e)))?;
        for entry in entries {
            let path = entry.map_err(|e| CaseError::new(&dir, CaseErrorKind::Io(e)))?.path();
            if path.is_dir() && !path.is_symlink() {
                pending.push(path);
            }
        }
    }
    found.sort();
    Ok(found
        .into_iter()
        .map(|dir| {
            let below = dir.strip_prefix(root).unwrap_or(&dir);
            let parts: Vec<String> =
                below.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let name = if parts.is_empty() { ".".to_string() } else { parts.join("/") };
            Case { name, dir }
        })
        .collect())
}

/// One case's name and outcome.
#[derive(Debug)]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// How it passed or failed.
    pub outcome: Result<Passed, Failure>,
}

impl CaseResult {
    /// `true` when the case passed.
    pub fn passed(&self) -> bool {
        self.outcome.is_ok()
    }
}

/// Runs every case below `root` (see [`cases`]) with [`Case::run_with`].
pub fn run_all(
    root: impl AsRef<Path>,
    core: &Core,
    tolerance: Tolerance,
) -> Result<Vec<CaseResult>, CaseError> {
    Ok(cases(root)?
        .into_iter()
        .map(|case| {
            let outcome = case.run_with(core, tolerance);
            CaseResult { name: case.name, outcome }
        })
        .collect())
}

/// Writes one line per case, `PASS` or `FAIL`, its name and what passed
/// or why it failed, then the summary `N passed, M failed`, as
/// `ovir conformance` prints them.
pub fn write_report(results: &[CaseResult], out: &mut impl Write) -> io::Result<()> {
    let width = results.iter().map(|r| r.name.len()).max().unwrap_or(4);
    for r in results {
        match &r.outcome {
            Ok(passed) => writeln!(out, "PASS  {:<width$}  {passed}", r.name)?,
            Err(failure) => writeln!(out, "FAIL  {:<width$}  {failure}", r.name)?,
        }
    }
    let passed = results.iter().filter(|r| r.passed()).count();
    writeln!(out, "{passed} passed, {} failed", results.len() - passed)
}

/// How a case passed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Passed {
    /// Every output matched.
    Outputs {
        /// How many outputs.
        count: usize,
        /// How they were compared.
        tolerance: Tolerance,
    },
    /// The model was refused with an error containing the phrase.
    Refused {
        /// The phrase of `expected_error`.
        phrase: String,
    },
    /// The model loaded with a warning containing the phrase.
    Warned {
        /// The phrase of `expected_warning`.
        phrase: String,
    },
}

impl fmt::Display for Passed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Passed::Outputs { count, tolerance } => {
                let s = if *count == 1 { "" } else { "s" };
                if tolerance.is_exact() {
                    write!(f, "{count} output{s} bit-exact")
                } else {
                    write!(f, "{count} output{s} within {tolerance}")
                }
            }
            Passed::Refused { phrase } => write!(f, "refused as expected ({phrase})"),
            Passed::Warned { phrase } => write!(f, "loads with a warning, as expected ({phrase})"),
        }
    }
}

/// How a case failed. Its `Display` is one line (the first line of a
/// long error); the fields hold everything.
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// The case folder is not a well-formed case.
    Case(CaseError),
    /// Outputs were expected, but ovir refused the model or its inputs.
    Refused {
        /// The error, rendered with its line of XML.
        message: String,
    },
    /// The model was refused, but the error does not contain the phrase.
    WrongError {
        /// The phrase of `expected_error`.
        phrase: String,
        /// The error, rendered with its line of XML.
        message: String,
    },
    /// The model ran, but an error was expected.
    NotRefused {
        /// The phrase of `expected_error`.
        phrase: String,
    },
    /// The model was refused, but only a warning was expected.
    RefusedNotWarned {
        /// The phrase of `expected_warning`.
        phrase: String,
        /// The error.
        message: String,
    },
    /// The model loaded, but no warning contains the phrase.
    NoWarning {
        /// The phrase of `expected_warning`.
        phrase: String,
        /// The warnings given, if any.
        warnings: Vec<String>,
    },
    /// Outputs differ from the expected arrays, or have none.
    Outputs(Vec<OutputProblem>),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = |m: &str| m.lines().next().unwrap_or("").to_string();
        match self {
            Failure::Case(e) => write!(f, "{e}"),
            Failure::Refused { message } => f.write_str(&first(message)),
            Failure::WrongError { phrase, message } => {
                write!(f, "refused, but the error does not mention \"{phrase}\": {}", first(message))
            }
            Failure::NotRefused { phrase } => {
                write!(f, "ran, but an error mentioning \"{phrase}\" was expected")
            }
            Failure::RefusedNotWarned { message, .. } => {
                write!(f, "refused, but only a warning was expected: {}", first(message))
            }
            Failure::NoWarning { phrase, .. } => write!(f, "loads, but no warning mentions \"{phrase}\""),
            Failure::Outputs(problems) => {
                for (i, p) in problems.iter().enumerate() {
                    write!(f, "{}{p}", if i == 0 { "" } else { "; " })?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Failure {}

impl From<CaseError> for Failure {
    fn from(e: CaseError) -> Failure {
        Failure::Case(e)
    }
}

/// What is wrong with one output, or with an expected array.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum OutputProblem {
    /// No expected array for the output.
    Missing {
        /// The output's name.
        output: String,
        /// Its file stem.
        file: String,
    },
    /// The output differs from its expected array.
    Differs {
        /// The output's name.
        output: String,
        /// Its file stem.
        file: String,
        /// How.
        mismatch: Mismatch,
    },
    /// An expected array that belongs to no output.
    Unmatched {
        /// The array's name.
        file: String,
    },
}

impl fmt::Display for OutputProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputProblem::Missing { file, .. } => write!(f, "no {EXPECTED}/{file}.npy"),
            OutputProblem::Differs { file, mismatch, .. } => write!(f, "{file}: {mismatch}"),
            OutputProblem::Unmatched { file } => write!(f, "{EXPECTED}/{file}.npy matches no output"),
        }
    }
}

/// A case folder that is not a well-formed case, or that cannot be read.
#[derive(Debug)]
pub struct CaseError {
    path: PathBuf,
    kind: CaseErrorKind,
}

/// What is wrong with a case folder.
#[derive(Debug)]
#[non_exhaustive]
pub enum CaseErrorKind {
    /// The file is missing.
    Missing,
    /// The path is not a folder.
    NotAFolder,
    /// The case holds no expectation.
    NoExpectation,
    /// The case holds two files of which it may have only one.
    TwoOf {
        /// The first file.
        first: String,
        /// The second file.
        second: String,
    },
    /// `expected_error` or `expected_warning` holds no phrase.
    EmptyPhrase,
    /// A file's name is not UTF-8, so it cannot name a tensor.
    NotUtf8Name,
    /// The file or folder cannot be read.
    Io(io::Error),
    /// The `.npy` or `.npz` file is malformed.
    Npy(NpyError),
    /// The model has an input the case does not give: the path is the
    /// `.npy` file that should hold it, or the `inputs.npz` that lacks it.
    MissingInput {
        /// The input's name.
        input: String,
    },
}

impl CaseError {
    fn new(path: &Path, kind: CaseErrorKind) -> CaseError {
        CaseError { path: path.to_path_buf(), kind }
    }

    /// The file or folder at fault.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong.
    pub fn kind(&self) -> &CaseErrorKind {
        &self.kind
    }
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            CaseErrorKind::Missing => write!(f, "{path} does not exist"),
            CaseErrorKind::NotAFolder => write!(f, "{path} is not a folder"),
            CaseErrorKind::NoExpectation => write!(
                f,
                "{path} has no {EXPECTED}/, {EXPECTED_ERROR} or {EXPECTED_WARNING}: a case needs one of them"
            ),
            CaseErrorKind::TwoOf { first, second } => {
                write!(f, "{path} has both {first} and {second}: a case may have only one of them")
            }
            CaseErrorKind::EmptyPhrase => {
                write!(f, "{path} is empty: it must hold a phrase that the message must contain")
            }
            CaseErrorKind::NotUtf8Name => write!(f, "{path}: the file name is not UTF-8"),
            CaseErrorKind::Io(e) => write!(f, "cannot read {path}: {e}"),
            // The npy reader's errors name the file already.
            CaseErrorKind::Npy(e) => write!(f, "{e}"),
            CaseErrorKind::MissingInput { input } if self.path.extension().is_some_and(|e| e == "npz") => {
                write!(f, "{path} holds no array for the model's input \"{input}\"")
            }
            CaseErrorKind::MissingInput { input } => {
                write!(f, "{path} does not exist: the model's input \"{input}\" is read from it")
            }
        }
    }
}

impl std::error::Error for CaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            CaseErrorKind::Io(e) => Some(e),
            CaseErrorKind::Npy(e) => Some(e),
            _ => None,
        }
    }
}
