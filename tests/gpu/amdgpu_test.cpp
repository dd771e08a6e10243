// amdgpu sysfs and DRM fdinfo: the pure parsers on literal strings (real
// shapes, malformed, truncated and binary input), then AmdGpuReader and
// DrmFdinfoScanner on the fixture tree tests/fixtures/amdgpu/{sys,proc}.
#include "gpu/amd/amdgpu.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "gpu/amd/fdinfo.h"
#include "support/test_paths.h"

namespace llmon::gpu::amd {
namespace {

using namespace std::string_view_literals;

// ---- Numbers and strings ----------------------------------------------------

TEST(AmdgpuParse, SysfsNumbers) {
  EXPECT_EQ(*parse_sysfs_u64("37\n"), 37u);
  EXPECT_EQ(*parse_sysfs_u64(" 68702699520 \n"), 68702699520u);
  EXPECT_EQ(*parse_sysfs_u64("0"), 0u);
  EXPECT_FALSE(parse_sysfs_u64(""));
  EXPECT_FALSE(parse_sysfs_u64("\n"));
  EXPECT_FALSE(parse_sysfs_u64("-1\n"));
  EXPECT_FALSE(parse_sysfs_u64("12a\n"));
  EXPECT_FALSE(parse_sysfs_u64("1e3"));
  EXPECT_FALSE(parse_sysfs_u64("18446744073709551616"));  // 2^64
  EXPECT_FALSE(parse_sysfs_u64("\x01\xff\x80"sv));
  EXPECT_EQ(*parse_sysfs_i64("-5000\n"), -5000);
  EXPECT_EQ(*parse_sysfs_i64("45000\n"), 45000);
  EXPECT_FALSE(parse_sysfs_i64("45.5\n"));
  auto err = parse_sysfs_u64("bogus\n");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().find("\"bogus?\""), std::string::npos) << err.error();
}

TEST(AmdgpuParse, PciId) {
  EXPECT_EQ(*parse_pci_id("0x1002\n"), 0x1002u);
  EXPECT_EQ(*parse_pci_id("0X744C"), 0x744cu);
  EXPECT_EQ(*parse_pci_id("0x740f\n"), 0x740fu);
  EXPECT_FALSE(parse_pci_id("1002"));
  EXPECT_FALSE(parse_pci_id("0x"));
  EXPECT_FALSE(parse_pci_id("0xzz"));
  EXPECT_FALSE(parse_pci_id("0x1234567890"));
  EXPECT_FALSE(parse_pci_id(""));
  EXPECT_FALSE(parse_pci_id("0x10 02"));
}

TEST(AmdgpuParse, SysfsString) {
  EXPECT_EQ(*parse_sysfs_string("AMD Instinct MI210\n"), "AMD Instinct MI210");
  EXPECT_EQ(*parse_sysfs_string("a7c1d3e5f7091b2d"), "a7c1d3e5f7091b2d");
  EXPECT_FALSE(parse_sysfs_string(""));
  EXPECT_FALSE(parse_sysfs_string(" \n"));
  EXPECT_FALSE(parse_sysfs_string("\xff\xfe\n"sv));
  EXPECT_FALSE(
      parse_sysfs_string("a\x00"
                         "b"sv));
}

TEST(AmdgpuParse, LinkSpeed) {
  EXPECT_DOUBLE_EQ(*parse_link_speed_gts("16.0 GT/s PCIe\n"), 16.0);
  EXPECT_DOUBLE_EQ(*parse_link_speed_gts("2.5 GT/s PCIe\n"), 2.5);
  EXPECT_DOUBLE_EQ(*parse_link_speed_gts("8 GT/s\n"), 8.0);  // older kernels
  EXPECT_DOUBLE_EQ(*parse_link_speed_gts("64.0 GT/s PCIe"), 64.0);
  EXPECT_FALSE(parse_link_speed_gts("Unknown\n"));
  EXPECT_FALSE(parse_link_speed_gts("Unknown speed\n"));
  EXPECT_FALSE(parse_link_speed_gts("16.0 GB/s\n"));
  EXPECT_FALSE(parse_link_speed_gts("16.0\n"));
  EXPECT_FALSE(parse_link_speed_gts("nan GT/s"));
  EXPECT_FALSE(parse_link_speed_gts("inf GT/s"));
  EXPECT_FALSE(parse_link_speed_gts("-8 GT/s"));
  EXPECT_FALSE(parse_link_speed_gts("0 GT/s"));
  EXPECT_FALSE(parse_link_speed_gts(""));
}

// ---- pp_dpm_* --------------------------------------------------------------

TEST(AmdgpuParse, DpmInstinctFormat) {
  auto t = parse_dpm_levels("0: 500Mhz\n1: 800Mhz\n2: 1700Mhz *\n");
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->levels.size(), 3u);
  EXPECT_EQ(t->levels[0].index, 0);
  EXPECT_EQ(t->levels[0].mhz, 500u);
  EXPECT_FALSE(t->levels[0].current);
  EXPECT_EQ(t->levels[2].mhz, 1700u);
  EXPECT_TRUE(t->levels[2].current);
  ASSERT_TRUE(t->current);
  EXPECT_EQ(*t->current, 2u);
}

TEST(AmdgpuParse, DpmRdnaFormatWithTrailingBlanksAndDeepSleep) {
  // RDNA prints "%d: %uMhz %s\n": a blank after every clock; "S:" is deep sleep.
  auto t = parse_dpm_levels("S: 19Mhz *\n0: 500Mhz \n1: 2482Mhz \n");
  ASSERT_TRUE(t) << t.error();
  ASSERT_EQ(t->levels.size(), 3u);
  EXPECT_EQ(t->levels[0].index, -1);
  EXPECT_EQ(t->levels[0].mhz, 19u);
  EXPECT_EQ(*t->current, 0u);
  EXPECT_EQ(t->levels[2].index, 1);

  auto mid = parse_dpm_levels("0: 500Mhz \n1: 1840Mhz *\n2: 2482Mhz \n");
  ASSERT_TRUE(mid);
  EXPECT_EQ(mid->levels[*mid->current].mhz, 1840u);
}

TEST(AmdgpuParse, DpmUnitSpellingsAndMarkers) {
  auto upper = parse_dpm_levels("0: 96MHz\n1: 1000MHz*\n");
  ASSERT_TRUE(upper) << upper.error();
  EXPECT_EQ(upper->levels[*upper->current].mhz, 1000u);

  auto none = parse_dpm_levels("0: 500Mhz\n1: 1000Mhz\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->current);

  auto two = parse_dpm_levels("0: 500Mhz *\n1: 1000Mhz *\n");
  ASSERT_TRUE(two);
  EXPECT_EQ(*two->current, 0u);  // the first marked level

  auto no_newline = parse_dpm_levels("0: 500Mhz *");
  ASSERT_TRUE(no_newline);
  EXPECT_EQ(no_newline->levels.size(), 1u);
}

TEST(AmdgpuParse, DpmMalformed) {
  for (std::string_view bad : {""sv, "\n\n"sv, "0 500Mhz\n"sv, "0: 500\n"sv, "0: 500Mhz x\n"sv, "x: 500Mhz\n"sv,
                               "0: Mhz\n"sv, "0: 500GHz\n"sv, "0: 500Mhz * *\n"sv, "0: 500Mhz**\n"sv,
                               "0: 99999999999999999999999Mhz\n"sv, "-1: 500Mhz\n"sv, "not supported\n"sv,
                               "0: 5\x00"
                               "0Mhz\n"sv,
                               "\xff\xfe: \x80Mhz"sv}) {
    EXPECT_FALSE(parse_dpm_levels(bad)) << "accepted: " << bad;
  }
  auto err = parse_dpm_levels("0: 500Mhz\n1: fastMhz *\n");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().find("line 2"), std::string::npos) << err.error();
}

TEST(AmdgpuParse, CardNames) {
  EXPECT_EQ(parse_card_name("card0"), 0u);
  EXPECT_EQ(parse_card_name("card12"), 12u);
  EXPECT_FALSE(parse_card_name("card"));
  EXPECT_FALSE(parse_card_name("card0-DP-1"));
  EXPECT_FALSE(parse_card_name("card1-HDMI-A-1"));
  EXPECT_FALSE(parse_card_name("renderD128"));
  EXPECT_FALSE(parse_card_name("version"));
  EXPECT_FALSE(parse_card_name("Card0"));
  EXPECT_FALSE(parse_card_name("card-1"));
  EXPECT_FALSE(parse_card_name("card99999999999"));
}

// ---- fdinfo -------------------------------------------------------------------

// amdgpu on kernel 6.x, as amdgpu_show_fdinfo prints it (note "gtt: \t").
constexpr std::string_view kAmdgpuFdinfo =
    "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1123\n"
    "drm-driver:\tamdgpu\ndrm-client-id:\t11\ndrm-pdev:\t0000:03:00.0\npasid:\t32770\n"
    "drm-memory-vram:\t4194304 KiB\ndrm-memory-gtt: \t2048 KiB\ndrm-memory-cpu: \t0 KiB\n"
    "amd-memory-visible-vram:\t0 KiB\n"
    "drm-engine-gfx:\t1500000000 ns\ndrm-engine-compute:\t250000000000 ns\ndrm-engine-dma:\t7 ns\n"
    "drm-engine-dec:\t3 ns\ndrm-engine-enc:\t4 ns\ndrm-engine-enc_1:\t9 ns\ndrm-engine-capacity-gfx:\t2\n";

TEST(AmdgpuFdinfo, AmdgpuKeys) {
  auto f = parse_drm_fdinfo(kAmdgpuFdinfo);
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->driver, "amdgpu");
  EXPECT_EQ(f->pdev, "0000:03:00.0");
  EXPECT_EQ(f->client_id, 11u);
  EXPECT_EQ(f->vram_bytes, 4194304ull * 1024);
  EXPECT_EQ(f->gtt_bytes, 2048ull * 1024);
  EXPECT_EQ(f->engine_ns[size_t(DrmEngine::kGfx)], 1500000000u);
  EXPECT_EQ(f->engine_ns[size_t(DrmEngine::kCompute)], 250000000000u);
  EXPECT_EQ(f->engine_ns[size_t(DrmEngine::kDec)], 3u);  // not dec_1 or the capacity line
  EXPECT_EQ(f->engine_ns[size_t(DrmEngine::kEnc)], 4u);  // not enc_1
}

TEST(AmdgpuFdinfo, GenericKeysAndUnits) {
  // drm-memory-* absent: drm-resident-* is used; units B/KiB/MiB/GiB or none.
  auto f = parse_drm_fdinfo(
      "drm-driver:\txe\ndrm-pdev:\t0000:00:02.0\ndrm-resident-vram:\t3 MiB\n"
      "drm-resident-gtt:\t5\ndrm-total-vram:\t9 GiB\n");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->driver, "xe");
  EXPECT_FALSE(f->client_id);
  EXPECT_EQ(f->vram_bytes, 3ull << 20);
  EXPECT_EQ(f->gtt_bytes, 5u);
  for (const auto& e : f->engine_ns) EXPECT_FALSE(e);

  auto both = parse_drm_fdinfo("drm-resident-vram:\t1 GiB\ndrm-memory-vram:\t2048 KiB\n");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->vram_bytes, 2048u * 1024);  // the amdgpu key wins

  auto bare_engine = parse_drm_fdinfo("drm-engine-gfx:\t42\n");
  ASSERT_TRUE(bare_engine);
  EXPECT_EQ(bare_engine->engine_ns[0], 42u);
}

TEST(AmdgpuFdinfo, NotDrmAndJunkLines) {
  auto plain = parse_drm_fdinfo("pos:\t0\nflags:\t0100002\nmnt_id:\t25\nino:\t5\n");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->driver.empty());
  EXPECT_FALSE(plain->vram_bytes);

  auto junk = parse_drm_fdinfo("garbage without colon\n:\n::::\ndrm-driver:\tamdgpu\nfoo: bar baz\n");
  ASSERT_TRUE(junk) << junk.error();
  EXPECT_EQ(junk->driver, "amdgpu");
  EXPECT_TRUE(parse_drm_fdinfo(""));
}

TEST(AmdgpuFdinfo, BadValuesNameTheLine) {
  for (std::string_view bad :
       {"drm-memory-vram:\tlots KiB\n"sv, "drm-memory-vram:\t4 TiB\n"sv, "drm-memory-gtt:\t1 KiB extra\n"sv,
        "drm-memory-vram:\t\n"sv, "drm-client-id:\t-3\n"sv, "drm-engine-gfx:\t5 ms\n"sv,
        "drm-engine-compute:\t1.5 ns\n"sv, "drm-memory-vram:\t18446744073709551615 KiB\n"sv,
        "drm-resident-vram:\t99999999999999999999\n"sv}) {
    EXPECT_FALSE(parse_drm_fdinfo(bad)) << "accepted: " << bad;
  }
  auto err = parse_drm_fdinfo("drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-memory-vram:\tx KiB\n");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().find("line 3"), std::string::npos) << err.error();
  EXPECT_NE(err.error().find("drm-memory-vram"), std::string::npos) << err.error();
}

TEST(AmdgpuParse, BinaryInputNeverCrashes) {
  std::mt19937 rng(1234);
  std::string buf;
  for (int i = 0; i < 2000; ++i) {
    buf.resize(rng() % 96);
    for (auto& c : buf) c = static_cast<char>(rng());
    // Sprinkle structure so the parsers get past the first check sometimes.
    if (i % 3 == 0) buf = "0: " + buf + "Mhz *\n";
    if (i % 3 == 1) buf = "drm-memory-vram:\t" + buf + "\n";
    (void)parse_sysfs_u64(buf);
    (void)parse_sysfs_i64(buf);
    (void)parse_pci_id(buf);
    (void)parse_sysfs_string(buf);
    (void)parse_link_speed_gts(buf);
    (void)parse_card_name(buf);
    auto d = parse_dpm_levels(buf);
    if (d && d->current) {
      EXPECT_LT(*d->current, d->levels.size());
    }
    (void)parse_drm_fdinfo(buf);
  }
}

// ---- AmdGpuReader on the fixture tree -------------------------------------------

procfs::Fs fixture_fs() {
  procfs::Fs fs;
  fs.sys_root = testing::fixture("amdgpu/sys");
  fs.proc_root = testing::fixture("amdgpu/proc");
  fs.root = testing::fixture("amdgpu/rootfs");
  return fs;
}

TEST(AmdgpuReader, FixtureCards) {
  AmdGpuReader r(fixture_fs());
  std::vector<AmdGpuSample> s;
  ASSERT_TRUE(r.read(1000, s));
  // card1 (i915) and the connector / render entries are skipped.
  ASSERT_EQ(s.size(), 2u);

  const AmdGpuSample& a = s[0];  // MI210-like, every file
  EXPECT_EQ(a.id.gpu, "0");
  EXPECT_EQ(a.id.device, "card0");
  EXPECT_EQ(a.id.pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(a.id.uuid, "a7c1d3e5f7091b2d");
  EXPECT_EQ(a.id.model_name, "AMD Instinct MI210");
  EXPECT_FALSE(a.id.is_mig());
  EXPECT_DOUBLE_EQ(*a.utilization_ratio, 0.37);
  EXPECT_DOUBLE_EQ(*a.memory_busy_ratio, 0.12);
  EXPECT_DOUBLE_EQ(*a.vram_total_bytes, 68702699520.0);
  EXPECT_DOUBLE_EQ(*a.vram_used_bytes, 12884901888.0);
  EXPECT_DOUBLE_EQ(*a.vis_vram_total_bytes, 68702699520.0);
  EXPECT_DOUBLE_EQ(*a.vis_vram_used_bytes, 1073741824.0);
  EXPECT_DOUBLE_EQ(*a.gtt_total_bytes, 135166136320.0);
  EXPECT_DOUBLE_EQ(*a.gtt_used_bytes, 25165824.0);
  ASSERT_EQ(a.temperatures.size(), 3u);
  EXPECT_EQ(a.temperatures[0].sensor, "edge");
  EXPECT_DOUBLE_EQ(a.temperatures[0].celsius, 45.0);
  EXPECT_EQ(a.temperatures[1].sensor, "junction");
  EXPECT_DOUBLE_EQ(a.temperatures[1].celsius, 52.0);
  EXPECT_EQ(a.temperatures[2].sensor, "mem");
  EXPECT_DOUBLE_EQ(a.temperatures[2].celsius, 61.0);
  EXPECT_DOUBLE_EQ(*a.power_watts, 87.0);  // power1_average preferred over power1_input (91 W)
  EXPECT_DOUBLE_EQ(*a.power_limit_watts, 300.0);
  EXPECT_DOUBLE_EQ(*a.fan_rpm, 1850.0);
  EXPECT_DOUBLE_EQ(*a.fan_ratio, 128.0 / 255.0);
  EXPECT_DOUBLE_EQ(*a.sclk_hz, 1700e6);
  EXPECT_DOUBLE_EQ(*a.mclk_hz, 1600e6);
  EXPECT_DOUBLE_EQ(*a.pcie_link_speed_gts, 16.0);
  EXPECT_DOUBLE_EQ(*a.pcie_link_width, 16.0);

  const AmdGpuSample& b = s[1];  // RX 7900-like: no driver link, files missing, pp_dpm_mclk malformed
  EXPECT_EQ(b.id.gpu, "1");
  EXPECT_EQ(b.id.device, "card2");
  EXPECT_EQ(b.id.pci_bus_id, "0000:0c:00.0");
  EXPECT_EQ(b.id.uuid, "");
  EXPECT_EQ(b.id.model_name, "AMD GPU 0x744c");
  EXPECT_DOUBLE_EQ(*b.utilization_ratio, 0.03);
  EXPECT_FALSE(b.memory_busy_ratio);
  EXPECT_DOUBLE_EQ(*b.vram_total_bytes, 25753026560.0);
  EXPECT_DOUBLE_EQ(*b.vram_used_bytes, 536870912.0);
  EXPECT_FALSE(b.vis_vram_total_bytes);
  EXPECT_FALSE(b.vis_vram_used_bytes);
  EXPECT_DOUBLE_EQ(*b.gtt_total_bytes, 33554432000.0);
  EXPECT_DOUBLE_EQ(*b.gtt_used_bytes, 10485760.0);
  ASSERT_EQ(b.temperatures.size(), 2u);  // no labels: named by index
  EXPECT_EQ(b.temperatures[0].sensor, "edge");
  EXPECT_DOUBLE_EQ(b.temperatures[0].celsius, 38.0);
  EXPECT_EQ(b.temperatures[1].sensor, "junction");
  EXPECT_DOUBLE_EQ(b.temperatures[1].celsius, 41.0);
  EXPECT_DOUBLE_EQ(*b.power_watts, 12.0);  // power1_input
  EXPECT_DOUBLE_EQ(*b.power_limit_watts, 303.0);
  EXPECT_DOUBLE_EQ(*b.fan_rpm, 0.0);
  EXPECT_FALSE(b.fan_ratio);
  EXPECT_DOUBLE_EQ(*b.sclk_hz, 1840e6);
  EXPECT_FALSE(b.mclk_hz);
  EXPECT_DOUBLE_EQ(*b.pcie_link_speed_gts, 8.0);
  EXPECT_DOUBLE_EQ(*b.pcie_link_width, 16.0);

  // A second read gives the same (files kept open and re-read).
  std::vector<AmdGpuSample> again;
  ASSERT_TRUE(r.read(2000, again));
  ASSERT_EQ(again.size(), 2u);
  EXPECT_DOUBLE_EQ(*again[0].utilization_ratio, 0.37);
  EXPECT_EQ(again[1].temperatures.size(), 2u);
}

TEST(AmdgpuReader, NoDrmClassIsNoCards) {
  procfs::Fs fs;
  fs.sys_root = testing::fixture("amdgpu/proc");  // exists, has no class/drm
  AmdGpuReader r(fs);
  std::vector<AmdGpuSample> s(1);
  ASSERT_TRUE(r.read(1000, s));
  EXPECT_TRUE(s.empty());
}

class TempSys {
 public:
  TempSys() {
    char tmpl[] = "/tmp/llmon-amdgpu-test-XXXXXX";
    root_ = ::mkdtemp(tmpl);
    std::filesystem::copy(testing::fixture("amdgpu/sys"), root_ / "sys",
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  }
  ~TempSys() { std::filesystem::remove_all(root_); }
  std::filesystem::path path(const std::string& rel) const { return root_ / rel; }
  procfs::Fs fs() const {
    procfs::Fs fs;
    fs.sys_root = (root_ / "sys").string();
    return fs;
  }

 private:
  std::filesystem::path root_;
};

TEST(AmdgpuReader, CardNumberOrderAndRenumbering) {
  TempSys t;
  // card10 sorts after card2 by number (not byte order) and gets the next index.
  std::filesystem::create_symlink("../../devices/pci0000:00/0000:03:00.0/drm/card0", t.path("sys/class/drm/card10"));
  AmdGpuReader r(t.fs());
  std::vector<AmdGpuSample> s;
  ASSERT_TRUE(r.read(1000, s));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].id.device, "card0");
  EXPECT_EQ(s[1].id.device, "card2");
  EXPECT_EQ(s[2].id.device, "card10");
  EXPECT_EQ(s[2].id.gpu, "2");

  // An entry removed: seen on the next read, without waiting for the re-walk.
  std::filesystem::remove(t.path("sys/class/drm/card0"));
  ASSERT_TRUE(r.read(1001, s));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].id.device, "card2");
  EXPECT_EQ(s[0].id.gpu, "0");
}

TEST(AmdgpuReader, FilesVanishing) {
  TempSys t;
  AmdGpuReader r(t.fs());
  std::vector<AmdGpuSample> s;
  ASSERT_TRUE(r.read(1000, s));
  ASSERT_EQ(s.size(), 2u);
  const std::string dev0 = "sys/devices/pci0000:00/0000:03:00.0";
  std::filesystem::remove(t.path(dev0 + "/gpu_busy_percent"));
  std::filesystem::remove_all(t.path(dev0 + "/hwmon"));
  std::filesystem::remove_all(t.path("sys/devices/pci0000:00/0000:0c:00.0"));
  ASSERT_TRUE(r.read(1001, s));  // descriptors still open: no crash, whatever they say
  ASSERT_TRUE(r.read(1000 + AmdGpuReader::kRescanMs, s));
  ASSERT_EQ(s.size(), 1u);  // card2's device directory is gone
  EXPECT_FALSE(s[0].utilization_ratio);
  EXPECT_TRUE(s[0].temperatures.empty());
  EXPECT_FALSE(s[0].power_watts);
  EXPECT_FALSE(s[0].fan_rpm);
  EXPECT_DOUBLE_EQ(*s[0].memory_busy_ratio, 0.12);  // the rest still read
  EXPECT_DOUBLE_EQ(*s[0].vram_used_bytes, 12884901888.0);
}

// ---- DrmFdinfoScanner on the fixture tree ---------------------------------------

TEST(AmdgpuFdinfoScanner, FixtureProcesses) {
  DrmFdinfoScanner sc(fixture_fs());
  std::vector<DrmProcessUsage> u;
  ASSERT_TRUE(sc.scan(u));
  // pid 3000 (fdinfo unreadable) and 4000 (no DRM descriptor) are absent;
  // pid 1000's i915 client is another driver's.
  ASSERT_EQ(u.size(), 4u);
  constexpr size_t gfx = size_t(DrmEngine::kGfx), compute = size_t(DrmEngine::kCompute), enc = size_t(DrmEngine::kEnc),
                   dec = size_t(DrmEngine::kDec);

  // pid 1000 on card0: client 11 (fds 3 and 4, counted once) + client 13 (fd 5, via card0).
  EXPECT_EQ(u[0].pid, 1000u);
  EXPECT_EQ(u[0].pdev, "0000:03:00.0");
  EXPECT_EQ(u[0].vram_bytes, (4194304ull + 1024) * 1024);
  EXPECT_EQ(u[0].gtt_bytes, 2048ull * 1024);
  EXPECT_EQ(u[0].engine_ns[gfx], 1500000000u);
  EXPECT_EQ(u[0].engine_ns[compute], 250000000000u + 500000000u);
  EXPECT_FALSE(u[0].engine_ns[enc]);
  EXPECT_FALSE(u[0].engine_ns[dec]);

  EXPECT_EQ(u[1].pid, 1000u);
  EXPECT_EQ(u[1].pdev, "0000:0c:00.0");
  EXPECT_EQ(u[1].vram_bytes, 262144ull * 1024);
  EXPECT_EQ(u[1].gtt_bytes, 512ull * 1024);
  EXPECT_EQ(u[1].engine_ns[gfx], 2000000000u);
  EXPECT_FALSE(u[1].engine_ns[compute]);
  EXPECT_EQ(u[1].engine_ns[enc], 100000000u);
  EXPECT_EQ(u[1].engine_ns[dec], 300000000u);

  EXPECT_EQ(u[2].pid, 2000u);
  EXPECT_EQ(u[2].pdev, "0000:03:00.0");
  EXPECT_EQ(u[2].vram_bytes, 8388608ull * 1024);
  EXPECT_EQ(u[2].gtt_bytes, 4096ull * 1024);
  EXPECT_EQ(u[2].engine_ns[gfx], 0u);
  EXPECT_EQ(u[2].engine_ns[compute], 7200000000000u);

  EXPECT_EQ(u[3].pid, 2000u);
  EXPECT_EQ(u[3].pdev, "0000:0c:00.0");
  EXPECT_EQ(u[3].vram_bytes, 1ull << 20);  // drm-resident-vram
  EXPECT_EQ(u[3].gtt_bytes, 0u);
  for (const auto& e : u[3].engine_ns) EXPECT_FALSE(e);
}

TEST(AmdgpuFdinfoScanner, OtherDriverAndMissingProc) {
  DrmFdinfoScanner i915(fixture_fs(), "i915");
  std::vector<DrmProcessUsage> u;
  ASSERT_TRUE(i915.scan(u));
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].pid, 1000u);
  EXPECT_EQ(u[0].pdev, "0000:00:02.0");
  EXPECT_FALSE(u[0].vram_bytes);

  procfs::Fs fs;
  fs.proc_root = testing::fixture("amdgpu/no-such-proc");
  DrmFdinfoScanner missing(fs);
  u.resize(3);
  EXPECT_FALSE(missing.scan(u));
  EXPECT_TRUE(u.empty());
}

}  // namespace
}  // namespace llmon::gpu::amd
