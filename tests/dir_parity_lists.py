"""torch 2.13's top-level names that are not API: what its own ``__init__`` happens to hold
(its imports, build internals). The names agdebug lacks and refuses are in ``agdebug.gaps``
(see test_dir_parity.py).
"""

from __future__ import annotations


def _words(text: str) -> set:
    return set(text.split())


TOP_NOT_API = set().union(
    # the standard library modules torch's __init__ imports
    _words("""builtins ctypes functools glob importlib inspect math os platform sys textwrap
              threading warnings"""),
    # its own module and internals, typing helpers, torch.signal.windows leaked by an import
    _words("""torch torch_version version types windows cpp TYPE_CHECKING PRIVATE_OPS
              classproperty get_file_path prepare_multiprocessing_environment
              profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 FatalError"""),
    # its build: libtorch's loading flags and what it was compiled with
    _words("""USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH compiled_with_cxx11_abi has_lapack
              has_mkl has_openmp has_spectral"""),
    # serialization's C++ reader, writer and storage contexts (agdebug.save/load have their own)
    _words("""PyTorchFileReader PyTorchFileWriter SerializationStorageContext
              DeserializationStorageContext"""),
)
