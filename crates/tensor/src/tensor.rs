//! The [`Tensor`] type: element type, static shape and shared storage.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use half::{bf16, f16};
use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::element::ElementType;
use crate::error::{ByteCount, TensorError};
use crate::packing::exchange_codes;
use crate::shape::element_count;

/// A Rust type that stores one element of an OpenVINO element type.
///
/// Implemented for `bool`, the fixed-width integers, [`f16`](struct@f16), [`bf16`],
/// `f32` and `f64`.
pub trait Element: Copy + Send + Sync + fmt::Debug + 'static {
    /// The OpenVINO element type this Rust type stands for.
    const TYPE: ElementType;
    /// Reads one element from its little-endian bytes (`bytes` has exactly
    /// the element's width).
    fn read_le(bytes: &[u8]) -> Self;
    /// Writes the element's little-endian bytes into `out` (exactly the
    /// element's width).
    fn write_le(self, out: &mut [u8]);
}

macro_rules! numeric_element {
    ($($t:ty => $et:ident),* $(,)?) => {$(
        impl Element for $t {
            const TYPE: ElementType = ElementType::$et;
            fn read_le(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_le_bytes(raw)
            }
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

numeric_element!(
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f16 => F16, bf16 => Bf16, f32 => F32, f64 => F64,
);

impl Element for bool {
    const TYPE: ElementType = ElementType::Boolean;
    fn read_le(bytes: &[u8]) -> Self {
        bytes.first().is_some_and(|&b| b != 0)
    }
    fn write_le(self, out: &mut [u8]) {
        if let Some(b) = out.first_mut() {
            *b = u8::from(self);
        }
    }
}

/// One cache line of a tensor's heap storage. Its alignment is what makes
/// the whole buffer start on a line.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Heap storage that starts on a 64-byte cache line, so that any numeric
/// element type can be viewed in place and the copy kernels see the same
/// line boundaries in every buffer. Rows of a reversal that start part-way
/// into a line cost the kernels a third line per 128-byte row; measured on
/// in-cache u8 copies, buffers that start 16 bytes into a line (where the
/// system allocator puts large blocks) made both a plain copy and a
/// row-order reversal 15–30% slower.
///
/// Buffers of [`HUGE_PAGE`] bytes or more are mapped on their own, from a
/// huge-page boundary, and on Linux the system is asked to back them with
/// huge pages: a kernel that reads rows from anywhere in a large tensor (a
/// gather by random indices) otherwise misses the TLB on most rows, which
/// took 60% of the time of 256-byte rows picked from 64 MiB.
struct AlignedBuf {
    storage: Storage,
    len: usize,
}

/// Where an [`AlignedBuf`]'s bytes live.
enum Storage {
    /// Cache lines from the allocator.
    Lines(Vec<Line>),
    /// An anonymous mapping, the buffer from byte `start`.
    Mapped { map: memmap2::MmapMut, start: usize },
}

/// The size of a huge page on x86_64 and aarch64 Linux: buffers this
/// large are mapped on their own (see [`AlignedBuf`]).
const HUGE_PAGE: usize = 2 << 20;

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes, or `None` when the allocator has no
    /// memory for it. Tensors come from untrusted shapes, so running out of
    /// memory must be an error the caller can report, not the abort that
    /// an infallible allocation ends in.
    fn try_zeroed(len: usize) -> Option<Self> {
        if len >= HUGE_PAGE {
            if let Some(buf) = AlignedBuf::try_mapped(len) {
                return Some(buf);
            }
        }
        let count = len.div_ceil(64);
        if count == 0 {
            return Some(AlignedBuf::empty());
        }
        // Zeroed pages come from the system already cleared, and a refused
        // allocation is an `Err` here rather than an abort.
        let lines = bytemuck::allocation::try_zeroed_vec::<Line>(count).ok()?;
        Some(AlignedBuf { storage: Storage::Lines(lines), len })
    }

    /// A zeroed buffer of `len` bytes mapped on its own, starting on a
    /// huge-page boundary (the mapping is a huge page longer, which costs
    /// address space only), with huge pages asked for where the system
    /// has them. `None` when the system refuses the mapping.
    fn try_mapped(len: usize) -> Option<Self> {
        let map = memmap2::MmapMut::map_anon(len.checked_add(HUGE_PAGE)?).ok()?;
        let start = map.as_ptr().align_offset(HUGE_PAGE);
        if start > HUGE_PAGE {
            return None;
        }
        // A hint: without it, or where it is refused, the pages are small.
        #[cfg(target_os = "linux")]
        let _ = map.advise_range(memmap2::Advice::HugePage, start, len);
        Some(AlignedBuf { storage: Storage::Mapped { map, start }, len })
    }

    fn empty() -> Self {
        AlignedBuf { storage: Storage::Lines(Vec::new()), len: 0 }
    }

    fn try_from_slice(bytes: &[u8]) -> Option<Self> {
        let mut buf = AlignedBuf::try_zeroed(bytes.len())?;
        buf.bytes_mut().copy_from_slice(bytes);
        Some(buf)
    }

    fn bytes(&self) -> &[u8] {
        let all: &[u8] = match &self.storage {
            Storage::Lines(lines) => bytemuck::cast_slice(lines),
            Storage::Mapped { map, start } => map.get(*start..).unwrap_or_default(),
        };
        all.get(..self.len).unwrap_or_default()
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        let all: &mut [u8] = match &mut self.storage {
            Storage::Lines(lines) => bytemuck::cast_slice_mut(lines),
            Storage::Mapped { map, start } => map.get_mut(*start..).unwrap_or_default(),
        };
        all.get_mut(..self.len).unwrap_or_default()
    }
}

/// Where a tensor's bytes live.
#[derive(Clone)]
enum Owner {
    /// An aligned heap buffer that the tensor may own alone.
    Heap(Arc<AlignedBuf>),
    /// Bytes owned by someone else, such as a memory-mapped weights file.
    Shared(Arc<dyn AsRef<[u8]> + Send + Sync>),
}

impl Owner {
    /// Whether both are the very same owner.
    fn same_as(&self, other: &Owner) -> bool {
        match (self, other) {
            (Owner::Heap(x), Owner::Heap(y)) => Arc::ptr_eq(x, y),
            (Owner::Shared(x), Owner::Shared(y)) => Arc::ptr_eq(x, y),
            _ => false,
        }
    }
}

#[derive(Clone)]
enum Data {
    Bytes { owner: Owner, range: Range<usize> },
    Strings(Arc<Vec<String>>),
}

/// A tensor: an element type, a static shape and its elements.
///
/// Numeric tensors keep their elements as little-endian bytes, packed for
/// sub-byte types exactly as OpenVINO packs them; string tensors keep one
/// `String` per element. Storage is reference-counted, so `clone` is cheap
/// and never copies elements. A tensor can borrow its bytes from a shared
/// owner (for example a memory-mapped weights file) without copying them.
///
/// ```
/// use ovir_tensor::{ElementType, Tensor};
/// let t = Tensor::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// assert_eq!(t.element_type(), ElementType::F32);
/// let view = t.view::<f32>()?;
/// assert_eq!(view[[1, 2]], 6.0);
/// # Ok::<(), ovir_tensor::TensorError>(())
/// ```
#[derive(Clone)]
pub struct Tensor {
    ty: ElementType,
    shape: Vec<usize>,
    data: Data,
}

impl Tensor {
    fn byte_len(ty: ElementType, shape: &[usize]) -> Result<usize, TensorError> {
        let too_large = || TensorError::TooLarge { ty, shape: shape.to_vec() };
        if ty == ElementType::Dynamic {
            return Err(TensorError::DynamicType);
        }
        let count = element_count(shape).ok_or_else(too_large)?;
        let bytes = ty.storage_bytes(count).ok_or_else(too_large)?;
        // Rust allocations are limited to isize::MAX bytes.
        if bytes > isize::MAX as usize {
            return Err(too_large());
        }
        Ok(bytes)
    }

    /// The number of bytes a numeric tensor of this type and shape needs,
    /// computed with overflow checks; `None` for `string` and `dynamic`.
    pub fn required_bytes(ty: ElementType, shape: &[usize]) -> Result<Option<usize>, TensorError> {
        if ty == ElementType::String {
            return element_count(shape)
                .map(|_| None)
                .ok_or_else(|| TensorError::TooLarge { ty, shape: shape.to_vec() });
        }
        Tensor::byte_len(ty, shape).map(Some)
    }

    /// A tensor of zeros (empty strings for `string`).
    pub fn zeros(ty: ElementType, shape: &[usize]) -> Result<Tensor, TensorError> {
        if ty == ElementType::String {
            let count =
                element_count(shape).ok_or_else(|| TensorError::TooLarge { ty, shape: shape.to_vec() })?;
            return Tensor::from_strings(shape, vec![String::new(); count]);
        }
        let len = Tensor::byte_len(ty, shape)?;
        let buf = AlignedBuf::try_zeroed(len).ok_or_else(|| Tensor::out_of_memory(ty, shape, len))?;
        Ok(Tensor {
            ty,
            shape: shape.to_vec(),
            data: Data::Bytes { owner: Owner::Heap(Arc::new(buf)), range: 0..len },
        })
    }

    /// The error for a buffer of `len` bytes that the allocator refused.
    fn out_of_memory(ty: ElementType, shape: &[usize], len: usize) -> TensorError {
        TensorError::OutOfMemory { ty, shape: shape.to_vec(), bytes: ByteCount(Some(len as u128)) }
    }

    /// A numeric tensor holding a copy of `bytes` (little-endian, packed).
    pub fn from_bytes(ty: ElementType, shape: &[usize], bytes: &[u8]) -> Result<Tensor, TensorError> {
        let len = Tensor::check_bytes(ty, shape, bytes.len())?;
        let buf = AlignedBuf::try_from_slice(bytes).ok_or_else(|| Tensor::out_of_memory(ty, shape, len))?;
        Ok(Tensor {
            ty,
            shape: shape.to_vec(),
            data: Data::Bytes { owner: Owner::Heap(Arc::new(buf)), range: 0..len },
        })
    }

    /// A numeric tensor that borrows `range` of a shared owner's bytes,
    /// without copying them.
    ///
    /// `range` must lie inside the owner's bytes and have exactly the
    /// length that the type and shape need.
    pub fn from_shared(
        ty: ElementType,
        shape: &[usize],
        owner: Arc<dyn AsRef<[u8]> + Send + Sync>,
        range: Range<usize>,
    ) -> Result<Tensor, TensorError> {
        let available = (*owner).as_ref().len();
        let given = range.end.saturating_sub(range.start);
        if range.start > range.end || range.end > available {
            return Err(TensorError::ByteLength {
                ty,
                shape: shape.to_vec(),
                expected: given,
                found: available.saturating_sub(range.start),
            });
        }
        Tensor::check_bytes(ty, shape, given)?;
        Ok(Tensor { ty, shape: shape.to_vec(), data: Data::Bytes { owner: Owner::Shared(owner), range } })
    }

    fn check_bytes(ty: ElementType, shape: &[usize], given: usize) -> Result<usize, TensorError> {
        if ty == ElementType::String {
            return Err(TensorError::TypeMismatch { expected: ElementType::String, found: ty });
        }
        let len = Tensor::byte_len(ty, shape)?;
        if len != given {
            return Err(TensorError::ByteLength { ty, shape: shape.to_vec(), expected: len, found: given });
        }
        Ok(len)
    }

    /// A tensor from a flat vector of elements in row-major order.
    pub fn from_vec<T: Element>(shape: &[usize], values: Vec<T>) -> Result<Tensor, TensorError> {
        Tensor::from_elements(shape, &values)
    }

    /// A tensor holding a copy of a slice of elements in row-major order.
    pub fn from_elements<T: Element>(shape: &[usize], values: &[T]) -> Result<Tensor, TensorError> {
        let mut t = Tensor::zeros(T::TYPE, shape)?;
        let width = T::TYPE.byte_width().unwrap_or(1);
        let expected = t.len();
        if values.len() != expected {
            return Err(TensorError::ByteLength {
                ty: T::TYPE,
                shape: shape.to_vec(),
                expected: expected * width,
                found: values.len() * width,
            });
        }
        if let Some(bytes) = t.bytes_mut() {
            for (v, out) in values.iter().zip(bytes.chunks_exact_mut(width)) {
                v.write_le(out);
            }
        }
        Ok(t)
    }

    /// A tensor holding a copy of an `ndarray` array.
    ///
    /// When there is no memory for the copy, the result is an empty tensor
    /// of shape `[0]`; [`try_from_array`](Self::try_from_array) reports
    /// that as an error instead.
    pub fn from_array<T: Element, D: ndarray::Dimension>(array: ndarray::ArrayView<'_, T, D>) -> Tensor {
        Tensor::try_from_array(array).unwrap_or_else(|_| Tensor::empty(T::TYPE))
    }

    /// A tensor holding a copy of an `ndarray` array, or
    /// [`TensorError::OutOfMemory`] when there is no memory for the copy.
    pub fn try_from_array<T: Element, D: ndarray::Dimension>(
        array: ndarray::ArrayView<'_, T, D>,
    ) -> Result<Tensor, TensorError> {
        // The elements go straight into the tensor, in the array's logical
        // (row-major) order whatever its memory layout, with no copy in
        // between.
        let mut t = Tensor::zeros(T::TYPE, array.shape())?;
        let width = T::TYPE.byte_width().unwrap_or(1);
        if let Some(bytes) = t.bytes_mut() {
            for (v, out) in array.iter().zip(bytes.chunks_exact_mut(width)) {
                v.write_le(out);
            }
        }
        Ok(t)
    }

    fn empty(ty: ElementType) -> Tensor {
        Tensor {
            ty,
            shape: vec![0],
            data: Data::Bytes { owner: Owner::Heap(Arc::new(AlignedBuf::empty())), range: 0..0 },
        }
    }

    /// A string tensor.
    pub fn from_strings(shape: &[usize], values: Vec<String>) -> Result<Tensor, TensorError> {
        let expected = element_count(shape)
            .ok_or_else(|| TensorError::TooLarge { ty: ElementType::String, shape: shape.to_vec() })?;
        if values.len() != expected {
            return Err(TensorError::StringCount { shape: shape.to_vec(), expected, found: values.len() });
        }
        Ok(Tensor { ty: ElementType::String, shape: shape.to_vec(), data: Data::Strings(Arc::new(values)) })
    }

    /// The element type.
    pub fn element_type(&self) -> ElementType {
        self.ty
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The rank (number of dimensions).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        // Every constructor checked this product for overflow.
        element_count(&self.shape).unwrap_or(0)
    }

    /// `true` when the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same elements under another shape with the same element count;
    /// shares the storage.
    pub fn reshaped(&self, shape: &[usize]) -> Option<Tensor> {
        // Only the new shape is allocated: the storage is shared, and the
        // old shape is not copied.
        (element_count(shape)? == self.len()).then(|| Tensor {
            ty: self.ty,
            shape: shape.to_vec(),
            data: self.data.clone(),
        })
    }

    /// The `count(shape)` elements from element `first` on, as a tensor
    /// of `shape` that shares the storage: a contiguous part of the data
    /// taken without a copy (a slice along the outermost axis, one output
    /// of a split). `None` for strings and the packed sub-byte types,
    /// whose parts are not byte ranges of their own, and when the part
    /// leaves the tensor.
    ///
    /// ```
    /// use ovir_tensor::Tensor;
    /// let t = Tensor::from_vec(&[3, 2], vec![1i32, 2, 3, 4, 5, 6])?;
    /// let rows = t.elements_view(2, &[2, 2]).unwrap();
    /// assert_eq!(rows.to_vec::<i32>()?, vec![3, 4, 5, 6]);
    /// assert!(rows.is_view_of(&t, 2));
    /// assert!(t.elements_view(5, &[2]).is_none());
    /// let words = Tensor::from_strings(&[2], vec!["a".into(), "b".into()])?;
    /// assert!(words.elements_view(1, &[1]).is_none());
    /// let nibbles = Tensor::from_bytes(ovir_tensor::ElementType::U4, &[4], &[0x21, 0x43])?;
    /// assert!(nibbles.elements_view(2, &[2]).is_none());
    /// # Ok::<(), ovir_tensor::TensorError>(())
    /// ```
    pub fn elements_view(&self, first: usize, shape: &[usize]) -> Option<Tensor> {
        let width = self.ty.byte_width()?;
        let count = element_count(shape)?;
        if first.checked_add(count)? > self.len() {
            return None;
        }
        let Data::Bytes { owner, range } = &self.data else {
            return None;
        };
        let start = range.start.checked_add(first.checked_mul(width)?)?;
        let end = start.checked_add(count.checked_mul(width)?)?;
        Some(Tensor {
            ty: self.ty,
            shape: shape.to_vec(),
            data: Data::Bytes { owner: owner.clone(), range: start..end },
        })
    }

    /// The raw little-endian bytes of a numeric tensor; `None` for strings.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            Data::Bytes { owner: Owner::Heap(buf), range } => buf.bytes().get(range.clone()),
            Data::Bytes { owner: Owner::Shared(owner), range } => (**owner).as_ref().get(range.clone()),
            Data::Strings(_) => None,
        }
    }

    /// Mutable bytes of a numeric tensor; copies them first when the
    /// storage is shared with another tensor or borrowed. `None` for
    /// strings, and when there is no memory for that copy
    /// ([`try_bytes_mut`](Self::try_bytes_mut) tells the two apart).
    pub fn bytes_mut(&mut self) -> Option<&mut [u8]> {
        self.try_bytes_mut().ok()
    }

    /// Mutable bytes of a numeric tensor, as [`bytes_mut`](Self::bytes_mut)
    /// gives them; a string tensor is a [`TensorError::TypeMismatch`], and
    /// a copy there is no memory for a [`TensorError::OutOfMemory`].
    pub fn try_bytes_mut(&mut self) -> Result<&mut [u8], TensorError> {
        let (ty, shape) = (self.ty, &self.shape);
        let not_bytes = TensorError::TypeMismatch { expected: ElementType::U8, found: ty };
        let Data::Bytes { owner, range } = &mut self.data else {
            return Err(not_bytes);
        };
        let unique =
            matches!(owner, Owner::Heap(buf) if Arc::strong_count(buf) == 1 && Arc::weak_count(buf) == 0);
        let whole = matches!(owner, Owner::Heap(buf) if buf.len == range.len());
        if !(unique && whole) {
            let src = match owner {
                Owner::Heap(buf) => buf.bytes().get(range.clone()),
                Owner::Shared(o) => (**o).as_ref().get(range.clone()),
            };
            let src = src.unwrap_or(&[]);
            let copy =
                AlignedBuf::try_from_slice(src).ok_or_else(|| Tensor::out_of_memory(ty, shape, src.len()))?;
            *range = 0..copy.len;
            *owner = Owner::Heap(Arc::new(copy));
        }
        match owner {
            Owner::Heap(buf) => Arc::get_mut(buf).map(AlignedBuf::bytes_mut).ok_or(not_bytes),
            Owner::Shared(_) => Err(not_bytes),
        }
    }

    /// `true` when this tensor alone owns its storage, so writing through
    /// [`bytes_mut`](Self::bytes_mut) or [`strings_mut`](Self::strings_mut)
    /// will not copy it first.
    pub fn is_exclusive(&self) -> bool {
        match &self.data {
            Data::Bytes { owner: Owner::Heap(buf), range } => {
                Arc::strong_count(buf) == 1 && Arc::weak_count(buf) == 0 && buf.len == range.len()
            }
            Data::Bytes { owner: Owner::Shared(_), .. } => false,
            Data::Strings(s) => Arc::strong_count(s) == 1 && Arc::weak_count(s) == 0,
        }
    }

    /// `true` when both tensors use the very same storage (no copy was
    /// made between them).
    pub fn shares_storage_with(&self, other: &Tensor) -> bool {
        match (&self.data, &other.data) {
            (Data::Bytes { owner: a, range: ra }, Data::Bytes { owner: b, range: rb }) => {
                a.same_as(b) && ra == rb
            }
            (Data::Strings(a), Data::Strings(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// `true` when this tensor's elements are `data`'s from element `first`
    /// on, in the very same storage: what [`elements_view`](Self::elements_view)
    /// makes, and with `first` 0 and as many elements, what
    /// [`reshaped`](Self::reshaped) makes.
    ///
    /// ```
    /// use ovir_tensor::Tensor;
    /// let t = Tensor::from_vec(&[4], vec![1u8, 2, 3, 4])?;
    /// let tail = t.elements_view(1, &[3]).unwrap();
    /// assert!(tail.is_view_of(&t, 1) && !tail.is_view_of(&t, 0));
    /// assert!(t.reshaped(&[2, 2]).unwrap().is_view_of(&t, 0));
    /// # Ok::<(), ovir_tensor::TensorError>(())
    /// ```
    pub fn is_view_of(&self, data: &Tensor, first: usize) -> bool {
        if first == 0 && self.len() == data.len() {
            return self.shares_storage_with(data);
        }
        let (Data::Bytes { owner: a, range: ra }, Data::Bytes { owner: b, range: rb }) =
            (&self.data, &data.data)
        else {
            return false;
        };
        let same = a.same_as(b);
        let start =
            self.ty.byte_width().and_then(|w| first.checked_mul(w)).and_then(|o| rb.start.checked_add(o));
        same && self.ty == data.ty && start == Some(ra.start) && ra.end <= rb.end
    }

    /// The elements of a string tensor; `None` for numeric tensors.
    pub fn strings(&self) -> Option<&[String]> {
        match &self.data {
            Data::Strings(s) => Some(s),
            Data::Bytes { .. } => None,
        }
    }

    /// Mutable elements of a string tensor (copied first when shared).
    pub fn strings_mut(&mut self) -> Option<&mut [String]> {
        match &mut self.data {
            Data::Strings(s) => Some(Arc::make_mut(s).as_mut_slice()),
            Data::Bytes { .. } => None,
        }
    }

    fn check_type<T: Element>(&self) -> Result<(), TensorError> {
        if self.ty == T::TYPE {
            Ok(())
        } else {
            Err(TensorError::TypeMismatch { expected: T::TYPE, found: self.ty })
        }
    }

    /// A zero-copy `ndarray` view of the elements.
    ///
    /// Fails when `T` is not the tensor's element type, or when the bytes
    /// are not aligned for `T` (possible for constants borrowed from a
    /// weights file; [`to_array`](Self::to_array) works on any tensor).
    pub fn view<T: Element + bytemuck::Pod>(&self) -> Result<ArrayViewD<'_, T>, TensorError> {
        self.check_type::<T>()?;
        let bytes = self.bytes().ok_or(TensorError::TypeMismatch { expected: T::TYPE, found: self.ty })?;
        let elems: &[T] =
            bytemuck::try_cast_slice(bytes).map_err(|_| TensorError::Misaligned { ty: self.ty })?;
        ArrayViewD::from_shape(IxDyn(&self.shape), elems).map_err(|_| TensorError::Misaligned { ty: self.ty })
    }

    /// A copy of the elements as an owned `ndarray` array.
    pub fn to_array<T: Element>(&self) -> Result<ArrayD<T>, TensorError> {
        let values = self.to_vec::<T>()?;
        ArrayD::from_shape_vec(IxDyn(&self.shape), values)
            .map_err(|_| TensorError::TooLarge { ty: self.ty, shape: self.shape.clone() })
    }

    /// A copy of the elements in row-major order.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, TensorError> {
        self.check_type::<T>()?;
        let width = T::TYPE.byte_width().unwrap_or(1);
        let bytes = self.bytes().unwrap_or(&[]);
        Ok(bytes.chunks_exact(width).map(T::read_le).collect())
    }

    /// A string tensor as an owned `ndarray` array.
    pub fn to_string_array(&self) -> Result<ArrayD<String>, TensorError> {
        let strings = self
            .strings()
            .ok_or(TensorError::TypeMismatch { expected: ElementType::String, found: self.ty })?;
        ArrayD::from_shape_vec(IxDyn(&self.shape), strings.to_vec())
            .map_err(|_| TensorError::TooLarge { ty: self.ty, shape: self.shape.clone() })
    }

    /// The elements of an integer or boolean tensor widened to `i128`, so
    /// that every `u64` and `i64` value is exact (packed integer types
    /// included); `None` for other types.
    pub fn integer_values(&self) -> Option<Vec<i128>> {
        use ElementType as E;
        let b = self.bytes()?;
        let v = match self.ty {
            E::Boolean => b.iter().map(|&x| i128::from(x != 0)).collect(),
            E::I8 => b.iter().map(|&x| i128::from(x as i8)).collect(),
            E::U8 => b.iter().map(|&x| i128::from(x)).collect(),
            E::I16 => self.to_vec::<i16>().ok()?.into_iter().map(i128::from).collect(),
            E::U16 => self.to_vec::<u16>().ok()?.into_iter().map(i128::from).collect(),
            E::I32 => self.to_vec::<i32>().ok()?.into_iter().map(i128::from).collect(),
            E::U32 => self.to_vec::<u32>().ok()?.into_iter().map(i128::from).collect(),
            E::I64 => self.to_vec::<i64>().ok()?.into_iter().map(i128::from).collect(),
            E::U64 => self.to_vec::<u64>().ok()?.into_iter().map(i128::from).collect(),
            E::U1 | E::U2 | E::U3 | E::U4 | E::U6 => {
                exchange_codes(b, self.ty, self.len()).ok()?.into_iter().map(i128::from).collect()
            }
            E::I4 => exchange_codes(b, self.ty, self.len())
                .ok()?
                .into_iter()
                .map(|c| i128::from(c as i8))
                .collect(),
            _ => return None,
        };
        Some(v)
    }

    /// The elements of a `f16`, `bf16`, `f32` or `f64` tensor as `f64`;
    /// `None` for other types.
    ///
    /// Widening keeps every value but not every NaN's bits (an `f32` NaN's
    /// payload moves and may be quietened), and the values print with
    /// `f64` digits; [`value_text`](Self::value_text) and the
    /// [`text`](crate::text) format show each value in its own width.
    pub fn real_values(&self) -> Option<Vec<f64>> {
        use ElementType as E;
        let v = match self.ty {
            E::F16 => self.to_vec::<f16>().ok()?.into_iter().map(f64::from).collect(),
            E::Bf16 => self.to_vec::<bf16>().ok()?.into_iter().map(f64::from).collect(),
            E::F32 => self.to_vec::<f32>().ok()?.into_iter().map(f64::from).collect(),
            E::F64 => self.to_vec::<f64>().ok()?,
            _ => return None,
        };
        Some(v)
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({} {:?}", self.ty, self.shape)?;
        match &self.data {
            Data::Strings(s) => write!(f, ", {} strings)", s.len()),
            Data::Bytes { owner, range } => {
                let kind = if matches!(owner, Owner::Heap(_)) { "heap" } else { "shared" };
                write!(f, ", {} bytes {kind})", range.len())
            }
        }
    }
}

impl PartialEq for Tensor {
    /// Bit-for-bit equality of type, shape and elements.
    fn eq(&self, other: &Tensor) -> bool {
        self.ty == other.ty
            && self.shape == other.shape
            && match (&self.data, &other.data) {
                (Data::Strings(a), Data::Strings(b)) => a == b,
                _ => self.bytes() == other.bytes(),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_shares_and_write_copies() {
        let a = Tensor::from_vec(&[3], vec![1i32, 2, 3]).unwrap_or_else(|e| unreachable!("{e}"));
        let mut b = a.clone();
        assert!(a.shares_storage_with(&b));
        if let Some(bytes) = b.bytes_mut() {
            bytes[0] = 9;
        }
        assert!(!a.shares_storage_with(&b));
        assert_eq!(a.to_vec::<i32>().ok(), Some(vec![1, 2, 3]));
        assert_eq!(b.to_vec::<i32>().ok(), Some(vec![9, 2, 3]));
    }

    #[test]
    fn large_buffers_are_mapped_from_a_huge_page_zeroed_and_copied_on_write() {
        // 4 MiB and one byte: past the size that gets a mapping of its own.
        let n = HUGE_PAGE * 2 + 1;
        let zeros = Tensor::zeros(ElementType::U8, &[n]).unwrap_or_else(|e| unreachable!("{e}"));
        let bytes = zeros.bytes().unwrap_or_default();
        assert_eq!(bytes.len(), n);
        assert!(bytes.iter().all(|&b| b == 0));
        assert_eq!(bytes.as_ptr().align_offset(HUGE_PAGE), 0, "starts on a huge page");
        let values: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let a = Tensor::from_bytes(ElementType::U8, &[n], &values).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(a.is_exclusive());
        let mut b = a.clone();
        if let Some(bytes) = b.bytes_mut() {
            bytes[n - 1] = 7;
        }
        assert!(!a.shares_storage_with(&b));
        assert_eq!(a.bytes(), Some(values.as_slice()));
        assert_eq!(b.bytes().map(|b| (b[0], b[n - 2], b[n - 1])), Some((0, values[n - 2], 7)));
        // One byte short of a huge page stays with the allocator's lines.
        let small = Tensor::zeros(ElementType::U8, &[HUGE_PAGE - 1]).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(small.bytes().map(|b| b.as_ptr().align_offset(64)), Some(0));
    }

    #[test]
    fn shared_bytes_are_borrowed_not_copied() {
        let owner: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(vec![0u8, 1, 0, 0, 0, 2, 0, 0, 0]);
        let t = Tensor::from_shared(ElementType::I32, &[2], owner.clone(), 1..9)
            .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(t.to_vec::<i32>().ok(), Some(vec![1, 2]));
        assert!(Tensor::from_shared(ElementType::I32, &[2], owner.clone(), 2..10).is_err());
        assert!(Tensor::from_shared(ElementType::I32, &[3], owner, 1..9).is_err());
    }

    #[test]
    fn view_checks_type() {
        let t = Tensor::from_vec(&[2], vec![1.5f64, 2.5]).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(t.view::<f32>().is_err());
        assert_eq!(t.view::<f64>().map(|v| v[[1]]).ok(), Some(2.5));
    }

    #[test]
    fn sizes_are_checked_for_overflow() {
        let err = Tensor::zeros(ElementType::F32, &[1_000_000, 1_000_000, 1_000_000, 1_000_000]);
        assert!(matches!(err, Err(TensorError::TooLarge { .. })));
        assert!(Tensor::from_bytes(ElementType::I16, &[3], &[0; 5]).is_err());
    }

    #[test]
    fn integer_values_are_exact_for_u64() {
        let t = Tensor::from_vec(&[2], vec![u64::MAX, 7]).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(t.integer_values(), Some(vec![i128::from(u64::MAX), 7]));
    }

    /// Bytes OpenVINO 2026.4's `ov.save_model` wrote for these values.
    #[test]
    fn integer_values_unpack_the_sub_byte_types() {
        let i4 = Tensor::from_bytes(ElementType::I4, &[5], &[0x2f, 0x78, 0x03])
            .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(i4.integer_values(), Some(vec![-1, 2, -8, 7, 3]));
        let bytes = [0x6c, 0x6c, 0x1e, 0x70, 0x00, 0x80];
        let u3 = Tensor::from_bytes(ElementType::U3, &[10], &bytes).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(u3.integer_values(), Some(vec![1, 2, 3, 4, 5, 6, 7, 0, 5, 3]));
    }
}
