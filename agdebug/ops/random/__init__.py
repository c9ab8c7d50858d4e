"""Random fills and samplers (``normal_``, ``bernoulli``, ``multinomial``...)."""
