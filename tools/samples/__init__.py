"""The generators of the ir-samples/ conformance tree (run them with
tools/gen_samples.py).

One module per generator, in generators/, each defining `GENERATOR`, a
`registry.Generator`: a `build` function that appends its cases to a
`cases.Cases`, the NumPy references of the ops it owns (op type ->
function of a `evaluate.Call`), the packages beyond openvino, numpy and
ml_dtypes it imports (`frameworks`, imported inside its functions only),
and the shared random streams it draws from (`streams`; a new generator
seeds its own instead). `registry.GENERATORS` lists them in the order a
full run builds them.

The shared machinery:

- elements.py: element types, the NumPy dtypes the .npy files use, and the
  bit layouts of the packed types;
- graph.py: building models (nodes with stable names) and their values;
- xmltext.py: edits of serialized IR, for malformed cases and ops
  OpenVINO cannot write;
- evaluate.py: the reference evaluation of a model, dispatching each op to
  the reference its generator registers;
- cases.py: the kinds of case (valid, malformed) and how each is written,
  with the CPU plugin's cross-check and OpenVINO's verdict on malformed IR;
- report.py, readme.py, run.py: the summary, ir-samples/README.md and the
  command line.

Adding an op's samples: a new module generators/<op>.py with its reference
(`references={"OpType": evaluate_op}`) and its cases, and its name in
`registry.GENERATORS`. Then `python3 tools/gen_samples.py --only <op>`
writes them.
"""
