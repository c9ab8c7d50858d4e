"""torch's Tensor methods and call signatures that are no one family's: operators,
in-place forms, conversions (``to``, ``.double()``), ``new_*`` factories and queries."""
