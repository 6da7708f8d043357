//! `rten-bench MODEL.onnx INPUT.npy ITERATIONS`: loads the model with rten,
//! feeds `INPUT.npy` to its only input, runs it 3 times untimed and then
//! `ITERATIONS` times on one thread, and prints `{"median_ms": M}`.
//!
//! rten holds f32, i32, i8 and u8 tensors; an input of another type is
//! refused with a message, and the caller leaves its column empty.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context};
use ovir_tensor::{ElementType, Tensor};
use rten::{Model, RunOptions, ThreadPool, ValueView};

/// rten's `run` allocates each output afresh. With glibc's allocator, a
/// 32 MiB output is mapped anew and its pages faulted in on every run
/// (22 ms for a 32 MiB f32 ReverseSequence, against 3 ms with mimalloc);
/// mimalloc reuses the freed memory, so the time measured is the
/// operator's, as it is for ovir, which keeps its buffers across runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The input's elements as a view rten takes, without copying them when
/// they are aligned for their type.
fn view<'a, T: bytemuck::Pod>(tensor: &'a Tensor, owned: &'a mut Vec<T>) -> anyhow::Result<&'a [T]> {
    let bytes = tensor.bytes().context("the input holds no bytes")?;
    Ok(match bytemuck::try_cast_slice(bytes) {
        Ok(values) => values,
        Err(_) => {
            *owned = bytemuck::pod_collect_to_vec(bytes);
            owned
        }
    })
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, input, iterations] = args.as_slice() else {
        bail!("usage: rten-bench MODEL.onnx INPUT.npy ITERATIONS");
    };
    let iterations: usize = iterations.parse().context("ITERATIONS is not a count")?;
    let model = Model::load_file(model).with_context(|| format!("rten cannot load {model}"))?;
    let x = ovir_npy::read_npy_file(input.as_ref()).with_context(|| format!("reading {input}"))?;
    let shape = x.shape().to_vec();
    let (mut f, mut i, mut s, mut u) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let value: ValueView = match x.element_type() {
        ElementType::F32 => ValueView::from_shape(&shape, view::<f32>(&x, &mut f)?)?,
        ElementType::I32 => ValueView::from_shape(&shape, view::<i32>(&x, &mut i)?)?,
        ElementType::I8 => ValueView::from_shape(&shape, view::<i8>(&x, &mut s)?)?,
        ElementType::U8 => ValueView::from_shape(&shape, view::<u8>(&x, &mut u)?)?,
        other => bail!("rten has no {other} tensors"),
    };
    let input_id = *model.input_ids().first().context("the model has no input")?;
    let output_id = *model.output_ids().first().context("the model has no output")?;
    let one_thread = Some(RunOptions::default().with_thread_pool(Some(Arc::new(ThreadPool::with_num_threads(1)))));
    let run = || model.run(vec![(input_id, value.clone().into())], &[output_id], one_thread.clone());
    for _ in 0..3 {
        run()?;
    }
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = Instant::now();
        let out = run()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(out);
    }
    times.sort_by(f64::total_cmp);
    // The middle value, or the mean of the two middle ones, as NumPy's
    // median, which the other columns use.
    let half = times.len() / 2;
    let median = match (times.get(half), half.checked_sub(1).and_then(|i| times.get(i))) {
        (Some(&hi), Some(&lo)) if times.len() % 2 == 0 => (lo + hi) / 2.0,
        (Some(&mid), _) => mid,
        _ => bail!("ITERATIONS must be at least 1"),
    };
    println!("{{\"median_ms\": {median}}}");
    Ok(())
}
