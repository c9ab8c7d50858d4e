"""torch 2.13's top-level and Tensor names that agdebug lacks, grouped (see test_dir_parity.py).

Each name sits in exactly one group. NOT_BUILT: real API agdebug's engine could have.
OUT_OF_SCOPE: a feature agdebug does not have, named per group. NOT_API: what torch's own
``__init__`` happens to hold (its imports, build internals).
"""

from __future__ import annotations


def _words(text: str) -> set:
    return set(text.split())


# ------------------------------------------------------------------------------- top level
TOP_NOT_BUILT = set().union(
    # ops and their aten spellings
    _words("""affine_grid_generator angle binomial cholesky conj_physical_ conv_tbc convolution
              embedding_bag embedding_renorm_ empty_permuted empty_strided fill gradient
              grid_sampler grid_sampler_2d grid_sampler_3d gru gru_cell hash_tensor histogram
              histogramdd igamma igammac lstm lstm_cell nonzero_static ormqr qr resize_as_
              rnn_relu rnn_relu_cell rnn_tanh rnn_tanh_cell segment_reduce slice_inverse
              triangular_solve"""),
    # the batch-norm and normalisation kernels torch exposes (SyncBatchNorm's among them)
    _words("""batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt
              batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats
              batch_norm_update_stats native_batch_norm native_channel_shuffle native_dropout
              native_group_norm native_layer_norm native_norm"""),
    # spectral ops and other expensive numerics
    _words("fft istft stft signal lobpcg pca_lowrank svd_lowrank"),
    # dtypes NumPy has, memory formats and layouts
    _words("""uint16 uint32 uint64 layout strided memory_format channels_last channels_last_3d
              contiguous_format legacy_contiguous_format preserve_format"""),
    # autocast's state functions (agdebug has torch.autocast and amp)
    _words("""autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache
              get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype
              get_autocast_ipu_dtype get_autocast_xla_dtype is_autocast_cache_enabled
              is_autocast_cpu_enabled is_autocast_enabled is_autocast_ipu_enabled
              is_autocast_xla_enabled set_autocast_cache_enabled set_autocast_cpu_dtype
              set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled
              set_autocast_gpu_dtype set_autocast_ipu_dtype set_autocast_ipu_enabled
              set_autocast_xla_dtype set_autocast_xla_enabled"""),
    # runtime settings, devices and interchange
    _words("""get_deterministic_debug_mode set_deterministic_debug_mode set_default_tensor_type
              init_num_threads thread_safe_generator get_device_module OutOfMemoryError
              AcceleratorError from_dlpack to_dlpack frombuffer"""),
    # modules
    _words("""func functional hub masked multiprocessing profiler quasirandom random return_types
              testing overrides vmap"""),
)

TOP_OUT_OF_SCOPE = set().union(
    # TorchScript / jit: its IR, types, script objects, futures and tracer
    _words("""AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType BufferDict CallStack
              Capsule ClassType Code CompilationUnit CompleteArgumentSpec ComplexType
              ConcreteModuleType ConcreteModuleTypeBuilder DeepCopyMemoTable DeviceObjType
              DictType EnumType ErrorReport ExecutionPlan FileCheck FloatType Future FutureType
              Gradient Graph GraphExecutorState IODescriptor InferredType IntType InterfaceType
              JITException ListType LiteScriptModule ModuleDict Node NoneType NumberType
              OptionalType ParameterDict PyObjectType RRefType ScriptClass ScriptClassFunction
              ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction ScriptList
              ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer ScriptObject
              ScriptObjectProperty StaticModule StreamObjType StringType SymBoolType SymIntType
              TensorType TracingState TupleType Type UnionType Use Value classes fork futures
              import_ir_module import_ir_module_from_buffer jit merge_type_from_type_comment
              parse_ir parse_type_comment unify_type_list wait"""),
    # torch.compile, export, fx and symbolic shapes
    _words("""SymBool SymFloat SymInt compiler cond export fx sym_constrain_range
              sym_constrain_range_for_size sym_float sym_fresh_size sym_int sym_ite sym_max
              sym_min sym_not sym_sqrt sym_sum while_loop"""),
    # the dispatcher and operator registration (agdebug has one op registry, no dispatch keys)
    _words("""DispatchKey DispatchKeySet DisableTorchFunction DisableTorchFunctionSubclass
              ExcludeDispatchKeyGuard FunctionSchema OperatorInfo Tag library parse_schema"""),
    # storages (agdebug's tensors hold NumPy arrays, no storage objects)
    _words("""BFloat16Storage BoolStorage ByteStorage CharStorage ComplexDoubleStorage
              ComplexFloatStorage DoubleStorage FloatStorage HalfStorage IntStorage LongStorage
              QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage
              ShortStorage Storage StorageBase TypedStorage UntypedStorage from_file is_storage
              storage"""),
    # quantization (torch.ao) and fbgemm's quantized / fp16 kernels
    _words("""ao quantization qint32 qint8 quint2x4 quint4x2 quint8 qscheme per_channel_affine
              per_channel_affine_float_qparams per_channel_symmetric per_tensor_affine
              per_tensor_symmetric quantize_per_channel quantize_per_tensor
              quantize_per_tensor_dynamic quantized_batch_norm quantized_gru quantized_gru_cell
              quantized_lstm quantized_lstm_cell quantized_max_pool1d quantized_max_pool2d
              quantized_max_pool3d quantized_rnn_relu_cell quantized_rnn_tanh_cell
              q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale
              q_zero_point int_repr dequantize empty_quantized fake_quantize_per_channel_affine
              fake_quantize_per_tensor_affine fused_moving_avg_obs_fake_quant
              choose_qparams_optimized fbgemm_linear_fp16_weight
              fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight
              fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight
              fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix"""),
    # sparse tensors (refused by name where a program asks for one)
    _words("""sparse sparse_bsc sparse_bsr sparse_coo sparse_csc sparse_csr ccol_indices_copy
              col_indices_copy crow_indices_copy row_indices_copy indices_copy values_copy dsmm
              hsmm saddmm resize_as_sparse_"""),
    # nested (jagged) tensors
    _words("nested jagged"),
    # complex tensors (agdebug names the dtypes but holds no complex arrays)
    _words("""complex complex32 chalf polar view_as_complex view_as_complex_copy view_as_real
              view_as_real_copy"""),
    # dtypes NumPy has no arrays of: bfloat16's legacy tensor type, float8/4, sub-byte ints
    _words("""BFloat16Tensor bit bits16 bits1x8 bits2x4 bits4x2 bits8 float4_e2m1fn_x2
              float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int1 int2
              int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7"""),
    # backend kernels: cuDNN, MIOpen, MKL-DNN, Vulkan
    _words("""cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution
              cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose
              cudnn_grid_sampler cudnn_is_acceptable miopen_batch_norm miopen_convolution
              miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose
              miopen_ctc_loss miopen_depthwise_convolution miopen_rnn mkldnn_adaptive_avg_pool2d
              mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d
              mkldnn_max_pool3d mkldnn_rnn_layer is_vulkan_available"""),
    # devices agdebug has no backend for (it has CPU and CUDA), their streams and events
    _words("cpu mps mtia xpu Stream Event"),
    # torch.package (model packaging), torch.monitor (event counters), the C++ benchmark
    _words("""package monitor AggregationType AVG SUM LockingLogger LoggerBase NoopLogger
              BenchmarkConfig BenchmarkExecutionStats ThroughputBenchmark"""),
)

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

# ---------------------------------------------------------------------------------- Tensor
TENSOR_NOT_BUILT = set().union(
    # ops
    _words("""angle cholesky conj_physical_ hash_tensor histogram igamma igamma_ igammac igammac_
              nonzero_static ormqr qr slice_inverse triangular_solve istft stft"""),
    # CPU-only element callbacks, resizing and memory
    _words("""apply_ map_ map2_ resize resize_ resize_as resize_as_ set_ is_set_to
              new_empty_strided share_memory_"""),
    # attributes and conversions
    _words("as_subclass const_data_ptr dim_order grad_dtype layout module_load to_dense"),
)

TENSOR_OUT_OF_SCOPE = set().union(
    # complex tensors, and bfloat16 (NumPy has neither array)
    _words("cdouble cfloat chalf bfloat16"),
    # quantization
    _words("""dequantize int_repr q_per_channel_axis q_per_channel_scales
              q_per_channel_zero_points q_scale q_zero_point qscheme"""),
    # sparse tensors
    _words("is_coalesced resize_as_sparse_ smm sspaddmm"),
    # storages
    _words("storage storage_type untyped_storage"),
    # devices agdebug has no backend for; CUDA streams; MKL-DNN's layout
    _words("ipu mtia xpu record_stream to_mkldnn"),
    # nested tensors; functorch's first-class dims (Tensor.index binds dims to Dim objects)
    _words("to_padded_tensor index"),
    # the jit tracer's debug name of a value (always None outside tracing)
    _words("name"),
)
