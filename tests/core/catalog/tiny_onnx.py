"""A tiny ONNX encoder the tests build themselves: token states are rows of an embedding
table (``Gather``), so the pooled vector of a text is known exactly; and a word-level
tokenizer file for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

WORDS = ("pdf", "tables", "extract", "csv", "rows", "duplicate", "bread", "banana", "report")


def table(vocab: int, dims: int, seed: int = 0) -> Any:
    import numpy as np

    return np.random.default_rng(seed).standard_normal((vocab, dims)).astype(np.float32)


def write_model(path: Path, weights: Any, token_types: bool = False) -> Path:
    """An ONNX model mapping ``input_ids`` (and ``attention_mask``) to ``weights[input_ids]``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
    ]
    if token_types:
        inputs.append(
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
        )
    out = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", weights.shape[1]]
    )
    node = helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"], axis=0)
    graph = helper.make_graph(
        [node], "tiny", inputs, [out], [numpy_helper.from_array(weights, "table")]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def write_tokenizer(path: Path, words: tuple[str, ...] = WORDS) -> Path:
    """A lower-casing word-level tokenizer: ``[UNK]`` is 0, then ``words`` in order."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(words)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path))
    return path


def token_id(word: str) -> int:
    return WORDS.index(word) + 1
