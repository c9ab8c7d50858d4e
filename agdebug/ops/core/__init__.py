"""The op machinery: the registry (``OPS``, ``defop``), how ops run and record, in-place
writes, torch's argument words, saved names, tie order and the helpers derivatives share."""
