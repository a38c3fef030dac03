#include "validators/core/output_file.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/support/temp.h"

namespace accelcheck {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A directory of this test's own.
fs::path Fresh(const std::string& name) {
  const fs::path dir = test::ProcessTempPath(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t EntriesIn(const fs::path& dir) {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++count;
  return count;
}

TEST(OutputFile, ACommittedFileReplacesTheTarget) {
  const fs::path dir = Fresh("commit");
  std::string error;
  ASSERT_TRUE(WriteOutputFile(dir / "out.txt", AsBytes("old"), &error)) << error;
  ASSERT_TRUE(WriteOutputFile(dir / "out.txt", AsBytes("new"), &error)) << error;
  EXPECT_EQ(Read(dir / "out.txt"), "new");
  EXPECT_EQ(EntriesIn(dir), 1u) << "no temporary file is left";
}

TEST(OutputFile, AnOutputNotCommittedLeavesTheTargetAsItWas) {
  const fs::path dir = Fresh("abandon");
  std::string error;
  ASSERT_TRUE(WriteOutputFile(dir / "keep.json", AsBytes("{}"), &error)) << error;
  {
    std::optional<OutputFile> file = OutputFile::Open(dir / "keep.json", &error);
    ASSERT_TRUE(file) << error;
    file->stream() << "partial";
  }
  EXPECT_EQ(Read(dir / "keep.json"), "{}");
  EXPECT_EQ(EntriesIn(dir), 1u);
}

TEST(OutputFile, AnExistingFileKeepsItsPermissions) {
  const fs::path dir = Fresh("permissions");
  std::string error;
  ASSERT_TRUE(WriteOutputFile(dir / "f", AsBytes("a"), &error)) << error;
  fs::permissions(dir / "f", fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_TRUE(WriteOutputFile(dir / "f", AsBytes("b"), &error)) << error;
  EXPECT_EQ(fs::status(dir / "f").permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST(OutputFile, ADirectoryOrAnUnwritablePlaceIsReportedWithThePath) {
  const fs::path dir = Fresh("unwritable");
  std::string error;
  EXPECT_FALSE(WriteOutputFile(dir, AsBytes("x"), &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  EXPECT_FALSE(WriteOutputFile(dir / "missing" / "f", AsBytes("x"), &error));
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
  EXPECT_FALSE(WriteOutputFile("", AsBytes("x"), &error));
  EXPECT_FALSE(error.empty());
}

TEST(OutputFile, ADeviceIsWrittenInPlace) {
  std::string error;
  EXPECT_TRUE(WriteOutputFile("/dev/null", AsBytes("x"), &error)) << error;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(OutputFile, ALinkStaysALink) {
  const fs::path dir = Fresh("link");
  std::string error;
  ASSERT_TRUE(WriteOutputFile(dir / "real", AsBytes("a"), &error)) << error;
  fs::create_symlink(dir / "real", dir / "link");
  ASSERT_TRUE(WriteOutputFile(dir / "link", AsBytes("b"), &error)) << error;
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(Read(dir / "real"), "b");
}

TEST(MakeDirectories, CreatesParentsAndRefusesAFileInTheWay) {
  const fs::path dir = Fresh("mkdir");
  std::string error;
  EXPECT_TRUE(MakeDirectories(dir / "a" / "b", &error)) << error;
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  ASSERT_TRUE(WriteOutputFile(dir / "file", AsBytes("x"), &error)) << error;
  EXPECT_FALSE(MakeDirectories(dir / "file", &error));
  EXPECT_NE(error.find("file"), std::string::npos) << error;
  EXPECT_FALSE(MakeDirectories("", &error));
  EXPECT_FALSE(MakeDirectories("/proc/accelcheck", &error));
  EXPECT_NE(error.find("/proc/accelcheck"), std::string::npos) << error;
}

TEST(StagingDirectory, FilesMoveInOnlyWhenAskedAndTheRestIsRemoved) {
  const fs::path dir = Fresh("staging");
  std::string error;
  ASSERT_TRUE(WriteOutputFile(dir / "a", AsBytes("old"), &error)) << error;
  fs::path staged;
  {
    std::optional<StagingDirectory> staging = StagingDirectory::In(dir, &error);
    ASSERT_TRUE(staging) << error;
    staged = staging->path();
    ASSERT_TRUE(WriteOutputFile(staging->path() / "a", AsBytes("new"), &error)) << error;
    ASSERT_TRUE(WriteOutputFile(staging->path() / "b", AsBytes("dropped"), &error)) << error;
    ASSERT_TRUE(staging->MoveInto(dir, {"a"}, &error)) << error;
  }
  EXPECT_EQ(Read(dir / "a"), "new");
  EXPECT_FALSE(fs::exists(dir / "b"));
  EXPECT_FALSE(fs::exists(staged));
}

TEST(StagingDirectory, NeverReplacesADevice) {
  const fs::path dir = Fresh("staging_device");
  std::string error;
  std::optional<StagingDirectory> staging = StagingDirectory::In(dir, &error);
  ASSERT_TRUE(staging) << error;
  ASSERT_TRUE(WriteOutputFile(staging->path() / "null", AsBytes("x"), &error)) << error;
  EXPECT_FALSE(staging->MoveInto("/dev", {"null"}, &error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(UnsafeFileName, RejectsWhatWouldLeaveTheDirectory) {
  EXPECT_FALSE(UnsafeFileName("Identity:0"));
  EXPECT_FALSE(UnsafeFileName("x.y"));
  EXPECT_TRUE(UnsafeFileName(""));
  EXPECT_TRUE(UnsafeFileName("."));
  EXPECT_TRUE(UnsafeFileName(".."));
  EXPECT_TRUE(UnsafeFileName("../../escaped"));
  EXPECT_TRUE(UnsafeFileName("/etc/passwd"));
  EXPECT_TRUE(UnsafeFileName("a\\b"));
  EXPECT_TRUE(UnsafeFileName("a\nb"));
  EXPECT_TRUE(UnsafeFileName(std::string_view("a\0b", 3)));
}

TEST(FileInside, JoinsASafeNameAndRefusesAnUnsafeOne) {
  std::string error;
  EXPECT_EQ(FileInside("out", "y", ".npy", &error), fs::path("out/y.npy"));
  EXPECT_FALSE(FileInside("out", "../y", ".npy", &error));
  EXPECT_NE(error.find("outside"), std::string::npos) << error;
}

}  // namespace
}  // namespace accelcheck
