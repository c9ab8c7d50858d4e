"""The graph layer: nodes, edges, saved tensors, hooks and grad modes."""
