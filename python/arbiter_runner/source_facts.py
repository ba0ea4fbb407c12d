"""Facts from CUDA / C++ source text: embedded load_inline strings and .cu/.cpp files beside a
solution. Plain substring and regular-expression matches: the text is never compiled here."""
import re

# (kind, pattern) over source text; each match becomes one fact naming what matched.
SOURCE_PATTERNS = [
    ("stream", r"\b(cudaStreamCreate\w*|cuStreamCreate\w*|hipStreamCreate\w*|getStreamFromPool|getStreamFromExternal)\b"),
    ("stream_join", r"\b(cudaStreamSynchronize|cudaDeviceSynchronize|cudaStreamWaitEvent|cudaEventSynchronize|"
                    r"cuStreamSynchronize|cuStreamWaitEvent|cuCtxSynchronize|"
                    r"hipStreamSynchronize|hipDeviceSynchronize|hipStreamWaitEvent|hipEventSynchronize)\b"),
    ("graph", r"\b(cudaGraph\w+|cudaStreamBeginCapture\w*|cuGraph\w+|cuStreamBeginCapture\w*|hipGraph\w+|"
              r"hipStreamBeginCapture\w*)\b"),
    ("library", r"\b(cublas\w+|cublasLt\w+|cudnn\w+|cutlass::\w+|cute::gemm|at::(?:matmul|mm|bmm|addmm|linear|conv\w*)|"
                r"torch::(?:matmul|mm|bmm|addmm|linear|conv\w*)|"
                # ROCm's vendor libraries: rocBLAS, hipBLAS/hipBLASLt, MIOpen, composable_kernel, the sparse ones
                r"rocblas_\w+|hipblas\w+|miopen\w+|ck::\w+|rocsparse_\w+|hipsparse\w+)\b"),
    ("ptx", r"\basm\s*(?:volatile\s*)?\("),
    ("native_load", r"\b(cuModuleLoad\w*|cuLibraryLoad\w*|cudaLibraryLoad\w*|hipModuleLoad\w*|dlopen|cuLinkAddData\w*)\b"),
    ("l2_persist", r"\b(accessPolicyWindow|cudaLimitPersistingL2CacheSize|cudaAccessPropertyPersisting|"
                   r"hitProp|cudaStreamAttributeAccessPolicyWindow|cudaCtxResetPersistingL2Cache)\b"),
    ("thread", r"\b(std::thread|pthread_create|std::async)\b"),
    ("timer_symbol", r"\b(cudaEventElapsedTime|cuEventElapsedTime|cudaEventRecord|cuEventRecord|hipEventElapsedTime|"
                     r"hipEventRecord|clock_gettime|gettimeofday|arb_time)\b"),
    ("precision", r"\b(__half2?|__nv_bfloat16\w*|__float2half\w*|__float2bfloat16\w*|wmma::|mma\.sync)\b"),
    ("exec_memory", r"\b(mprotect|pkey_mprotect|PROT_EXEC)\b"),
    # Reaching into the process's loader, the driver's entry points, CUPTI or the environment from
    # native code: how a solution would find and switch off the probe that runs in its process.
    ("native_reach", r"\b(dlsym|dlvsym|dl_iterate_phdr|dlinfo|getenv|secure_getenv|cupti\w*|cuGetProcAddress\w*|"
                     r"cudaGetDriverEntryPoint\w*|_GLOBAL_OFFSET_TABLE_|link_map|_?r_debug)\b|(?<![\w.])\.got(?:\.plt)?\b"),
]
# Symbol names that only matter in plain Python strings (ctypes lookups, dlopen paths).
SYMBOL_PATTERNS = [
    ("timer_symbol", r"(cudaEventElapsedTime|cuEventElapsedTime|cudaEventRecord|cuEventRecord|clock_gettime|"
                     r"arb_time|libarbiter_runtime|libcudart|libcuda\.so)"),
    ("native_load", r"(cuModuleLoad\w*|\.so(\.\d+)*$|\.cubin$|\.fatbin$)"),
    ("l2_persist", r"(accessPolicyWindow|PersistingL2)"),
    ("exec_memory", r"^((pkey_)?mprotect|PROT_EXEC)$"),
    ("ctypes", r"^_?ctypes$"),
    ("native_reach", r"(dlsym|dl_iterate_phdr|dlinfo|cupti|cuGetProcAddress|cudaGetDriverEntryPoint|"
                     r"_GLOBAL_OFFSET_TABLE_|link_map|r_debug|\.got\b|libarbiter_probe|arbiter_probe_|CUDA_INJECTION64_PATH)"),
]
_SOURCE = [(kind, re.compile(pattern)) for kind, pattern in SOURCE_PATTERNS]
_SYMBOLS = [(kind, re.compile(pattern)) for kind, pattern in SYMBOL_PATTERNS]


def _line_of(text, offset):
    return text.count("\n", 0, offset) + 1


# HIP sources: the runtime's header, its launch macro or any hip* runtime call.
_HIP = re.compile(r"hip/hip_runtime|\bhipLaunchKernelGGL\b|\bhip[A-Z]\w*\s*\(|__HIP_PLATFORM")


def language_of(text):
    """hip, cuda (a __global__ kernel or a <<<>>> launch) or cpp."""
    if _HIP.search(text):
        return "hip"
    return "cuda" if "__global__" in text or "<<<" in text else "cpp"


def scan(collector, text, where, function):
    """Adds facts for CUDA/C++ source text found at `where`; notes the language it is written in."""
    collector.languages.add(language_of(text))
    for kind, pattern in _SOURCE:
        for match in pattern.finditer(text):
            collector.add(kind, match.group(0).strip(), f"{where} (source line {_line_of(text, match.start())})", function)


def scan_symbols(collector, text, where, function):
    """Adds facts for a short Python string naming a native symbol or library."""
    if len(text) > 400:
        return
    for kind, pattern in _SYMBOLS:
        match = pattern.search(text)
        if match:
            collector.add(kind, text[:120], where, function)
