"""Reductions: sum, mean, var/std, prod, extremes, norms, scans, statistics, quantiles and
order statistics."""
