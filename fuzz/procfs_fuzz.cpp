// Fuzz target: every /proc and /sys text parser. The first input byte picks
// the parser, the rest is the file's text. Parsers must return errors, never
// crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>

#include "procfs/clocksource.h"
#include "procfs/cpu_list.h"
#include "procfs/diskstats.h"
#include "procfs/hwmon.h"
#include "procfs/loadavg.h"
#include "procfs/meminfo.h"
#include "procfs/mounts.h"
#include "procfs/net_class.h"
#include "procfs/net_dev.h"
#include "procfs/os_release.h"
#include "procfs/pressure.h"
#include "procfs/process_stat.h"
#include "procfs/stat.h"
#include "procfs/thermal.h"
#include "procfs/udev.h"
#include "procfs/vmstat.h"

using namespace llmon::procfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 16) {
    case 0: (void)parse_stat(text); break;
    case 1: (void)parse_meminfo(text); break;
    case 2: (void)parse_vmstat(text); break;
    case 3: (void)parse_loadavg(text); break;
    case 4: (void)parse_pressure(text); break;
    case 5: (void)parse_net_dev(text); break;
    case 6: (void)parse_diskstats(text); break;
    case 7: (void)parse_mounts(text); break;
    case 8: (void)parse_os_release(text); break;
    case 9: (void)parse_process_stat(text); (void)parse_process_limits(text); break;
    case 10: (void)parse_cpu_list(text); break;
    case 11: (void)parse_hwmon_value(text); (void)parse_hwmon_filename(text); break;
    case 12: (void)parse_thermal_temp_celsius(text, "fuzz"); (void)parse_sysfs_int(text, "fuzz"); break;
    case 13: (void)parse_go_int(text); break;
    case 14: (void)parse_udev_properties(text); break;
    case 15: {
      Clocksource cs;
      size_t half = text.size() / 2;
      parse_clocksource(text.substr(0, half), text.substr(half), cs);
      break;
    }
  }
  return 0;
}
