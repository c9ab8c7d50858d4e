"""Shape ops: views, copies and torch's NumPy-style shape functions, with torch's argument
forms (``x.permute(1, 0)``, ``agdebug.cat([a, b], 1)``)."""
