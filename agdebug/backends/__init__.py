"""``torch.backends``: the switches of the libraries torch runs on, as plain attributes.

agdebug runs on NumPy (and CuPy): none of cuDNN, MPS or cuBLAS's TF32 modes exist here, so
each flag holds torch's default, can be set as a script sets it, and changes nothing, but
``mkldnn.enabled``, which picks the graph a float32 LSTM records (see ``mkldnn``).

>>> import agdebug as ag
>>> ag.backends.cudnn.benchmark = True
>>> ag.backends.mps.is_available()
False
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
