"""TensorFlow functions and a Keras layer step converted by OpenVINO's
TensorFlow front end: tf.reverse (ReverseSequence with lengths built from
ShapeOf, Gather and Broadcast), tf.reverse_sequence, and the merge step of
a bidirectional layer. Needs `tensorflow` and `keras` (imported only when
these cases are built)."""

from __future__ import annotations

import os

import numpy as np
import openvino as ov

from ..cases import Cases
from ..elements import NP_DTYPE
from ..graph import arange, stable_names
from ..registry import Generator


def tf_model(fn, signature) -> ov.Model:
    """A TensorFlow function converted by OpenVINO's TensorFlow front end."""
    import tensorflow as tf

    m = ov.convert_model(tf.function(fn, input_signature=signature))
    # TensorFlow may suffix argument names (`x_0`); the inputs keep the
    # names of their specs, in order.
    for p, spec in zip(m.get_parameters(), signature):
        p.output(0).set_names({spec.name})
        p.set_friendly_name(spec.name)
    stable_names(m)
    return m


def build(cases: Cases):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    # tf.reverse on one axis: the front end builds the sequence lengths from
    # ShapeOf, Gather and Broadcast, and adds Unsqueeze and Squeeze around
    # ReverseSequence for the first and the last axis.
    for tag, axis, shape, spec in (("axis0", 0, (3, 2, 4), [None, 2, 4]),
                                   ("axis1", 1, (2, 5, 3), [None, None, 3]),
                                   ("axis_m1", -1, (2, 3, 4), [None, 3, None]),
                                   ("axis1_static", 1, (2, 5, 3), [2, 5, 3])):
        m = tf_model(lambda x, axis=axis: tf.reverse(x, axis=[axis]),
                     [tf.TensorSpec(spec, tf.float32, name="x")])
        cases.add(f"tf_reverse_{tag}", m, {"x": arange(shape)})

    # tf.reverse_sequence with run-time lengths of either integer type.
    for et, dtype in (("i32", tf.int32), ("i64", tf.int64)):
        m = tf_model(lambda x, lengths: tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0),
                     [tf.TensorSpec([None, None, 2], tf.float32, name="x"),
                      tf.TensorSpec([None], dtype, name="lengths")])
        cases.add(f"tf_reverse_sequence_{et}", m,
                  {"x": arange((4, 5, 2)), "lengths": np.array([5, 0, 3, 1], NP_DTYPE[et])})

    # The merge step of a Keras bidirectional layer: the backward direction
    # sees the sequence reversed in time, and the two directions are joined
    # on the feature axis (merge_mode="concat"). A real recurrent layer
    # converts to recurrent ops, so the step is taken on its own.
    import keras

    inp = keras.Input(shape=(None, 3), name="x")
    backward = keras.layers.Lambda(lambda t: keras.ops.flip(t, axis=1), name="backward")(inp)
    out = keras.layers.Concatenate(axis=-1, name="merge")([inp, backward])
    km = keras.Model(inp, out)
    m = tf_model(lambda x: km(x), [tf.TensorSpec([None, None, 3], tf.float32, name="x")])
    cases.add("keras_bidirectional_merge", m, {"x": arange((2, 4, 3))})


GENERATOR = Generator("tensorflow_frontend", build, frameworks=("tensorflow", "keras"))
