// _tileskip: the Python extension behind the `tileskip` package (python/tileskip/__init__.py
// holds the documented API and calls these). It links the same core and backends as the
// command; the CUDA backend stays a run-time module, found beside this extension
// (core/process/runtime_module.hpp), so the package imports on a machine without a GPU.
//
// Arrays cross as NumPy arrays described by dtype, shape and strides (core's matrixFromArray
// converts them as the .npy reader converts a file); C comes back as a NumPy array that owns the
// Matrix it was computed into, no copy. Reports cross as the JSON text the CLI writes, so the
// fields are the CLI's by construction. Errors keep their kind: core's InputError becomes
// ValueError, UnavailableError tileskip.UnavailableError, a failed verification
// tileskip.VerificationError.
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend_registry.hpp"
#include "core/measure/bench.hpp"
#include "core/model/error.hpp"
#include "core/model/generators.hpp"
#include "core/measure/inspect.hpp"
#include "core/measure/modelled_device.hpp"
#include "core/measure/kernel_selection.hpp"
#include "core/measure/mlp.hpp"
#include "core/measure/multiply.hpp"
#include "core/io/block_sparse_io.hpp"
#include "core/io/matrix_io.hpp"
#include "core/model/block_sparse.hpp"
#include "core/model/reference.hpp"
#include "core/io/report.hpp"
#include "core/process/runtime_module.hpp"

namespace py = pybind11;

namespace tileskip::python {

namespace {

// Backends stay open between calls: opening Vulkan (an instance, a device, the pipelines) costs
// far more than a small product. close() releases them before the interpreter exits.
struct OpenBackends {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, std::unique_ptr<Backend>> byName;
  std::map<int, std::string> best;  // per device index: the backend None chose the first time
};

// A backend is one device queue (Vulkan: one command buffer), so calls from several Python
// threads take turns on it: each holds this while it runs on a backend. Taken only with the GIL
// released (DeviceTurn), so that a thread waiting for its turn never holds the GIL the thread
// whose turn it is needs to finish.
std::mutex* deviceUseMutex = new std::mutex;  // replaced in a forked child (abandonForkedBackends)
std::mutex& deviceUse() { return *deviceUseMutex; }

// The GIL released and the device's turn taken, for the scope; the GIL comes back last.
class DeviceTurn {
 public:
  DeviceTurn() : lock_(deviceUse()) {}

 private:
  py::gil_scoped_release release_;
  std::lock_guard<std::mutex> lock_;
};

OpenBackends* openBackendsNow = new OpenBackends;  // never destroyed: close() empties it at exit
OpenBackends& openBackends() { return *openBackendsNow; }

// In the child of a fork (multiprocessing's default start on Linux), the parent's backends are
// not usable: their driver's threads (lavapipe's workers, CUDA's) stayed in the parent, and a
// lock another thread held at the fork stays held. The child abandons them, never touching their
// memory again (closing would call into that driver state: the old objects leak on purpose),
// and opens its own on first use.
void abandonForkedBackends() {
  openBackendsNow = new OpenBackends;
  deviceUseMutex = new std::mutex;
}

BackendOptions optionsFor(int device) {
  // As in the test suite: TILESKIP_VALIDATION=1 turns on the Vulkan validation layers, whose
  // messages come back as diagnostics (warnings in Python).
  const char* validation = std::getenv("TILESKIP_VALIDATION");
  return {.deviceIndex = device, .validation = validation != nullptr && std::string(validation) == "1"};
}

Backend& backendNamed(const std::string& name, int device) {
  checkBackendName(name);  // InputError naming the compiled backends
  OpenBackends& open = openBackends();
  std::lock_guard lock(open.mutex);
  auto& slot = open.byName[{name, device}];
  if (!slot) slot = openBackend(name, optionsFor(device));
  return *slot;
}

// None: the best available backend (a GPU first), as the CLI picks it: found once per device
// index, then the one already open (finding it opens every backend, far more than a small product).
Backend& chooseBackend(const std::optional<std::string>& name, int device) {
  if (name) return backendNamed(*name, device);
  OpenBackends& open = openBackends();
  std::string best;
  {
    std::lock_guard lock(open.mutex);
    if (auto known = open.best.find(device); known != open.best.end()) best = known->second;
  }
  if (best.empty()) {
    std::unique_ptr<Backend> opened = openBestBackend(optionsFor(device));
    best = std::string(opened->name());
    std::lock_guard lock(open.mutex);
    open.best[device] = best;
    auto& slot = open.byName[{best, device}];
    if (!slot) slot = std::move(opened);
  }
  return backendNamed(best, device);
}

void closeBackends() {
  OpenBackends& open = openBackends();
  std::lock_guard lock(open.mutex);
  open.byName.clear();
  open.best.clear();
}

Matrix toMatrix(const py::array& array, const std::string& name, std::vector<std::string>& notes) {
  if (array.ndim() != 2) {
    throw InputError(name + ": expected a 2-D array, got " + std::to_string(array.ndim()) + " dimensions");
  }
  ArrayView view;
  view.data = array.data();
  view.dtype = py::str(array.dtype().attr("str"));
  view.rows = array.shape(0);
  view.cols = array.shape(1);
  view.rowStride = array.strides(0);
  view.colStride = array.strides(1);
  MatrixReadInfo info;
  Matrix m;
  {
    py::gil_scoped_release release;  // the array stays alive: the caller holds it
    m = matrixFromArray(view, name, &info);
  }
  // A conversion that loses nothing (float64 values float32 holds, any order) is what a caller
  // asked for; one that loses values is said (a ConversionWarning).
  if (info.lost) notes.push_back(info.note);
  return m;
}

// A NumPy array that owns `m`: C goes back without a copy.
py::array_t<float> toArray(Matrix m) {
  auto* owned = new Matrix(std::move(m));
  py::capsule free(owned, [](void* p) { delete static_cast<Matrix*>(p); });
  return py::array_t<float>({owned->rows(), owned->cols()}, owned->data(), free);
}

// A multiply's kernel, why, times and verification, as matmul and each GEMM of mlp report them.
py::dict productFields(const MultiplyResult& product) {
  py::dict d;
  d["kernel"] = std::string(product.kernel->id);
  d["auto_reason"] = product.automatic ? product.why : std::string();
  d["kernel_ms"] = product.kernelMs;
  d["prepare_ms"] = product.prepareMs;
  d["rounding_ms"] = product.roundingMs;
  d["verification"] =
      product.verification ? py::object(py::str(product.verification->summary())) : py::object(py::none());
  return d;
}

// The multiply `request` asks for on the backend chosen (by name, else the best), its C and what
// it said: matmul's and matmul_packed's result. `notes` are what reading the operands said.
py::dict multiplyOnChosen(MultiplyRequest request, const std::optional<std::string>& backendName, int device,
                          std::vector<std::string> notes) {
  std::vector<std::string> firstBuild;  // a CPU Vulkan device's shader compile, said once a process
  request.onNote = [&](const std::string& note) { firstBuild.push_back(note); };
  Backend* backend = nullptr;
  MultiplyResult product;
  std::vector<std::string> diagnostics;
  {
    DeviceTurn turn;
    product = multiply(
        [&]() -> Backend& {
          backend = &chooseBackend(backendName, device);
          return *backend;
        },
        std::move(request));
    diagnostics = backend->takeDiagnostics();  // this call's, before another thread's turn
  }
  notes.insert(notes.end(), product.notes.begin(), product.notes.end());
  py::dict result = productFields(product);
  result["c"] = toArray(std::move(product.c));
  result["backend"] = std::string(backend->name());
  result["device"] = backend->device().describe();
  result["notes"] = notes;
  result["first_build"] = firstBuild;
  result["diagnostics"] = diagnostics;
  return result;
}

py::dict matmul(const py::array& aArray, const py::array& bArray, const std::string& kernelName,
                const std::optional<std::string>& backendName, const std::string& dtype, bool verify, int device) {
  std::vector<std::string> notes;
  MultiplyRequest request;
  request.dtype = parseDType(dtype);
  request.a = toMatrix(aArray, "A", notes);
  request.b = toMatrix(bArray, "B", notes);
  request.kernel = parseMultiplyKernel(kernelName, "kernel", "matmul", true);
  request.verify = verify;
  return multiplyOnChosen(std::move(request), backendName, device, std::move(notes));
}

// A packed matrix as the Python package holds one: its shape, block and dtype, and SciPy's BSR
// arrays (data, kept x block x block float32; indices and indptr int32), copies it owns.
py::dict packedFields(const BlockSparseMatrix& m) {
  py::dict d;
  d["shape"] = py::make_tuple(m.rows(), m.cols());
  d["block"] = m.block();
  d["dtype"] = std::string(dtypeName(m.dtype()));
  py::array_t<float> data({static_cast<py::ssize_t>(m.keptBlocks()), static_cast<py::ssize_t>(m.block()), static_cast<py::ssize_t>(m.block())});
  std::copy(m.values().begin(), m.values().end(), data.mutable_data());
  py::array_t<std::int32_t> indices(static_cast<py::ssize_t>(m.keptBlocks()));
  std::copy(m.columnIndices().begin(), m.columnIndices().end(), indices.mutable_data());
  py::array_t<std::int32_t> indptr(static_cast<py::ssize_t>(m.blockRows() + 1));
  std::copy(m.rowPointers().begin(), m.rowPointers().end(), indptr.mutable_data());
  d["data"] = data;
  d["indices"] = indices;
  d["indptr"] = indptr;
  return d;
}

// The packed matrix those arrays describe, checked as a file's are (any integer index type, any
// real data type; unsorted columns sorted). InputError naming `name` for what is not one.
BlockSparseMatrix packedFrom(py::tuple shape, int block, const std::string& dtype, const py::array& data, const py::array& indices,
                             const py::array& indptr, const std::string& name) {
  if (shape.size() != 2) throw InputError(name + ": a packed matrix's shape is two sizes");
  std::vector<std::int64_t> index, pointers;
  auto integers = [&](const py::array& array, const char* what) {
    py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> as(array);
    if (as.ndim() != 1) throw InputError(name + ": '" + what + "' is not one-dimensional");
    std::vector<std::int32_t> out(static_cast<std::size_t>(as.size()));
    for (py::ssize_t i = 0; i < as.size(); ++i) {
      const std::int64_t v = as.data()[i];
      if (v < 0 || v > std::numeric_limits<std::int32_t>::max()) throw InputError(name + ": '" + what + "' holds " + std::to_string(v));
      out[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(v);
    }
    return out;
  };
  py::array_t<float, py::array::c_style | py::array::forcecast> values(data);
  if (values.ndim() != 3 || values.shape(1) != block || values.shape(2) != block) {
    throw InputError(name + ": 'data' is not kept blocks of " + std::to_string(block) + " x " + std::to_string(block));
  }
  return BlockSparseMatrix::fromParts(shape[0].cast<int>(), shape[1].cast<int>(), block, parseDType(dtype), integers(indptr, "indptr"),
                                      integers(indices, "indices"), std::vector<float>(values.data(), values.data() + values.size()), name);
}

py::dict pack(const py::array& array, int block, const std::string& dtype) {
  std::vector<std::string> notes;
  Matrix dense = toMatrix(array, "the matrix", notes);
  const DType type = parseDType(dtype);
  if (std::string rounded = roundOperand(dense, type, "the matrix"); !rounded.empty()) notes.push_back(rounded);
  py::dict d = packedFields(packBlocks(dense, block, type == DType::Tf32 ? DType::Fp32 : type));
  d["notes"] = notes;
  return d;
}

py::dict packedParts(py::tuple shape, int block, const std::string& dtype, const py::array& data, const py::array& indices,
                     const py::array& indptr) {
  return packedFields(packedFrom(shape, block, dtype, data, indices, indptr, "the packed matrix"));
}

py::dict readPacked(const std::string& path) {
  MatrixReadInfo info;
  py::dict d = packedFields(readBlockSparse(path, &info));
  d["notes"] = info.lost ? std::vector<std::string>{info.note} : std::vector<std::string>{};
  return d;
}

void writePacked(const std::string& path, py::tuple shape, int block, const std::string& dtype, const py::array& data,
                 const py::array& indices, const py::array& indptr) {
  writeBlockSparse(path, packedFrom(shape, block, dtype, data, indices, indptr, path));
}

py::array_t<float> packedToDense(py::tuple shape, int block, const std::string& dtype, const py::array& data, const py::array& indices,
                                 const py::array& indptr) {
  return toArray(packedFrom(shape, block, dtype, data, indices, indptr, "the packed matrix").toDense());
}

// C = A·B with A packed: the bsr kernels of its block read it as it is, any other kernel the
// dense matrix it stands for.
py::dict matmulPacked(py::tuple shape, int block, const std::string& packedDtype, const py::array& data, const py::array& indices,
                      const py::array& indptr, const py::array& bArray, const std::string& kernelName,
                      const std::optional<std::string>& backendName, const std::string& dtype, bool verify, int device) {
  std::vector<std::string> notes;
  MultiplyRequest request;
  request.dtype = parseDType(dtype);
  request.packedA = packedFrom(shape, block, packedDtype, data, indices, indptr, "A");
  request.a = request.packedA->toDense();
  request.b = toMatrix(bArray, "B", notes);
  request.kernel = parseMultiplyKernel(kernelName, "kernel", "matmul", true);
  request.verify = verify;
  return multiplyOnChosen(std::move(request), backendName, device, std::move(notes));
}

py::dict passOfLayer(const MlpPass& pass) {
  py::dict d;
  d["first"] = productFields(pass.first);
  d["second"] = productFields(pass.second);
  d["fused"] = pass.fused;
  d["activation_ms"] = pass.activationMs;
  d["layer_ms"] = pass.layerMs();
  return d;
}

py::dict mlp(const py::array& xArray, const py::array& w1Array, const py::array& w2Array, const std::string& activation,
             const std::string& kernelName, const std::string& firstKernelName, const std::optional<std::string>& compare,
             const std::optional<std::string>& backendName, const std::string& dtype, bool verify, bool reorder, int device) {
  std::vector<std::string> notes;
  MlpRequest request;
  request.dtype = parseDType(dtype);
  request.activation = parseActivation(activation);
  request.second = parseMultiplyKernel(kernelName, "kernel", "mlp", true);
  request.first = parseMultiplyKernel(firstKernelName, "first_kernel", "mlp", true);
  request.compare = compare ? parseMultiplyKernel(*compare, "compare", "mlp", false) : nullptr;
  request.x = toMatrix(xArray, "X", notes);
  request.w1 = toMatrix(w1Array, "W1", notes);
  request.w2 = toMatrix(w2Array, "W2", notes);
  request.verify = verify;
  request.reorder = reorder;
  std::vector<std::string> said;  // a CPU Vulkan device's shader compile among them, said once a process
  request.onNote = [&](const std::string& note) { said.push_back(note); };
  Backend* backend = nullptr;
  MlpResult layer;
  std::vector<std::string> diagnostics;
  {
    DeviceTurn turn;
    layer = runMlp(
        [&]() -> Backend& {
          backend = &chooseBackend(backendName, device);
          return *backend;
        },
        std::move(request));
    diagnostics = backend->takeDiagnostics();  // this call's, before another thread's turn
  }
  // The layer's own notes are the GEMMs' (rounding, reordering); the rest of what was said is
  // the first build's.
  std::vector<std::string> firstBuild;
  for (const std::string& note : said) {
    if (std::find(layer.notes.begin(), layer.notes.end(), note) == layer.notes.end()) firstBuild.push_back(note);
  }
  notes.insert(notes.end(), layer.notes.begin(), layer.notes.end());
  py::dict result;
  result["y"] = toArray(std::move(layer.y));
  result["backend"] = std::string(backend->name());
  result["device"] = backend->device().describe();
  result["layer"] = passOfLayer(layer.layer);
  result["compared"] = layer.compared ? py::object(passOfLayer(*layer.compared)) : py::object(py::none());
  result["hidden_density"] = layer.hiddenDensity;
  result["notes"] = notes;
  result["first_build"] = firstBuild;
  result["diagnostics"] = diagnostics;
  return result;
}

// A DLPack capsule taken over (renamed "used_dltensor", as the protocol asks) and released
// through its deleter when this goes.
class BorrowedTensor {
 public:
  BorrowedTensor(const py::capsule& capsule, const std::string& name) : name_(name) {
    if (std::string(capsule.name() ? capsule.name() : "") != "dltensor") {
      throw InputError(name + ": not an unused DLPack capsule (\"dltensor\")");
    }
    managed_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (managed_ == nullptr) throw py::error_already_set();
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  }
  ~BorrowedTensor() {
    if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  }
  BorrowedTensor(const BorrowedTensor&) = delete;
  BorrowedTensor& operator=(const BorrowedTensor&) = delete;

  // The tensor as the kernels take it: fp32 (or, where `sixteenBit`, float16 or bfloat16), 2-D,
  // row-major and contiguous, on a CUDA device. (tileskip.matmul makes a CUDA tensor so, on the
  // device, before it gets here.)
  const DLTensor& checked(bool sixteenBit = false) const {
    const DLTensor& t = managed_->dl_tensor;
    if (t.device.device_type != kDLCUDA) throw InputError(name_ + ": not in CUDA device memory");
    if (t.ndim != 2) throw InputError(name_ + ": expected a 2-D tensor, got " + std::to_string(t.ndim) + " dimensions");
    const bool fp32 = t.dtype.code == kDLFloat && t.dtype.bits == 32 && t.dtype.lanes == 1;
    if (!fp32 && !(sixteenBit && dtype() != DType::Fp32)) {
      throw InputError(name_ + (sixteenBit ? ": the kernels take float32, float16 or bfloat16 tensors" : ": must be a float32 tensor"));
    }
    const bool rowMajor = t.strides == nullptr || ((t.shape[1] == 1 || t.strides[1] == 1) &&
                                                   (t.shape[0] == 1 || t.strides[0] == t.shape[1]));
    if (!rowMajor) throw InputError(name_ + ": not contiguous in row-major order");
    return t;
  }
  void* data() const {
    const DLTensor& t = managed_->dl_tensor;
    return static_cast<char*>(t.data) + t.byte_offset;
  }
  // Fp16 or Bf16 for a 16-bit float tensor, else Fp32 (checked() says whether it is one).
  DType dtype() const {
    const DLDataType& d = managed_->dl_tensor.dtype;
    if (d.bits == 16 && d.lanes == 1 && d.code == kDLFloat) return DType::Fp16;
    if (d.bits == 16 && d.lanes == 1 && d.code == kDLBfloat) return DType::Bf16;
    return DType::Fp32;
  }

 private:
  std::string name_;
  DLManagedTensor* managed_ = nullptr;
};

// C = A·B on CUDA tensors in place: A, B and C are the caller's device memory (DLPack capsules;
// C allocated by the caller, e.g. torch.empty on the same device), nothing crosses to the host
// but, for auto, the host copies `aHost` and `bHost` it inspects. A and B in fp32, or both in
// float16 or bfloat16, read as they are by the kernels that take that type; C fp32. Untimed
// (`timed` false), the work is queued and the call returns at once, kernel_ms NaN.
py::dict matmulDevice(const py::capsule& aCapsule, const py::capsule& bCapsule, const py::capsule& cCapsule,
                      const std::string& kernelName, std::uintptr_t stream, int device,
                      const std::optional<py::array>& aHost, const std::optional<py::array>& bHost, bool timed) {
  BorrowedTensor aTensor(aCapsule, "A"), bTensor(bCapsule, "B"), cTensor(cCapsule, "C");
  const DLTensor &a = aTensor.checked(true), &b = bTensor.checked(true), &c = cTensor.checked();
  if (aTensor.dtype() != bTensor.dtype()) {
    throw InputError("A is " + std::string(dtypeName(aTensor.dtype())) + " and B " + std::string(dtypeName(bTensor.dtype())) +
                     ": give both in one type");
  }
  if (a.shape[1] != b.shape[0] || c.shape[0] != a.shape[0] || c.shape[1] != b.shape[1]) {
    throw InputError("A is " + std::to_string(a.shape[0]) + "x" + std::to_string(a.shape[1]) + " and B " +
                     std::to_string(b.shape[0]) + "x" + std::to_string(b.shape[1]) +
                     ": A's columns must equal B's rows (and C must be A's rows x B's columns)");
  }
  for (const DLTensor* t : {&b, &c}) {
    if (t->device.device_id != a.device.device_id) throw InputError("A, B and C must be on one CUDA device");
  }
  MultiplyRequest request;
  request.verify = false;  // tileskip.matmul checks C once it has it on the host (verify below)
  request.kernel = kernelName == "auto" ? nullptr : parseMultiplyKernel(kernelName, "kernel", "matmul", false);
  Backend& backend = backendNamed("cuda", device < 0 ? a.device.device_id : device);
  DeviceOperands operands;
  operands.dtype = aTensor.dtype();
  request.dtype = operands.dtype;
  if (operands.dtype == DType::Fp32) {
    operands.a = static_cast<const float*>(aTensor.data());
    operands.b = static_cast<const float*>(bTensor.data());
  } else {
    operands.aHalf = static_cast<const std::uint16_t*>(aTensor.data());
    operands.bHalf = static_cast<const std::uint16_t*>(bTensor.data());
  }
  operands.c = static_cast<float*>(cTensor.data());
  for (std::int64_t extent : {a.shape[0], a.shape[1], b.shape[1]}) checkMatrixShape(extent, 1, "tensor");
  operands.m = static_cast<int>(a.shape[0]);
  operands.k = static_cast<int>(a.shape[1]);
  operands.n = static_cast<int>(b.shape[1]);
  operands.deviceIndex = a.device.device_id;
  operands.stream = reinterpret_cast<void*>(stream);
  operands.timed = timed;
  request.inPlace = operands;
  std::vector<std::string> notes;
  if (aHost) request.a = toMatrix(*aHost, "A", notes);
  if (bHost) request.b = toMatrix(*bHost, "B", notes);
  MultiplyResult product;
  std::vector<std::string> diagnostics;
  {
    DeviceTurn turn;
    product = multiply(backend, std::move(request));
    diagnostics = backend.takeDiagnostics();
  }
  py::dict result;
  result["backend"] = std::string(backend.name());
  result["device"] = backend.device().describe();
  result["kernel"] = std::string(product.kernel->id);
  result["auto_reason"] = product.automatic ? product.why : std::string();
  result["kernel_ms"] = product.kernelMs;
  result["c_pointer"] = reinterpret_cast<std::uintptr_t>(operands.c);
  result["notes"] = notes;
  result["diagnostics"] = diagnostics;
  return result;
}

// Checks a C computed elsewhere (CUDA tensors) against the float64 reference, as matmul's verify.
void verifyComputedC(const py::array& aArray, const py::array& bArray, const py::array& cArray, const std::string& kernel) {
  std::vector<std::string> notes;
  Matrix a = toMatrix(aArray, "A", notes), b = toMatrix(bArray, "B", notes), c = toMatrix(cArray, "C", notes);
  checkMultiplicable(a, b);
  py::gil_scoped_release release;
  tileskip::verifyProduct(c, a, b, kernel);
}

py::dict inspect(const py::array& aArray, const py::array& bArray, const std::string& aSource,
                 const std::string& bSource, const std::optional<std::string>& backendName, int device,
                 const std::optional<std::string>& model) {
  std::vector<std::string> notes;
  Matrix a = toMatrix(aArray, "A", notes);
  Matrix b = toMatrix(bArray, "B", notes);
  std::string json;
  if (model) {  // a calibrated GPU that is not here: nothing opened, nothing to take turns on
    if (device >= 0) throw InputError("model= predicts for a GPU that is not here: it takes no device");
    std::unique_ptr<Backend> modelled = modelledBackend(*model, backendName.value_or("cuda"));
    py::gil_scoped_release release;
    Inspection inspection = inspectOnBackend(*modelled, a, b, aSource, bSource);
    inspection.compaction = compactionBounds(a);
    json = inspectionJson(inspection, *modelled);
  } else {
    Backend& backend = chooseBackend(backendName, device);
    DeviceTurn turn;
    Inspection inspection = inspectOnBackend(backend, a, b, aSource, bSource);
    inspection.compaction = compactionBounds(a);
    json = inspectionJson(inspection, backend);
  }
  py::dict result;
  result["json"] = json;
  result["notes"] = notes;
  return result;
}

// Mirrors `tileskip bench`: ProblemSpec from the arguments, or the arrays; every available
// backend for "all"; auto and the baseline row as the CLI adds them (core/measure/kernel_selection.hpp,
// backends/backend_registry.hpp).
py::dict bench(const std::optional<py::array>& aArray, const std::optional<py::array>& bArray, const std::string& aSource,
               const std::string& bSource, const ProblemSpec& generated, const std::string& kernels,
               const std::optional<std::string>& backendName, int device, int warmup, int repeat, bool baseline) {
  const BenchOptions options{.warmup = warmup, .repeat = repeat};
  checkBenchOptions(options);
  parseKernelList(kernels);
  std::vector<std::string> notes;
  ProblemSpec spec = generated;
  ProblemData data;
  if (aArray.has_value() != bArray.has_value()) throw InputError("bench takes both operands as arrays, or neither");
  if (aArray) {
    data.a = toMatrix(*aArray, "A", notes);
    data.b = toMatrix(*bArray, "B", notes);
    checkMultiplicable(data.a, data.b);
    spec.m = data.a.rows();
    spec.k = data.a.cols();
    spec.n = data.b.cols();
    spec.fileA = aSource;  // what the report calls each operand
    spec.fileB = bSource;
  }
  data.readNotes = notes;

  std::vector<Backend*> chosen;
  if (backendName && *backendName == "all") {
    for (const BackendEntry& entry : compiledBackends()) {
      try {
        chosen.push_back(&backendNamed(std::string(entry.name), device));
      } catch (const UnavailableError&) {
        // as `bench --backend all`: an unavailable backend is left out
      }
    }
    if (chosen.empty()) throw UnavailableError("no backend can run on this machine");
  } else {
    chosen.push_back(&chooseBackend(backendName, device));
  }
  if (!aArray) {
    // Sizes not given: the command's default, 4096 where a GPU runs, else 512.
    const bool gpu = std::any_of(chosen.begin(), chosen.end(), [](Backend* b) { return b->device().isGpu; });
    for (int* size : {&spec.m, &spec.n, &spec.k}) {
      if (*size == 0) *size = gpu ? 4096 : 512;
    }
    spec.validate();
    py::gil_scoped_release release;
    data = generateProblem(spec);
  }
  std::string json;
  {
    DeviceTurn turn;  // choosing `auto` times kernels too
    std::vector<BenchTarget> targets;
    for (Backend* backend : chosen) {
      BenchTarget target = benchTarget(*backend, kernels, chosen.size() == 1, data.a, data.b, spec);
      if (!target.kernels.empty()) targets.push_back(std::move(target));
    }
    if (targets.empty()) throw InputError("no selected kernel is implemented by the selected backends");
    std::vector<std::unique_ptr<Backend>> borrowed;
    if (baseline) addBaselineTarget(borrowed, targets);
    json = formatJson(runBench(targets, spec, data, options));
  }
  py::dict result;
  result["json"] = json;
  result["notes"] = notes;
  return result;
}

py::list listBackends(int device) {
  py::list out;
  for (const BackendEntry& entry : compiledBackends()) {
    py::dict row;
    row["name"] = std::string(entry.name);
    try {
      Backend& backend = backendNamed(std::string(entry.name), device);
      const DeviceInfo& info = backend.device();
      row["available"] = true;
      row["device"] = info.name;
      row["driver"] = info.driver;
      row["api"] = info.api;
      row["is_gpu"] = info.isGpu;
      row["subgroup_size"] = info.subgroupSize;
      row["shared_memory_bytes"] = info.sharedMemoryBytes;
      row["memory_bytes"] = info.memoryBytes;
      py::list kernels;
      for (const KernelInfo* k : backend.kernels()) kernels.append(std::string(k->id));
      row["kernels"] = kernels;
      row["reason"] = py::none();
    } catch (const UnavailableError& e) {
      row["available"] = false;
      row["reason"] = std::string(e.what());
      row["kernels"] = py::list();
    }
    out.append(row);
  }
  return out;
}

py::list listKernels() {
  py::list out;
  for (const KernelInfo& k : kCatalogue) {
    py::dict row;
    row["id"] = std::string(k.id);
    row["number"] = std::string(k.number);
    row["stem"] = std::string(k.stem);
    row["family"] = std::string(familyName(k.family));
    row["summary"] = std::string(k.summary);
    row["a_granularity"] = k.aGranularity;
    row["b_granularity"] = k.bGranularity;
    row["divergent"] = k.divergent();
    row["skips"] = k.skips();
    row["baseline"] = k.isBaseline();
    py::list dtypes;
    for (DType type : {DType::Fp32, DType::Tf32, DType::Fp16, DType::Bf16}) {
      if (k.takes(type)) dtypes.append(std::string(dtypeName(type)));
    }
    row["dtypes"] = dtypes;
    const TileShape& t = k.tile;
    py::dict tile;
    tile["BM"] = t.BM, tile["BN"] = t.BN, tile["BK"] = t.BK, tile["WM"] = t.WM, tile["WN"] = t.WN;
    tile["TM"] = t.TM, tile["TN"] = t.TN, tile["threads"] = t.threads;
    row["tile"] = tile;
    out.append(row);
  }
  return out;
}

py::list listGenerators() {
  py::list out;
  for (const GeneratorInfo& g : generators()) {
    py::dict row;
    row["name"] = std::string(g.name);
    row["summary"] = std::string(g.summary);
    out.append(row);
  }
  return out;
}

py::array_t<float> generateMatrix(const std::string& generator, std::int64_t rows, std::int64_t cols, double density,
                                  std::uint64_t seed, const std::string& operand, int block, int groupSize) {
  if (operand != "A" && operand != "B") throw InputError("operand must be A or B, not '" + operand + "'");
  checkMatrixShape(rows, cols, "rows x cols");
  const GeneratorOptions options{.block = block, .groupSize = groupSize};
  Matrix m;
  {
    py::gil_scoped_release release;
    m = generate(generator, operand == "A" ? Operand::A : Operand::B, static_cast<int>(rows), static_cast<int>(cols),
                 density, seed, options);
  }
  return toArray(std::move(m));
}

}  // namespace

PYBIND11_MODULE(_tileskip, module) {
  module.doc() = "tileskip's C++ core and backends; use the documented API of the tileskip package";
  pthread_atfork(nullptr, nullptr, abandonForkedBackends);

  // Python classes defined in tileskip/_errors.py, so the pure-Python package and its stubs own them.
  py::module_ errors = py::module_::import("tileskip._errors");
  static py::object unavailable = errors.attr("UnavailableError");
  static py::object verification = errors.attr("VerificationError");
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      switch (e.code()) {
        case ExitCode::BadInput: PyErr_SetString(PyExc_ValueError, e.what()); return;
        case ExitCode::Unavailable: PyErr_SetString(unavailable.ptr(), e.what()); return;
        case ExitCode::VerificationFailed: PyErr_SetString(verification.ptr(), e.what()); return;
        case ExitCode::TargetMissed:  // a suite's exit code, not an error any call throws
        case ExitCode::Ok: break;
      }
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  py::class_<ProblemSpec>(module, "_ProblemSpec")
      .def(py::init<>())
      .def_readwrite("m", &ProblemSpec::m)
      .def_readwrite("n", &ProblemSpec::n)
      .def_readwrite("k", &ProblemSpec::k)
      .def_readwrite("generator", &ProblemSpec::generator)
      .def_readwrite("density_a", &ProblemSpec::densityA)
      .def_readwrite("density_b", &ProblemSpec::densityB)
      .def_readwrite("seed", &ProblemSpec::seed)
      .def_property(
          "block", [](const ProblemSpec& s) { return s.options.block; },
          [](ProblemSpec& s, int g) { s.options.block = g; });

  module.def("matmul", &matmul, py::arg("a"), py::arg("b"), py::arg("kernel"), py::arg("backend"), py::arg("dtype"),
             py::arg("verify"), py::arg("device"));
  module.def("mlp", &mlp, py::arg("x"), py::arg("w1"), py::arg("w2"), py::arg("activation"), py::arg("kernel"),
             py::arg("first_kernel"), py::arg("compare"), py::arg("backend"), py::arg("dtype"), py::arg("verify"),
             py::arg("reorder"), py::arg("device"));
  module.def("matmul_device", &matmulDevice, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("kernel"),
             py::arg("stream"), py::arg("device"), py::arg("a_host") = py::none(), py::arg("b_host") = py::none(), py::arg("timed") = true);
  module.def("inspect", &inspect, py::arg("a"), py::arg("b"), py::arg("a_source"), py::arg("b_source"),
             py::arg("backend"), py::arg("device"), py::arg("model") = py::none());
  module.def("bench", &bench, py::arg("a"), py::arg("b"), py::arg("a_source"), py::arg("b_source"), py::arg("spec"),
             py::arg("kernel"), py::arg("backend"), py::arg("device"), py::arg("warmup"), py::arg("repeat"),
             py::arg("baseline"));
  module.def("verify", &verifyComputedC, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("kernel"));
  module.def("backends", &listBackends, py::arg("device"));
  module.def("kernels", &listKernels);
  module.def("generators", &listGenerators);
  module.def("generate", &generateMatrix, py::arg("generator"), py::arg("rows"), py::arg("cols"), py::arg("density"),
             py::arg("seed"), py::arg("operand"), py::arg("block"), py::arg("group_size"));
  module.def("pack", &pack, py::arg("array"), py::arg("block"), py::arg("dtype"));
  module.def("packed_parts", &packedParts, py::arg("shape"), py::arg("block"), py::arg("dtype"), py::arg("data"), py::arg("indices"),
             py::arg("indptr"));
  module.def("read_packed", &readPacked, py::arg("path"));
  module.def("write_packed", &writePacked, py::arg("path"), py::arg("shape"), py::arg("block"), py::arg("dtype"), py::arg("data"),
             py::arg("indices"), py::arg("indptr"));
  module.def("packed_to_dense", &packedToDense, py::arg("shape"), py::arg("block"), py::arg("dtype"), py::arg("data"),
             py::arg("indices"), py::arg("indptr"));
  module.def("matmul_packed", &matmulPacked, py::arg("shape"), py::arg("block"), py::arg("packed_dtype"), py::arg("data"),
             py::arg("indices"), py::arg("indptr"), py::arg("b"), py::arg("kernel"), py::arg("backend"), py::arg("dtype"),
             py::arg("verify"), py::arg("device"));
  module.def("close", &closeBackends, "releases the open backends (at interpreter exit)");
  module.attr("version") = TILESKIP_VERSION;
  module.attr("module_folder") = binaryFolder();  // where run-time modules are looked for (tests)
}

}  // namespace tileskip::python
