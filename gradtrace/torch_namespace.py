"""torch's importable namespaces (`torch`, `torch.nn`, `torch.nn.functional`, ...), built
once per process: the engine's functions, the names bundled library modules define
(`LIBRARY_EXPORTS`, loaded on first use) and the torch.backends switches a run may set.
"""
from __future__ import annotations

from typing import Any

from .engine import api, dtypes, layouts, ndarray, sparse
from .engine import device as _device
from .engine.anomaly import detect_anomaly, set_detect_anomaly
from .engine.ops import attention as sdp_attention
from .engine.ops.fft import FFT_FUNCTIONS
from .engine.profiler import record_function
from .engine.saved_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks
from .engine.sparse_sum import sparse_sum
from .errors import ScriptError
from .stdlib import ExceptionType, LibraryName, Namespace, TorchExceptionType, torch_has


class FlagNamespace(Namespace):
    """A torch.backends module whose switches a script may set (`torch.backends.cudnn.
    deterministic = True`, as reproducibility recipes do): `flags` maps each switch to the
    name of the C++ setter torch's error names when it is given something other than a
    bool. The switches change nothing here (no cuDNN, no cuBLAS): they read back as set,
    until the run ends (`reset`: each run starts from torch's defaults, like a process)."""

    __slots__ = ("flags", "shown", "defaults")

    def __init__(self, name: str, table: dict[str, Any], flags: dict[str, str],
                 shown: str | None = None):
        super().__init__(name, table)
        self.flags = flags
        self.shown = shown
        self.defaults = {flag: table[flag] for flag in flags}
        _FLAG_NAMESPACES.append(self)

    def reset(self) -> None:
        self.table.update(self.defaults)

    def __repr__(self) -> str:
        return self.shown or super().__repr__()

    def set_flag(self, name: str, value: Any) -> None:
        if type(value) is not bool:
            from .interpreter.objects import type_name

            raise ScriptError(f"{self.flags[name]} expects a bool, but got {type_name(value)}",
                              kind="RuntimeError")
        self.table[name] = value


_FLAG_NAMESPACES: list[FlagNamespace] = []


def reset_backend_flags() -> None:
    """Every torch.backends switch back to torch's default (at the start and end of a run)."""
    for namespace in _FLAG_NAMESPACES:
        namespace.reset()
    sdp_attention.reset_sdp_switches()


def _sdp_switches() -> dict[str, Any]:
    """torch.backends.cuda's scaled-dot-product switches: `flash_sdp_enabled()` reads one,
    `enable_flash_sdp(False)` sets it (engine/ops/attention.py's SDP_ENABLED). A non-bool
    is refused with torch's own messages (its C++ setters share one: every setter but
    cuDNN's names set_sdp_use_math, and cuDNN's keeps a stray `%s`)."""
    table: dict[str, Any] = {}
    for kernel in ("flash", "math", "mem_efficient", "cudnn"):
        message = ("set_sdp_use_cudnn expects a bool, but got %s" if kernel == "cudnn"
                   else "set_sdp_use_math expects a bool, but got ")

        def enabled(kernel: str = kernel) -> bool:
            return sdp_attention.SDP_ENABLED[kernel]

        def enable(enabled: Any, kernel: str = kernel, message: str = message) -> None:
            if type(enabled) is not bool:
                from .interpreter.objects import type_name

                raise ScriptError(message + type_name(enabled), kind="RuntimeError")
            sdp_attention.SDP_ENABLED[kernel] = enabled

        enabled.__name__ = f"{kernel}_sdp_enabled"
        enable.__name__ = f"enable_{kernel}_sdp"
        table[enabled.__name__] = enabled
        table[enable.__name__] = enable
    return table


def _cudnn_is_available() -> bool:
    """torch.backends.cudnn.is_available(): no cuDNN in a CPU-only torch."""
    return False


def _cudnn_version() -> None:
    """torch.backends.cudnn.version(): None without cuDNN."""
    return None


def _cuda_is_built() -> bool:
    """torch.backends.cuda.is_built(): False for a CPU-only torch."""
    return False


def _backends() -> dict[str, Namespace]:
    """torch.backends.cudnn and torch.backends.cuda(.matmul) as a CPU-only torch has them."""
    cudnn = FlagNamespace("torch.backends.cudnn", {
        "is_available": _cudnn_is_available, "version": _cudnn_version,
        "enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}, {
        "enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
        "deterministic": "set_deterministic_cudnn", "allow_tf32": "set_allow_tf32_cublas"})
    matmul = FlagNamespace("torch.backends.cuda.matmul", {
        "allow_tf32": False, "allow_fp16_reduced_precision_reduction": True,
        "allow_bf16_reduced_precision_reduction": True}, {
        "allow_tf32": "set_allow_tf32_cublas",
        "allow_fp16_reduced_precision_reduction": "set_allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction": "set_allow_bf16_reduced_precision_reduction"},
        shown="<torch.backends.cuda.cuBLASModule object>")
    cuda = Namespace("torch.backends.cuda", {
        "is_built": _cuda_is_built, "matmul": matmul, **_sdp_switches()})
    return {"torch.backends.cudnn": cudnn, "torch.backends.cuda": cuda}


_NN_UTILS = {
    "clip_grad_norm_": "torch.nn.utils.clip_grad",
    "clip_grad_value_": "torch.nn.utils.clip_grad",
    "clip_grad_norm": "torch.nn.utils.clip_grad",
    "get_total_norm": "torch.nn.utils.clip_grad",
    "clip_grads_with_norm_": "torch.nn.utils.clip_grad",
    **{name: "torch.nn.utils.fusion" for name in (
        "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
        "fuse_linear_bn_weights")},
    "parameters_to_vector": "torch.nn.utils.convert_parameters",
    "vector_to_parameters": "torch.nn.utils.convert_parameters",
    "weight_norm": "torch.nn.utils.weight_norm",
    "remove_weight_norm": "torch.nn.utils.weight_norm",
    "spectral_norm": "torch.nn.utils.spectral_norm",
    "remove_spectral_norm": "torch.nn.utils.spectral_norm",
    "skip_init": "torch.nn.utils.init",
}

_TRANSFORMS = (
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform",
    "LowerCholeskyTransform", "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform",
    "SigmoidTransform", "SoftplusTransform", "TanhTransform", "SoftmaxTransform",
    "StackTransform", "StickBreakingTransform", "Transform", "identity_transform")

_DISTRIBUTIONS = {
    **{name: "torch.distributions.transforms" for name in _TRANSFORMS},
    "TransformedDistribution": "torch.distributions.transformed_distribution",
    "MultivariateNormal": "torch.distributions.multivariate_normal",
    "LowRankMultivariateNormal": "torch.distributions.lowrank_multivariate_normal",
    "VonMises": "torch.distributions.von_mises",
    "Multinomial": "torch.distributions.multinomial",
    "ContinuousBernoulli": "torch.distributions.continuous_bernoulli",
    "biject_to": "torch.distributions.constraint_registry",
    "transform_to": "torch.distributions.constraint_registry",
    "MixtureSameFamily": "torch.distributions.mixture_same_family",
    "RelaxedBernoulli": "torch.distributions.relaxed_bernoulli",
    "RelaxedOneHotCategorical": "torch.distributions.relaxed_categorical",
    "OneHotCategoricalStraightThrough": "torch.distributions.one_hot_categorical",
    "Exponential": "torch.distributions.exponential",
    "Laplace": "torch.distributions.laplace",
    "Cauchy": "torch.distributions.cauchy",
    "LogNormal": "torch.distributions.log_normal",
    "HalfNormal": "torch.distributions.half_normal",
    "HalfCauchy": "torch.distributions.half_cauchy",
    "Gumbel": "torch.distributions.gumbel",
    "Geometric": "torch.distributions.geometric",
    "Pareto": "torch.distributions.pareto",
    "GeneralizedPareto": "torch.distributions.generalized_pareto",
    "Weibull": "torch.distributions.weibull",
    "LogisticNormal": "torch.distributions.logistic_normal",
    "Distribution": "torch.distributions.distribution",
    "ExponentialFamily": "torch.distributions.exp_family",
    "Normal": "torch.distributions.normal",
    "Uniform": "torch.distributions.uniform",
    "Bernoulli": "torch.distributions.bernoulli",
    "Categorical": "torch.distributions.categorical",
    "Independent": "torch.distributions.independent",
    "OneHotCategorical": "torch.distributions.one_hot_categorical",
    "kl_divergence": "torch.distributions.kl",
    "register_kl": "torch.distributions.kl",
    "Gamma": "torch.distributions.gamma",
    "Chi2": "torch.distributions.chi2",
    "Dirichlet": "torch.distributions.dirichlet",
    "Beta": "torch.distributions.beta",
    "Poisson": "torch.distributions.poisson",
    "StudentT": "torch.distributions.studentT",
    "Binomial": "torch.distributions.binomial",
    "NegativeBinomial": "torch.distributions.negative_binomial",
    "LKJCholesky": "torch.distributions.lkj_cholesky",
    "Wishart": "torch.distributions.wishart",
    "InverseGamma": "torch.distributions.inverse_gamma",
    "Kumaraswamy": "torch.distributions.kumaraswamy",
    "FisherSnedecor": "torch.distributions.fishersnedecor",
}
_CONSTRAINTS = (
    "Constraint", "is_dependent", "dependent", "independent", "boolean", "one_hot",
    "nonnegative_integer", "positive_integer", "integer_interval", "real", "real_vector",
    "positive", "nonnegative", "greater_than", "greater_than_eq", "less_than",
    "unit_interval", "interval", "half_open_interval", "simplex", "multinomial",
    "lower_triangular", "lower_cholesky", "corr_cholesky", "square", "symmetric",
    "positive_semidefinite", "positive_definite", "cat", "stack", "MixtureSameFamilyConstraint")

_DATA = {
    **{name: "torch.utils.data.dataset" for name in (
        "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
        "ChainDataset", "Subset", "random_split")},
    **{name: "torch.utils.data.sampler" for name in (
        "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
        "WeightedRandomSampler", "BatchSampler")},
    "DataLoader": "torch.utils.data.dataloader",
    "get_worker_info": "torch.utils.data._utils.worker",
    "default_collate": "torch.utils.data._utils.collate",
    "default_convert": "torch.utils.data._utils.collate",
}

_NN_MODULES = (
    ("module", "Module Buffer"),
    ("container", "Sequential ModuleList ModuleDict ParameterList ParameterDict"),
    ("linear", "Identity Linear Bilinear"),
    ("lazy", "LazyLinear LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d "
             "LazyConvTranspose2d LazyConvTranspose3d LazyBatchNorm1d LazyBatchNorm2d "
             "LazyBatchNorm3d LazyInstanceNorm1d LazyInstanceNorm2d LazyInstanceNorm3d"),
    ("conv", "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d"),
    ("pooling", "MaxPool1d MaxPool2d MaxPool3d FractionalMaxPool2d AvgPool1d AvgPool2d "
                "FractionalMaxPool3d "
                "AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d "
                "AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d MaxUnpool1d "
                "MaxUnpool2d MaxUnpool3d LPPool1d LPPool2d LPPool3d"),
    ("batchnorm", "BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm"),
    ("instancenorm", "InstanceNorm1d InstanceNorm2d InstanceNorm3d"),
    ("normalization", "LayerNorm GroupNorm LocalResponseNorm RMSNorm"),
    ("sparse", "Embedding EmbeddingBag"),
    ("rnn", "RNNBase RNN LSTM GRU RNNCellBase RNNCell LSTMCell GRUCell"),
    ("upsampling", "Upsample UpsamplingNearest2d UpsamplingBilinear2d"),
    ("padding", "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
                "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d "
                "ReplicationPad1d ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d "
                "ZeroPad3d"),
    ("flatten", "Flatten Unflatten"),
    ("pixelshuffle", "PixelShuffle PixelUnshuffle ChannelShuffle"),
    ("fold", "Fold Unfold"),
    ("distance", "PairwiseDistance CosineSimilarity"),
    ("dropout", "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout "
                "FeatureAlphaDropout"),
    ("activation", "Threshold ReLU RReLU Hardtanh ReLU6 Sigmoid Hardsigmoid Tanh SiLU Mish "
                   "Hardswish ELU CELU SELU GLU GELU Hardshrink LeakyReLU LogSigmoid "
                   "Softplus Softshrink Softsign Tanhshrink Softmin Softmax "
                   "Softmax2d LogSoftmax PReLU"),
    ("attention", "MultiheadAttention"),
    ("adaptive", "AdaptiveLogSoftmaxWithLoss"),
    ("transformer", "Transformer TransformerEncoder TransformerDecoder "
                    "TransformerEncoderLayer TransformerDecoderLayer"),
    ("loss", "L1Loss NLLLoss KLDivLoss MSELoss BCELoss BCEWithLogitsLoss SmoothL1Loss "
             "HuberLoss SoftMarginLoss CrossEntropyLoss CosineEmbeddingLoss "
             "MarginRankingLoss HingeEmbeddingLoss MultiLabelSoftMarginLoss "
             "MultiMarginLoss MultiLabelMarginLoss TripletMarginLoss "
             "TripletMarginWithDistanceLoss PoissonNLLLoss GaussianNLLLoss NLLLoss2d "
             "CTCLoss"),
)
"""torch.nn's classes by the torch.nn.modules submodule defining them."""
_NN_PRIVATE = {"module": "_addindent", "loss": "_Loss _WeightedLoss",
               "conv": "_ConvNd _ConvTransposeNd",
               "batchnorm": "_NormBase _BatchNorm", "instancenorm": "_InstanceNorm",
               "dropout": "_DropoutNd", "pooling": "_MaxPoolNd _AvgPoolNd _AdaptiveAvgPoolNd "
               "_AdaptiveMaxPoolNd _MaxUnpoolNd _LPPoolNd"}
"""The base classes scripts subclass (`from torch.nn.modules.loss import _Loss`), and the
module's _addindent, which hand-written module reprs and summary printers indent with."""
_NN_ELSEWHERE = {"Buffer": None, "ChannelShuffle": "channelshuffle",
                 "MultiheadAttention": "activation", "LazyLinear": "linear",
                 **{f"Lazy{kind}{d}": module for kind, module in (
                     ("Conv", "conv"), ("ConvTranspose", "conv"), ("BatchNorm", "batchnorm"),
                     ("InstanceNorm", "instancenorm")) for d in ("1d", "2d", "3d")}}
"""Where torch defines the classes gradtrace's library puts in another file (None: not in
torch.nn.modules)."""


def _nn_submodules() -> dict[str, dict[str, str]]:
    """torch.nn.modules.<submodule> -> {name: the library module defining it}, laid out as
    torch's submodules are."""
    tables: dict[str, dict[str, str]] = {}
    for module, names in _NN_MODULES:
        for name in (names + " " + _NN_PRIVATE.get(module, "")).split():
            where = _NN_ELSEWHERE.get(name, module)
            if where is not None:
                tables.setdefault(f"torch.nn.modules.{where}", {})[name] = \
                    f"torch.nn.modules.{module}"
    return tables

_JIT_SCRIPT = ("script", "ScriptModule", "ScriptFunction", "RecursiveScriptModule", "ignore",
               "unused", "export", "is_scripting", "annotate", "script_method")
_JIT_TRACE = ("trace", "trace_module", "TracedModule", "TopLevelTracedModule", "is_tracing",
              "_script_if_tracing")

# torch/optim/<module>.py of each optimizer: its class and, where the library writes it, its
# functional form (`from torch.optim.sgd import SGD`, warmup schedulers' examples); importable,
# but torch/optim/__init__.py deletes them (`del sgd`, and `del optimizer`) from the package
_OPTIMIZER_MODULES = {
    "torch.optim.sgd": "SGD sgd", "torch.optim.adam": "Adam adam", "torch.optim.adamw": "AdamW",
    "torch.optim.rmsprop": "RMSprop rmsprop", "torch.optim.adagrad": "Adagrad adagrad",
    "torch.optim.sparse_adam": "SparseAdam", "torch.optim.lbfgs": "LBFGS",
    "torch.optim.adadelta": "Adadelta adadelta", "torch.optim.adamax": "Adamax adamax",
    "torch.optim.nadam": "NAdam nadam", "torch.optim.radam": "RAdam radam",
    "torch.optim.rprop": "Rprop rprop", "torch.optim.asgd": "ASGD asgd",
    "torch.optim._adafactor": "Adafactor adafactor"}
_NOT_PACKAGE_ATTRIBUTES = frozenset({*_OPTIMIZER_MODULES, "torch.optim.optimizer"})

LIBRARY_EXPORTS: dict[str, dict[str, str]] = {
    "torch.fx": {"wrap": "torch.fx._symbolic_trace"},
    "torch.fx._symbolic_trace": {"wrap": "torch.fx._symbolic_trace"},
    "torch.distributions": _DISTRIBUTIONS,
    "torch.distributions.constraints": {name: "torch.distributions.constraints"
                                        for name in _CONSTRAINTS},
    # the helpers the distributions share, which scripts' own Distribution subclasses take
    # (`from torch.distributions.utils import broadcast_all, lazy_property`)
    "torch.distributions.utils": {name: "torch.distributions.utils" for name in (
        "broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
        "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant", "lazy_property")},
    # the submodules themselves (`torch.distributions.normal.Normal`)
    **{module: {name: module for name, defined in _DISTRIBUTIONS.items() if defined == module}
       for module in sorted(set(_DISTRIBUTIONS.values()))},
    "torch.utils.data": _DATA,
    # the submodules themselves (`from torch.utils.data.sampler import SubsetRandomSampler`)
    **{module: {name: module for name, defined in _DATA.items() if defined == module}
       for module in ("torch.utils.data.dataset", "torch.utils.data.sampler")},
    # torch/utils/data/dataloader.py imports these from the package's modules, and scripts
    # take them from it (`from torch.utils.data.dataloader import default_collate`)
    "torch.utils.data.dataloader": {"DataLoader": "torch.utils.data.dataloader",
                                    **{name: _DATA[name] for name in (
                                        "get_worker_info", "default_collate",
                                        "default_convert", "Dataset", "IterableDataset",
                                        "Sampler", "SequentialSampler", "RandomSampler",
                                        "BatchSampler")}},
    "torch.amp": {"GradScaler": "torch.amp.grad_scaler", "autocast": "torch.amp.autocast_mode",
                  **{name: "torch.amp.autocast_mode" for name in (
                      "is_autocast_available", "custom_fwd", "custom_bwd")}},
    "torch.amp.grad_scaler": {"GradScaler": "torch.amp.grad_scaler",
                              "OptState": "torch.amp.grad_scaler"},
    "torch.amp.autocast_mode": {name: "torch.amp.autocast_mode" for name in (
        "autocast", "is_autocast_available", "custom_fwd", "custom_bwd")},
    "torch.cuda.amp": {name: "torch.cuda.amp" for name in (
        "GradScaler", "autocast", "custom_fwd", "custom_bwd")},
    "torch": {"save": "torch.serialization", "load": "torch.serialization",
              "autocast": "torch.amp.autocast_mode",
              "is_autocast_enabled": "torch.amp.autocast_mode",
              "get_autocast_dtype": "torch.amp.autocast_mode",
              "typename": "torch._typename",
              "unravel_index": "torch._unravel_index",
              # removed since torch 1.9; each raises torch's error naming its replacement
              **{name: "torch._linalg_utils" for name in (
                  "eig", "lstsq", "matrix_rank", "solve", "symeig")},
              "vmap": "torch._functorch.apis", "ops": "torch.library",
              "svd_lowrank": "torch._lowrank", "pca_lowrank": "torch._lowrank"},
    "torch.serialization": {name: "torch.serialization" for name in (
        "save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
        "safe_globals")},
    "torch.functional": {"unravel_index": "torch._unravel_index"},
    "torch.random": {"fork_rng": "torch.random"},
    "torch.library": {name: "torch.library" for name in (
        "custom_op", "infer_schema", "register_autograd", "register_fake", "register_kernel",
        "CustomOpDef", "opcheck", "Library", "define", "impl", "get_ctx",
        "register_torch_dispatch", "register_vmap", "register_autocast")},
    "torch.types": {name: "torch.types" for name in (
        "Number", "Device", "_TensorOrTensors", "_size", "_int", "_float", "_bool",
        "_complex", "_str", "_dtype", "_device", "Tensor", "Sequence", "Union", "Any")},
    "torch.utils": {"swap_tensors": "torch.utils"},
    "torch.backends.cuda": {"sdp_kernel": "torch.backends.cuda"},
    "torch.nn.attention": {name: "torch.nn.attention" for name in (
        "SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS")},
    # the handle module hooks return, which summary printers name in their annotations
    # (`hooks: List[RemovableHandle]`); a tensor hook's handle is the engine's own class
    "torch.utils.hooks": {"RemovableHandle": "torch.utils.hooks"},
    "torch.utils.checkpoint": {name: "torch.utils.checkpoint" for name in (
        "checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity",
        "CheckpointFunction", "CheckpointError", "noop_context_fn", "get_device_states",
        "set_device_states")},
    "torch.autograd": {"Function": "torch.autograd.function"},
    "torch.autograd.graph": {name: "torch.autograd.graph" for name in (
        "GradientEdge", "get_gradient_edge", "register_multi_grad_hook",
        "increment_version", "allow_mutation_on_saved_tensors")},
    "torch.autograd.forward_ad": {name: "torch.autograd.forward_ad" for name in (
        "UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
        "unpack_dual", "dual_level")},
    "torch.func": {name: "torch._functorch.apis" for name in (
        "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
        "functional_call", "stack_module_state", "linearize")},
    "torch.nn.utils.stateless": {"functional_call": "torch.nn.utils.stateless"},
    "torch.nn.utils.parametrizations": {
        "weight_norm": "torch.nn.utils.parametrizations",
        "spectral_norm": "torch.nn.utils.parametrizations",
        "orthogonal": "torch.nn.utils.parametrizations"},
    "torch.nn.utils.parametrize": {name: "torch.nn.utils.parametrize" for name in (
        "cached", "ParametrizationList", "register_parametrization", "is_parametrized",
        "remove_parametrizations", "type_before_parametrizations",
        "transfer_parametrizations_and_params")},
    "torch.autograd.function": {
        "Function": "torch.autograd.function",
        "InplaceFunction": "torch.autograd.function",
        "once_differentiable": "torch.autograd.function",
    },
    "torch.optim": {
        "Optimizer": "torch.optim.optimizer",
        "SGD": "torch.optim.sgd",
        "Adam": "torch.optim.adam",
        "AdamW": "torch.optim.adamw",
        "RMSprop": "torch.optim.rmsprop",
        "Adagrad": "torch.optim.adagrad",
        "SparseAdam": "torch.optim.sparse_adam",
        "LBFGS": "torch.optim.lbfgs",
        "Adadelta": "torch.optim.adadelta",
        "Adamax": "torch.optim.adamax",
        "NAdam": "torch.optim.nadam",
        "RAdam": "torch.optim.radam",
        "Rprop": "torch.optim.rprop",
        "ASGD": "torch.optim.asgd",
        "Adafactor": "torch.optim._adafactor",
    },
    **{module: {name: module for name in names.split()}
       for module, names in _OPTIMIZER_MODULES.items()},
    "torch.optim.swa_utils": {name: "torch.optim.swa_utils" for name in (
        "AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
        "get_ema_avg_fn", "get_swa_avg_fn")},
    "torch.optim.lr_scheduler": {
        "LambdaLR": "torch.optim.lr_scheduler",
        "MultiplicativeLR": "torch.optim.lr_scheduler",
        "StepLR": "torch.optim.lr_scheduler",
        "MultiStepLR": "torch.optim.lr_scheduler",
        "ConstantLR": "torch.optim.lr_scheduler",
        "LinearLR": "torch.optim.lr_scheduler",
        "ExponentialLR": "torch.optim.lr_scheduler",
        "SequentialLR": "torch.optim.lr_scheduler",
        "CosineAnnealingLR": "torch.optim.lr_scheduler",
        "ChainedScheduler": "torch.optim.lr_scheduler",
        "ReduceLROnPlateau": "torch.optim.lr_scheduler",
        "CyclicLR": "torch.optim.lr_scheduler_cycles",
        "CosineAnnealingWarmRestarts": "torch.optim.lr_scheduler_cycles",
        "OneCycleLR": "torch.optim.lr_scheduler_cycles",
        "PolynomialLR": "torch.optim.lr_scheduler",
        "LRScheduler": "torch.optim.lr_scheduler",
        # the base class subclasses of torch < 2.0 derive from (UvA's CosineWarmupScheduler)
        "_LRScheduler": "torch.optim.lr_scheduler",
    },
    "torch.optim.optimizer": {
        "Optimizer": "torch.optim.optimizer",
        "required": "torch.optim.optimizer",
        "ParamsT": "torch.optim.optimizer",
        "StateDict": "torch.optim.optimizer",
        "register_optimizer_step_pre_hook": "torch.optim.optimizer",
        "register_optimizer_step_post_hook": "torch.optim.optimizer",
    },
    "torch.nn": {**{name: f"torch.nn.modules.{module}" for module, names in _NN_MODULES
                    for name in names.split()},
                 "DataParallel": "torch.nn.parallel.data_parallel"},
    # only the class: torch.nn.parallel's `data_parallel` attribute is a function, which
    # shadows the submodule of that name (and is not supported)
    "torch.nn.parallel": {"DataParallel": "torch.nn.parallel.data_parallel",
                          "DistributedDataParallel": "torch.nn.parallel.distributed"},
    "torch.nn.modules": {name: f"torch.nn.modules.{module}" for module, names in _NN_MODULES
                         for name in names.split()},
    **_nn_submodules(),
    "torch.nn.functional": {
        "multi_head_attention_forward": "torch.nn.modules.attention",
        **{name: "torch.nn.modules.functional_more" for name in (
            "upsample", "upsample_nearest", "upsample_bilinear", "gumbel_softmax")}},
    "torch.nn.utils": _NN_UTILS,
    "torch.testing": {"assert_close": "torch.testing"},
    "torch.jit": {**{name: "torch.jit._script" for name in _JIT_SCRIPT},
                  **{name: "torch.jit._trace" for name in _JIT_TRACE},
                  "script_if_tracing": "torch.jit._trace",  # (torch/jit/__init__.py's)
                  "isinstance": "torch.jit._isinstance"},
    "torch.jit._script": {name: "torch.jit._script" for name in _JIT_SCRIPT},
    "torch.jit._trace": {name: "torch.jit._trace" for name in _JIT_TRACE},
    "torch.nn.utils.prune": {name: "torch.nn.utils.prune" for name in (
        "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
        "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
        "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
        "global_unstructured", "custom_from_mask", "remove", "is_pruned")},
    "torch.nn.utils.rnn": {name: "torch.nn.utils.rnn" for name in (
        "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
        "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence")},
    # the submodules themselves (`nn.utils.clip_grad.clip_grad_norm_(...)`)
    **{module: {name: module for name, defined in _NN_UTILS.items() if defined == module}
       for module in sorted(set(_NN_UTILS.values()))},
}
"""Names bundled `.gt` library modules (gradtrace/lib/) put into torch's namespaces:
namespace -> {name: the library module defining it}. See docs/library.md."""


_TORCH_FUNCTIONAL = (
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
    "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
    "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
    "unique_consecutive", "unravel_index")


def _build_torch() -> dict[str, Namespace]:
    """Every importable torch namespace, by dotted name."""
    from .interpreter.objects import opaque_type
    from .tensor_types import (
        LEGACY,
        NODE,
        PARAMETER,
        SIZE,
        TENSOR,
        UNINITIALIZED_BUFFER,
        UNINITIALIZED_PARAMETER,
        VALUE_CLASSES,
        VARIABLE,
        VERSION,
        set_default_tensor_type,
    )

    functional = Namespace("torch.nn.functional", dict(api.FUNCTIONAL))
    # functional.py's `from torch.nn import _reduction as _Reduction` (BasicSR's losses call
    # `F._Reduction.get_enum`): the library module's functions, the module itself not
    # importable
    functional.table["_Reduction"] = Namespace("torch.nn._reduction", {
        name: LibraryName("torch.nn._reduction", name)
        for name in ("get_enum", "legacy_get_string", "legacy_get_enum")})
    # gradtrace never warns one (it refuses what torch warns of while tracing), but scripts
    # filter it: warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    TRACER_WARNING = TorchExceptionType("TracerWarning", "torch.jit._trace")  # noqa: N806
    uninitialized = {"Parameter": PARAMETER, "UninitializedParameter": UNINITIALIZED_PARAMETER,
                     "UninitializedBuffer": UNINITIALIZED_BUFFER}
    modules = {
        "torch": Namespace("torch", {**api.TORCH_FUNCTIONS, **api.DTYPES, **api.CONSTANTS,
                                     **layouts.TORCH_NAMES,
                                     **{c.name: c for c in VALUE_CLASSES.values()},
                                     "Tensor": TENSOR,
                                     # the classes of Tensor.untyped_storage() and
                                     # .storage(), for isinstance
                                     "UntypedStorage": opaque_type("UntypedStorage",
                                                                   "torch.storage"),
                                     "TypedStorage": opaque_type("TypedStorage",
                                                                 "torch.storage"),
                                     "set_default_tensor_type": set_default_tensor_type,
                                     **LEGACY, "Size": SIZE, "__version__": VERSION,
                                     "sparse_coo_tensor": sparse.sparse_coo_tensor}),
        "torch.nn": Namespace("torch.nn", {**api.NN, **uninitialized}),
        "torch.nn.parameter": Namespace("torch.nn.parameter", dict(uninitialized)),
        "torch.nn.functional": functional,
        "torch.nn.init": Namespace("torch.nn.init", dict(api.INIT_FUNCTIONS)),
        "torch.nn.utils": Namespace("torch.nn.utils", {}),
        # `import torch.nn.parallel` (the DCGAN tutorial's): importable, with DataParallel
        # as torch runs it without accelerators (the rest: no devices to spread a batch over)
        "torch.nn.parallel": Namespace("torch.nn.parallel", {}),
        "torch.nn.attention": Namespace("torch.nn.attention", {}),
        "torch.nn.utils.clip_grad": Namespace("torch.nn.utils.clip_grad", {}),
        "torch.nn.utils.convert_parameters": Namespace("torch.nn.utils.convert_parameters", {}),
        "torch.nn.utils.rnn": Namespace("torch.nn.utils.rnn", {}),
        "torch.nn.utils.prune": Namespace("torch.nn.utils.prune", {}),
        "torch.testing": Namespace("torch.testing", {}),
        "torch.jit": Namespace("torch.jit", {"TracerWarning": TRACER_WARNING}),
        "torch.fx": Namespace("torch.fx", {}),
        "torch.fx._symbolic_trace": Namespace("torch.fx._symbolic_trace", {}),
        "torch.jit._script": Namespace("torch.jit._script", {}),
        "torch.jit._trace": Namespace("torch.jit._trace", {"TracerWarning": TRACER_WARNING}),
        "torch.nn.modules": Namespace("torch.nn.modules", {}),
        **{module: Namespace(module, {}) for module in _nn_submodules()},
        "torch.nn.utils.weight_norm": Namespace("torch.nn.utils.weight_norm", {}),
        "torch.nn.utils.fusion": Namespace("torch.nn.utils.fusion", {}),
        "torch.nn.utils.init": Namespace("torch.nn.utils.init", {}),
        "torch.nn.utils.stateless": Namespace("torch.nn.utils.stateless", {}),
        "torch.nn.utils.parametrize": Namespace("torch.nn.utils.parametrize", {}),
        "torch.nn.utils.parametrizations": Namespace("torch.nn.utils.parametrizations", {}),
        "torch.func": Namespace("torch.func", {}),
        "torch.nn.utils.spectral_norm": Namespace("torch.nn.utils.spectral_norm", {}),
        "torch.autograd": Namespace("torch.autograd", {**api.AUTOGRAD_FUNCTIONS,
                                                       "Variable": VARIABLE}),
        "torch.autograd.function": Namespace("torch.autograd.function", {}),
        "torch.autograd.grad_mode": Namespace("torch.autograd.grad_mode", {
            name: api.AUTOGRAD_FUNCTIONS[name] for name in (
                "no_grad", "enable_grad", "set_grad_enabled", "inference_mode")}),
        # old code's `from torch.autograd.variable import Variable`
        "torch.autograd.variable": Namespace("torch.autograd.variable", {"Variable": VARIABLE}),
        "torch.autograd.forward_ad": Namespace("torch.autograd.forward_ad", {}),
        "torch.autograd.graph": Namespace("torch.autograd.graph", {
            "saved_tensors_hooks": saved_tensors_hooks, "save_on_cpu": save_on_cpu,
            "disable_saved_tensors_hooks": disable_saved_tensors_hooks, "Node": NODE}),
        "torch.autograd.functional": Namespace("torch.autograd.functional",
                                               dict(api.AUTOGRAD_FUNCTIONAL)),
        "torch.autograd.anomaly_mode": Namespace("torch.autograd.anomaly_mode", {
            "detect_anomaly": detect_anomaly, "set_detect_anomaly": set_detect_anomaly}),
        # a profiler label, a no-op with no profiler running (torch's profilers are not
        # supported): code annotated for profiling runs
        "torch.autograd.profiler": Namespace("torch.autograd.profiler",
                                             {"record_function": record_function}),
        "torch.profiler": Namespace("torch.profiler", {"record_function": record_function}),
        # the module; `torch.autograd.gradcheck` itself is the function, as in torch
        "torch.autograd.gradcheck": Namespace("torch.autograd.gradcheck", {
            **api.GRADCHECK, "GradcheckError": ExceptionType("GradcheckError")}),
        "torch.linalg": Namespace("torch.linalg", {
            **api.LINALG_FUNCTIONS, "LinAlgError": TorchExceptionType("_LinAlgError", "torch._C")}),
        "torch.special": Namespace("torch.special", dict(api.SPECIAL_FUNCTIONS)),
        "torch.fft": Namespace("torch.fft", dict(FFT_FUNCTIONS)),
        "torch.sparse": Namespace("torch.sparse", {
            "mm": sparse.sparse_mm, "sum": sparse_sum,
            **{f"{name}Tensor": sparse.legacy_constructor(dtype)
               for name, dtype in (("Float", dtypes.float32), ("Double", dtypes.float64),
                                   ("Long", dtypes.int64))}}),
        # torch/functional.py: the torch functions written in Python (torch.functional.__all__)
        "torch.functional": Namespace("torch.functional", {
            name: api.TORCH_FUNCTIONS[name] for name in _TORCH_FUNCTIONAL
            if name in api.TORCH_FUNCTIONS}
            # its `import torch.nn.functional as F`, which blog code reaches it through
            # (`torch.functional.F.softplus(scale)`)
            | {"F": functional}),
        # torch/version.py of the CPU wheel (env-printing scripts read torch.version.cuda)
        "torch.version": Namespace("torch.version", {
            "__version__": VERSION, "cuda": None, "hip": None, "rocm": None, "xpu": None,
            "debug": False, "git_version": "cf30153c4c131c8164ee7798e5022d810682e2cb"}),
        "torch.cuda": Namespace("torch.cuda", dict(api.CUDA_FUNCTIONS)),
        "torch.cuda.amp": Namespace("torch.cuda.amp", {}),
        "torch.distributed": Namespace("torch.distributed", dict(_device.DISTRIBUTED_FUNCTIONS)),
        # its autograd-aware collectives (open_clip's `import torch.distributed.nn`)
        "torch.distributed.nn": Namespace("torch.distributed.nn", {
            name: _device.no_process_group for name in (
                "all_gather", "all_reduce", "all_to_all", "broadcast", "gather", "reduce",
                "reduce_scatter", "scatter")}),
        "torch.xpu": Namespace("torch.xpu", dict(api.XPU_FUNCTIONS)),
        "torch.accelerator": Namespace("torch.accelerator", dict(api.ACCELERATOR_FUNCTIONS)),
        "torch.amp": Namespace("torch.amp", {}),
        "torch.amp.grad_scaler": Namespace("torch.amp.grad_scaler", {}),
        "torch.amp.autocast_mode": Namespace("torch.amp.autocast_mode", {}),
        "torch.backends": Namespace("torch.backends", {}),
        "torch.backends.mps": Namespace("torch.backends.mps", dict(api.MPS_FUNCTIONS)),
        **_backends(),
        "torch.optim": Namespace("torch.optim", {}),
        "torch.optim.optimizer": Namespace("torch.optim.optimizer", {}),
        "torch.optim.lr_scheduler": Namespace("torch.optim.lr_scheduler", {}),
        "torch.optim.swa_utils": Namespace("torch.optim.swa_utils", {}),
        **{module: Namespace(module, {}) for module in _OPTIMIZER_MODULES},
        "torch.utils": Namespace("torch.utils", {}),
        "torch.serialization": Namespace("torch.serialization", {}),
        "torch.utils.data": Namespace("torch.utils.data", {}),
        **{module: Namespace(module, {}) for module in (
            "torch.utils.data.dataset", "torch.utils.data.sampler",
            "torch.utils.data.dataloader",
            # importable (`import torch.utils.data.distributed` heads many training
            # scripts); its DistributedSampler is not supported
            "torch.utils.data.distributed")},
        "torch.utils.checkpoint": Namespace("torch.utils.checkpoint", {}),
        "torch.utils.hooks": Namespace("torch.utils.hooks", {}),
        "torch.library": Namespace("torch.library", {}),
        "torch.types": Namespace("torch.types", {}),
        "torch.random": Namespace("torch.random", {
            name: api.TORCH_FUNCTIONS[name] for name in (
                "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state")
            if name in api.TORCH_FUNCTIONS}),
        "torch.distributions": Namespace("torch.distributions", {}),
        "torch.distributions.constraints": Namespace("torch.distributions.constraints", {}),
        "torch.distributions.utils": Namespace("torch.distributions.utils", {}),
        **{module: Namespace(module, {}) for module in sorted(set(_DISTRIBUTIONS.values()))},
    }
    for namespace, names in LIBRARY_EXPORTS.items():
        modules[namespace].table.update({name: LibraryName(module, name)
                                         for name, module in names.items()})
    for dotted, module in modules.items():  # each is an attribute of its parent (unless
        parent, _, name = dotted.rpartition(".")  # the parent has a function of that name,
        if parent and dotted not in _NOT_PACKAGE_ATTRIBUTES:  # or torch deletes it)
            modules[parent].table.setdefault(name, module)
    return modules


MODULES: dict[str, Namespace] = _build_torch()
TORCH = MODULES["torch"]
# a torch module that does `import torch` has torch as an attribute, and old code reaches
# torch through one (gram-ai's capsule network: `torch.sparse.torch.eye(10)`)
for _module in MODULES.values():
    if torch_has(_module, "torch"):
        _module.table.setdefault("torch", TORCH)
TORCH.table["from_numpy"] = ndarray.from_numpy
