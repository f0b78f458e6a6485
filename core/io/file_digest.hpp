// A file's identity for reports: the SHA-256 of its bytes, so that a result on a file operand
// names exactly which file it was, wherever the file was copied or renamed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace tileskip {

// Lower-case hex SHA-256 of the file's bytes (OpenSSL's). InputError when it cannot be read.
std::string fileSha256(const std::filesystem::path& path);
// ... of these bytes.
std::string textSha256(std::string_view bytes);

}  // namespace tileskip
