#include "validators/core/file_source.h"

#include <filesystem>
#include <system_error>

namespace accelcheck {

namespace {

class FileSystemSource final : public FileSource {
 public:
  std::optional<InputBuffer> Read(const std::string& path, uint64_t max_size,
                                  std::string* error) const override {
    return ReadFileLimited(path, max_size, error);
  }
  bool HasFile(const std::string& path) const override {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
  }
};

std::string Normal(const std::string& name) {
  return std::filesystem::path(name).lexically_normal().string();
}

}  // namespace

const FileSource& FileSystem() {
  static const FileSystemSource source;
  return source;
}

void MemoryFiles::Add(const std::string& name, ByteView bytes) { files_[Normal(name)] = bytes; }

std::optional<InputBuffer> MemoryFiles::Read(const std::string& path, uint64_t max_size,
                                             std::string* error) const {
  const auto file = files_.find(Normal(path));
  if (file == files_.end()) {
    *error = "no file of that name was given";
    return std::nullopt;
  }
  if (file->second.size() > max_size) {
    *error = FileTooLarge(file->second.size(), max_size);
    return std::nullopt;
  }
  return InputBuffer::Copy(file->second);
}

bool MemoryFiles::HasFile(const std::string& path) const {
  return files_.find(Normal(path)) != files_.end();
}

}  // namespace accelcheck
