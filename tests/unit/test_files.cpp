#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>

#include "util/error.h"
#include "util/files.h"

namespace gnf {
namespace {

std::string problem_reading(const std::string& path, size_t max_bytes) {
  try {
    read_input_file(path, max_bytes);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("gnf-files-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

TEST_F(Files, AWholeReadIsBoundedAndRefusesWhatIsNotAFile) {
  const std::string small = write("small.txt", std::string(100, 'x'));
  EXPECT_EQ(read_input_file(small, 100), std::string(100, 'x'));
  EXPECT_EQ(problem_reading(small, 99), small + ": is larger than 99 bytes, more than a file of its kind should be");
  EXPECT_EQ(problem_reading(dir_.string(), 100), dir_.string() + ": is a folder, not a file");
  EXPECT_EQ(problem_reading("/dev/zero", 100), "/dev/zero: is a device or a socket, not a file");
  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(problem_reading(missing, 100), missing + ": cannot read it: No such file or directory");
}

TEST_F(Files, AnOutputNeedsAFolderAndIsNotAFolder) {
  EXPECT_NO_THROW(check_output_file((dir_ / "new.pcap").string()));
  EXPECT_NO_THROW(check_output_file(write("old.pcap", "x")));
  EXPECT_THROW(check_output_file(dir_.string()), UserError);
  EXPECT_THROW(check_output_file((dir_ / "no" / "such.pcap").string()), UserError);
}

TEST_F(Files, SameFileSeesThroughOtherNamesForIt) {
  const std::string a = write("a.pcap", "x");
  std::filesystem::create_symlink(a, dir_ / "link.pcap");
  EXPECT_TRUE(same_file(a, (dir_ / "link.pcap").string()));
  EXPECT_TRUE(same_file(a, (dir_ / "." / "a.pcap").string()));
  EXPECT_FALSE(same_file(a, write("b.pcap", "x")));
  EXPECT_FALSE(same_file(a, (dir_ / "missing").string()));
}

}  // namespace
}  // namespace gnf
