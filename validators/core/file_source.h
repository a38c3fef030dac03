// Where a validation reads the files besides its input: the companions the
// user names and the files the input names or has beside it (a .ptd, a
// frontend IR, a Tensil model's .tprog, .tdata and .tarch). The command line
// reads the file system; the embedding API serves named buffers, so that it
// reads no file (docs/ARCHITECTURE.md "Companions").
#pragma once

#include <map>
#include <optional>
#include <string>

#include "validators/core/bytes.h"

namespace accelcheck {

class FileSource {
 public:
  virtual ~FileSource() = default;
  // The bytes of the file at `path`, or nothing with `error` set; a file
  // larger than `max_size` is refused before it is read.
  virtual std::optional<InputBuffer> Read(const std::string& path, uint64_t max_size,
                                          std::string* error) const = 0;
  // Whether a regular file is at `path`, without reading it: a file looked up
  // beside the input is read only when it is there (a FIFO would block).
  virtual bool HasFile(const std::string& path) const = 0;
};

// The file system, through ReadFileLimited.
const FileSource& FileSystem();

// Files held in memory by name. Names are compared after lexical
// normalisation ("./a/../b.ptd" is "b.ptd"); the bytes are not owned and must
// outlive the source.
class MemoryFiles final : public FileSource {
 public:
  void Add(const std::string& name, ByteView bytes);

  std::optional<InputBuffer> Read(const std::string& path, uint64_t max_size,
                                  std::string* error) const override;
  bool HasFile(const std::string& path) const override;

 private:
  std::map<std::string, ByteView, std::less<>> files_;
};

}  // namespace accelcheck
