// The files accelcheck writes (docs/ARCHITECTURE.md "Limits and safety"):
// a failure never leaves a partial file in place of an existing one, never
// escapes the directory the user named, and is reported, never thrown.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck {

// An output being written. The bytes go to a temporary file beside the
// target, and Commit renames it over the target, so that the target keeps its
// old content until the new one is complete. A target that exists and is not
// a regular file (/dev/null, /dev/stdout, a FIFO) is written in place.
class OutputFile {
 public:
  // Nothing, with the reason in `error`, when the target is a directory or
  // its directory cannot be written.
  static std::optional<OutputFile> Open(const std::filesystem::path& target, std::string* error);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile();  // removes the temporary file of an output not committed

  std::ostream& stream() { return stream_; }
  const std::filesystem::path& target() const { return target_; }

  // Flushes, closes and puts the file in place; false with the reason when
  // a write or the rename failed (the temporary file is removed then).
  bool Commit(std::string* error);

 private:
  OutputFile(std::filesystem::path target, std::filesystem::path temporary);

  std::filesystem::path target_;
  std::filesystem::path temporary_;  // empty when writing in place
  std::ofstream stream_;
};

// A private directory beside the outputs, for files that must be complete
// and checked together before any of them replaces a file of the user's
// (the three files of a Tensil model). Removed, with what is left in it,
// when it goes out of scope.
class StagingDirectory {
 public:
  // A new directory inside `dir`, or nothing with the reason.
  static std::optional<StagingDirectory> In(const std::filesystem::path& dir, std::string* error);

  StagingDirectory(StagingDirectory&& other) noexcept;
  StagingDirectory& operator=(StagingDirectory&&) = delete;
  ~StagingDirectory();

  const std::filesystem::path& path() const { return path_; }

  // Moves each staged file `name` to `dir` / `name`, replacing what is there.
  bool MoveInto(const std::filesystem::path& dir, const std::vector<std::string>& names,
                std::string* error);

 private:
  explicit StagingDirectory(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;  // empty once moved from
};

// Writes `bytes` to `target` through an OutputFile.
bool WriteOutputFile(const std::filesystem::path& target, ByteView bytes, std::string* error);

// Creates `dir` and its missing parents. False, with the path and the
// reason, when it cannot or something other than a directory is in the way.
bool MakeDirectories(const std::filesystem::path& dir, std::string* error);

// Why `name`, taken from an input, cannot name a file inside an output
// directory: empty, "." or "..", a path separator, or a control character.
// Nothing when it can.
std::optional<std::string> UnsafeFileName(std::string_view name);

// `dir` / (`name` + `extension`), or nothing with the reason when `name` is
// unsafe.
std::optional<std::filesystem::path> FileInside(const std::filesystem::path& dir,
                                                std::string_view name, std::string_view extension,
                                                std::string* error);

}  // namespace accelcheck
