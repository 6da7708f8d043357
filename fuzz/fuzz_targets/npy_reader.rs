//! The `.npy` and `.npz` readers on arbitrary bytes: any input must give a
//! tensor or an error. A tensor that reads must write back and read again
//! to the same tensor.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ovir_npy::{read_npy, read_npz, write_npy};

fuzz_target!(|data: &[u8]| {
    if let Ok(tensor) = read_npy(data) {
        let mut out = Vec::new();
        // Types NumPy cannot hold are refused by the writer; that is fine.
        if write_npy(&tensor, &mut out).is_ok() {
            let again = read_npy(&out).unwrap_or_else(|e| panic!("a written .npy does not read back: {e}"));
            assert_eq!(again.element_type(), tensor.element_type());
            assert_eq!(again.shape(), tensor.shape());
            assert_eq!(again.bytes(), tensor.bytes(), "the round trip changed the data");
            assert_eq!(again.strings(), tensor.strings(), "the round trip changed the strings");
        }
    }
    if let Ok(arrays) = read_npz(data) {
        for (_, tensor) in &arrays {
            let _ = ovir_tensor::memory_bytes(tensor.element_type(), tensor.shape());
        }
    } else if let Err(e) = read_npz(data) {
        let _ = e.to_string();
    }
});
