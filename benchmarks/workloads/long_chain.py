"""W3: a 1,000,000-node chain (the W1 chain, longer): forward, backward and freeing, seconds.

``--quick`` uses 100,000 nodes (the row says so). Warm-up runs a 1,000-node chain: a
full-size warm-up would only double the run time.
"""

from __future__ import annotations

from ..harness import Row, interleave, scaled, within
from . import chain

THREAD_SENSITIVE = False


def rows(cfg) -> list:
    n = cfg.size(1_000_000, 100_000, 2_000)
    for fn in chain.variants(cfg, 1_000).values():
        fn()
    medians = interleave(chain.variants(cfg, n), cfg, warmup=0)
    label = f"{n:,} nodes" + (" (--quick size)" if cfg.mode == "quick" else "")
    result = [Row("W3", f"{phase} {label}", "s", scaled(medians, phase, 1.0))
              for phase in ("fwd", "bwd", "free")]
    total = {lib: sum(m.values()) for lib, m in medians.items()}
    result.append(Row("W3", f"fwd+bwd+free {label}", "s", total, within("torch", 1.0)))
    return result
