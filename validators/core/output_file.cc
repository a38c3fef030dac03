#include "validators/core/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "validators/core/text.h"

namespace accelcheck {

namespace fs = std::filesystem;

namespace {

std::string CannotWrite(const fs::path& path, std::string_view reason) {
  return Str("cannot write ", Quoted(path.string()), ": ", reason);
}

// A new, empty file beside `target` that no other process has opened, with
// the permissions a file created in its place would get (the umask's).
std::optional<fs::path> CreateTemporaryBeside(const fs::path& target, std::string* error) {
  static std::atomic<uint64_t> counter{0};
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path candidate =
        dir / Str(".", target.filename().string(), ".", getpid(), ".", counter++, ".tmp");
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return candidate;
    }
    if (errno != EEXIST) break;
  }
  *error = CannotWrite(target, std::strerror(errno));
  return std::nullopt;
}

// A symbolic link stays a link: its target is what gets replaced.
fs::path ResolveLink(const fs::path& target) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(target, ec))) return target;
  const fs::path resolved = fs::weakly_canonical(target, ec);
  return ec ? target : resolved;
}

}  // namespace

OutputFile::OutputFile(fs::path target, fs::path temporary)
    : target_(std::move(target)), temporary_(std::move(temporary)) {}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::exchange(other.temporary_, {})),
      stream_(std::move(other.stream_)) {}

OutputFile::~OutputFile() {
  if (temporary_.empty()) return;
  stream_.close();
  std::error_code ignored;
  fs::remove(temporary_, ignored);
}

std::optional<OutputFile> OutputFile::Open(const fs::path& target, std::string* error) {
  if (target.empty()) {
    *error = "cannot write a file with an empty name";
    return std::nullopt;
  }
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) {
    *error = CannotWrite(target, "it is a directory");
    return std::nullopt;
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    OutputFile in_place(target, {});
    in_place.stream_.open(target, std::ios::binary);
    if (in_place.stream_) return in_place;
    *error = CannotWrite(target, std::strerror(errno));
    return std::nullopt;
  }
  const fs::path real = ResolveLink(target);
  const std::optional<fs::path> temporary = CreateTemporaryBeside(real, error);
  if (!temporary) return std::nullopt;
  // An existing file keeps its permissions.
  if (fs::is_regular_file(status)) fs::permissions(*temporary, status.permissions(), ec);
  OutputFile file(real, *temporary);
  file.stream_.open(*temporary, std::ios::binary | std::ios::trunc);
  if (file.stream_) return file;
  *error = CannotWrite(target, std::strerror(errno));
  return std::nullopt;
}

bool OutputFile::Commit(std::string* error) {
  stream_.flush();
  const bool written = static_cast<bool>(stream_);
  const int write_errno = errno;
  stream_.close();
  if (!written || !stream_) {
    *error = CannotWrite(target_, write_errno != 0 ? std::strerror(write_errno) : "write failed");
    return false;
  }
  if (temporary_.empty()) return true;
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
    *error = CannotWrite(target_, std::strerror(errno));
    return false;
  }
  temporary_.clear();
  return true;
}

std::optional<StagingDirectory> StagingDirectory::In(const fs::path& dir, std::string* error) {
  std::string pattern = ((dir.empty() ? fs::path(".") : dir) / ".accelcheck.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    *error = CannotWrite(dir.empty() ? fs::path(".") : dir, std::strerror(errno));
    return std::nullopt;
  }
  return StagingDirectory(pattern);
}

StagingDirectory::StagingDirectory(StagingDirectory&& other) noexcept
    : path_(std::exchange(other.path_, {})) {}

StagingDirectory::~StagingDirectory() {
  if (path_.empty()) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

bool StagingDirectory::MoveInto(const fs::path& dir, const std::vector<std::string>& names,
                                std::string* error) {
  for (const std::string& name : names) {
    const fs::path target = ResolveLink(dir / name);
    std::error_code ec;
    const fs::file_status status = fs::status(target, ec);
    // A rename would replace a device or a FIFO itself, not write to it.
    if (fs::exists(status) && !fs::is_regular_file(status)) {
      *error = CannotWrite(target, "it exists and is not a regular file");
      return false;
    }
    if (::rename((path_ / name).c_str(), target.c_str()) != 0) {
      *error = CannotWrite(target, std::strerror(errno));
      return false;
    }
  }
  return true;
}

bool WriteOutputFile(const fs::path& target, ByteView bytes, std::string* error) {
  std::optional<OutputFile> file = OutputFile::Open(target, error);
  if (!file) return false;
  file->stream().write(reinterpret_cast<const char*>(bytes.data()),
                       static_cast<std::streamsize>(bytes.size()));
  return file->Commit(error);
}

bool MakeDirectories(const fs::path& dir, std::string* error) {
  if (dir.empty()) {
    *error = "cannot create a directory with an empty name";
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && fs::is_directory(dir, ec)) return true;
  *error = Str("cannot create the directory ", Quoted(dir.string()), ": ",
               ec ? ec.message() : "a file of that name is in the way");
  return false;
}

std::optional<std::string> UnsafeFileName(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (name == "." || name == "..") return Str(Quoted(name), " names a directory");
  for (const char c : name) {
    if (c == '/' || c == '\\') return Str(Quoted(name), " contains a path separator");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return Str(Quoted(name), " contains a control character");
  }
  return std::nullopt;
}

std::optional<fs::path> FileInside(const fs::path& dir, std::string_view name,
                                   std::string_view extension, std::string* error) {
  if (const auto reason = UnsafeFileName(name)) {
    *error = Str("will not write outside ", Quoted(dir.string()), ": ", *reason);
    return std::nullopt;
  }
  return dir / Str(name, extension);
}

}  // namespace accelcheck
