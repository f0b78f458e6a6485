#include "core/io/matrix_io.hpp"

#include <system_error>

#include "core/io/atomic_file.hpp"
#include "core/io/block_sparse_io.hpp"
#include "core/io/file_digest.hpp"
#include "core/model/error.hpp"

namespace tileskip {

MatrixFormat formatFromPath(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  if (extension == ".npy") return MatrixFormat::Npy;
  if (extension == ".mtx") return MatrixFormat::MatrixMarket;
  if (extension == ".npz") return MatrixFormat::PackedNpz;
  throw InputError(path.string() + ": unknown matrix format '" + extension + "'; use .npy, .mtx or a packed .npz");
}

Matrix readMatrix(const std::filesystem::path& path) { return readMatrix(path, nullptr); }

Matrix readMatrix(const std::filesystem::path& path, MatrixReadInfo* info) {
  if (info != nullptr) info->note.clear();
  MatrixFormat format = formatFromPath(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string() + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw InputError(path.string() + ": is a directory, not a matrix file");
  Matrix m = format == MatrixFormat::Npy            ? readNpy(path, info)
             : format == MatrixFormat::MatrixMarket ? readMatrixMarket(path)
                                                    : readBlockSparse(path, info).toDense();
  if (info != nullptr) info->sha256 = fileSha256(path);
  return m;
}

void writeMatrix(const std::filesystem::path& path, const Matrix& m) {
  MatrixFormat format = formatFromPath(path);
  if (format == MatrixFormat::PackedNpz) {
    throw InputError(path.string() + ": an .npz is a packed block-sparse matrix; write a dense .npy and pack it with "
                     "`tileskip pack IN.npy OUT.npz --block 64`");
  }
  AtomicFile file(path);
  if (format == MatrixFormat::Npy) {
    writeNpy(file.stream(), m);
  } else {
    writeMatrixMarket(file.stream(), m);
  }
  file.commit();
}

}  // namespace tileskip
