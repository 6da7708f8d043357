//! Scatters into a model input that the caller hands over: the input's
//! buffer is updated in place and comes back as the output, with the
//! values a copy would give.

use ovir::ops::{ReverseMode, ScatterNdReduction};
use ovir::{f16, CompiledModel, ElementType, ModelBuilder, PartialShape, Tensor};

const ROWS: usize = 6;
const WIDTH: usize = 4;

/// `cache[ROWS, WIDTH]` f32 with row `row[0]` replaced by `update[1, WIDTH]`
/// (ScatterUpdate along axis 0), as output "updated". With `also_read`, the
/// cache is also an input of a Reverse that runs after the scatter, output
/// "flipped".
fn kv_model(also_read: bool) -> CompiledModel {
    let mut b = ModelBuilder::new("kv");
    let cache = b.parameter("cache", ElementType::F32, PartialShape::from_static(&[ROWS, WIDTH])).unwrap();
    let row = b.parameter("row", ElementType::I64, PartialShape::from_static(&[1])).unwrap();
    let update = b.parameter("update", ElementType::F32, PartialShape::from_static(&[1, WIDTH])).unwrap();
    let axis = b.constant_slice(&[], &[0i64]).unwrap();
    let updated = b.scatter_update(cache, row, update, axis).unwrap();
    b.set_names(updated, &["updated"]).unwrap();
    b.result(updated).unwrap();
    if also_read {
        // Read after the scatter, so the scatter may not take the cache.
        let dep = b.scatter_update(updated, row, update, axis).unwrap();
        let axes = b.constant_slice(&[1], &[1i64]).unwrap();
        let flipped = b.reverse(cache, axes, ReverseMode::Index).unwrap();
        let both = b.concat(&[dep, flipped], 0).unwrap();
        b.set_names(both, &["flipped"]).unwrap();
        b.result(both).unwrap();
    }
    b.build().unwrap().compile().unwrap()
}

fn cache_values() -> Vec<f32> {
    (0..ROWS * WIDTH).map(|i| i as f32).collect()
}

/// The cache with row `r` replaced by `[v, v + 1, ...]`, worked out here.
fn expected(mut cache: Vec<f32>, r: usize, v: f32) -> Vec<f32> {
    for (k, x) in cache[r * WIDTH..(r + 1) * WIDTH].iter_mut().enumerate() {
        *x = v + k as f32;
    }
    cache
}

fn update(v: f32) -> Tensor {
    Tensor::from_vec(&[1, WIDTH], (0..WIDTH).map(|k| v + k as f32).collect::<Vec<f32>>()).unwrap()
}

fn address(t: &Tensor) -> usize {
    t.bytes().unwrap().as_ptr() as usize
}

#[test]
fn a_handed_over_cache_is_updated_in_its_own_buffer_step_after_step() {
    let compiled = kv_model(false);
    let mut request = compiled.infer_request();
    let mut cache = Tensor::from_vec(&[ROWS, WIDTH], cache_values()).unwrap();
    let start = address(&cache);
    let mut want = cache_values();
    for (step, r) in [2usize, 5, 0, 2].into_iter().enumerate() {
        let v = 100.0 * (step + 1) as f32;
        request.set_input("cache", cache).unwrap();
        request.set_input("row", Tensor::from_vec(&[1], vec![r as i64]).unwrap()).unwrap();
        request.set_input("update", update(v)).unwrap();
        request.infer().unwrap();
        // The scatter wrote its one row and moved nothing else.
        assert_eq!(request.bytes_moved(), WIDTH * 4, "step {step}");
        cache = request.take_output("updated").unwrap();
        assert_eq!(address(&cache), start, "step {step}: the cache moved to another buffer");
        want = expected(want, r, v);
        assert_eq!(cache.to_vec::<f32>().unwrap(), want, "step {step}");
    }
}

#[test]
fn a_cache_the_caller_still_holds_is_copied_and_left_unchanged() {
    let compiled = kv_model(false);
    let mut request = compiled.infer_request();
    let cache = Tensor::from_vec(&[ROWS, WIDTH], cache_values()).unwrap();
    request.set_input("cache", cache.clone()).unwrap();
    request.set_input("row", Tensor::from_vec(&[1], vec![3i64]).unwrap()).unwrap();
    request.set_input("update", update(-1.0)).unwrap();
    request.infer().unwrap();
    let out = request.output("updated").unwrap();
    assert!(!out.shares_storage_with(&cache));
    assert_eq!(out.to_vec::<f32>().unwrap(), expected(cache_values(), 3, -1.0));
    assert_eq!(cache.to_vec::<f32>().unwrap(), cache_values());
    // The input stays set: the request runs again on it.
    request.infer().unwrap();
    assert_eq!(request.bytes_moved(), ROWS * WIDTH * 4);
}

#[test]
fn an_input_read_after_the_scatter_is_not_taken() {
    let compiled = kv_model(true);
    let mut request = compiled.infer_request();
    request.set_input("cache", Tensor::from_vec(&[ROWS, WIDTH], cache_values()).unwrap()).unwrap();
    request.set_input("row", Tensor::from_vec(&[1], vec![1i64]).unwrap()).unwrap();
    request.set_input("update", update(7.0)).unwrap();
    request.infer().unwrap();
    assert_eq!(request.output("updated").unwrap().to_vec::<f32>().unwrap(), expected(cache_values(), 1, 7.0));
    // The Reverse saw the cache as it was given, with rows reversed
    // element by element.
    let flipped = request.output("flipped").unwrap().to_vec::<f32>().unwrap();
    let reversed: Vec<f32> =
        cache_values().chunks(WIDTH).flat_map(|row| row.iter().rev().copied().collect::<Vec<_>>()).collect();
    assert_eq!(&flipped[ROWS * WIDTH..], reversed.as_slice());
    // And the input is still set.
    request.infer().unwrap();
}

#[test]
fn a_handed_over_input_must_be_set_again_and_the_error_says_why() {
    let compiled = kv_model(false);
    let mut request = compiled.infer_request();
    request.set_input("cache", Tensor::from_vec(&[ROWS, WIDTH], cache_values()).unwrap()).unwrap();
    request.set_input("row", Tensor::from_vec(&[1], vec![0i64]).unwrap()).unwrap();
    request.set_input("update", update(1.0)).unwrap();
    request.infer().unwrap();
    let e = request.infer().unwrap_err().to_string();
    assert!(e.contains("input \"cache\" was updated in place by layer"), "{e}");
    assert!(e.contains("ScatterUpdate"), "{e}");
    assert!(request.input("cache").is_err());
    // Taken back and set again, it runs.
    let cache = request.take_output("updated").unwrap();
    assert!(request.output("updated").unwrap_err().to_string().contains("was taken"));
    request.set_input("cache", cache).unwrap();
    request.infer().unwrap();
    assert_eq!(request.output("updated").unwrap().to_vec::<f32>().unwrap(), expected(cache_values(), 0, 1.0));
}

#[test]
fn a_failed_scatter_gives_the_handed_over_input_back_unchanged() {
    let compiled = kv_model(false);
    let mut request = compiled.infer_request();
    request.set_input("cache", Tensor::from_vec(&[ROWS, WIDTH], cache_values()).unwrap()).unwrap();
    request.set_input("row", Tensor::from_vec(&[1], vec![ROWS as i64]).unwrap()).unwrap();
    request.set_input("update", update(1.0)).unwrap();
    let e = request.infer().unwrap_err().to_string();
    assert!(e.contains("ScatterUpdate"), "{e}");
    assert_eq!(request.input("cache").unwrap().to_vec::<f32>().unwrap(), cache_values());
    request.set_input("row", Tensor::from_vec(&[1], vec![4i64]).unwrap()).unwrap();
    request.infer().unwrap();
    assert_eq!(request.output("updated").unwrap().to_vec::<f32>().unwrap(), expected(cache_values(), 4, 1.0));
}

#[test]
fn a_reducing_nd_scatter_of_half_floats_in_place_rounds_as_a_copy_does() {
    // ScatterNDUpdate-15 with `sum` on f16: the repeated row 1 is summed
    // in f32 and rounded once, in place as when copied.
    let mut b = ModelBuilder::new("nd");
    let data = b.parameter("data", ElementType::F16, PartialShape::from_static(&[3, 2])).unwrap();
    let rows = b.constant_slice(&[3, 1], &[1i64, 1, -1]).unwrap();
    let updates = b.parameter("updates", ElementType::F16, PartialShape::from_static(&[3, 2])).unwrap();
    let out = b.scatter_nd_update(data, rows, updates, ScatterNdReduction::Sum).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let compiled = b.build().unwrap().compile().unwrap();
    let half = |v: &[f32]| {
        Tensor::from_vec(&[3, 2], v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>()).unwrap()
    };
    // 2048 + 1 + 1 is 2050 in f32, where adding in f16 would lose each 1.
    let data_values = [0.0, 0.5, 2048.0, 1.0, 4.0, 8.0];
    let update_values = [1.0, 0.25, 1.0, 0.25, 3.0, 3.0];
    let want = half(&[0.0, 0.5, 2050.0, 1.5, 7.0, 11.0]);
    for handed_over in [false, true] {
        let mut request = compiled.infer_request();
        let data = half(&data_values);
        let kept = handed_over.then(|| address(&data));
        let clone = (!handed_over).then(|| data.clone());
        request.set_input("data", data).unwrap();
        request.set_input("updates", half(&update_values)).unwrap();
        request.infer().unwrap();
        let got = request.take_output("out").unwrap();
        assert_eq!(got.bytes(), want.bytes(), "handed over: {handed_over}");
        if let Some(at) = kept {
            assert_eq!(address(&got), at);
        }
        drop(clone);
    }
}

/// Runs a one-scatter model on `data` twice, handed over and held, and
/// checks both give `want`, the handed-over one in the data's own buffer.
fn check_both_ways(
    build: impl Fn(&mut ModelBuilder, ovir::builder::Output) -> ovir::builder::Output,
    want: &[i32],
) {
    let data = || Tensor::from_vec(&[2, 3], vec![10i32, 11, 12, 13, 14, 15]).unwrap();
    let mut b = ModelBuilder::new("scatter");
    let d = b.parameter("data", ElementType::I32, PartialShape::from_static(&[2, 3])).unwrap();
    let out = build(&mut b, d);
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let compiled = b.build().unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    let given = data();
    let at = address(&given);
    request.set_input("data", given).unwrap();
    request.infer().unwrap();
    let got = request.take_output("out").unwrap();
    assert_eq!(got.to_vec::<i32>().unwrap(), want);
    assert_eq!(address(&got), at, "handed over, the data keeps its buffer");
    let held = data();
    request.set_input("data", held.clone()).unwrap();
    request.infer().unwrap();
    let got = request.output("out").unwrap();
    assert_eq!(got.to_vec::<i32>().unwrap(), want);
    assert!(!got.shares_storage_with(&held));
    assert_eq!(held.to_vec::<i32>().unwrap(), [10, 11, 12, 13, 14, 15]);
}

#[test]
fn element_and_slice_scatters_update_a_handed_over_input_in_place() {
    use ovir::ops::ScatterElementsReduction::Max;
    // Along axis 0: column 1 takes the max of 11 and 20 in row 0; column 2
    // the max of 15 and 9 in row 1.
    check_both_ways(
        |b, d| {
            let indices = b.constant_slice(&[1, 3], &[0i64, 0, 1]).unwrap();
            let updates = b.constant_slice(&[1, 3], &[5i32, 20, 9]).unwrap();
            let axis = b.constant_slice(&[], &[0i64]).unwrap();
            b.scatter_elements_update(d, indices, updates, axis, Max, true).unwrap()
        },
        &[10, 20, 12, 13, 14, 15],
    );
    // Row 1, columns 2 and 1 (a step of -1 along axis 1 from the end).
    check_both_ways(
        |b, d| {
            let updates = b.constant_slice(&[1, 2], &[-1i32, -2]).unwrap();
            let ints = |b: &mut ModelBuilder, v: &[i64]| b.constant_slice(&[v.len()], v).unwrap();
            let (start, stop, step) = (ints(b, &[1, -1]), ints(b, &[2, 0]), ints(b, &[1, -1]));
            b.slice_scatter(d, updates, start, stop, step, None).unwrap()
        },
        &[10, 11, 12, 13, -2, -1],
    );
}

#[test]
fn a_computed_value_dying_at_the_scatter_is_updated_in_place() {
    // data → Reverse (rows) → ScatterUpdate: the reversed rows are made on
    // every run and read by the scatter alone, which updates them in their
    // buffer; the model moves the Reverse's output and one row.
    let mut b = ModelBuilder::new("computed");
    let d = b.parameter("data", ElementType::F32, PartialShape::from_static(&[ROWS, WIDTH])).unwrap();
    let axes = b.constant_slice(&[1], &[0i64]).unwrap();
    let flipped = b.reverse(d, axes, ReverseMode::Index).unwrap();
    let row = b.constant_slice(&[1], &[1i64]).unwrap();
    let update = b.constant_slice(&[1, WIDTH], &[-1f32; WIDTH]).unwrap();
    let axis = b.constant_slice(&[], &[0i64]).unwrap();
    let out = b.scatter_update(flipped, row, update, axis).unwrap();
    b.set_names(out, &["out"]).unwrap();
    b.result(out).unwrap();
    let compiled = b.build().unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    let data = Tensor::from_vec(&[ROWS, WIDTH], cache_values()).unwrap();
    request.set_input("data", data.clone()).unwrap();
    request.infer().unwrap();
    assert_eq!(request.bytes_moved(), (ROWS + 1) * WIDTH * 4);
    let mut want: Vec<f32> = cache_values().chunks(WIDTH).rev().flatten().copied().collect();
    want[WIDTH..2 * WIDTH].fill(-1.0);
    assert_eq!(request.output("out").unwrap().to_vec::<f32>().unwrap(), want);
}

#[test]
fn an_output_the_request_keeps_is_taken_as_a_clone() {
    // The input passed straight through and a constant: taking them leaves
    // the request able to run again on what it holds.
    let mut b = ModelBuilder::new("kept");
    let x = b.parameter("x", ElementType::I32, PartialShape::from_static(&[3])).unwrap();
    b.result(x).unwrap();
    let c = b.constant_slice(&[2], &[7i32, 8]).unwrap();
    b.set_names(c, &["c"]).unwrap();
    b.result(c).unwrap();
    let compiled = b.build().unwrap().compile().unwrap();
    let mut request = compiled.infer_request();
    request.set_input("x", Tensor::from_vec(&[3], vec![1i32, 2, 3]).unwrap()).unwrap();
    request.infer().unwrap();
    let x = request.take_output("x").unwrap();
    let c = request.take_output("c").unwrap();
    assert!(x.shares_storage_with(request.input("x").unwrap()));
    assert_eq!(c.to_vec::<i32>().unwrap(), [7, 8]);
    request.infer().unwrap();
    assert_eq!(request.output("x").unwrap().to_vec::<i32>().unwrap(), [1, 2, 3]);
    assert_eq!(request.output("c").unwrap().to_vec::<i32>().unwrap(), [7, 8]);
}
