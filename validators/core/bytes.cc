#include "validators/core/bytes.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <system_error>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace accelcheck {

namespace {
constexpr std::align_val_t kAlignment{16};
// Files from this size on are mapped rather than copied.
constexpr uint64_t kMapThreshold = uint64_t{1} << 20;

uint8_t* AllocateAligned(size_t size) {
  // One extra byte so that an empty input still has a valid, aligned pointer.
  return static_cast<uint8_t*>(::operator new(size + 1, kAlignment));
}
}  // namespace

void detail::InputFree::operator()(uint8_t* p) const {
  if (adopted) return;  // the vector frees its own
  if (mapped_length != 0) {
    munmap(p, mapped_length);
  } else {
    ::operator delete(p, kAlignment);
  }
}

uint64_t InputBuffer::ReleaseBetween(uint64_t from, uint64_t to) const {
  if (!mapped()) return from;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t begin = (std::min<uint64_t>(from, size_) + page - 1) / page * page;
  const uint64_t end = std::min<uint64_t>(to, size_) / page * page;
  if (end <= begin) return from;
  // Advice only: on failure the pages simply stay resident.
  madvise(data_.get() + begin, end - begin, MADV_DONTNEED);
  return end;
}

struct InputBuffer::Discard {
  Restore restore;
  std::atomic<bool> discarded{false};
};

InputBuffer InputBuffer::AdoptDiscardable(std::vector<uint8_t> bytes, Restore restore) {
  InputBuffer buffer = Adopt(std::move(bytes));
  buffer.discard_ = std::make_shared<Discard>();
  buffer.discard_->restore = std::move(restore);
  return buffer;
}

uint64_t InputBuffer::DiscardBetween(uint64_t from, uint64_t to) const {
  if (discard_ == nullptr) return ReleaseBetween(from, to);
  // The whole pages inside [from, to), by address: heap bytes need not start
  // on a page.
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<uintptr_t>(data_.get());
  const uintptr_t begin = (base + std::min<uint64_t>(from, size_) + page - 1) / page * page;
  const uintptr_t end = (base + std::min<uint64_t>(to, size_)) / page * page;
  if (end <= begin) return from;
  discard_->discarded.store(true, std::memory_order_relaxed);
  // Advice only: on failure the pages simply stay resident.
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
  return end - base;
}

bool InputBuffer::discarded() const {
  return discard_ != nullptr && discard_->discarded.load(std::memory_order_relaxed);
}

std::optional<InputBuffer> InputBuffer::Restored() const {
  if (discard_ == nullptr || !discard_->restore) return std::nullopt;
  return discard_->restore();
}

InputBuffer InputBuffer::CopyOf(uint64_t offset, uint64_t size) const {
  if (!mapped()) return Copy(bytes().subspan(offset, size));
  constexpr uint64_t kChunk = uint64_t{16} << 20;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  InputBuffer buffer;
  buffer.data_.reset(AllocateAligned(size));
  buffer.size_ = size;
  for (uint64_t done = 0; done < size; done += std::min(kChunk, size - done)) {
    const uint64_t n = std::min(kChunk, size - done);
    std::memcpy(buffer.data_.get() + done, data_.get() + offset + done, n);
    // The whole pages of the source chunk, as advice: on failure they stay.
    const uint64_t first = (offset + done + page - 1) / page * page;
    const uint64_t end = (offset + done + n) / page * page;
    if (end > first) madvise(data_.get() + first, end - first, MADV_DONTNEED);
  }
  return buffer;
}

InputBuffer InputBuffer::Copy(ByteView bytes) {
  InputBuffer buffer;
  buffer.data_.reset(AllocateAligned(bytes.size()));
  if (!bytes.empty()) std::memcpy(buffer.data_.get(), bytes.data(), bytes.size());
  buffer.size_ = bytes.size();
  return buffer;
}

InputBuffer InputBuffer::Adopt(std::vector<uint8_t> bytes) {
  if (bytes.empty() ||
      reinterpret_cast<uintptr_t>(bytes.data()) % static_cast<size_t>(kAlignment) != 0) {
    return Copy(bytes);
  }
  InputBuffer buffer;
  buffer.size_ = bytes.size();
  buffer.adopted_ = std::move(bytes);
  buffer.data_ = std::unique_ptr<uint8_t[], detail::InputFree>(buffer.adopted_.data(),
                                                               detail::InputFree{0, true});
  return buffer;
}

std::string FileTooLarge(uint64_t size, uint64_t max_size) {
  return "file size " + std::to_string(size) + " exceeds --max-file-size " +
         std::to_string(max_size);
}

std::optional<InputBuffer> ReadFileLimited(const std::string& path, uint64_t max_size,
                                           std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    // std::strerror may share one buffer between threads (validate --jobs).
    *error = std::generic_category().message(errno);
    return std::nullopt;
  }
  struct stat info;
  if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
    *error = "not a regular file";
    std::fclose(file);
    return std::nullopt;
  }
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > max_size) {
    *error = FileTooLarge(size, max_size);
    std::fclose(file);
    return std::nullopt;
  }
  InputBuffer buffer;
  // A file system that cannot map the file is read like a small file.
  void* mapping = size >= kMapThreshold
                      ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fileno(file), 0)
                      : MAP_FAILED;
  if (mapping != MAP_FAILED) {
    std::fclose(file);
    madvise(mapping, size, MADV_SEQUENTIAL);
    buffer.data_ = std::unique_ptr<uint8_t[], detail::InputFree>(static_cast<uint8_t*>(mapping),
                                                                 detail::InputFree{size});
    buffer.size_ = size;
    return buffer;
  }
  buffer.data_.reset(AllocateAligned(size));
  buffer.size_ = size;
  const size_t read = size == 0 ? 0 : std::fread(buffer.data_.get(), 1, size, file);
  std::fclose(file);
  if (read != size) {
    *error = "short read";
    return std::nullopt;
  }
  return buffer;
}

}  // namespace accelcheck
