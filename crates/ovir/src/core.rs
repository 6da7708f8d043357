//! The runtime's entry point: where extensions are registered and models
//! are read.

use std::path::Path;
use std::sync::Arc;

use ovir_ir::{Weights, WeightsAccess};
use ovir_shape::{Extension, OpRegistry};

use crate::error::Error;
use crate::model::Model;

/// Reads models with a set of extensions, like OpenVINO's `ov::Core` with
/// `add_extension`.
///
/// [`Core::new`] knows the operations of OpenVINO's opsets that ovir
/// supports and the extensions built into ovir
/// ([`ReverseSubsequences`](ovir_shape::ops::ReverseSubsequences)).
/// [`Core::add_extension`] adds an operation of your own: a layer whose
/// `type` (ignoring ASCII case) and `version` (exactly) match it is then
/// checked by its shape inference and run by its kernel. [`Model::read`]
/// and [`Model::from_memory`] read with a default `Core`.
///
/// ```
/// use std::sync::Arc;
/// use ovir::{Core, CustomOp, ElementType, Extension, ExtensionError, PortFact, Tensor};
///
/// /// `type="Negate" version="my_ops"`: the f32 input with its signs flipped.
/// struct NegateExtension;
///
/// #[derive(Debug)]
/// struct Negate;
///
/// impl Extension for NegateExtension {
///     fn op_type(&self) -> &str { "Negate" }
///     fn version(&self) -> &str { "my_ops" }
///     fn build(&self, _layer: &ovir::ir::Layer) -> Result<Arc<dyn CustomOp>, ExtensionError> {
///         Ok(Arc::new(Negate)) // Negate has no attributes to read.
///     }
/// }
///
/// impl CustomOp for Negate {
///     fn op_type(&self) -> &str { "Negate" }
///     fn infer(&self, inputs: &[PortFact]) -> Result<PortFact, ExtensionError> {
///         let [x] = inputs else {
///             return Err(ExtensionError::new(format!("Negate takes 1 input, but the layer has {}", inputs.len())));
///         };
///         if x.element_type.is_static() && x.element_type != ElementType::F32 {
///             return Err(ExtensionError::new(format!("Negate needs f32 data, but it is {}", x.element_type)));
///         }
///         Ok(PortFact::of(ElementType::F32, x.shape.clone()))
///     }
///     fn evaluate(&self, inputs: &[&Tensor]) -> Result<Tensor, ExtensionError> {
///         let [x] = inputs else { return Err(ExtensionError::new("Negate takes 1 input")) };
///         let values = x.to_vec::<f32>().map_err(|e| ExtensionError::new(e.to_string()))?;
///         let negated = values.into_iter().map(|v| -v).collect();
///         Tensor::from_vec(x.shape(), negated).map_err(|e| ExtensionError::new(e.to_string()))
///     }
/// }
///
/// let xml = r#"<?xml version="1.0"?>
/// <net name="negate" version="11">
///   <layers>
///     <layer id="0" name="x" type="Parameter" version="opset1">
///       <data shape="3" element_type="f32"/>
///       <output><port id="0" precision="FP32" names="x"><dim>3</dim></port></output>
///     </layer>
///     <layer id="1" name="negate" type="Negate" version="my_ops">
///       <input><port id="0"><dim>3</dim></port></input>
///       <output><port id="1" precision="FP32" names="y"><dim>3</dim></port></output>
///     </layer>
///     <layer id="2" name="y" type="Result" version="opset1">
///       <input><port id="0"><dim>3</dim></port></input>
///     </layer>
///   </layers>
///   <edges>
///     <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
///     <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
///   </edges>
/// </net>"#;
///
/// let mut core = Core::new();
/// core.add_extension(NegateExtension)?;
/// let compiled = core.read_model_from_memory(xml, None)?.compile()?;
/// let mut request = compiled.infer_request();
/// request.set_input("x", Tensor::from_vec(&[3], vec![1.0f32, -2.0, 0.5])?)?;
/// request.infer()?;
/// assert_eq!(request.output("y")?.to_vec::<f32>()?, vec![-1.0, 2.0, -0.5]);
///
/// // Without the extension, the layer is refused, and the message lists
/// // the extensions that are registered.
/// let error = ovir::Model::from_memory(xml, None).unwrap_err();
/// assert!(error.to_string().contains("unknown operation type `Negate`"));
/// assert!(error.to_string().contains("ReverseSubsequences (version `ovir`)"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Core {
    ops: Arc<OpRegistry>,
}

impl Default for Core {
    fn default() -> Self {
        Core::new()
    }
}

impl Core {
    /// A core with ovir's built-in extensions.
    pub fn new() -> Core {
        Core { ops: Arc::new(OpRegistry::new()) }
    }

    /// A core with no extension at all, not even the built-in ones: only
    /// the operations of OpenVINO's opsets.
    pub fn without_extensions() -> Core {
        Core { ops: Arc::new(OpRegistry::opsets_only()) }
    }

    /// Registers an operation for the models this core reads from now on.
    ///
    /// Refused, with [`Error::Extension`], when the extension has an empty
    /// type or version, when its type and version are already registered,
    /// or when it names a built-in op of an opset that contains it.
    pub fn add_extension(&mut self, extension: impl Extension + 'static) -> Result<(), Error> {
        Arc::make_mut(&mut self.ops).add_extension(extension)?;
        Ok(())
    }

    /// The operations models read by this core may use: OpenVINO's opset
    /// ops, the extensions built into ovir, and those added.
    pub fn ops(&self) -> &OpRegistry {
        &self.ops
    }

    /// Reads `xml` and its weights from the file next to it with the
    /// extension `.bin` (which may be absent when the model has no
    /// constants), then validates the model.
    pub fn read_model(&self, xml: impl AsRef<Path>) -> Result<Model, Error> {
        self.read_model_with_weights(xml, None::<&Path>)
    }

    /// Reads `xml` with the weights at an explicit path (or the default
    /// path when `weights` is `None`), then validates the model.
    pub fn read_model_with_weights(
        &self,
        xml: impl AsRef<Path>,
        weights: Option<impl AsRef<Path>>,
    ) -> Result<Model, Error> {
        let weights = weights.as_ref().map(|w| w.as_ref());
        let ir = ovir_ir::read_model(xml.as_ref(), weights)?;
        self.validate(ir)
    }

    /// [`Core::read_model_with_weights`], with the weights file
    /// memory-mapped instead of read into memory: `Const` values borrow
    /// the mapped pages, which saves copying weights of many gigabytes.
    ///
    /// # Safety
    ///
    /// The caller promises that no process writes to or truncates the
    /// weights file while the returned model, a model compiled from it, or
    /// any tensor taken from them is alive. The mapped bytes change when
    /// the file changes, and reading a part that was truncated away ends
    /// the process with a bus error on most systems. When that cannot be
    /// promised, use [`Core::read_model_with_weights`], which reads the
    /// file and has no such contract (see
    /// [`WeightsAccess::map`](ovir_ir::WeightsAccess::map)).
    ///
    /// ```
    /// let core = ovir::Core::new();
    /// let xml = "../../ir-samples/reverse_mask_all_false/model.xml";
    /// // SAFETY: nothing writes to the sample's weights while the model lives.
    /// let mapped = unsafe { core.read_model_mapped(xml, None::<&str>) }?;
    /// let read = core.read_model(xml)?;
    /// let values = |m: &ovir::Model| m.ir().layers.iter().filter_map(|l| l.constant.clone()).collect::<Vec<_>>();
    /// assert_eq!(values(&mapped).len(), 1);
    /// assert_eq!(values(&mapped), values(&read));
    /// # Ok::<(), ovir::Error>(())
    /// ```
    #[allow(unsafe_code)]
    pub unsafe fn read_model_mapped(
        &self,
        xml: impl AsRef<Path>,
        weights: Option<impl AsRef<Path>>,
    ) -> Result<Model, Error> {
        let weights = weights.as_ref().map(|w| w.as_ref());
        // SAFETY: this function's caller made the promise that
        // `WeightsAccess::map` asks for.
        let access = unsafe { WeightsAccess::map() };
        let ir = ovir_ir::read_model_with(xml.as_ref(), weights, access)?;
        self.validate(ir)
    }

    /// Reads a model from XML text and the bytes of its weights.
    pub fn read_model_from_memory(&self, xml: &str, weights: Option<Vec<u8>>) -> Result<Model, Error> {
        let weights = weights.map(|w| Arc::new(Weights::from_bytes(w)));
        let ir = ovir_ir::read_model_from_memory(xml, weights)?;
        self.validate(ir)
    }

    /// Validates a graph that was already read, or built or changed in
    /// code, and infers its types and shapes.
    ///
    /// The graph's references (layer indices, ports, edges, order, `Const`
    /// values) are checked first with
    /// [`check_references`](ovir_ir::Model::check_references); a bad one is
    /// [`Error::Read`] naming the layer. Every public entry point that
    /// takes an [`ovir_ir::Model`] runs that check before anything indexes
    /// the model.
    ///
    /// ```
    /// use ovir::{Core, Error};
    ///
    /// let xml = r#"<net name="m" version="11"><layers>
    ///   <layer id="0" name="x" type="Parameter" version="opset1">
    ///     <data shape="2" element_type="f32"/>
    ///     <output><port id="0" precision="FP32"><dim>2</dim></port></output>
    ///   </layer>
    ///   <layer id="1" name="y" type="Result" version="opset1">
    ///     <input><port id="0"><dim>2</dim></port></input>
    ///   </layer>
    /// </layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
    /// let mut ir = ovir::ir::read_model_from_memory(xml, None)?;
    /// ir.sources[1][0].port = 4;
    /// let err = Core::new().validate(ir).unwrap_err();
    /// assert!(matches!(err, Error::Read(_)));
    /// assert!(err.to_string().contains("input 0 is fed by output 4 of layer 0 \"x\" (Parameter), which has only 1 outputs"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate(&self, ir: ovir_ir::Model) -> Result<Model, Error> {
        // Analysis checks the references first.
        Model::validate_with(ir, &self.ops)
    }
}

/// The ways to read a model with the operations of [`Core::new`].
impl Model {
    /// Reads `xml` and its weights from the file next to it with the
    /// extension `.bin` (which may be absent when the model has no
    /// constants), then validates the model, with the extensions of
    /// [`Core::new`](crate::Core::new).
    pub fn read(xml: impl AsRef<Path>) -> Result<Model, Error> {
        Core::new().read_model(xml)
    }

    /// Reads `xml` with the weights at an explicit path (or the default
    /// path when `weights` is `None`), then validates the model, with the
    /// extensions of [`Core::new`](crate::Core::new).
    pub fn read_with_weights(
        xml: impl AsRef<Path>,
        weights: Option<impl AsRef<Path>>,
    ) -> Result<Model, Error> {
        Core::new().read_model_with_weights(xml, weights)
    }

    /// Reads a model from XML text and the bytes of its weights, with the
    /// extensions of [`Core::new`](crate::Core::new).
    pub fn from_memory(xml: &str, weights: Option<Vec<u8>>) -> Result<Model, Error> {
        Core::new().read_model_from_memory(xml, weights)
    }

    /// Validates a graph that was already read, or built or changed in
    /// code, and infers its types and shapes, with the extensions of
    /// [`Core::new`](crate::Core::new); see [`Core::validate`].
    pub fn validate(ir: ovir_ir::Model) -> Result<Model, Error> {
        Core::new().validate(ir)
    }
}
