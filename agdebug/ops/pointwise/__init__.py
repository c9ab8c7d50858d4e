"""Pointwise ops: arithmetic, unary and binary math, comparisons and logic, activations,
special functions, and torch's call signatures for them."""
