"""What torch 2.13 has that agdebug does not, by namespace, and why: a program that asks
for one of these names is told so in one line naming it, not with a bare AttributeError.

The lists are exactly torch's names minus agdebug's (tests/test_dir_parity.py compares them
with the installed torch): building a name means taking it out of here.

>>> print(refusal("", "stft"))
agdebug does not have torch.stft (not built yet: spectral and low-rank numerics)
>>> refusal("", "no_such_name") is None
True
"""

from __future__ import annotations

__all__ = ["GAPS", "NOT_BUILT", "OUT_OF_SCOPE", "missing", "refusal"]

NOT_BUILT, OUT_OF_SCOPE = "not built yet", "out of scope"

_TOP = (
    (NOT_BUILT, "ops and their aten spellings", """
    affine_grid_generator angle binomial cholesky conj_physical_ conv_tbc convolution
    embedding_bag embedding_renorm_ empty_permuted empty_strided fill gradient
    grid_sampler grid_sampler_2d grid_sampler_3d gru gru_cell hash_tensor histogram
    histogramdd igamma igammac lstm lstm_cell nonzero_static ormqr qr resize_as_
    rnn_relu rnn_relu_cell rnn_tanh rnn_tanh_cell segment_reduce slice_inverse
    triangular_solve"""),
    (NOT_BUILT, "the normalisation kernels torch exposes", """
    batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt
    batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats
    batch_norm_update_stats native_batch_norm native_channel_shuffle native_dropout
    native_group_norm native_layer_norm native_norm"""),
    (NOT_BUILT, "spectral and low-rank numerics", """
    fft istft stft signal lobpcg pca_lowrank svd_lowrank"""),
    (NOT_BUILT, "unsigned dtypes, memory formats and layouts", """
    uint16 uint32 uint64 layout strided memory_format channels_last channels_last_3d
    contiguous_format legacy_contiguous_format preserve_format"""),
    (NOT_BUILT, "autocast's state functions; torch.autocast and amp are built", """
    autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache
    get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype
    get_autocast_ipu_dtype get_autocast_xla_dtype is_autocast_cache_enabled
    is_autocast_cpu_enabled is_autocast_enabled is_autocast_ipu_enabled
    is_autocast_xla_enabled set_autocast_cache_enabled set_autocast_cpu_dtype
    set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled
    set_autocast_gpu_dtype set_autocast_ipu_dtype set_autocast_ipu_enabled
    set_autocast_xla_dtype set_autocast_xla_enabled"""),
    (NOT_BUILT, "runtime settings, devices and interchange", """
    get_deterministic_debug_mode set_deterministic_debug_mode set_default_tensor_type
    init_num_threads thread_safe_generator get_device_module OutOfMemoryError
    AcceleratorError from_dlpack to_dlpack frombuffer"""),
    (NOT_BUILT, "this module", """
    func functional hub masked multiprocessing profiler quasirandom random return_types
    testing overrides vmap"""),
    (OUT_OF_SCOPE, "TorchScript and the jit", """
    AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType BufferDict CallStack
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
    (OUT_OF_SCOPE, "torch.compile, export, fx and symbolic shapes", """
    SymBool SymFloat SymInt compiler cond export fx sym_constrain_range
    sym_constrain_range_for_size sym_float sym_fresh_size sym_int sym_ite sym_max
    sym_min sym_not sym_sqrt sym_sum while_loop"""),
    (OUT_OF_SCOPE, "the dispatcher and operator registration", """
    DispatchKey DispatchKeySet DisableTorchFunction DisableTorchFunctionSubclass
    ExcludeDispatchKeyGuard FunctionSchema OperatorInfo Tag library parse_schema"""),
    (OUT_OF_SCOPE, "storages; its tensors hold NumPy arrays", """
    BFloat16Storage BoolStorage ByteStorage CharStorage ComplexDoubleStorage
    ComplexFloatStorage DoubleStorage FloatStorage HalfStorage IntStorage LongStorage
    QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage
    ShortStorage Storage StorageBase TypedStorage UntypedStorage from_file is_storage
    storage"""),
    (OUT_OF_SCOPE, "quantization", """
    ao quantization qint32 qint8 quint2x4 quint4x2 quint8 qscheme per_channel_affine
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
    (OUT_OF_SCOPE, "sparse tensors", """
    sparse sparse_bsc sparse_bsr sparse_coo sparse_csc sparse_csr ccol_indices_copy
    col_indices_copy crow_indices_copy row_indices_copy indices_copy values_copy dsmm
    hsmm saddmm resize_as_sparse_"""),
    (OUT_OF_SCOPE, "nested tensors", """
    nested jagged"""),
    (OUT_OF_SCOPE, "complex tensors", """
    complex complex32 chalf polar view_as_complex view_as_complex_copy view_as_real
    view_as_real_copy"""),
    (OUT_OF_SCOPE, "dtypes NumPy has no arrays of", """
    BFloat16Tensor bit bits16 bits1x8 bits2x4 bits4x2 bits8 float4_e2m1fn_x2
    float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int1 int2
    int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7"""),
    (OUT_OF_SCOPE, "cuDNN, MIOpen, MKL-DNN and Vulkan kernels", """
    cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution
    cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose
    cudnn_grid_sampler cudnn_is_acceptable miopen_batch_norm miopen_convolution
    miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose
    miopen_ctc_loss miopen_depthwise_convolution miopen_rnn mkldnn_adaptive_avg_pool2d
    mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d
    mkldnn_max_pool3d is_vulkan_available"""),
    (OUT_OF_SCOPE, "devices other than CPU and CUDA, streams and events", """
    cpu mps mtia xpu Stream Event"""),
    (OUT_OF_SCOPE, "torch.package, torch.monitor and the C++ benchmark", """
    package monitor AggregationType AVG SUM LockingLogger LoggerBase NoopLogger
    BenchmarkConfig BenchmarkExecutionStats ThroughputBenchmark"""),
)

_TENSOR = (
    (NOT_BUILT, "ops", """
    angle cholesky conj_physical_ hash_tensor histogram igamma igamma_ igammac igammac_
    nonzero_static ormqr qr slice_inverse triangular_solve istft stft"""),
    (NOT_BUILT, "element callbacks, resizing and shared memory", """
    apply_ map_ map2_ resize resize_ resize_as resize_as_ set_ is_set_to
    new_empty_strided share_memory_"""),
    (NOT_BUILT, "attributes and conversions", """
    as_subclass const_data_ptr dim_order grad_dtype layout module_load to_dense"""),
    (OUT_OF_SCOPE, "complex and bfloat16 tensors", """
    cdouble cfloat chalf bfloat16"""),
    (OUT_OF_SCOPE, "quantization", """
    dequantize int_repr q_per_channel_axis q_per_channel_scales
    q_per_channel_zero_points q_scale q_zero_point qscheme"""),
    (OUT_OF_SCOPE, "sparse tensors", """
    is_coalesced resize_as_sparse_ smm sspaddmm"""),
    (OUT_OF_SCOPE, "storages; its tensors hold NumPy arrays", """
    storage storage_type untyped_storage"""),
    (OUT_OF_SCOPE, "devices other than CPU and CUDA, streams and MKL-DNN's layout", """
    ipu mtia xpu record_stream to_mkldnn"""),
    (OUT_OF_SCOPE, "nested tensors and functorch's first-class dims", """
    to_padded_tensor index"""),
    (OUT_OF_SCOPE, "the jit tracer's names", """
    name"""),
)

_NN = (
    (NOT_BUILT, "modules", "CrossMapLRN2d LinearCrossEntropyLoss SyncBatchNorm"),
    (NOT_BUILT, "options and submodules", "LinearCrossEntropyOptions attention grad"),
    (OUT_OF_SCOPE, "quantization", "intrinsic qat quantizable quantized"),
)

_FUNCTIONAL = (
    (NOT_BUILT, "functions", """
    conv_tbc grad grouped_mm linear_cross_entropy native_channel_shuffle scaled_grouped_mm
    scaled_mm"""),
)

_OPTIM = (
    (NOT_BUILT, "optimizers and helpers", "Muon swap_in_optimizer_params_and_state"),
)


def _table(groups) -> dict[str, tuple[str, str]]:
    return {name: (kind, what) for kind, what, names in groups for name in names.split()}


# namespace ("" for the top level) -> {name: (NOT_BUILT or OUT_OF_SCOPE, what it is)}
GAPS = {"": _table(_TOP), "Tensor": _table(_TENSOR), "nn": _table(_NN),
        "nn.functional": _table(_FUNCTIONAL), "nn.init": {}, "optim": _table(_OPTIM),
        "optim.lr_scheduler": {}}


def refusal(namespace: str, name: str) -> str | None:
    """The line saying that agdebug lacks torch's ``namespace.name``; ``None`` when torch
    has no such name either."""
    found = GAPS.get(namespace, {}).get(name)
    if found is None:
        return None
    kind, what = found
    qualified = ".".join(part for part in ("torch" if namespace != "Tensor" else "",
                                           namespace, name) if part)
    return f"agdebug does not have {qualified} ({kind}: {what})"


def missing(namespace: str, owner: str, name: str) -> AttributeError:
    """The ``AttributeError`` for ``name`` looked up on ``owner`` (Python's own words, then
    the refusal where torch has the name)."""
    line = f"{owner} has no attribute '{name}'"
    said = refusal(namespace, name)
    return AttributeError(line if said is None else f"{line}: {said}", name=name)
