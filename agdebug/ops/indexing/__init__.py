"""Indexing: ``x[key]``, index_put, gather/scatter and the index-tensor ops, masking,
take/put and sorting."""
