"""tileskip's exception and warning classes (the extension raises them; see core/model/error.hpp)."""


class UnavailableError(RuntimeError):
    """No backend or device can run this: no driver, no GPU, too little device memory, a
    backend this build lacks at run time (the CLI's exit code 3). The message says why and
    what to install or change."""


class VerificationError(RuntimeError):
    """A kernel's C differed from the float64 reference beyond the error bound (the CLI's exit
    code 1; docs/testing.md, "The error measure")."""


class ConversionWarning(UserWarning):
    """An operand's conversion to float32 lost something: finite values became Inf, non-zeros
    became zero (which changes the skip patterns), or integers beyond 2^24 were rounded."""


class DensifiedWarning(UserWarning):
    """A sparse operand (``scipy.sparse``, a PyTorch sparse layout) was made dense before the
    kernels saw it, as they read dense row-major memory: the message gives what that cost
    (the dense size and the time). Nothing was lost; skipping still finds its zeros."""


class FirstBuildWarning(UserWarning):
    """The first product on a CPU Vulkan device (lavapipe) compiled the kernels' shaders, a few
    seconds each: why that call was slow. Said once a process; later calls reuse them."""


class DiagnosticWarning(UserWarning):
    """A message from the driver or the Vulkan validation layers (TILESKIP_VALIDATION=1) while
    tileskip ran a kernel. The test suite turns these into errors."""
