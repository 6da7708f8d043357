"""Writes the NumPy-made fixtures read by tests/numpy_files.rs.

Run from this directory with `python3 make_fixtures.py`; the tests assert
the exact values written here.
"""
import numpy as np
from numpy.lib import format as fmt

np.save('bool.npy', np.array([[True, False, True], [False, False, True]]))
np.save('i8.npy', np.array([-128, -1, 0, 1, 127], dtype=np.int8))
np.save('u64.npy', np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64))
np.save('f16.npy', np.array([[0.5, -2.0], [65504.0, np.inf]], dtype=np.float16))
np.save('f64_scalar.npy', np.float64(3.25))
np.save('f64.npy', np.array([1.5, -0.0, 1e300], dtype=np.float64))
np.save('f32_2x3.npy', np.arange(6, dtype=np.float32).reshape(2, 3))
np.save('u5.npy', np.array(['héllo', 'ab', '', '日本'], dtype='<U5'))
np.save('fortran_i32.npy', np.asfortranarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4)))
np.save('big_endian_i32.npy', np.array([1, -2, 70000], dtype='>i4'))
np.save('big_endian_f64.npy', np.array([[1.5, -2.25]], dtype='>f8'))
np.save('empty_f32.npy', np.zeros((0, 3), dtype=np.float32))
with open('v2_u8.npy', 'wb') as f:
    fmt.write_array(f, np.array([[1, 2], [3, 4]], dtype=np.uint8), version=(2, 0))
with open('v3_i16.npy', 'wb') as f:
    fmt.write_array(f, np.array([-300, 300], dtype=np.int16), version=(3, 0))
np.savez('savez.npz', ints=np.arange(6, dtype=np.int64).reshape(2, 3),
         words=np.array(['a', 'bc']), flag=np.bool_(True))
np.savez_compressed('savez_compressed.npz', zeros=np.zeros(100, dtype=np.float32),
                    small=np.array([7, 8], dtype=np.uint16))
