//! The operations a model can use: one registry for the ops of OpenVINO's
//! opsets, the extensions that ship with ovir, and those registered by the
//! user.

use std::fmt;
use std::sync::Arc;

use ovir_ir::Layer;

use crate::error::ShapeErrorKind;
use crate::extension::{extension_problem, CustomOperation, Extension, ExtensionError};
use crate::operation::{build_op, BuiltinOp, Op, OpSpec, Problems, Versions};

/// A built-in op: its row, and how a layer's attributes are read into it.
#[derive(Clone, Copy)]
struct Builtin {
    spec: &'static OpSpec,
    build: fn(&Layer, u32) -> Result<Op, Problems>,
}

macro_rules! builtin_table {
    ($($op:path),* $(,)?) => {
        /// Every built-in op, in the order messages list them: those of
        /// OpenVINO's opsets, then the extensions that ship with ovir.
        const BUILTIN: &[Builtin] =
            &[$(Builtin { spec: &<$op as BuiltinOp>::SPEC, build: build_op::<$op> }),*];
    };
}
crate::for_each_builtin_op!(builtin_table);

/// The built-in ops of OpenVINO's opsets.
fn opset_ops() -> impl Iterator<Item = &'static Builtin> {
    BUILTIN.iter().filter(|b| b.spec.versions.is_opsets())
}

/// One operation a registry knows.
#[derive(Clone)]
enum Entry {
    /// A built-in op: of an opset, or an extension that ships with ovir.
    Builtin(&'static Builtin),
    /// An op the user added.
    Extension(Arc<dyn Extension>),
}

impl Entry {
    fn op_type(&self) -> &str {
        match self {
            Entry::Builtin(b) => b.spec.name,
            Entry::Extension(e) => e.op_type(),
        }
    }

    fn answers_to(&self, op_type: &str) -> bool {
        match self {
            Entry::Builtin(b) => b.spec.answers_to(op_type),
            Entry::Extension(e) => e.op_type().eq_ignore_ascii_case(op_type),
        }
    }

    /// The version an extension answers to; `None` for an opset op.
    fn extension_version(&self) -> Option<&str> {
        match self {
            Entry::Builtin(b) => match b.spec.versions {
                Versions::Named(v) => Some(v),
                _ => None,
            },
            Entry::Extension(e) => Some(e.version()),
        }
    }

    fn has_version(&self, version: &str) -> bool {
        match self {
            Entry::Builtin(b) => b.spec.versions.opset_of(version).is_some(),
            Entry::Extension(e) => e.version() == version,
        }
    }
}

/// The operations layers may use: the ops of OpenVINO's opsets that ovir
/// supports, the extensions that ship with ovir, and any
/// [`Extension`] added, all entries of one list.
///
/// A layer finds its op as OpenVINO's IR reader does: the `type` ignoring
/// ASCII case, the `version` naming an opset that contains the op (or, for
/// an extension, equal to its version). Opset ops come first, and an
/// extension can neither replace one nor share a type and version with
/// another entry.
///
/// ```
/// use ovir_shape::OpRegistry;
/// let ops = OpRegistry::new();
/// assert!(ops.has_op("reverse", "opset1"));
/// assert!(!ops.has_op("Reverse", "opset3"));
/// assert!(ops.has_op("ReverseSubsequences", "ovir"));
/// assert!(!OpRegistry::opsets_only().has_op("ReverseSubsequences", "ovir"));
/// ```
#[derive(Clone)]
pub struct OpRegistry {
    entries: Vec<Entry>,
}

impl Default for OpRegistry {
    fn default() -> Self {
        OpRegistry::new()
    }
}

impl fmt::Debug for OpRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(Entry::op_type)).finish()
    }
}

impl OpRegistry {
    /// The ops of OpenVINO's opsets that ovir supports and the extensions
    /// that ship with ovir (ReverseSubsequences).
    pub fn new() -> Self {
        OpRegistry { entries: BUILTIN.iter().map(Entry::Builtin).collect() }
    }

    /// Only the ops of OpenVINO's opsets, with no extension at all.
    pub fn opsets_only() -> Self {
        OpRegistry { entries: opset_ops().map(Entry::Builtin).collect() }
    }

    /// Registers an extension.
    ///
    /// Refuses an empty type or version, a type and version that another
    /// entry already handles, and a built-in op in an opset that contains
    /// it (`Reverse` of `opset1`): those layers keep their built-in meaning.
    pub fn add_extension(&mut self, extension: impl Extension + 'static) -> Result<(), ExtensionError> {
        self.add_extension_shared(Arc::new(extension))
    }

    /// [`OpRegistry::add_extension`] for an extension that is already
    /// shared.
    pub fn add_extension_shared(&mut self, extension: Arc<dyn Extension>) -> Result<(), ExtensionError> {
        let (op_type, version) = (extension.op_type(), extension.version());
        if op_type.trim().is_empty() || version.trim().is_empty() {
            return Err(ExtensionError::new(format!(
                "an extension needs a type and a version, but it has type `{op_type}` and version `{version}`"
            )));
        }
        let opset_op = opset_ops()
            .map(|b| b.spec)
            .find(|s| s.answers_to(op_type) && s.versions.opset_of(version).is_some());
        if let Some(spec) = opset_op {
            return Err(ExtensionError::new(format!(
                "{op_type} of `{version}` is built into ovir ({} is defined in {}), so an extension cannot \
                 replace it; register it under another version",
                spec.name,
                spec.versions.text()
            )));
        }
        if self.has_op(op_type, version) {
            return Err(ExtensionError::new(format!(
                "an extension for {op_type} of version `{version}` is already registered"
            )));
        }
        self.entries.push(Entry::Extension(extension));
        Ok(())
    }

    /// `true` when some entry handles layers of this `type` (ignoring
    /// ASCII case) and `version`.
    pub fn has_op(&self, op_type: &str, version: &str) -> bool {
        self.find(op_type, version).is_some()
    }

    fn find(&self, op_type: &str, version: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.answers_to(op_type) && e.has_version(version))
    }

    /// The extensions in words, for messages: those that ship with ovir
    /// and those added, as ``ReverseSubsequences (version `ovir`)``, or
    /// `none`.
    pub fn describe_extensions(&self) -> String {
        let names: Vec<String> = self
            .entries
            .iter()
            .filter_map(|e| e.extension_version().map(|v| format!("{} (version `{v}`)", e.op_type())))
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    }

    /// The ops of OpenVINO's opsets that ovir supports in words, for
    /// messages: their names in the order of
    /// [`for_each_builtin_op!`](crate::for_each_builtin_op), and the other
    /// type names they answer to.
    ///
    /// ```
    /// let ops = ovir_shape::OpRegistry::describe_opset_ops();
    /// assert!(ops.starts_with("Parameter, Const, Result, "), "{ops}");
    /// assert!(ops.ends_with(" (Constant is accepted for Const)"), "{ops}");
    /// ```
    pub fn describe_opset_ops() -> String {
        let names: Vec<&str> = opset_ops().map(|b| b.spec.name).collect();
        let aliases: Vec<String> = opset_ops()
            .flat_map(|b| b.spec.aliases.iter().map(move |a| format!("{a} is accepted for {}", b.spec.name)))
            .collect();
        if aliases.is_empty() {
            names.join(", ")
        } else {
            format!("{} ({})", names.join(", "), aliases.join(", "))
        }
    }

    /// Finds the op of a layer fed by `inputs` edges, checks its port
    /// counts, and reads its attributes.
    pub(crate) fn build(&self, layer: &Layer, inputs: usize) -> Result<Op, Problems> {
        match self.find(&layer.op_type, &layer.version) {
            Some(Entry::Builtin(builtin)) => {
                check_ports(builtin.spec, layer, inputs)?;
                let opset = builtin.spec.versions.opset_of(&layer.version).unwrap_or(0);
                (builtin.build)(layer, opset)
            }
            Some(Entry::Extension(extension)) => {
                let op = extension.build(layer).map_err(|e| extension_problem(&layer.op_type, e))?;
                if layer.outputs.len() != op.output_count() {
                    return Err(Problems::one(ShapeErrorKind::CustomOutputCount {
                        op_type: layer.op_type.clone(),
                        expected: op.output_count(),
                        found: layer.outputs.len(),
                    }));
                }
                Ok(Op::new(CustomOperation(op)))
            }
            None => Err(Problems::one(self.unknown(layer))),
        }
    }

    /// Why no entry handles a layer: its type is an opset op's, but not in
    /// its version; an extension handles its type, but in other versions;
    /// or nothing knows its type.
    fn unknown(&self, layer: &Layer) -> ShapeErrorKind {
        let opset_op = self.entries.iter().find_map(|e| match e {
            Entry::Builtin(b) if b.spec.versions.is_opsets() && b.spec.answers_to(&layer.op_type) => {
                Some(b.spec)
            }
            _ => None,
        });
        if let Some(spec) = opset_op {
            return ShapeErrorKind::UnsupportedVersion {
                op: spec.name,
                version: layer.version.clone(),
                available: spec.versions.text(),
            };
        }
        let versions: Vec<String> = self
            .entries
            .iter()
            .filter(|e| e.answers_to(&layer.op_type))
            .filter_map(|e| e.extension_version().map(|v| format!("`{v}`")))
            .collect();
        if !versions.is_empty() {
            return ShapeErrorKind::ExtensionVersion {
                op_type: layer.op_type.clone(),
                version: layer.version.clone(),
                registered: versions.join(", "),
            };
        }
        ShapeErrorKind::UnknownOp {
            op_type: layer.op_type.clone(),
            version: layer.version.clone(),
            supported: OpRegistry::describe_opset_ops(),
            extensions: self.describe_extensions(),
        }
    }
}

/// Checks a layer's port counts against a built-in op's: the inputs the
/// layer declares, the edges that feed them, and the outputs.
fn check_ports(spec: &OpSpec, layer: &Layer, inputs: usize) -> Result<(), Problems> {
    let op = spec.name;
    let (min, max) = spec.inputs;
    let count_error = |found: usize| match max {
        Some(m) if m == min => ShapeErrorKind::InputCount { op, expected: min, found },
        _ => ShapeErrorKind::InputCountRange { op, min, max, found },
    };
    let fits = |n: usize| n >= min && max.is_none_or(|m| n <= m);
    let mut problems = Problems::new();
    // The reader guarantees one edge per input port; both counts are
    // checked so that a model built by other means cannot mislead us.
    if !fits(layer.inputs.len()) {
        problems.layer(count_error(layer.inputs.len()));
    } else if inputs != layer.inputs.len() {
        problems.layer(count_error(inputs));
    }
    if !spec.takes_outputs(layer.outputs.len()) {
        problems.layer(match spec.outputs {
            (min, Some(max)) if min == max => {
                ShapeErrorKind::OutputCount { op, expected: min, found: layer.outputs.len() }
            }
            (min, max) => ShapeErrorKind::OutputCountRange { op, min, max, found: layer.outputs.len() },
        });
    }
    problems.or_ok(())
}

#[cfg(test)]
mod tests {
    use std::ops::RangeInclusive;

    use super::*;

    /// Which of OpenVINO 2026's opsets list each version of the ops ovir
    /// has: the `_OPENVINO_OP_REG(<type>, ov::op::v<N>)` lines of
    /// `src/core/include/openvino/opsets/opset1_tbl.hpp` to
    /// `opset17_tbl.hpp`, as (type, op version, the opsets whose table has
    /// that line, whether ovir implements that version). Opset1 is the
    /// only one with `Reverse`; opset15 and opset16 list `Squeeze` at
    /// `v15`; opset16 is the first with `Identity` and lists every other
    /// op here that earlier opsets do, and opset17 so far only
    /// `Parameter`, `Convert` and `ShapeOf`.
    const OPENVINO_OPSETS: &[(&str, u32, RangeInclusive<u32>, bool)] = &[
        ("Parameter", 0, 1..=17, true),
        ("Constant", 0, 1..=16, true),
        ("Result", 0, 1..=16, true),
        ("Convert", 0, 1..=17, true),
        ("Reverse", 1, 1..=1, true),
        ("ReverseSequence", 0, 1..=16, true),
        ("ShapeOf", 0, 1..=2, true),
        ("ShapeOf", 3, 3..=17, true),
        ("Gather", 1, 1..=6, true),
        ("Gather", 7, 7..=7, true),
        ("Gather", 8, 8..=16, true),
        ("Broadcast", 1, 1..=2, true),
        ("Broadcast", 3, 3..=16, true),
        ("Unsqueeze", 0, 1..=16, true),
        ("Squeeze", 0, 1..=14, true),
        ("Squeeze", 15, 15..=16, true),
        ("Reshape", 1, 1..=16, true),
        ("Concat", 0, 1..=16, true),
        ("Slice", 8, 8..=16, true),
        ("Transpose", 1, 1..=16, true),
        ("Roll", 7, 7..=16, true),
        ("Tile", 1, 1..=16, true),
        ("Pad", 1, 1..=11, true),
        ("Pad", 12, 12..=16, true),
        ("DepthToSpace", 0, 1..=16, true),
        ("SpaceToDepth", 0, 1..=16, true),
        ("ShuffleChannels", 0, 1..=1, true),
        ("ShuffleChannels", 0, 3..=16, true),
        ("Split", 1, 1..=16, true),
        ("VariadicSplit", 1, 1..=16, true),
        ("StridedSlice", 1, 1..=16, true),
        ("BatchToSpace", 1, 2..=16, true),
        ("SpaceToBatch", 1, 2..=16, true),
        ("Identity", 16, 16..=16, true),
        ("GatherElements", 6, 6..=16, true),
        ("GatherND", 5, 5..=7, true),
        ("GatherND", 8, 8..=16, true),
        ("GatherTree", 1, 1..=16, true),
        ("ScatterUpdate", 3, 3..=16, true),
        ("ExtractImagePatches", 3, 3..=16, true),
        ("Col2Im", 15, 15..=16, true),
        ("ScatterNDUpdate", 3, 4..=14, true),
        ("ScatterNDUpdate", 15, 15..=16, true),
        ("SliceScatter", 15, 15..=16, true),
        ("ScatterElementsUpdate", 3, 3..=11, true),
        ("ScatterElementsUpdate", 12, 12..=16, true),
        ("StringTensorUnpack", 15, 15..=16, true),
        ("StringTensorPack", 15, 15..=16, true),
        ("Unique", 10, 10..=16, true),
    ];

    /// The opsets that list a version of `spec`'s op ovir implements.
    fn listed(spec: &OpSpec) -> Vec<u32> {
        let rows = OPENVINO_OPSETS.iter().filter(|(name, _, _, ours)| *ours && spec.answers_to(name));
        let mut opsets: Vec<u32> = rows.flat_map(|(_, _, opsets, _)| opsets.clone()).collect();
        opsets.sort_unstable();
        opsets
    }

    #[test]
    fn opset_ranges_are_openvinos() {
        let mut checked = 0;
        for spec in opset_ops().map(|b| b.spec) {
            assert_eq!(listed(spec), spec.versions.opsets(), "{}", spec.name);
            checked += 1;
        }
        assert_eq!(checked, opset_ops().count());
        // Every op version the table says ovir implements is registered.
        for (name, _, opsets, _) in OPENVINO_OPSETS.iter().filter(|row| row.3) {
            let registry = OpRegistry::opsets_only();
            assert!(opsets.clone().all(|n| registry.has_op(name, &format!("opset{n}"))), "{name}");
        }
    }

    /// A built-in op writes the version OpenVINO's serializer writes: the
    /// first opset that lists its op version.
    fn written_versions<T: BuiltinOp>() -> Result<(), String> {
        for op in T::examples() {
            let version = op.write().version;
            let first_opsets: Vec<String> = OPENVINO_OPSETS
                .iter()
                .filter(|(name, _, _, ours)| *ours && T::SPEC.answers_to(name))
                .map(|(_, _, opsets, _)| format!("opset{}", opsets.start()))
                .collect();
            let named = matches!(T::SPEC.versions, Versions::Named(v) if v == version);
            if !named && !first_opsets.contains(&version) {
                return Err(format!("{} writes {version}, not one of {first_opsets:?}", T::SPEC.name));
            }
        }
        Ok(())
    }

    #[test]
    fn ops_write_the_version_that_introduced_them() {
        macro_rules! check_all {
            ($($op:path),* $(,)?) => { [$(written_versions::<$op>()),*] };
        }
        let failures: Vec<String> =
            crate::for_each_builtin_op!(check_all).into_iter().filter_map(Result::err).collect();
        assert!(failures.is_empty(), "{failures:?}");
    }

    #[test]
    fn the_registry_is_the_list_of_builtin_ops() {
        macro_rules! count {
            ($($op:path),* $(,)?) => { [$(stringify!($op)),*].len() };
        }
        assert_eq!(OpRegistry::new().entries.len(), crate::for_each_builtin_op!(count));
        // Opset ops first, then the extensions that ship with ovir.
        let named = BUILTIN.iter().position(|b| matches!(b.spec.versions, Versions::Named(_)));
        assert_eq!(named, Some(opset_ops().count()));
    }
}
