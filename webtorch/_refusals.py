"""The public names of torch 2.13 that webtorch refuses, and why: one table grouped by reason, and the
one function that gives each name its stand-in. tests/test_namespace_coverage.py walks torch's public
namespaces and fails on a name that is neither implemented nor listed here, and on a listed name that
is implemented (delete its entry then); scripts/coverage.py writes the coverage table of docs/compatibility.md from it.

A name is its path under torch: "linalg.lu", "Tensor.stft", "nn.Conv3d"; no prefix for torch itself.

What a refused name does was chosen so that code probing for a feature never takes a wrong path silently:
* A callable (function, method, class; CALLABLES) exists: `from torch.nn import LazyLinear` and a module
  that merely names it still import, and calling it, or instantiating the class, raises
  NotImplementedError("webtorch has no torch.nn.LazyLinear (lazy modules ...)"). hasattr() answers
  True, so code that probes for a function and then calls it stops at that call with the reason, loudly,
  never on another path's numbers. A refused class is a class (a Module under nn, an Optimizer under
  optim, a Sampler under utils.data), so isinstance() answers False and subclassing works.
* A value (a dtype such as torch.complex64, a submodule such as nn.quantized, a Tensor property such as
  Tensor.is_sparse; VALUES) gets no stand-in object, because a stand-in would be truthy, or unequal to
  everything, exactly where code branches on torch's value. Reading it raises Refused, an AttributeError
  that is also a NotImplementedError carrying the same message: hasattr() and getattr(x, name, default)
  answer "absent", which is the truth, and a direct use stops with the reason.
"""

COMPLEX = "complex numbers, FFT and sparse tensors: issue 24"
TORCHSCRIPT = "TorchScript's compiler, IR and dispatcher types: webtorch runs Python code as written"
QUANT = "quantized and float8-scaled tensors: webtorch has no quantized dtypes or kernels"
VENDOR = ("a vendor library's kernel or device (cuDNN, MIOpen, MKL-DNN, IPU, XPU, MTIA, Vulkan): webtorch runs "
          "WGSL on WebGPU")
DTYPES = "a dtype webtorch has no storage for (unsigned 16/32/64-bit, sub-byte, float8, float4)"
STORAGE = ("storages and raw memory: a webtorch tensor's memory is a WebGPU buffer or a numpy array, not a "
           "torch.Storage")
SYMBOLIC = ("symbolic shapes, torch.export, functorch transforms and legacy autograd fields: webtorch captures "
            "programs with torch.compile only")
STREAMS = "streams and events: webtorch's single queue orders all work"
SETTINGS = "a process-wide setting not built yet"
THREED = "the 3-d convolution, pooling and normalisation family: issue 22"
LINALG = "a linear-algebra routine not built yet"
COPY = "a *_copy form not built yet (its out= of pre-sized tensors)"
LDL = ("LAPACK sytrf's Bunch-Kaufman LDLᴴ factorization: its compact LD and pivots depend on the blocked pivoting "
       "order, which is not reproduced; solve with linalg.solve or linalg.cholesky")
INPLACE_ALIAS = "an in-place or function form not built yet"
DATAPIPES = "DataPipes (deprecated in torch) not built"
OPTIM = "an optimizer not built yet"
INIT = "the deprecated nn.init aliases without a trailing underscore not built yet"
REST = "not built yet"
ONE_PROCESS = "multi-process and multi-device training: webtorch runs in one process on one WebGPU device"
OTHER_DEVICE = "a device runtime webtorch does not drive (CUDA, XPU, MPS): webtorch runs on WebGPU and numpy"
OP_REGISTRY = "torch's C++ operator registry and custom-op library: webtorch's ops are Python functions"

CALLABLES = {
    COMPLEX: """
        ccol_indices_copy col_indices_copy conj_physical_ crow_indices_copy dsmm hspmm indices_copy
        resize_as_sparse_ row_indices_copy saddmm smm sparse_bsc_tensor sparse_bsr_tensor
        sspaddmm values_copy linalg.eig
        linalg.eigvals Tensor.chalf Tensor.conj_physical_
        Tensor.resize_as_sparse_ Tensor.smm Tensor.sparse_mask
        Tensor.sparse_resize_ Tensor.sparse_resize_and_clear_ Tensor.sspaddmm Tensor.to_sparse_bsc
        Tensor.to_sparse_bsr""",
    TORCHSCRIPT: """
        AggregationType AliasDb AnyType Argument ArgumentSpec AwaitType BenchmarkConfig
        BenchmarkExecutionStats Block BoolType BufferDict CallStack Capsule ClassType Code CompilationUnit
        CompleteArgumentSpec ComplexType ConcreteModuleType ConcreteModuleTypeBuilder DeepCopyMemoTable
        DeserializationStorageContext DeviceObjType DictType DisableTorchFunction
        DisableTorchFunctionSubclass DispatchKey DispatchKeySet EnumType ErrorReport
        ExcludeDispatchKeyGuard ExecutionPlan FileCheck FloatType fork FunctionSchema Future FutureType
        Gradient Graph GraphExecutorState import_ir_module import_ir_module_from_buffer InferredType
        InterfaceType IntType IODescriptor JITException ListType LiteScriptModule LockingLogger
        merge_type_from_type_comment ModuleDict Node NoneType NoopLogger NumberType OperatorInfo
        OptionalType ParameterDict parse_ir parse_schema parse_type_comment PyObjectType PyTorchFileReader
        PyTorchFileWriter RRefType ScriptClass ScriptClassFunction ScriptDict ScriptDictIterator
        ScriptDictKeyIterator ScriptFunction ScriptList ScriptListIterator ScriptMethod ScriptModule
        ScriptModuleSerializer ScriptObject ScriptObjectProperty SerializationStorageContext StaticModule
        StreamObjType StringType SymBoolType SymIntType Tag TensorType ThroughputBenchmark TracingState
        TupleType unify_type_list UnionType Use Value wait""",
    QUANT: """
        choose_qparams_optimized dequantize empty_quantized fake_quantize_per_channel_affine
        fake_quantize_per_tensor_affine fbgemm_linear_fp16_weight
        fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight
        fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight
        fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix fused_moving_avg_obs_fake_quant int_repr
        q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qscheme
        quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic quantized_batch_norm
        quantized_gru_cell quantized_lstm_cell quantized_max_pool1d quantized_max_pool2d
        quantized_max_pool3d quantized_rnn_relu_cell quantized_rnn_tanh_cell Tensor.dequantize
        Tensor.int_repr Tensor.q_per_channel_axis Tensor.q_per_channel_scales
        Tensor.q_per_channel_zero_points Tensor.q_scale Tensor.q_zero_point Tensor.qscheme
        nn.functional.scaled_grouped_mm nn.functional.scaled_mm nn.functional.ScalingType
        nn.functional.SwizzleType""",
    VENDOR: """
        cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution cudnn_convolution_add_relu
        cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler cudnn_is_acceptable
        is_vulkan_available miopen_batch_norm miopen_convolution miopen_convolution_add_relu
        miopen_convolution_relu miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution
        miopen_rnn mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights
        mkldnn_max_pool2d mkldnn_max_pool3d mkldnn_rnn_layer Tensor.ipu Tensor.mtia Tensor.to_mkldnn
        Tensor.xpu""",
    STORAGE: """
        BoolStorage ByteStorage CharStorage DoubleStorage FloatStorage from_file IntStorage is_storage
        LongStorage ShortStorage TypedStorage Tensor.apply_ Tensor.const_data_ptr Tensor.is_pinned
        Tensor.is_set_to Tensor.is_shared Tensor.map2_ Tensor.map_ Tensor.module_load Tensor.pin_memory
        Tensor.resize Tensor.resize_ Tensor.resize_as Tensor.resize_as_ Tensor.set_ Tensor.share_memory_
        Tensor.storage Tensor.storage_type""",
    SYMBOLIC: """
        cond hash_tensor sym_constrain_range sym_constrain_range_for_size sym_float sym_fresh_size sym_int
        sym_ite sym_max sym_min sym_not sym_sqrt sym_sum SymBool SymFloat SymInt vmap
        Tensor.dim_order Tensor.hash_tensor Tensor.reinforce""",
    STREAMS: """
        Event Stream Tensor.record_stream""",
    SETTINGS: """
        autocast_decrement_nesting autocast_increment_nesting FatalError get_autocast_gpu_dtype
        get_autocast_ipu_dtype get_autocast_xla_dtype get_device_module init_num_threads
        is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_ipu_enabled is_autocast_xla_enabled
        is_inference_mode_enabled set_anomaly_enabled set_autocast_cpu_dtype set_autocast_cpu_enabled
        set_autocast_gpu_dtype set_autocast_ipu_dtype set_autocast_ipu_enabled set_autocast_xla_dtype
        set_autocast_xla_enabled set_default_tensor_type set_flush_denormal set_printoptions
        thread_safe_generator utils.data.guaranteed_datapipes_determinism utils.data.non_deterministic""",
    THREED: """
        conv3d conv_transpose3d max_pool3d""",
    LINALG: """
        frobenius_norm geqrf lobpcg svd_lowrank
        nuclear_norm orgqr ormqr
        Tensor.eig
        Tensor.geqrf Tensor.lstsq
        Tensor.orgqr Tensor.ormqr Tensor.solve
        Tensor.symeig""",
    LDL: """
        linalg.ldl_factor linalg.ldl_factor_ex linalg.ldl_solve""",
    COPY: """
        split_copy""",
    INPLACE_ALIAS: """
        addmv_ detach_ embedding_renorm_
        resize_as_
        Tensor.cauchy_
        Tensor.detach_ Tensor.geometric_
        Tensor.log_normal_""",
    DATAPIPES: """
        utils.data.argument_validation utils.data.DataChunk utils.data.DFIterDataPipe
        utils.data.functional_datapipe utils.data.IterDataPipe utils.data.MapDataPipe
        utils.data.runtime_validation utils.data.runtime_validation_disabled""",
    OPTIM: """
        optim.Adafactor optim.ASGD optim.Muon optim.Rprop optim.swap_in_optimizer_params_and_state""",
    INIT: """
        nn.init.constant nn.init.dirac nn.init.eye nn.init.kaiming_normal nn.init.kaiming_uniform
        nn.init.normal nn.init.orthogonal nn.init.sparse nn.init.uniform nn.init.xavier_normal
        nn.init.xavier_uniform""",
    REST: """
        affine_grid_generator
        batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats
        batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats
        conv_tbc
        ctc_loss
        empty_permuted
        grid_sampler grid_sampler_2d grid_sampler_3d
        gru hsmm
        is_distributed
        lstm
        native_batch_norm native_channel_shuffle native_dropout native_group_norm native_layer_norm
        native_norm norm_except_dim
        rnn_relu rnn_tanh
        slice_inverse Type
        nn.CrossMapLRN2d
        nn.LinearCrossEntropyLoss nn.LinearCrossEntropyOptions
        Tensor.index
        Tensor.is_distributed
        Tensor.narrow_copy
        Tensor.register_post_accumulate_grad_hook Tensor.slice_inverse
        Tensor.to_padded_tensor
        nn.functional.grouped_mm nn.functional.linear_cross_entropy""",
}
VALUES = {
    OTHER_DEVICE: """
        xpu mps""",
    OP_REGISTRY: """
        classes""",
    TORCHSCRIPT: """
        AVG cpp SUM""",
    QUANT: """
        per_channel_symmetric quantization qint32 qint8 quint2x4 quint4x2 quint8 nn.intrinsic nn.qat nn.quantizable nn.quantized""",
    DTYPES: """
        bit bits16 bits1x8 bits2x4 bits4x2 bits8 float4_e2m1fn_x2 int1 int2 int3 int4 int5 int6 int7 uint1
        uint2 uint3 uint4 uint5 uint6 uint7""",
    SYMBOLIC: """
        export Tensor.grad_dtype Tensor.name Tensor.output_nr Tensor.volatile""",
    SETTINGS: """
        has_lapack has_mkl has_openmp has_spectral""",
    OPTIM: """
        optim.swa_utils""",
    REST: """
        nn.common_types nn.grad""",
}
# Whole namespaces: every public name of these torch modules that webtorch's module lacks is refused for
# this reason (as a value: hasattr() answers False, a use raises Refused naming the name).
NAMESPACES = {
    "sparse": "sparse BSR/BSC layouts, semi-structured sparsity and the sparse namespace's other "
              "functions: webtorch has sparse COO, CSR and CSC tensors (issue 24)",
    "distributed": ONE_PROCESS,
    "cuda": OTHER_DEVICE,
}


class Refused(AttributeError, NotImplementedError):
    """Reading a refused value: hasattr() sees an absent name, `except NotImplementedError` the gap."""


def message(path, reason):
    return f"webtorch has no torch.{path} ({reason})"


def entries():
    """(path, reason, is_callable) for every refused name."""
    for table, is_callable in ((CALLABLES, True), (VALUES, False)):
        for reason, names in table.items():
            for path in names.split():
                yield path, reason, is_callable


MARK = "__webtorch_refused__"  # a stand-in's attribute: the reason


def _function(name, text, reason):
    def refused(*args, **kwargs):
        raise NotImplementedError(text)
    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = text
    setattr(refused, MARK, reason)
    return refused


def _class(name, text, reason, base):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(text)
    return type(name, (base,), {"__init__": __init__, "__doc__": text, MARK: reason})


def stand_in(path, reason):
    """The stand-in of a refused name outside the walked namespaces (torch.serialization.skip_data, ...):
    a function, or a class for a capitalised name, raising NotImplementedError naming the gap."""
    name = path.rpartition(".")[2]
    text = message(path, reason)
    return _class(name, text, reason, object) if name[:1].isupper() else _function(name, text, reason)


def _property(text):
    def refused(self):
        raise Refused(text)
    return property(refused, doc=text)


def _module_getattr(module, texts, prefix, namespace_reason):
    """A module __getattr__ raising Refused for the refused values (and, for a refused namespace, any
    public name), then deferring to the module's own."""
    fallback = vars(module).get("__getattr__")

    def __getattr__(name):
        if name in texts:
            raise Refused(texts[name])
        if namespace_reason is not None and not name.startswith("_"):
            raise Refused(message(f"{prefix}.{name}", namespace_reason))
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
    return __getattr__


def install(namespaces, class_bases):
    """Give every refused name that its namespace lacks its stand-in. namespaces: {prefix: module or
    class} ("" for torch itself, "Tensor" for the Tensor class); class_bases: {prefix: base class of the
    refused classes there} (object elsewhere). A name the namespace has is left alone: the test reports
    its entry as stale."""
    values = {}
    for path, reason, is_callable in entries():
        prefix, _, name = path.rpartition(".")
        owner = namespaces[prefix]
        if name in vars(owner) or hasattr(owner, name):
            continue
        text = message(path, reason)
        if isinstance(owner, type) and not is_callable:
            setattr(owner, name, _property(text))
        elif not is_callable:
            values.setdefault(prefix, {})[name] = text
        elif name[:1].isupper():
            setattr(owner, name, _class(name, text, reason, class_bases.get(prefix, object)))
        else:
            setattr(owner, name, _function(name, text, reason))
    for prefix, reason in NAMESPACES.items():
        values.setdefault(prefix, {})
    for prefix, texts in values.items():
        module = namespaces[prefix]
        module.__getattr__ = _module_getattr(module, texts, prefix, NAMESPACES.get(prefix))
