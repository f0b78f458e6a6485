#include "core/matrix_io.hpp"

#include <fstream>
#include <random>
#include <system_error>

#include "core/error.hpp"

namespace tileskip {

MatrixFormat formatFromPath(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  if (extension == ".npy") return MatrixFormat::Npy;
  if (extension == ".mtx") return MatrixFormat::MatrixMarket;
  throw InputError(path.string() + ": unknown matrix format '" + extension + "'; use .npy or .mtx");
}

Matrix readMatrix(const std::filesystem::path& path) {
  MatrixFormat format = formatFromPath(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string() + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(path.string() + ": is a directory, not a matrix file");
  return format == MatrixFormat::Npy ? readNpy(path) : readMatrixMarket(path);
}

void writeMatrix(const std::filesystem::path& path, const Matrix& m) {
  MatrixFormat format = formatFromPath(path);
  std::filesystem::path temporary = path;
  temporary += ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw InputError(path.string() + ": cannot write here (does the folder exist, and may we write to it?)");
    }
    if (format == MatrixFormat::Npy) {
      writeNpy(out, m);
    } else {
      writeMatrixMarket(out, m);
    }
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw InputError(path.string() + ": writing failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw InputError(path.string() + ": cannot replace the file: " + ec.message());
  }
}

}  // namespace tileskip
