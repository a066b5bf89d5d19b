// PcapSource and PcapSink: round trips, malformed records, link types and replay timing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.h"
#include "wire/frame_size.h"
#include "wire/pcap_sink.h"
#include "wire/pcap_source.h"

namespace gnf::wire {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gnf-wire-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

struct Record {
  uint32_t sec = 0;
  uint32_t nsec = 0;
  std::vector<uint8_t> bytes;  // what is captured
  uint32_t len = 0;            // length on the wire; 0 = bytes.size()
};

std::vector<uint8_t> make_frame(uint32_t len, uint8_t seed) {
  std::vector<uint8_t> f(len);
  for (uint32_t i = 0; i < len; ++i) f[i] = uint8_t(seed + i * 7);
  return f;
}

void put32(FILE* f, uint32_t v) { fwrite(&v, 4, 1, f); }
void put16(FILE* f, uint16_t v) { fwrite(&v, 2, 1, f); }

// A nanosecond pcap file written field by field (host byte order, as the format allows), so the
// tests do not depend on the code under test to make their input. `cut` drops that many bytes
// from the end of the file.
void write_pcap(const std::string& path, uint32_t linktype, const std::vector<Record>& records, long cut = 0) {
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  put32(f, 0xa1b23c4d);  // nanosecond magic
  put16(f, 2);
  put16(f, 4);
  put32(f, 0);  // thiszone
  put32(f, 0);  // sigfigs
  put32(f, 65535);
  put32(f, linktype);
  for (const Record& r : records) {
    put32(f, r.sec);
    put32(f, r.nsec);
    put32(f, uint32_t(r.bytes.size()));
    put32(f, r.len ? r.len : uint32_t(r.bytes.size()));
    fwrite(r.bytes.data(), 1, r.bytes.size(), f);
  }
  long size = ftell(f);
  fclose(f);
  if (cut) fs::resize_file(path, size_t(size - cut));
}

struct Got {
  std::vector<uint8_t> bytes;
  uint64_t time_ns;
};

std::vector<Got> read_all(PcapSource& src, uint64_t start_ns = 0) {
  src.start(start_ns);
  std::vector<Got> out;
  Frame fr;
  while (src.next(fr) == wire::Next::Frame) out.push_back({std::vector<uint8_t>(fr.data, fr.data + fr.len), fr.time_ns});
  return out;
}

constexpr uint32_t kDltEn10mb = 1;
constexpr uint32_t kDltRaw = 101;

TEST(PcapSinkAndSource, WriteThenReadKeepsBytesAndOrder) {
  TempDir dir;
  std::string path = dir.file("rt.pcap");
  std::vector<std::vector<uint8_t>> frames = {make_frame(60, 1), make_frame(1514, 2), make_frame(14, 3),
                                              make_frame(9014, 4), make_frame(61, 5)};
  PcapSink sink(path);
  for (size_t i = 0; i < frames.size(); ++i) sink.deliver(frames[i].data(), uint32_t(frames[i].size()), 1000 + i);
  sink.finish();
  EXPECT_EQ(sink.frames(), frames.size());

  PcapSource src({.file = path});
  std::vector<Got> got = read_all(src);
  ASSERT_EQ(got.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(got[i].bytes, frames[i]) << "frame " << i;
  EXPECT_EQ(src.counters().frames, frames.size());
  EXPECT_EQ(src.counters().bytes, 60u + 1514 + 14 + 9014 + 61);
  EXPECT_EQ(src.counters().malformed, 0u);
}

TEST(PcapSinkAndSource, SinkTimestampsKeepTheGapsBetweenDeliveries) {
  TempDir dir;
  std::string path = dir.file("gaps.pcap");
  auto frame = make_frame(60, 9);
  {
    PcapSink sink(path);
    for (uint64_t t : {5'000'000'000ull, 5'000'000'123ull, 5'001'000'123ull}) sink.deliver(frame.data(), 60, t);
  }  // the destructor closes the file
  PcapSource src({.file = path, .timing = PcapSourceOptions::Timing::Original});
  std::vector<Got> got = read_all(src, 77);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].time_ns, 77u);
  EXPECT_EQ(got[1].time_ns, 77u + 123);
  EXPECT_EQ(got[2].time_ns, 77u + 1'000'123);
}

TEST(PcapSource, TruncatedRecordIsCountedMalformedAndTheNextOneIsRead) {
  TempDir dir;
  std::string path = dir.file("snap.pcap");
  write_pcap(path, kDltEn10mb,
             {{0, 0, make_frame(60, 1)}, {0, 10, make_frame(20, 2), 60}, {0, 20, make_frame(70, 3)}});
  PcapSource src({.file = path});
  std::vector<Got> got = read_all(src);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].bytes, make_frame(60, 1));
  EXPECT_EQ(got[1].bytes, make_frame(70, 3));
  EXPECT_EQ(src.counters().malformed, 1u);
  EXPECT_EQ(src.counters().frames, 2u);
}

TEST(PcapSource, RuntAndGiantRecordsAreDeliveredForThePortsMacToJudge) {
  TempDir dir;
  std::string path = dir.file("odd.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, make_frame(13, 1)}, {0, 1, make_frame(9015, 2)}, {0, 2, make_frame(60, 3)}});
  PcapSource src({.file = path});
  EXPECT_EQ(read_all(src).size(), 3u);
  EXPECT_EQ(src.counters().malformed, 0u);
}

TEST(PcapSource, RecordOfNoBytesIsMalformedAndTheNextOneIsRead) {
  TempDir dir;
  std::string path = dir.file("empty.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, {}}, {0, 1, make_frame(60, 1)}});
  PcapSource src({.file = path});
  std::vector<Got> got = read_all(src);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].bytes, make_frame(60, 1));
  EXPECT_EQ(src.counters().malformed, 1u);
}

TEST(PcapSource, RecordCutOffAtTheEndOfTheFileIsMalformedAndEndsTheFile) {
  TempDir dir;
  std::string path = dir.file("cut.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, make_frame(60, 1)}, {0, 1, make_frame(60, 2)}}, 10);
  PcapSource src({.file = path, .repeat = 2});
  EXPECT_EQ(read_all(src).size(), 2u);  // the first record of each pass
  EXPECT_EQ(src.counters().malformed, 2u);
}

TEST(PcapSource, FileWithoutASendableFrameIsReadOnceWhateverTheRepeatCount) {
  TempDir dir;
  std::string path = dir.file("none.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, make_frame(20, 1), 60}});
  PcapSource src({.file = path, .repeat = 4'000'000'000u});
  EXPECT_TRUE(read_all(src).empty());
  EXPECT_EQ(src.counters().malformed, 1u);
}

TEST(PcapSource, NonEthernetLinkTypeThrowsUserErrorNamingTheFile) {
  TempDir dir;
  std::string path = dir.file("rawip.pcap");
  write_pcap(path, kDltRaw, {{0, 0, make_frame(40, 1)}});
  try {
    PcapSource src({.file = path});
    FAIL() << "no exception";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(PcapSource, MissingFileThrowsUserErrorNamingTheFile) {
  TempDir dir;
  std::string path = dir.file("missing.pcap");
  try {
    PcapSource src({.file = path});
    FAIL() << "no exception";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(PcapSource, BadTimingOptionsThrowUserError) {
  TempDir dir;
  std::string path = dir.file("ok.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, make_frame(60, 1)}});
  using T = PcapSourceOptions::Timing;
  EXPECT_THROW(PcapSource({.file = path, .timing = T::Rate}), UserError);
  EXPECT_THROW(PcapSource({.file = path, .timing = T::Rate, .rate_pps = 1, .rate_gbps_l1 = 1}), UserError);
  EXPECT_THROW(PcapSource({.file = path, .timing = T::Max, .rate_pps = 1}), UserError);
  EXPECT_THROW(PcapSource({.file = path, .repeat = 0}), UserError);
}

TEST(PcapSource, OriginalTimingKeepsInterRecordGapsAcrossRepeats) {
  TempDir dir;
  std::string path = dir.file("orig.pcap");
  write_pcap(path, kDltEn10mb,
             {{10, 100, make_frame(60, 1)}, {10, 600, make_frame(60, 2)}, {11, 2600, make_frame(60, 3)}});
  PcapSource src({.file = path, .timing = PcapSourceOptions::Timing::Original, .repeat = 2});
  std::vector<Got> got = read_all(src, 1'000'000);
  ASSERT_EQ(got.size(), 6u);
  uint64_t span = 1'000'002'500;  // last record minus first
  std::vector<uint64_t> want = {1'000'000, 1'000'500, 1'000'000 + span};
  for (uint64_t t : {want[0], want[1], want[2]}) want.push_back(t + span);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].time_ns, want[i]) << "frame " << i;
}

// The pcap format's seconds are an unsigned 32-bit field, which libpcap hands over as a signed
// time_t: 0xffffffff came back as -1 s and scheduled the frame before the start (pcap_reader_fuzz).
TEST(PcapSource, OriginalTimingOfTheLargestTimestampsNeverWrapsBeforeTheStart) {
  TempDir dir;
  std::string path = dir.file("far.pcap");
  write_pcap(path, kDltEn10mb,
             {{0, 0, make_frame(60, 1)}, {0xffffffffu, 999'999'999, make_frame(60, 2)}, {1, 0, make_frame(60, 3)}});
  PcapSource src({.file = path, .timing = PcapSourceOptions::Timing::Original, .repeat = 1000});
  src.start(1'000'000);
  Frame fr;
  uint64_t frames = 0;
  for (; frames < 3000 && src.next(fr) == wire::Next::Frame; ++frames) EXPECT_GE(fr.time_ns, 1'000'000u) << frames;
  EXPECT_EQ(frames, 3000u);
}

TEST(PcapSource, RateTimingAt1MppsSpacesFrames1000ns) {
  TempDir dir;
  std::string path = dir.file("rate.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, make_frame(60, 1)}, {0, 5, make_frame(1514, 2)}, {0, 9, make_frame(100, 3)}});
  PcapSource src({.file = path, .timing = PcapSourceOptions::Timing::Rate, .rate_pps = 1e6, .repeat = 2});
  std::vector<Got> got = read_all(src, 500);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].time_ns, 500 + 1000 * i);
}

TEST(PcapSource, RateTimingInGbpsSpacesFramesByTheirLayer1Bytes) {
  TempDir dir;
  std::string path = dir.file("gbps.pcap");
  write_pcap(path, kDltEn10mb, {{0, 0, make_frame(60, 1)}, {0, 0, make_frame(1514, 2)}, {0, 0, make_frame(60, 3)}});
  PcapSource src({.file = path, .timing = PcapSourceOptions::Timing::Rate, .rate_gbps_l1 = 10});
  std::vector<Got> got = read_all(src, 0);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].time_ns, 0u);
  EXPECT_EQ(got[1].time_ns, 67u);  // 84 B * 8 / 10 Gbit/s = 67.2 ns, rounded
  EXPECT_EQ(got[2].time_ns, 1298u);  // (84 + 1538) B * 8 / 10 Gbit/s = 1297.6 ns
}

TEST(PcapSource, MaxTimingSendsAtOnceAndRepeatReplaysTheFile) {
  TempDir dir;
  std::string path = dir.file("max.pcap");
  write_pcap(path, kDltEn10mb, {{1, 0, make_frame(60, 1)}, {2, 0, make_frame(61, 2)}});
  PcapSource src({.file = path, .repeat = 3});
  std::vector<Got> got = read_all(src, 12345);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].time_ns, 0u);
    EXPECT_EQ(got[i].bytes, make_frame(60 + uint32_t(i % 2), uint8_t(1 + i % 2)));
  }
  Frame fr;
  EXPECT_EQ(src.next(fr), wire::Next::Exhausted);  // for good
}

TEST(PcapSink, UnwritablePathThrowsUserErrorNamingTheFile) {
  std::string path = "/nonexistent-dir-for-gnf/out.pcap";
  try {
    PcapSink sink(path);
    FAIL() << "no exception";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gnf::wire
