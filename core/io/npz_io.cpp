#include "core/io/npz_io.hpp"

#include <zip.h>

#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

#include "core/io/atomic_file.hpp"
#include "core/model/error.hpp"

namespace tileskip {

namespace {

// The most an .npz member may hold: a packed matrix's values are fewer than a dense matrix's.
constexpr std::uint64_t kMaxMemberBytes = std::uint64_t{8} << 30;

[[noreturn]] void fail(const std::string& name, const std::string& what) { throw InputError(name + ": not a valid .npz file: " + what); }

std::string zipErrorText(zip_error_t* error) { return zip_error_strerror(error); }

struct ArchiveClose {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct MemberClose {
  void operator()(zip_file_t* member) const { zip_fclose(member); }
};

}  // namespace

NpzArrays readNpz(const void* bytes, std::size_t size, const std::string& name, std::uint64_t maxBytes) {
  if (size == 0) fail(name, "the file is empty");
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes, size, 0, &error);
  if (source == nullptr) {
    const std::string why = zipErrorText(&error);
    zip_error_fini(&error);
    fail(name, why);
  }
  std::unique_ptr<zip_t, ArchiveClose> archive(zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    zip_source_free(source);
    const std::string why = zipErrorText(&error);
    zip_error_fini(&error);
    fail(name, why);
  }
  zip_error_fini(&error);
  NpzArrays arrays;
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &stat) != 0 || (stat.valid & ZIP_STAT_NAME) == 0 ||
        (stat.valid & ZIP_STAT_SIZE) == 0) {
      fail(name, "member " + std::to_string(i) + " cannot be read: " + zip_strerror(archive.get()));
    }
    const std::string member = stat.name;
    if (member.size() < 5 || member.substr(member.size() - 4) != ".npy") fail(name, "member '" + member + "' is not a .npy array");
    if (stat.size > maxBytes) fail(name, "member '" + member + "' holds " + std::to_string(stat.size) + " bytes, more than this reader accepts");
    std::unique_ptr<zip_file_t, MemberClose> file(zip_fopen_index(archive.get(), static_cast<zip_uint64_t>(i), 0));
    if (!file) fail(name, "member '" + member + "' cannot be opened: " + zip_strerror(archive.get()));
    std::string content(static_cast<std::size_t>(stat.size), '\0');
    zip_uint64_t done = 0;
    while (done < stat.size) {
      const zip_int64_t got = zip_fread(file.get(), content.data() + done, stat.size - done);
      if (got <= 0) fail(name, "member '" + member + "' ends early or is damaged: " + zip_file_strerror(file.get()));
      done += static_cast<zip_uint64_t>(got);
    }
    std::istringstream in(content);
    const std::string key = member.substr(0, member.size() - 4);
    if (!arrays.emplace(key, readNpyArray(in, name + " (" + member + ")", maxBytes)).second) fail(name, "it holds '" + member + "' twice");
  }
  return arrays;
}

NpzArrays readNpz(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open for reading (does the file exist?)");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path.string() + ": cannot be read");
  return readNpz(bytes.data(), bytes.size(), path.string(), kMaxMemberBytes);
}

void writeNpz(const std::filesystem::path& path, const NpzArrays& arrays) {
  const std::string name = path.string();
  auto failWrite = [&](const std::string& what) -> void { throw InputError(name + ": cannot write the .npz archive: " + what); };
  // The archive is built in memory, then written through an AtomicFile like every other output.
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (buffer == nullptr) failWrite(zipErrorText(&error));
  zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (archive == nullptr) {
    zip_source_free(buffer);
    failWrite(zipErrorText(&error));
  }
  zip_source_keep(buffer);  // kept past zip_close, which writes the archive into it
  std::vector<std::string> members;
  members.reserve(arrays.size());
  for (const auto& [key, array] : arrays) {
    std::ostringstream out;
    writeNpyArray(out, array);
    members.push_back(out.str());
    const std::string& content = members.back();
    zip_source_t* source = zip_source_buffer(archive, content.data(), content.size(), 0);
    const zip_int64_t index = source == nullptr ? -1 : zip_file_add(archive, (key + ".npy").c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0 || zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) != 0) {
      if (source != nullptr && index < 0) zip_source_free(source);
      const std::string why = zip_strerror(archive);
      zip_discard(archive);
      zip_source_free(buffer);
      failWrite(why);
    }
  }
  if (zip_close(archive) != 0) {
    const std::string why = zip_strerror(archive);
    zip_discard(archive);
    zip_source_free(buffer);
    failWrite(why);
  }
  zip_stat_t stat;
  std::string bytes;
  if (zip_source_stat(buffer, &stat) != 0 || zip_source_open(buffer) != 0) {
    zip_source_free(buffer);
    failWrite("the archive built in memory cannot be read back");
  }
  bytes.resize(static_cast<std::size_t>(stat.size));
  const zip_int64_t got = zip_source_read(buffer, bytes.data(), stat.size);
  zip_source_close(buffer);
  zip_source_free(buffer);
  if (got != static_cast<zip_int64_t>(stat.size)) failWrite("the archive built in memory cannot be read back");
  AtomicFile file(path);
  file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.commit();
}

}  // namespace tileskip
