"""ember.onnx's text converters (ops_text, string tensors) and ImageDecoder (ops_image) against
onnxruntime and onnx's ReferenceEvaluator."""

import io

import numpy as np
import pytest

from onnx_node import R, check, ember_run, model_of, reference_run

from ember.onnx.strings import Strings  # noqa: E402


def s(*values):
    return np.array(values, dtype=object)


def i64(*v):
    return np.asarray(v, dtype=np.int64)


@pytest.mark.parametrize("x,attrs", [
    (s("monday", "tuesday", "wednesday", "thursday"), {"stopwords": ["monday"]}),
    (s("Monday", "tuesday", "WEDNESDAY"), {"case_change_action": "UPPER",
                                           "stopwords": ["monday"]}),
    (s("Monday", "tuesday"), {"case_change_action": "LOWER", "is_case_sensitive": 1,
                              "stopwords": ["monday"]}),
    (s("monday", "monday").reshape(1, 2), {"stopwords": ["monday"]}),
    (s("a", "B").reshape(1, 2), {"case_change_action": "LOWER"}),
])
def test_string_normalizer(x, attrs):
    check("StringNormalizer", [("x", x)], attrs, oracle="ref")  # ort needs en_US locales


def test_string_concat_broadcasts():
    check("StringConcat", [("a", s("a", "bb", "")), ("b", s("x", "y", "z"))], oracle="ref")
    check("StringConcat", [("a", s("a", "b").reshape(2, 1)), ("b", s("1", "2", "3"))],
          oracle="ref")
    check("StringConcat", [("a", s("é", "ü")), ("b", np.array("!", dtype=object))],
          oracle="ref")


@pytest.mark.parametrize("attrs", [{}, {"delimiter": ","}, {"delimiter": "-", "maxsplit": 1},
                                   {"maxsplit": 1}])
def test_string_split(attrs):
    x = s("a,b,,c", "  one two  three ", "", "x-y-z", "solo").reshape(5, 1)
    check("StringSplit", [("x", x)], attrs, n_out=2, oracle="ref")


def test_regex_full_match():
    x = s("www.google.com", "www.facebook.com", "www.bbc.co.uk", "")
    check("RegexFullMatch", [("x", x)], {"pattern": r"www\.[\w.-]+\.\bcom\b"}, oracle="ort")
    check("RegexFullMatch", [("x", x.reshape(2, 2))], {"pattern": r".*o.*"}, oracle="ort")


TFIDF = dict(min_gram_length=1, max_gram_length=2, max_skip_count=2, ngram_counts=[0, 4],
             ngram_indexes=[0, 1, 2, 3, 4, 5, 6], pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("shape", [(12,), (2, 6)])
def test_tfidf_vectorizer_ints(mode, shape):
    x = np.array([1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8], np.int64).reshape(shape)
    attrs = dict(TFIDF, mode=mode, weights=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5])
    check("TfIdfVectorizer", [("x", x)], attrs, oracle="ort")


def test_tfidf_vectorizer_strings():
    x = s("a", "b", "c", "a", "b", "d", "c", "c")
    attrs = dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=1,
                 ngram_counts=[0, 3], ngram_indexes=[0, 1, 2, 3, 4],
                 pool_strings=["a", "c", "d", "a", "b", "b", "c"])
    check("TfIdfVectorizer", [("x", x)], attrs, oracle="ort")


def test_label_encoder():
    check("LabelEncoder", [("x", s("a", "b", "zz", "c"))],
          {"keys_strings": ["a", "b", "c"], "values_int64s": [7, 8, 9], "default_int64": -5},
          domain="ai.onnx.ml", oracle="ort")
    check("LabelEncoder", [("x", i64(3, 1, 2, 9).reshape(2, 2))],
          {"keys_int64s": [1, 2, 3], "values_strings": ["one", "two", "three"]},
          domain="ai.onnx.ml", oracle="ort")
    check("LabelEncoder", [("x", np.float32([0.5, 1.5, 2.0]))],
          {"keys_floats": [0.5, 1.5], "values_floats": [10.0, 20.0], "default_float": 3.0},
          domain="ai.onnx.ml", oracle="ort")


def test_strings_round_trip_as_graph_values():
    x = s("ab", "c", "", "d").reshape(2, 2)
    model, feeds = model_of("StringConcat", [("a", x), ("b", x)])
    y = ember_run(model, feeds)[0]
    assert y.dtype == object and y.shape == (2, 2)
    assert y.tolist() == [["abab", "cc"], ["", "dd"]]
    assert Strings.of(x).nested() == x.tolist()


@pytest.mark.parametrize("fmt,mode", [("PNG", "RGB"), ("PNG", "BGR"), ("PNG", "Grayscale"),
                                      ("BMP", "RGB"), ("JPEG", "RGB"), ("TIFF", "Grayscale")])
def test_image_decoder(fmt, mode):
    image = pytest.importorskip("PIL.Image")
    pixels = R.integers(0, 256, (6, 5, 3)).astype(np.uint8)
    buf = io.BytesIO()
    image.fromarray(pixels).save(buf, format=fmt)
    data = np.frombuffer(buf.getvalue(), dtype=np.uint8)
    check("ImageDecoder", [("d", data)], {"pixel_format": mode}, oracle="ref")


def test_equal_of_strings_and_of_numbers():
    check("Equal", [("a", s("a", "b", "c")), ("b", s("a", "x", "c"))], oracle="ort")
    check("Equal", [("a", s("a", "b").reshape(2, 1)), ("b", s("b", "a", "c"))], oracle="ort")
    check("Equal", [("a", i64(1, 2, 3)), ("b", i64(1, 0, 3))], oracle="ort")


def test_string_constants_feed_string_operators():
    import onnx
    from onnx import helper
    nodes = [helper.make_node("Constant", [], ["k"], value_strings=["x", "y"]),
             helper.make_node("Constant", [], ["one"], value_string="!"),
             helper.make_node("Constant", [], ["t"], value=helper.make_tensor(
                 "v", onnx.TensorProto.STRING, [2], [b"p", b"q"])),
             helper.make_node("StringConcat", ["k", "one"], ["a"]),
             helper.make_node("StringConcat", ["a", "t"], ["y"])]
    graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info(
        "y", onnx.TensorProto.STRING, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 10
    assert ember_run(model, {})[0].tolist() == ["x!p", "y!q"]
    assert reference_run(model, {})[0].tolist() == ["x!p", "y!q"]


def test_string_initializers_are_constants_of_the_graph():
    model, feeds = model_of("StringConcat", [("a", s("u", "v")), ("b", s("1", "2"))],
                            consts=("b",))
    assert ember_run(model, feeds)[0].tolist() == ["u1", "v2"]
    import ember.onnx
    m = ember.onnx.load(model)
    assert m.input_names == ["a"] and list(m.state_dict()) == []
