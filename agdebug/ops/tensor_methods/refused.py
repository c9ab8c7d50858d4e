"""What agdebug refuses by name: sparse tensors (out of scope; torch's strided layout only).

Each refusal is one line naming the torch call and the missing feature, raised where the
program asks for it, so a script fails at its first sparse line, not deep inside an op.
"""

from __future__ import annotations

SPARSE = "agdebug has no sparse tensors (only torch's dense, strided layout)"


def _refuses(name: str, feature: str = SPARSE):
    def refused(*args, **kwargs):
        raise RuntimeError(f"{name}: {feature}")
    refused.__name__ = refused.__qualname__ = name.rpartition(".")[2]
    refused.__doc__ = f"Refused: {feature}."
    return refused


METHODS = {name: _refuses(f"Tensor.{name}") for name in (
    "to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
    "to_sparse_bsc", "sparse_mask", "sparse_dim", "dense_dim", "coalesce", "indices", "values",
    "crow_indices", "col_indices", "ccol_indices", "row_indices", "sparse_resize_",
    "sparse_resize_and_clear_")}
FUNCTIONS = {name: _refuses(f"torch.{name}") for name in (
    "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
    "sparse_bsc_tensor", "sparse_compressed_tensor", "spmm", "hspmm", "smm", "sspaddmm")}
