"""Linear algebra: matrix products, BLAS-style updates, contractions, matrix structure,
decompositions, solves, LU, matrix functions and distances."""
