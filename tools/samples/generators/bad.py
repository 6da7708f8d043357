"""Malformed IR that must be refused while loading or validating: the
header, layer and edge attributes, shapes and types, weights, and the
attributes and inputs of Reverse, ReverseSequence and Convert, each a
mutation of a model OpenVINO wrote. Besides the error phrase, each is
offered to OpenVINO, whose verdict the report lists."""

from __future__ import annotations

import struct

import numpy as np
import openvino as ov

from ..cases import Cases
from ..graph import const, convert, model, param, reverse, reverse_sequence, serialize_text
from ..registry import Generator
from ..xmltext import const_span, edit_layer, edit_port, layer_id, resub_once, set_attr, set_port_dims, sub_once


# --- base models for the mutations -----------------------------------------


def base_reverse(axes=(0, 2), axes_et="i64"):
    d = param("data", "f32", (2, 5, 4))
    return serialize_text(model({"out": reverse(d, const(list(axes), axes_et, "axes"), "index")},
                                [d], "bad_base"))


def base_reverse_mask():
    d = param("data", "f32", (2, 5, 4))
    return serialize_text(model({"out": reverse(d, const([True, False, True], "boolean", "axes"), "mask")},
                                [d], "bad_base"))


def base_rseq(lengths_et="i32"):
    d = param("data", "f32", (4, 3, 2))
    ln = const([1, 2, 3, 2], lengths_et, "lengths")
    return serialize_text(model({"out": reverse_sequence(d, ln, 0, 1)}, [d], "bad_base"))


def base_chain():
    d = param("data", "f32", (2, 5))
    a = reverse(d, const([0], "i64", "axes_a"), "index", "reverse_a")
    b = reverse(a, const([1], "i64", "axes_b"), "index", "reverse_b")
    return serialize_text(model({"out": b}, [d], "bad_base"))


def base_convert():
    d = param("data", "i32", (2, 3))
    return serialize_text(model({"out": convert(d, "f32")}, [d], "bad_base"))


def base_string():
    t = ov.Tensor(np.array(["ab", "cde", ""]))
    c = ov.op.Constant(t)
    c.set_friendly_name("strings")
    return serialize_text(model({"out": reverse(c, const([0], "i64", "axes"), "index")}, [], "bad_base"))



def build(cases: Cases):
    x, w = base_reverse()
    rid = layer_id(x, "reverse")
    cid = layer_id(x, "axes")
    pid = layer_id(x, "data")

    # header and layer attributes
    cases.bad("net_version_9", sub_once(x, 'version="11">', 'version="9">'), w, "version")
    cases.bad("net_version_12", sub_once(x, 'version="11">', 'version="12">'), w, "version")
    cases.bad("net_version_missing", resub_once(x, r'<net name="[^"]*" version="11">', '<net name="bad_base">'),
              w, "version")
    cases.bad("root_not_net", sub_once(sub_once(x, '<net name="bad_base"', '<model name="bad_base"'),
                                       "</net>", "</model>"), w, "net")
    cases.bad("layer_id_missing", edit_layer(x, "axes", lambda b: sub_once(b, f'<layer id="{cid}" ', "<layer ")),
              w, "id")
    cases.bad("layer_id_non_numeric",
              resub_once(edit_layer(x, "axes", lambda b: sub_once(b, f'id="{cid}"', 'id="one"')),
                         r'from-layer="%s"' % cid, 'from-layer="one"'), w, "id")
    cases.bad("layer_id_negative", edit_layer(x, "axes", lambda b: sub_once(b, f'id="{cid}"', 'id="-1"')), w, "id")
    cases.bad("layer_id_duplicate", edit_layer(x, "axes", lambda b: sub_once(b, f'id="{cid}"', f'id="{pid}"')),
              w, "duplicate")
    cases.bad("layer_type_missing", edit_layer(x, "reverse", lambda b: sub_once(b, ' type="Reverse"', "")), w, "type")
    cases.bad("layer_version_missing", edit_layer(x, "reverse", lambda b: sub_once(b, ' version="opset1"', "")),
              w, "version")
    cases.bad("unknown_op_type", edit_layer(x, "reverse", lambda b: sub_once(b, 'type="Reverse"', 'type="Flip"')),
              w, "unknown operation")
    cases.bad("reverse_opset3", edit_layer(x, "reverse", lambda b: sub_once(b, 'version="opset1"', 'version="opset3"')),
              w, "opset")
    cases.bad("unknown_opset_name", edit_layer(x, "reverse", lambda b: sub_once(b, 'version="opset1"', 'version="opsetX"')),
              w, "opset")

    # edges
    edge_data = f'<edge from-layer="{pid}" from-port="0" to-layer="{rid}" to-port="0" />'
    edge_axes = f'<edge from-layer="{cid}" from-port="0" to-layer="{rid}" to-port="1" />'
    cases.bad("edge_to_missing_layer", sub_once(x, edge_axes, edge_axes.replace(f'to-layer="{rid}"', 'to-layer="42"')),
              w, "layer")
    cases.bad("edge_from_missing_layer", sub_once(x, edge_axes, edge_axes.replace(f'from-layer="{cid}"', 'from-layer="42"')),
              w, "layer")
    cases.bad("edge_to_missing_port", sub_once(x, edge_axes, edge_axes.replace('to-port="1"', 'to-port="5"')),
              w, "port")
    cases.bad("edge_from_missing_port", sub_once(x, edge_axes, edge_axes.replace('from-port="0"', 'from-port="3"')),
              w, "port")
    cases.bad("input_port_fed_twice",
              sub_once(x, edge_axes, edge_axes + "\n\t\t" + edge_data.replace('to-port="0"', 'to-port="1"')),
              w, "port")
    cases.bad("input_port_not_fed", sub_once(x, "\t\t" + edge_axes + "\n", ""), w, "input")
    cases.bad("edge_attr_non_numeric", sub_once(x, edge_axes, edge_axes.replace('to-port="1"', 'to-port="one"')),
              w, "port")

    cx, cw = base_chain()
    a_id, b_id, d_id = layer_id(cx, "reverse_a"), layer_id(cx, "reverse_b"), layer_id(cx, "data")
    cases.bad("cycle", sub_once(cx, f'<edge from-layer="{d_id}" from-port="0" to-layer="{a_id}" to-port="0" />',
                                f'<edge from-layer="{b_id}" from-port="2" to-layer="{a_id}" to-port="0" />'),
              cw, "cycle")

    # shapes and types
    cases.bad("dim_minus_2", edit_layer(x, "data", lambda b: sub_once(sub_once(b, 'shape="2,5,4"', 'shape="-2,5,4"'),
                                                                       "<dim>2</dim>", "<dim>-2</dim>")), w, "dim")
    cases.bad("port_dim_non_numeric", edit_layer(x, "reverse", lambda b: edit_port(
              b, 2, lambda p: sub_once(p, "<dim>5</dim>", "<dim>five</dim>"))), w, "dim")
    cases.bad("parameter_shape_non_numeric", set_attr(x, "data", "shape", "2,x,4"), w, "shape")
    cases.bad("parameter_shape_bad_syntax", set_attr(x, "data", "shape", "2,,5..,4..2"), w, "shape")
    cases.bad("parameter_shape_missing", edit_layer(x, "data", lambda b: sub_once(b, 'shape="2,5,4" ', "")), w, "shape")
    cases.bad("unknown_element_type", set_attr(x, "data", "element_type", "f33"), w, "element")
    cases.bad("port_id_non_numeric", edit_layer(x, "reverse", lambda b: sub_once(b, '<port id="2"', '<port id="two"')),
              w, "port")

    # weights
    off, size = const_span(x, "axes")
    cases.bad("const_past_end_of_bin", x, w[: off + size - 3], "out of bounds")
    cases.bad("const_offset_past_end", set_attr(x, "axes", "offset", str(len(w) + 8)), w, "out of bounds")
    cases.bad("const_size_too_small", set_attr(x, "axes", "size", "8"), w, "size")
    cases.bad("const_offset_non_numeric", set_attr(x, "axes", "offset", "zero"), w, "offset")
    cases.bad("missing_bin", x, None, "weights")

    # Reverse semantics
    cases.bad("reverse_bad_mode", set_attr(x, "reverse", "mode", "sideways"), w, "mode")
    cases.bad("reverse_mode_missing", edit_layer(x, "reverse", lambda b: resub_once(b, r'\s*<data mode="index" />', "")),
              w, "mode")
    x3, w3 = base_reverse(axes=(0, 1, 2))
    o3, s3 = const_span(x3, "axes")
    cases.bad("reverse_axes_out_of_range", x3, w3[:o3] + np.array([0, 3, 2], "<i8").tobytes() + w3[o3 + s3:],
              "out of bounds")
    xm, wm = base_reverse_mask()
    mask_short = edit_layer(xm, "axes", lambda b: sub_once(sub_once(sub_once(b, 'shape="3"', 'shape="2"'),
                                                                     'size="3"', 'size="2"'),
                                                           "<dim>3</dim>", "<dim>2</dim>"))
    mask_short = set_port_dims(mask_short, "reverse", 1, [2])
    cases.bad("reverse_mask_length_not_rank", mask_short, wm, "mask")
    cases.bad("reverse_mask_axes_integer",
              edit_layer(edit_layer(xm, "axes", lambda b: sub_once(sub_once(b, 'element_type="boolean"', 'element_type="u8"'),
                                                                    'precision="BOOL"', 'precision="U8"')),
                         "reverse", lambda b: edit_port(b, 1, lambda p: sub_once(p, 'precision="BOOL"', 'precision="U8"'))),
              wm, "boolean")
    float_axes = edit_layer(x, "axes", lambda b: sub_once(sub_once(sub_once(b, 'element_type="i64"', 'element_type="f32"'),
                                                                    'size="16"', 'size="8"'),
                                                          'precision="I64"', 'precision="FP32"'))
    float_axes = edit_layer(float_axes, "reverse",
                            lambda b: edit_port(b, 1, lambda p: sub_once(p, 'precision="I64"', 'precision="FP32"')))
    cases.bad("reverse_index_axes_float", float_axes,
              w[:off] + np.array([0.0, 2.0], "<f4").tobytes() + w[off + 8:], "integer")
    axes_2d = edit_layer(x, "axes", lambda b: sub_once(b, 'shape="2"', 'shape="1,2"'))
    axes_2d = set_port_dims(axes_2d, "axes", 0, [1, 2])
    axes_2d = set_port_dims(axes_2d, "reverse", 1, [1, 2])
    cases.bad("reverse_axes_2d", axes_2d, w, "1-d")
    xs, ws = base_reverse(axes=(1,))
    axes_scalar = set_port_dims(set_port_dims(edit_layer(xs, "axes", lambda b: sub_once(b, 'shape="1"', 'shape=""')),
                                              "axes", 0, []), "reverse", 1, [])
    cases.bad("reverse_axes_scalar", axes_scalar, ws, "1-d")

    # ReverseSequence semantics
    rx, rw = base_rseq()
    rank1 = set_attr(rx, "data", "shape", "4")
    for layer, port in (("data", 0), ("reverse_sequence", 0), ("reverse_sequence", 2), ("result", 0)):
        rank1 = set_port_dims(rank1, layer, port, [4])
    cases.bad("rseq_data_rank1", rank1, rw, "rank")
    len2d = edit_layer(rx, "lengths", lambda b: sub_once(b, 'shape="4"', 'shape="4,1"'))
    len2d = set_port_dims(set_port_dims(len2d, "lengths", 0, [4, 1]), "reverse_sequence", 1, [4, 1])
    cases.bad("rseq_lengths_rank2", len2d, rw, "rank")
    cases.bad("rseq_batch_axis_out_of_range", set_attr(rx, "reverse_sequence", "batch_axis", "5"), rw, "axis")
    cases.bad("rseq_seq_axis_out_of_range", set_attr(rx, "reverse_sequence", "seq_axis", "-4"), rw, "axis")
    short = edit_layer(rx, "lengths", lambda b: sub_once(sub_once(b, 'shape="4"', 'shape="3"'), 'size="16"', 'size="12"'))
    short = set_port_dims(set_port_dims(short, "lengths", 0, [3]), "reverse_sequence", 1, [3])
    cases.bad("rseq_lengths_size_not_batch", short, rw, "batch")
    lo, ls = const_span(rx, "lengths")
    bool_len = edit_layer(rx, "lengths", lambda b: sub_once(sub_once(sub_once(b, 'element_type="i32"', 'element_type="boolean"'),
                                                                      'size="16"', 'size="4"'),
                                                            'precision="I32"', 'precision="BOOL"'))
    bool_len = edit_layer(bool_len, "reverse_sequence",
                          lambda b: edit_port(b, 1, lambda p: sub_once(p, 'precision="I32"', 'precision="BOOL"')))
    cases.bad("rseq_lengths_boolean", bool_len, rw[:lo] + bytes([1, 1, 0, 1]) + rw[lo + ls:], "type")

    # Convert
    vx, vw = base_convert()
    cases.bad("convert_unknown_destination_type", set_attr(vx, "convert", "destination_type", "f33"), vw or None, "type")
    cases.bad("convert_destination_type_missing",
              edit_layer(vx, "convert", lambda b: resub_once(b, r'\s*<data destination_type="f32" />', "")),
              vw or None, "destination")

    # string constants
    sx, sw = base_string()
    so, ss = const_span(sx, "strings")
    neg = sw[:so] + struct.pack("<i", -1) + sw[so + 4:]
    cases.bad("string_const_negative_count", sx, neg, "string")
    hdr = list(struct.unpack("<5i", sw[so:so + 20]))          # count, 0, end_1, end_2, end_3
    hdr[2], hdr[3] = hdr[3], hdr[2]
    cases.bad("string_const_decreasing_offsets", sx, sw[:so] + struct.pack("<5i", *hdr) + sw[so + 20:], "string")

    # not XML at all
    cases.bad("xml_truncated", x[: len(x) // 2], w, "xml")
    cases.bad("xml_empty", "", w, "xml")
    cases.bad("xml_binary_garbage", np.random.default_rng(7).integers(0, 256, 512, dtype=np.uint8).tobytes(), w, "xml")
    cases.bad("xml_unclosed_layers", sub_once(x, "\t</layers>\n", ""), w, "xml")


GENERATOR = Generator("bad", build)
