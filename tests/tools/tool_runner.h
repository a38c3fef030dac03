// Runs the accelcheck executable in a shell and collects its exit code and
// output, for the end-to-end tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace accelcheck::testing {

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ShellQuote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string ReadWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A directory of its own under the system temp directory, removed at the end.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("accelcheck_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    const std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

// `accelcheck args...`, standard input from `stdin_file` (or /dev/null).
inline ToolRun RunTool(const std::vector<std::string>& args,
                       const std::string& stdin_file = "/dev/null") {
  static const TempDir kCapture("capture");
  const std::filesystem::path out = kCapture.path() / "stdout";
  const std::filesystem::path err = kCapture.path() / "stderr";
  std::string command = ShellQuote(ACCELCHECK_EXE);
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  command += " <" + ShellQuote(stdin_file) + " >" + ShellQuote(out.string()) + " 2>" +
             ShellQuote(err.string());
  const int status = std::system(command.c_str());
  ToolRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadWhole(out);
  run.err = ReadWhole(err);
  return run;
}

}  // namespace accelcheck::testing
